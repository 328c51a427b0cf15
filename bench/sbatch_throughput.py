#!/usr/bin/python3
"""sbatch_throughput.py - how fast our controller takes batch jobs.

Starts a private cluster shaped like the reference one (tests/integration's
Cluster.like_reference: own munged, slurmctld and six slurmd on loopback),
then submits N held jobs (`sbatch -H --parsable --wrap true`, so nothing
runs and only submission is measured):

  1. sequentially, one sbatch after the other;
  2. with P parallel submitters (threads, each running sbatch back to back),
     N jobs in all.

For each it prints jobs/s (wall clock) and the latency of one submission
(fork+exec of sbatch, config read, munge credential, RPC, the controller's
journal commit, the reply) at p50 and p99. Every submission must print an
id; a failure ends the run with status 1.

Comparison with real Slurm: --slurm-ref runs the same workload on the
same cluster run by Debian's Slurm 22.05 instead (slurm_ref.py; suite.py
--with-slurm runs both and prints ratios). With --compare FILE (the --json output of an equivalent run against Slurm 22.05
measured elsewhere) it prints our/reference ratios; without it, it says that
no comparison was made.

Usage: /usr/bin/python3 bench/sbatch_throughput.py [-n 500] [-p 4]
           [--build-dir build] [--json out.json] [--compare ref.json] [--keep]
"""

import argparse
import json
import re
import sys
import threading
import time
from pathlib import Path

import benchlib


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--jobs", type=int, default=500, help="jobs per run (default 500)")
    ap.add_argument("-p", "--parallel", type=int, default=4,
                    help="submitters in the parallel run (default 4)")
    return benchlib.add_common_args(ap).parse_args()



def submit_one(cluster, lat, ids):
    t0 = time.perf_counter()
    r = cluster.run("sbatch", "-H", "--parsable", "--wrap", "true", check=False)
    lat.append(time.perf_counter() - t0)
    if r.returncode != 0 or not re.fullmatch(r"\d+\n", r.stdout):
        raise RuntimeError(f"sbatch failed ({r.returncode}): {r.stdout!r} {r.stderr!r}")
    ids.append(int(r.stdout))


def run_sequential(cluster, n):
    lat, ids = [], []
    t0 = time.perf_counter()
    for _ in range(n):
        submit_one(cluster, lat, ids)
    return time.perf_counter() - t0, lat, ids


def run_parallel(cluster, n, p):
    lat, ids, errors = [], [], []
    shares = [n // p + (1 if i < n % p else 0) for i in range(p)]

    def worker(count):
        my_lat, my_ids = [], []
        try:
            for _ in range(count):
                submit_one(cluster, my_lat, my_ids)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        lat.extend(my_lat)
        ids.extend(my_ids)

    threads = [threading.Thread(target=worker, args=(c,)) for c in shares]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if errors:
        raise errors[0]
    return wall, lat, ids


def summary(name, wall, lat):
    return {
        "run": name,
        "jobs": len(lat),
        "wall_s": round(wall, 3),
        "jobs_per_s": round(len(lat) / wall, 1),
        "p50_ms": round(benchlib.percentile(lat, 50) * 1000, 2),
        "p99_ms": round(benchlib.percentile(lat, 99) * 1000, 2),
    }


def main():
    args = parse_args()
    _, cluster = benchlib.start_reference(args.build_dir, "sbatch", args.slurm_ref)
    results = []
    ok = False
    try:
        wall, lat, ids = run_sequential(cluster, args.jobs)
        results.append(summary("sequential", wall, lat))
        all_ids = list(ids)
        wall, lat, ids = run_parallel(cluster, args.jobs, args.parallel)
        results.append(summary(f"parallel x{args.parallel}", wall, lat))
        all_ids += ids
        if len(set(all_ids)) != len(all_ids):
            raise RuntimeError("an id was printed twice")
        ok = True
    finally:
        status = benchlib.finish(cluster, ok, args.keep)

    print(f"\n{'run':<14} {'jobs':>5} {'wall s':>8} {'jobs/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
    for r in results:
        print(f"{r['run']:<14} {r['jobs']:>5} {r['wall_s']:>8.2f} {r['jobs_per_s']:>8.1f} "
              f"{r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results}, indent=1) + "\n")

    if args.compare:
        ref = {r["run"]: r for r in json.loads(Path(args.compare).read_text())["results"]}
        print(f"\nratios against {args.compare} (ours / reference):")
        for r in results:
            f = ref.get(r["run"])
            if not f:
                print(f"  {r['run']}: not in the reference results")
                continue
            print(f"  {r['run']}: throughput x{r['jobs_per_s'] / f['jobs_per_s']:.2f}, "
                  f"p50 x{r['p50_ms'] / f['p50_ms']:.2f}, p99 x{r['p99_ms'] / f['p99_ms']:.2f}")
    else:
        print("\nNo comparison: pass --compare FILE with the --json of a --slurm-ref run "
              "to print ratios.")
    return status


if __name__ == "__main__":
    sys.exit(main())
