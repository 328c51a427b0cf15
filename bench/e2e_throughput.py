#!/usr/bin/python3
"""e2e_throughput.py - trivial batch jobs, first submit to all done.

Starts a private reference-shaped cluster (tests/integration's
Cluster.like_reference: own munged, slurmctld and six slurmd on loopback),
then P submitters (-p, default 4) send N jobs (-n, default 300) between
them, `sbatch --parsable --wrap true`, as fast as they can. The clock
runs from the first submission until the controller says every job has
ended (`scontrol wait_job`, one call for all of them). It prints

  * jobs/s: N divided by that wall time;
  * stepd CPU: the mean, p50 and p99 CPU time each slurmstepd used itself
    (the "stepd CPU N us" of its "done" log line: its own CPU, not its
    task's), which is the share of a trivial job the node side costs.

Every job must complete with exit code 0, otherwise the run fails with
status 1. With --cgroup the jobs are confined as in srun_latency.py
(root and writable cgroups). --contain adds PrologFlags=Contain (each
job's extern step on its node: a second stepd per job). --json FILE
writes the numbers.

Usage: /usr/bin/python3 bench/e2e_throughput.py [-n 300] [-p 4] [--cgroup]
           [--contain] [--build-dir build] [--json out.json] [--keep]
"""

import argparse
import re
import statistics
import sys
import time

import benchlib
from srun_latency import CGROUP_CONF, CGROUP_SETTINGS


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--jobs", type=int, default=300, help="jobs (default 300)")
    ap.add_argument("-p", "--parallel", type=int, default=4, help="submitters (default 4)")
    ap.add_argument("--cgroup", action="store_true",
                    help="confine the jobs with cgroups (root, writable cgroups)")
    ap.add_argument("--contain", action="store_true",
                    help="PrologFlags=Contain: an extern step per job")
    return benchlib.add_common_args(ap).parse_args()


def stepd_cpu_us(cluster):
    """Every stepd's "stepd CPU N us" from the slurmd logs."""
    cpu = []
    for f in sorted((cluster.dir / "log").glob("slurmd-*")):
        cpu += [int(m.group(1)) for m in
                re.finditer(r"done, status \S+.*?, stepd CPU (\d+) us", f.read_text())]
    return cpu


def not_completed(cluster, ids):
    """Jobs of ids that did not end COMPLETED 0:0 as far as accounting
    knows (Slurm's private cluster has none: its jobcomp log)."""
    if cluster.is_slurm:
        import slurm_ref
        states = slurm_ref.jobcomp_states(cluster)
        return [f"{j}|{states.get(j)}" for j in ids if states.get(j) != "COMPLETED"]
    return [line for line in cluster.out(
        "sacct", "-X", "-n", "-P", "-o", "JobID,State,ExitCode",
        "-j", ",".join(map(str, ids))).splitlines()
        if not line.endswith("|COMPLETED|0:0")]


def run(cluster, jobs, parallel):
    """(wall seconds, job ids): jobs submitted by parallel threads, until
    every one has ended."""
    t0 = time.perf_counter()
    _, ids = benchlib.submit_held(cluster, jobs, parallel, args=("-o", "/dev/null"))
    benchlib.wait_all(cluster, ids, timeout=600)
    return time.perf_counter() - t0, ids


def main():
    args = parse_args()
    h, cluster = benchlib.reference(args.build_dir, "sbatch", "bench-e2e", args.slurm_ref)
    if args.cgroup:
        text = cluster.conf_text
        for key, value in CGROUP_SETTINGS.items():
            if key == "SlurmdDebug":
                continue
            text, n = re.subn(rf"(?im)^{key}=.*$", f"{key}={value}", text)
            if not n:
                text += f"{key}={value}\n"
        cluster.conf_text = text
        (cluster.dir / "cgroup.conf").write_text(CGROUP_CONF)
    if args.cgroup:
        print("jobs confined by cgroups")
    if args.contain:
        cluster.conf_text += "PrologFlags=Contain\n"
        print("PrologFlags=Contain: an extern step per job")
    cluster.start()
    ok, result = False, {}
    try:
        wall, ids = run(cluster, args.jobs, args.parallel)
        # the accounting store is written behind the controller: its
        # rows may still say RUNNING for a moment after the jobs ended
        deadline, bad = time.monotonic() + 60, [None]
        while bad and time.monotonic() < deadline:
            bad = not_completed(cluster, ids)
            if bad:
                time.sleep(0.2)
        if bad:
            raise RuntimeError(f"{len(bad)} jobs did not complete: {bad[:3]}")
        cpu = [] if cluster.is_slurm else stepd_cpu_us(cluster)
        result = {"run": f"{args.jobs} jobs x{args.parallel}", "jobs_per_s":
                  round(args.jobs / wall, 1), "wall_s": round(wall, 2),
                  "stepds": len(cpu),
                  "stepd_cpu_mean_ms": round(statistics.mean(cpu) / 1000, 2) if cpu else None,
                  "stepd_cpu_p50_ms": round(benchlib.percentile(cpu, 50) / 1000, 2)
                  if cpu else None,
                  "stepd_cpu_p99_ms": round(benchlib.percentile(cpu, 99) / 1000, 2)
                  if cpu else None}
        ok = True
    finally:
        status = benchlib.finish(cluster, ok, args.keep)
    if result:
        benchlib.report([result], [("run", "run"), ("jobs/s", "jobs_per_s"),
                                   ("wall s", "wall_s"), ("stepds", "stepds"),
                                   ("stepd CPU ms mean", "stepd_cpu_mean_ms"),
                                   ("p50", "stepd_cpu_p50_ms"), ("p99", "stepd_cpu_p99_ms")],
                        args.json)
    return status


if __name__ == "__main__":
    sys.exit(main())
