#!/usr/bin/python3
"""squeue_json.py - how long squeue --json and --yaml take on a full queue.

Starts a private cluster shaped like the reference one (tests/integration's
Cluster.like_reference), submits N held jobs (`sbatch -H --wrap true` from
four submitters, so nothing runs), then runs each command R times per
output and prints the wall-clock time of one run as a shell user sees it
(fork and exec, config read, munge credential, the controller's streamed
pages, writing the document) at p50 and p99:

  squeue            the text view, the baseline
  squeue --json     Slurm 22.05's v0.0.38 document of every job
  squeue --yaml     the same document through libyaml

each with its output to /dev/null (`> /dev/null`: the command's own work),
to a file (`> FILE`, rewritten each run) and through a pipe into cat
(`| cat > /dev/null`: a reader that costs little; both must finish). One
more run of each, untimed, is checked: --json must parse (json.loads) and
hold N jobs, --yaml must hold N "job_id:" lines. The target is squeue
--json under 30 ms at 5,000 jobs; Slurm 22.05 took 1.8 s there.

Usage: /usr/bin/python3 bench/squeue_json.py [-n 5000] [-r 20]
           [--build-dir build] [--json out.json] [--keep]
"""

import argparse
import json
import re
import os
import subprocess
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
        # Slurm tags every key and value (!!str job_id: !!int 5)
        return sum(1 for ln in out.splitlines()
                   if re.match(r"[\s-]*(!!str )?job_id:", ln))
    return len(out.splitlines()) - 1  # the header


def timed(cluster, bindir, argv, target, scratch):
    """Seconds one run of argv takes with its stdout to target: "null"
    (/dev/null), "file" (scratch, rewritten) or "pipe" (into cat, which
    writes nowhere: a reader that costs little)."""
    cmd = [str(bindir / argv[0])] + argv[1:]
    kw = {"stderr": subprocess.PIPE, "env": cluster.env(), "cwd": cluster.dir}
    if target == "pipe":
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, **kw)
        cat = subprocess.Popen(["cat"], stdin=p.stdout, stdout=subprocess.DEVNULL)
        p.stdout.close()
        err = p.stderr.read()
        p.wait()
        cat.wait()
        took = time.perf_counter() - t0
    else:
        # truncating the last run's file is not the command's time
        with open(scratch if target == "file" else os.devnull, "wb") as out:
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, stdout=out, **kw)
            err = p.stderr.read()
            p.wait()
            took = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{argv}: exit {p.returncode}: {err.decode(errors='replace')}")
    return took


def measure(cluster, bindir, argv, repeat, jobs, scratch):
    # the document is checked once, untimed
    r = cluster.run(*argv, timeout=120, check=not cluster.is_slurm)
    if r.returncode != 0:  # Slurm without its serializer plugin for it
        print(f"{argv}: Slurm cannot: {r.stderr.strip()[:200]}")
        return None
    if count_jobs(argv, r.stdout) != jobs:
        raise RuntimeError(f"{argv}: {count_jobs(argv, r.stdout)} jobs, expected {jobs}")
    res = {"command": " ".join(argv), "runs": repeat, "bytes": len(r.stdout.encode())}
    for target in ("null", "file", "pipe"):
        lat = [timed(cluster, bindir, argv, target, scratch) for _ in range(repeat)]
        res[f"{target}_p50_ms"] = round(benchlib.percentile(lat, 50) * 1000, 2)
        res[f"{target}_p99_ms"] = round(benchlib.percentile(lat, 99) * 1000, 2)
    return res


def main():
    args = parse_args()
    h, cluster = benchlib.start_reference(args.build_dir, "squeue", args.slurm_ref)
    results, ok = [], False
    try:
        benchlib.submit_held(cluster, args.jobs)
        scratch = Path(cluster.dir) / "squeue_json.out"
        for argv in (["squeue"], ["squeue", "--json"], ["squeue", "--yaml"]):
            r = measure(cluster, cluster.bin_dir, argv, args.repeat, args.jobs, scratch)
            if r:
                results.append(r)
        ok = True
    finally:
        status = benchlib.finish(cluster, ok, args.keep)

    print(f"\n{args.jobs} jobs in the queue, {args.repeat} runs each, p50 (p99) ms")
    print(f"{'command':<16} {'bytes':>10} {'> /dev/null':>16} {'> file':>16} {'| pipe':>16}")
    for r in results:
        cells = [f"{r[t + '_p50_ms']:.1f} ({r[t + '_p99_ms']:.1f})"
                 for t in ("null", "file", "pipe")]
        print(f"{r['command']:<16} {r['bytes']:>10} " + " ".join(f"{c:>16}" for c in cells))
    if args.json:
        Path(args.json).write_text(json.dumps({"jobs": args.jobs, "results": results},
                                              indent=1) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
