#!/usr/bin/python3
"""sacct_query.py - how long sacct takes on a big accounting store.

Starts a private cluster (tests/integration's Cluster: own munged,
slurmctld, slurmd on loopback), runs one real batch job with an srun step
so that the store holds a genuine job row and its .batch and .0 step rows,
stops the controller, copies that job N times (-n, default 100,000) into
the store's SQLite file with fresh job ids, starts the controller again and
times whole commands as a user sees them:

  1. `sacct -a -S 2020-01-01`: every job and its two steps, default view;
  2. `sacct -a -X -S 2020-01-01`: the job rows only;
  3. `sacct -a -P -S 2020-01-01 -o JobID,State,Elapsed,TotalCPU,MaxRSS`;
  4. `sacct -a -X -S 2020-01-01 -N n1`: the node filter over every row;
  5. `sacct -j <one id>`: one job out of N.

Each is run -r times (default 5); it prints the row count, the median and
the worst wall-clock time. Real Slurm's sacct needs slurmdbd and MariaDB,
which are not set up here, so there is no ratio.

Usage: /usr/bin/python3 bench/sacct_query.py [-n 100000] [-r 5] [--build-dir build]
"""

import argparse
import os
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import benchlib


def parse_args(doc=__doc__, jobs=100000, runs=5):
    """-n, -r and --build-dir, with these defaults (also bench/sacct_json.py's)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("-n", "--jobs", type=int, default=jobs, help=f"jobs in the store ({jobs})")
    ap.add_argument("-r", "--runs", type=int, default=runs, help=f"runs per command ({runs})")
    ap.add_argument("--build-dir", help="binaries to test (default $SL_BUILD_DIR or build/)")
    return ap.parse_args()


def fill(db, n):
    """Copy the store's only job (and its steps) n times with new ids."""
    con = sqlite3.connect(db)
    jcols = [r[1] for r in con.execute("PRAGMA table_info(job)") if r[1] != "inx"]
    scols = [r[1] for r in con.execute("PRAGMA table_info(step)")]
    inx, job_id = con.execute("SELECT inx, job_id FROM job ORDER BY inx LIMIT 1").fetchone()
    jsel = ", ".join("?" if c == "job_id" else c for c in jcols)
    ssel = ", ".join("?" if c == "job_inx" else c for c in scols)
    with con:
        for i in range(n):
            cur = con.execute(f"INSERT INTO job ({', '.join(jcols)}) SELECT {jsel} FROM job "
                              "WHERE inx = ?", (job_id + 1000 + i, inx))
            con.execute(f"INSERT INTO step ({', '.join(scols)}) SELECT {ssel} FROM step "
                        "WHERE job_inx = ?", (cur.lastrowid, inx))
    rows = con.execute("SELECT count(*) FROM job").fetchone()[0], \
        con.execute("SELECT count(*) FROM step").fetchone()[0]
    con.close()
    return rows


def timed(cluster, args, runs):
    lat, lines = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        r = cluster.run("sacct", *args, check=False, timeout=600)
        lat.append(time.perf_counter() - t0)
        if r.returncode != 0:
            raise RuntimeError(f"sacct {' '.join(args)} failed: {r.stderr!r}")
        lines = r.stdout.count("\n")
    return lat, lines


def filled_store(h, n, name):
    """A started cluster whose store holds one real batch job with an srun
    step copied to n jobs in all. Returns (cluster, job id, jobs, steps);
    the caller stops the cluster (benchlib.finish), also on an error."""
    cluster = h.Cluster(nodes=("n1", "n2"), name=name)
    cluster.start()
    work = Path(tempfile.mkdtemp(dir=cluster.dir))
    os.chmod(work, 0o777)
    jid = h.submit(cluster, "-D", work, "-o", "/dev/null", "-J", "bench", "--wrap", "srun true")
    h.wait_state(cluster, jid, "COMPLETED", timeout=60)
    h.wait_for(lambda: cluster.out("sacct", "-j", str(jid), "-n", "-P", "-o", "JobID")
               .count("\n") == 3, what="the job's three rows in the store")
    cluster.kill_slurmctld(signal.SIGTERM)  # it writes what is queued, then exits
    db = cluster.dir / "state" / "job_accounting.db"
    t0 = time.perf_counter()
    jobs, steps = fill(db, n - 1)
    print(f"store: {db}: {jobs} jobs, {steps} steps (filled in "
          f"{time.perf_counter() - t0:.1f} s)")
    cluster.start_slurmctld()
    return cluster, jid, jobs, steps


def main():
    args = parse_args()
    h = benchlib.harness(args.build_dir, "sacct")
    cluster, ok = None, False
    try:
        cluster, jid, _, _ = filled_store(h, args.jobs, "bench-sacct")
        cases = [["-a", "-S", "2020-01-01"], ["-a", "-X", "-S", "2020-01-01"],
                 ["-a", "-P", "-S", "2020-01-01", "-o", "JobID,State,Elapsed,TotalCPU,MaxRSS"],
                 ["-a", "-X", "-S", "2020-01-01", "-N", "n1"],
                 ["-j", str(jid + 1000 + args.jobs // 2)]]
        print(f"\n{'command':<72} {'lines':>7} {'median s':>9} {'max s':>7}")
        for case in cases:
            lat, lines = timed(cluster, case, args.runs)
            print(f"{'sacct ' + ' '.join(case):<72} {lines:>7} "
                  f"{statistics.median(lat):>9.3f} {max(lat):>7.3f}")
        ok = True
    finally:
        status = benchlib.finish(cluster, ok) if cluster else 1
    return status


if __name__ == "__main__":
    sys.exit(main())
