#!/usr/bin/python3
"""jobs_100k.py - a controller holding 100,000 pending jobs.

Starts a private reference-shaped cluster (MaxJobCount raised to hold
them), reads slurmctld's resident memory, fills the queue with N held
jobs (`sbatch -H --wrap true` built once and sent N times by
build/bench_submit_many from four processes: no process start per job)
and reads the memory again: the growth per job. Then, on the full queue:

  sbatch -H --wrap true     one submitter, one process per job: the rate
                            a user sees once the queue is long
  squeue                    default format, every job
  squeue -h -o %i           ids only
  squeue -j <one id>        one job out of N
  scontrol ping             a request that touches no job
  main pass (sdiag)         the mean and longest main scheduling pass

--distinct gives every job an environment of its own (a variable more),
as jobs from different shells have: identical environments are stored
once, distinct ones each.

Usage: /usr/bin/python3 bench/jobs_100k.py [-n 100000] [-r 5] [--distinct]
           [--build-dir build] [--json out.json] [--keep]
"""

import argparse
import re
import sys
import time

import benchlib


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--jobs", type=int, default=100000, help="held jobs (default 100000)")
    ap.add_argument("-r", "--repeat", type=int, default=5, help="runs of each query (default 5)")
    ap.add_argument("--distinct", action="store_true", help="an environment of its own a job")
    return benchlib.add_common_args(ap).parse_args()


def timed(cluster, argv, repeat, expect_lines=None):
    lat = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = cluster.run(*argv, timeout=600)
        lat.append(time.perf_counter() - t0)
        if expect_lines is not None and len(r.stdout.splitlines()) != expect_lines:
            raise RuntimeError(f"{argv}: {len(r.stdout.splitlines())} lines, "
                               f"expected {expect_lines}")
    return round(benchlib.percentile(lat, 50) * 1000, 1)


def main():
    args = parse_args()
    h = benchlib.harness(args.build_dir, "bench_submit_many")
    cluster = h.Cluster.like_reference(name="bench",
                                       overrides={"MaxJobCount": args.jobs + 10000})
    print(f"cluster: reference-shaped in {cluster.dir}, binaries {h.BUILD_DIR}")
    cluster.start()
    results, ok = [], False
    try:
        pid = cluster.procs["slurmctld"].pid
        before = benchlib.rss_kb(pid)
        out = cluster.out("bench_submit_many", args.jobs, 4, int(args.distinct),
                          timeout=3600)
        rate = float(re.search(r"jobs/s (\d+)", out).group(1))
        after = benchlib.rss_kb(pid)
        results.append({"key": "fill", "unit": "jobs/s", "value": rate,
                        "figure": f"fill: {args.jobs} held jobs, 4 submitters, no fork"})
        results.append({"key": "kb_per_job", "figure": "controller memory per pending job"
                        + (" (distinct env)" if args.distinct else ""),
                        "value": round((after - before) / args.jobs, 2), "unit": "KB"})
        n = 50
        t0 = time.perf_counter()
        for _ in range(n):
            cluster.run("sbatch", "-H", "--parsable", "--wrap", "true")
        results.append({"key": "sbatch", "figure": "sbatch, one submitter, on the full queue",
                        "value": round(n / (time.perf_counter() - t0), 1), "unit": "jobs/s"})
        total = args.jobs + n
        ids = cluster.out("squeue", "-h", "-o", "%i", timeout=600).split()
        results.append({"key": "kb_per_job_listed",
                        "figure": "... once squeue has listed them (kept records)",
                        "value": round((benchlib.rss_kb(pid) - before) / args.jobs, 2),
                        "unit": "KB"})
        mid = ids[len(ids) // 2]
        for key, label, argv, lines in (
                ("squeue", "squeue", ["squeue"], total + 1),
                ("squeue_ids", "squeue -h -o %i", ["squeue", "-h", "-o", "%i"], total),
                ("squeue_one", "squeue -j <one id>", ["squeue", "-j", mid], 2),
                ("squeue_part", "squeue -p gpu-queue (none of them)",
                 ["squeue", "-p", "gpu-queue"], 1),
                ("ping", "scontrol ping", ["scontrol", "ping"], None)):
            results.append({"key": key, "figure": f"{label}, {total} jobs queued",
                            "value": timed(cluster, argv, args.repeat, lines), "unit": "ms"})
        diag = cluster.out("sdiag")
        mean = re.search(r"Main schedule statistics.*?Mean cycle:\s+(\d+)", diag, re.S)
        top = re.search(r"Main schedule statistics.*?Max cycle:\s+(\d+)", diag, re.S)
        if mean and top:
            results.append({"key": "sched", "figure": "main scheduling pass, mean / longest",
                            "value": f"{int(mean.group(1)) / 1000:.1f} / "
                                     f"{int(top.group(1)) / 1000:.1f}", "unit": "ms"})
        ok = True
    finally:
        status = benchlib.finish(cluster, ok, args.keep)
    if results:
        benchlib.report(results, [("figure", "figure"), ("value", "value"), ("unit", "unit")],
                        args.json)
    return status


if __name__ == "__main__":
    sys.exit(main())
