#!/usr/bin/python3
"""many_steps.py - does a job's thousandth srun cost what its first did?

Starts a private cluster (tests/integration's Cluster: own munged,
slurmctld, one slurmd on loopback) and runs one batch job whose script
runs `srun -n1 true` N times one after the other (-n, default 3000). The
script stamps the time every B steps (-b, default 250); the benchmark
prints the milliseconds per step of each block, the whole run, the job
journal's size at the end, and checks that sacct lists every step.

Each step's start and end change the job, which is journaled and queued
for accounting; a job record that kept every step it ever ran would make
each change cost more than the last (the blocks would slow down). Steps
whose accounting row is written leave the record, so the blocks should
stay flat.

Usage: /usr/bin/python3 bench/many_steps.py [-n 3000] [-b 250] [--build-dir build]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import benchlib


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--steps", type=int, default=3000, help="sruns in the job")
    ap.add_argument("-b", "--block", type=int, default=250, help="steps per timed block")
    ap.add_argument("--build-dir", help="binaries to test (default $SL_BUILD_DIR or build/)")
    return ap.parse_args()


def main():
    args = parse_args()
    h = benchlib.harness(args.build_dir, "srun")
    cluster = h.Cluster(nodes=("n1",), name="bench-steps")
    cluster.start()
    ok = False
    try:
        work = Path(tempfile.mkdtemp(dir=cluster.dir))
        os.chmod(work, 0o777)
        (work / "steps.sh").write_text(
            "#!/bin/bash\ndate +%s.%N\n"
            f"for i in $(seq {args.steps}); do srun -n1 true || exit 1; "
            f"if (( i % {args.block} == 0 )); then date +%s.%N; fi; done\n")
        t0 = time.perf_counter()
        jid = h.submit(cluster, "-D", work, "-o", "out", "-J", "steps", str(work / "steps.sh"))
        h.wait_state(cluster, jid, "COMPLETED", timeout=args.steps + 60)
        total = time.perf_counter() - t0
        stamps = [float(x) for x in (work / "out").read_text().split()]
        print(f"{args.steps} sequential `srun -n1 true` in one job: {total:.1f} s")
        print(f"\n{'steps':>13} {'ms/step':>8}")
        for i in range(1, len(stamps)):
            ms = (stamps[i] - stamps[i - 1]) * 1000 / args.block
            print(f"{(i - 1) * args.block:>6}-{i * args.block - 1:<6} {ms:>8.1f}")
        journal = cluster.dir / "state" / "job_journal"
        print(f"\njob journal: {journal.stat().st_size / 1e6:.1f} MB")
        rows = cluster.out("sacct", "-j", str(jid), "-n", "-P", "-o", "JobID").split()
        ok = len(rows) == args.steps + 2
        print(f"sacct rows: {len(rows)} (the job, .batch and {args.steps} steps: "
              f"{'ok' if ok else 'MISSING ROWS'})")
    finally:
        status = benchlib.finish(cluster, ok)
    return status


if __name__ == "__main__":
    sys.exit(main())
