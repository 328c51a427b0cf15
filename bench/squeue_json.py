#!/usr/bin/python3
"""squeue_json.py - how long squeue --json and --yaml take on a full queue.

Starts a private cluster shaped like the reference one (tests/integration's
Cluster.like_reference), submits N held jobs (`sbatch -H --wrap true` from
four submitters, so nothing runs), then runs each command R times and
prints the wall-clock time of one run as a shell user sees it (fork and
exec, config read, munge credential, the controller's answer in pages,
writing the document) at p50 and p99:

  squeue            the text view, the baseline
  squeue --json     Slurm 22.05's v0.0.38 document of every job
  squeue --yaml     the same document through libyaml

Each --json run is parsed (json.loads) and must hold N jobs, each --yaml
run must hold N "job_id:" lines; the parse is not timed. The target
(issue 15) is squeue --json under 30 ms at 5,000 jobs; Slurm 22.05 took
1.8 s there.

Usage: /usr/bin/python3 bench/squeue_json.py [-n 5000] [-r 20]
           [--build-dir build] [--json out.json] [--keep]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import benchlib


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--jobs", type=int, default=5000, help="jobs in the queue (default 5000)")
    ap.add_argument("-r", "--repeat", type=int, default=20, help="runs of each command (default 20)")
    return benchlib.add_common_args(ap).parse_args()


def count_jobs(argv, out):
    if "--json" in argv:
        return len(json.loads(out)["jobs"])
    if "--yaml" in argv:
        return sum(1 for ln in out.splitlines() if ln.lstrip(" -").startswith("job_id:"))
    return len(out.splitlines()) - 1  # the header


def measure(cluster, argv, repeat, jobs):
    lat, size = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = cluster.run(*argv)
        lat.append(time.perf_counter() - t0)
        size = len(r.stdout)
        if count_jobs(argv, r.stdout) != jobs:
            raise RuntimeError(f"{argv}: {count_jobs(argv, r.stdout)} jobs, expected {jobs}")
    return {
        "command": " ".join(argv),
        "runs": repeat,
        "bytes": size,
        "p50_ms": round(benchlib.percentile(lat, 50) * 1000, 2),
        "p99_ms": round(benchlib.percentile(lat, 99) * 1000, 2),
    }


def main():
    args = parse_args()
    _, cluster = benchlib.start_reference(args.build_dir, "squeue")
    results, ok = [], False
    try:
        benchlib.submit_held(cluster, args.jobs)
        for argv in (["squeue"], ["squeue", "--json"], ["squeue", "--yaml"]):
            results.append(measure(cluster, argv, args.repeat, args.jobs))
        ok = True
    finally:
        status = benchlib.finish(cluster, ok, args.keep)

    print(f"\n{args.jobs} jobs in the queue, {args.repeat} runs each")
    print(f"{'command':<16} {'bytes':>10} {'p50 ms':>8} {'p99 ms':>8}")
    for r in results:
        print(f"{r['command']:<16} {r['bytes']:>10} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"jobs": args.jobs, "results": results},
                                              indent=1) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
