#!/usr/bin/python3
"""sacct_json.py - what --json and --yaml cost over sacct's text view.

Starts a private cluster (tests/integration's Cluster), runs one batch job
with an srun step, stops the controller, copies that job N times (-n,
default 1,000) into the accounting store (bench/sacct_query.py's fill),
starts the controller again and times, -r times each (default 10):

  1. `sacct -a -S 2020-01-01`            the text view (jobs and steps);
  2. `sacct -a -S 2020-01-01 --json`     the same rows as dbv0.0.38 JSON;
  3. `sacct -a -S 2020-01-01 --yaml`     and as YAML (libyaml's emitter);
  4. `sacct -a -X -S 2020-01-01`         job rows only, text;
  5. `sacct -a -X -S 2020-01-01 --json`  job rows only, JSON.

Times are taken with stdout to /dev/null (what the command costs; a
reader such as Python's json adds its own). It checks each JSON document
parses and holds N jobs, and prints the output size, the median and the
worst wall-clock time of each. Real
Slurm's sacct needs slurmdbd and MariaDB, not set up here: no ratio.

Usage: /usr/bin/python3 bench/sacct_json.py [-n 1000] [-r 10] [--build-dir build]
"""

import json
import statistics
import subprocess
import sys
import time

import benchlib
from sacct_query import filled_store, parse_args


def timed(cluster, args, runs, build_dir):
    """Wall-clock times of runs runs with stdout to /dev/null (the
    command's own cost, not a reader's), and the output of one more run."""
    argv = [str(build_dir / "sacct"), *args]
    lat = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, env=cluster.env(), check=True,
                       timeout=600)
        lat.append(time.perf_counter() - t0)
    return lat, cluster.out("sacct", *args, timeout=600)


def main():
    args = parse_args(__doc__, jobs=1000, runs=10)
    h = benchlib.harness(args.build_dir, "sacct")
    cluster, ok = None, False
    try:
        cluster, _, jobs, _ = filled_store(h, args.jobs, "bench-sacct-json")
        base = ["-a", "-S", "2020-01-01"]
        cases = [base, base + ["--json"], base + ["--yaml"], ["-X"] + base,
                 ["-X"] + base + ["--json"]]
        print(f"\n{'command':<44} {'bytes':>9} {'median s':>9} {'max s':>7}")
        for case in cases:
            lat, out = timed(cluster, case, args.runs, h.BUILD_DIR)
            if "--json" in case and len(json.loads(out)["jobs"]) != jobs:
                raise RuntimeError(f"not {jobs} jobs in the document of {case}")
            print(f"{'sacct ' + ' '.join(case):<44} {len(out.encode()):>9} "
                  f"{statistics.median(lat):>9.3f} {max(lat):>7.3f}")
        ok = True
    finally:
        status = benchlib.finish(cluster, ok) if cluster else 1
    return status


if __name__ == "__main__":
    sys.exit(main())
