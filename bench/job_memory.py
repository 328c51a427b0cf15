#!/usr/bin/python3
"""job_memory.py - what a pending job costs the controller in memory.

Starts a private reference-shaped cluster, reads slurmctld's resident
memory (VmRSS of /proc/PID/status), submits N held jobs
(`sbatch -H --wrap true`, -n, default 5000, four submitters; with
--own-env each job's environment differs by one variable), reads it
again, lists the queue once with squeue (the controller then keeps each
job's packed record for the next listing) and reads it a third time;
prints the growth per job in KB, before and after the listing. The
controller keeps freed
memory up to its malloc trim threshold, so the figure is what the jobs
hold plus what submitting them left in the heap: run it on a fresh start.

Usage: /usr/bin/python3 bench/job_memory.py [-n 5000] [--own-env] [--build-dir build]
           [--json out.json] [--keep]
"""

import argparse
import sys

import benchlib


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--jobs", type=int, default=5000, help="held jobs (default 5000)")
    ap.add_argument("--own-env", action="store_true",
                    help="each job's environment differs (one variable)")
    return benchlib.add_common_args(ap).parse_args()


def main():
    args = parse_args()
    h, cluster = benchlib.start_reference(args.build_dir, "sbatch", args.slurm_ref)
    ok, result = False, {}
    try:
        pid = cluster.procs["slurmctld"].pid
        before = benchlib.rss_kb(pid)
        benchlib.submit_held(cluster, args.jobs, own_env=args.own_env)
        after = benchlib.rss_kb(pid)
        cluster.run("squeue")
        listed = benchlib.rss_kb(pid)
        result = {"run": f"{args.jobs} held jobs" + (", own env" if args.own_env else ""),
                  "rss_before_kb": before,
                  "rss_after_kb": after,
                  "kb_per_job": round((after - before) / args.jobs, 2),
                  "kb_per_job_listed": round((listed - before) / args.jobs, 2)}
        ok = True
    finally:
        status = benchlib.finish(cluster, ok, args.keep)
    if result:
        benchlib.report([result], [("run", "run"), ("RSS before KB", "rss_before_kb"),
                                   ("RSS after KB", "rss_after_kb"),
                                   ("KB per job", "kb_per_job"),
                                   ("KB per job, listed", "kb_per_job_listed")], args.json)
    return status


if __name__ == "__main__":
    sys.exit(main())
