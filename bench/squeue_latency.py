#!/usr/bin/python3
"""squeue_latency.py - how long squeue and friends take on a full queue.

Starts a private cluster shaped like the reference one (tests/integration's
Cluster.like_reference), submits N held jobs (`sbatch -H --wrap true` from
four submitters, so nothing runs), then runs each listing command R times
and prints the wall-clock time of one run as a shell user sees it (fork and
exec, config read, munge credential, the controller's answer, formatting)
at p50 and p99:

  squeue                    default format, every job
  squeue -h -o %i           ids only (the smallest output)
  squeue -j <one id>        one job out of N
  scontrol show job <id>    one job, long form
  sinfo                     partitions (no jobs: the baseline of a call)

Comparison with real Slurm: --slurm-ref runs the same workload on the
same cluster run by Debian's Slurm 22.05 instead (slurm_ref.py; suite.py
--with-slurm runs both and prints ratios). With --compare FILE (the --json output of an equivalent run against Slurm 22.05
measured elsewhere) it prints our/reference ratios.

Usage: /usr/bin/python3 bench/squeue_latency.py [-n 2000] [-r 20]
           [--build-dir build] [--json out.json] [--compare ref.json] [--keep]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import benchlib


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--jobs", type=int, default=2000, help="jobs in the queue (default 2000)")
    ap.add_argument("-r", "--repeat", type=int, default=20, help="runs of each command (default 20)")
    return benchlib.add_common_args(ap).parse_args()



def measure(cluster, argv, repeat, expect_lines=None):
    lat = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = cluster.run(*argv)
        lat.append(time.perf_counter() - t0)
        if expect_lines is not None and len(r.stdout.splitlines()) != expect_lines:
            raise RuntimeError(f"{argv}: {len(r.stdout.splitlines())} lines, "
                               f"expected {expect_lines}")
    return {
        "command": " ".join(argv),
        "runs": repeat,
        "p50_ms": round(benchlib.percentile(lat, 50) * 1000, 2),
        "p99_ms": round(benchlib.percentile(lat, 99) * 1000, 2),
    }


def main():
    args = parse_args()
    _, cluster = benchlib.start_reference(args.build_dir, "squeue", args.slurm_ref)
    results, ok = [], False
    try:
        _, ids = benchlib.submit_held(cluster, args.jobs)
        mid = str(ids[len(ids) // 2])
        results.append(measure(cluster, ["squeue"], args.repeat, args.jobs + 1))
        results.append(measure(cluster, ["squeue", "-h", "-o", "%i"], args.repeat, args.jobs))
        results.append(measure(cluster, ["squeue", "-j", mid], args.repeat, 2))
        results.append(measure(cluster, ["scontrol", "show", "job", mid], args.repeat))
        results.append(measure(cluster, ["sinfo"], args.repeat))
        results.append(measure(cluster, ["scontrol", "ping"], args.repeat))
        ok = True
    finally:
        status = benchlib.finish(cluster, ok, args.keep)

    print(f"\n{args.jobs} jobs in the queue, {args.repeat} runs each")
    print(f"{'command':<28} {'p50 ms':>8} {'p99 ms':>8}")
    for r in results:
        print(f"{r['command']:<28} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"jobs": args.jobs, "results": results},
                                              indent=1) + "\n")
    if args.compare:
        ref = {r["command"]: r for r in json.loads(Path(args.compare).read_text())["results"]}
        print(f"\n{'command':<28} {'ours/ref p50':>12}")
        for r in results:
            if r["command"] in ref:
                print(f"{r['command']:<28} {r['p50_ms'] / ref[r['command']]['p50_ms']:>12.2f}")
    else:
        print("\nno comparison: pass --compare FILE with the --json of a --slurm-ref run")
    return status


if __name__ == "__main__":
    sys.exit(main())
