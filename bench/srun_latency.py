#!/usr/bin/python3
"""srun_latency.py - how long `srun -n1 true` takes, start to finish.

Starts a private cluster shaped like the reference one (tests/integration's
Cluster.like_reference: own munged, slurmctld and six slurmd on loopback)
and times whole commands as a user sees them:

  1. `srun -n1 true`: a new job, its allocation, step 0, the task launch
     through slurmd and slurmstepd, the I/O stream, the job's completion;
  2. `srun -N4 -n16 true`: the same with 16 tasks on four nodes;
  3. `srun -n1 true` inside an existing allocation (SLURM_JOB_ID of a
     held-open salloc job): step creation, launch, completion only.

Each is run N times (-n, default 50) sequentially; it prints the mean, p50
and p99 wall-clock time. With --cgroup the cluster confines its jobs
(ProctrackType=proctrack/cgroup, TaskPlugin=task/cgroup,task/affinity,
cgroup.conf ConstrainCores/RAMSpace/Devices=yes; needs root and writable
cgroups) and it also prints what building and removing each step's
cgroups took inside slurmstepd (its debug log line). Every command must exit 0, otherwise the run fails
with status 1. --json FILE writes the numbers; --compare FILE prints
ours/reference ratios against the --json of a --slurm-ref run (the same
workload on the same cluster run by Debian's Slurm 22.05, slurm_ref.py).

Usage: /usr/bin/python3 bench/srun_latency.py [-n 50] [--cgroup] [--build-dir build]
           [--json out.json] [--compare ref.json] [--keep]
"""

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

import benchlib


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--runs", type=int, default=50, help="commands per case (default 50)")
    ap.add_argument("--cgroup", action="store_true",
                    help="confine the jobs with cgroups (root, writable cgroups)")
    ap.add_argument("--debug", action="store_true",
                    help="SlurmdDebug=debug (as --cgroup sets it), for a like-for-like baseline")
    return benchlib.add_common_args(ap).parse_args()


CGROUP_SETTINGS = {"ProctrackType": "proctrack/cgroup",
                   "TaskPlugin": "task/cgroup,task/affinity", "SlurmdDebug": "debug"}
CGROUP_CONF = "ConstrainCores=yes\nConstrainRAMSpace=yes\nConstrainDevices=yes\n"


def cgroup_times(cluster):
    """The stepds' "built in N us, removed in M us" lines, as two lists of ms."""
    built, removed = [], []
    for f in sorted((cluster.dir / "log").glob("slurmd-*")):
        for m in re.finditer(r"cgroup: \S+: built in (\d+) us, removed in (\d+) us",
                             f.read_text(errors="replace")):
            built.append(int(m.group(1)) / 1000)
            removed.append(int(m.group(2)) / 1000)
    return built, removed



def time_runs(cluster, n, args, env=None):
    lat = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = cluster.run("srun", *args, check=False, env=env)
        lat.append(time.perf_counter() - t0)
        if r.returncode != 0:
            raise RuntimeError(f"srun {' '.join(args)} failed ({r.returncode}): {r.stderr!r}")
    return lat


def summary(name, lat):
    return {
        "run": name,
        "commands": len(lat),
        "mean_ms": round(statistics.mean(lat) * 1000, 1),
        "p50_ms": round(benchlib.percentile(lat, 50) * 1000, 1),
        "p99_ms": round(benchlib.percentile(lat, 99) * 1000, 1),
    }


def main():
    args = parse_args()
    h, cluster = benchlib.reference(args.build_dir, "srun", "bench-srun", args.slurm_ref)
    if args.cgroup or args.debug:
        text = cluster.conf_text
        wanted = CGROUP_SETTINGS if args.cgroup else {"SlurmdDebug": "debug"}
        for key, value in wanted.items():
            text, n = re.subn(rf"(?im)^{key}=.*$", f"{key}={value}", text)
            if not n:
                text += f"{key}={value}\n"
        cluster.conf_text = text
    if args.cgroup:
        (cluster.dir / "cgroup.conf").write_text(CGROUP_CONF)
    if args.cgroup:
        print("jobs confined by cgroups")
    cluster.start()
    results, ok, holder, job_id = [], False, None, ""
    try:
        results.append(summary("srun -n1 true", time_runs(cluster, args.runs, ["-n1", "true"])))
        results.append(summary("srun -N4 -n16 true",
                               time_runs(cluster, args.runs, ["-N4", "-n16", "true"])))
        # an allocation kept open by salloc running a long sleep
        holder = cluster.popen("salloc", "-N1", "-J", "bench-hold", "sleep", "3600")
        deadline = time.monotonic() + 30
        while not job_id and time.monotonic() < deadline:
            job_id = cluster.out("squeue", "-h", "-n", "bench-hold", "-t", "R",
                                 "-o", "%i").strip()
            time.sleep(0.05)
        if not re.fullmatch(r"\d+", job_id):
            raise RuntimeError("the holding allocation did not start")
        results.append(summary("step in allocation",
                               time_runs(cluster, args.runs, ["-n1", "true"],
                                         env={"SLURM_JOB_ID": job_id})))
        ok = True
        if args.cgroup:
            built, removed = cgroup_times(cluster)
            if not built:
                raise RuntimeError("no stepd built cgroups: see the slurmd logs")
    finally:
        if re.fullmatch(r"\d+", job_id):
            cluster.run("scancel", job_id, check=False)  # salloc ends its command
        if holder:
            try:
                holder.wait(timeout=30)
            except Exception:  # noqa: BLE001 - still there: kill it below
                pass
            if holder.poll() is None:
                holder.kill()
        status = benchlib.finish(cluster, ok, args.keep)

    print(f"\n{'run':<20} {'runs':>5} {'mean ms':>8} {'p50 ms':>8} {'p99 ms':>8}")
    for r in results:
        print(f"{r['run']:<20} {r['commands']:>5} {r['mean_ms']:>8.1f} {r['p50_ms']:>8.1f} "
              f"{r['p99_ms']:>8.1f}")
    if args.cgroup and ok:
        print(f"\ncgroups in slurmstepd over {len(built)} steps: built mean "
              f"{statistics.mean(built):.2f} ms, p99 {benchlib.percentile(built, 99):.2f} ms; "
              f"removed mean {statistics.mean(removed):.2f} ms, "
              f"p99 {benchlib.percentile(removed, 99):.2f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results}, indent=1) + "\n")
    if args.compare:
        ref = {r["run"]: r for r in json.loads(Path(args.compare).read_text())["results"]}
        print(f"\nratios against {args.compare} (ours / reference):")
        for r in results:
            f = ref.get(r["run"])
            if f:
                print(f"  {r['run']}: p50 x{r['p50_ms'] / f['p50_ms']:.2f}, "
                      f"p99 x{r['p99_ms'] / f['p99_ms']:.2f}")
    else:
        print("\nNo comparison: pass --compare FILE with the --json of a --slurm-ref run "
              "to print ratios.")
    return status


if __name__ == "__main__":
    sys.exit(main())
