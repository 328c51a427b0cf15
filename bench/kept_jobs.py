#!/usr/bin/python3
"""kept_jobs.py - does submission slow down as the controller keeps more jobs?

Starts a private cluster shaped like the reference one, then submits held
jobs (`sbatch -H --wrap true`, four submitters) in rounds of B until N are
kept, printing for each round the jobs/s and the size of the controller's
journal. Every kept job is in the journal; the log is rewritten to the live
jobs only when it has grown to a multiple of them (durable.c), so the rate
should stay flat. With a fixed threshold it would fall from ~170 to ~35
jobs/s once the live jobs alone passed it (~6,200 jobs).

Usage: /usr/bin/python3 bench/kept_jobs.py [-n 20000] [-b 2000]
           [--build-dir build] [--json out.json] [--keep]
"""

import argparse
import json
import sys
from pathlib import Path

import benchlib


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--jobs", type=int, default=20000, help="jobs kept at the end")
    ap.add_argument("-b", "--batch", type=int, default=2000, help="jobs per round")
    return benchlib.add_common_args(ap).parse_args()


def journal_bytes(cluster):
    return sum(p.stat().st_size for p in Path(cluster.dir).rglob("*")
               if p.is_file() and "journal" in p.name)


def main():
    args = parse_args()
    _, cluster = benchlib.start_reference(args.build_dir, "sbatch")
    rounds, ok = [], False
    try:
        kept = 0
        while kept < args.jobs:
            n = min(args.batch, args.jobs - kept)
            wall, _ = benchlib.submit_held(cluster, n)
            kept += n
            rounds.append({"kept": kept, "jobs_per_s": round(n / wall, 1),
                           "journal_mb": round(journal_bytes(cluster) / 2**20, 1)})
            r = rounds[-1]
            print(f"{r['kept']:>7} kept  {r['jobs_per_s']:>7.1f} jobs/s  "
                  f"journal {r['journal_mb']:>6.1f} MB", flush=True)
        ok = True
    finally:
        status = benchlib.finish(cluster, ok, args.keep)
    if args.json:
        Path(args.json).write_text(json.dumps({"rounds": rounds}, indent=1) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
