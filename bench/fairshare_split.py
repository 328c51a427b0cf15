#!/usr/bin/python3
"""fairshare_split.py - do two accounts with Fairshare=70 and 30 get that
split of a saturated cluster?

Starts a private cluster (two nodes of 4 cpus) with priority/multifactor
(PriorityWeightFairshare only, PriorityCalcPeriod=1 minute) and
AccountingStorageEnforce=associations; makes accounts "a" (Fairshare=70)
and "b" (Fairshare=30) with the running user in both; then keeps a queue of
one-cpu jobs (`sleep S`) pending in each account for D seconds, as fast as
they run. At the end it reads sacct and prints the cpu-seconds each account
got, for the whole run and per minute.

Usage: /usr/bin/python3 bench/fairshare_split.py [-d 420] [-s 4] [-q 30]
           [--build-dir build] [--json out.json] [--keep]
"""

import argparse
import json
import sys
import time
from collections import defaultdict
from datetime import datetime

import benchlib

SHARES = {"a": 70, "b": 30}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-d", "--duration", type=int, default=420, help="seconds of load")
    ap.add_argument("-s", "--sleep", type=int, default=4, help="seconds each job runs")
    ap.add_argument("-q", "--queue", type=int, default=30, help="jobs kept pending per account")
    return benchlib.add_common_args(ap).parse_args()


def pending_by_account(cluster):
    counts = defaultdict(int)
    for line in cluster.out("squeue", "-h", "-t", "PD", "-o", "%a").split():
        counts[line] += 1
    return counts


def usage(cluster, t0):
    """cpu-seconds per account, in all and per minute since t0 (by start)."""
    total, per_min, jobs = defaultdict(float), defaultdict(lambda: defaultdict(float)), 0
    out = cluster.out("sacct", "-X", "-n", "-P", "-a", "-S", "now-1days",
                      "-o", "Account,Start,ElapsedRaw,AllocCPUS,State")
    for line in out.splitlines():
        acct, start, elapsed, cpus, state = line.split("|")
        if acct not in SHARES or start in ("", "Unknown", "None"):
            continue
        secs = float(elapsed or 0) * int(cpus or 1)
        total[acct] += secs
        minute = int((datetime.strptime(start, "%Y-%m-%dT%H:%M:%S").timestamp() - t0) // 60)
        per_min[minute][acct] += secs
        jobs += state == "COMPLETED"
    return total, per_min, jobs


def main():
    args = parse_args()
    h = benchlib.harness(args.build_dir, "sacctmgr")
    cluster = h.Cluster(nodes=("n1", "n2"), name="fairshare", settings={
        "PriorityType": "priority/multifactor",
        "PriorityWeightFairshare": "10000",
        "PriorityWeightAge": "0",
        "PriorityCalcPeriod": "1",
        "AccountingStorageEnforce": "associations",
        "SchedulerParameters": "bf_interval=5",
    })
    print(f"cluster: 2 nodes x 4 cpus in {cluster.dir}; binaries: {h.BUILD_DIR}")
    cluster.start()
    ok = False
    try:
        mgr = ["sacctmgr", "-i"]
        cluster.run(*mgr, "add", "cluster", "test")
        for acct, share in SHARES.items():
            cluster.run(*mgr, "add", "account", acct, f"Fairshare={share}")
            cluster.run(*mgr, "add", "user", "root", f"account={acct}")
        t0 = time.time()
        submitted = 0
        while time.time() - t0 < args.duration:
            have = pending_by_account(cluster)
            for acct in SHARES:
                for _ in range(max(0, args.queue - have.get(acct, 0))):
                    cluster.run("sbatch", "-A", acct, "-n1", "-t", "1", "-o", "/dev/null",
                                "--wrap", f"sleep {args.sleep}")
                    submitted += 1
            time.sleep(1)  # the feeder's pace, not a synchronisation
        cluster.run("scancel", "-t", "PD", "-u", "root", check=False)
        h.wait_for(lambda: not cluster.out("squeue", "-h", "-t", "R,CG").strip(),
                   timeout=args.sleep * 3 + 30, what="running jobs to end")
        total, per_min, jobs = usage(cluster, t0)
        all_secs = sum(total.values()) or 1
        print(f"{jobs} jobs completed ({submitted} submitted) in {args.duration} s")
        print("minute  " + "  ".join(f"{a}: share" for a in SHARES))
        for m in sorted(per_min):
            s = sum(per_min[m].values()) or 1
            print(f"{m:>6}  " + "  ".join(f"{per_min[m][a] / s:8.1%}" for a in SHARES))
        split = {a: round(total[a] / all_secs, 3) for a in SHARES}
        print("whole run: " + ", ".join(f"{a} {split[a]:.1%} (Fairshare {SHARES[a]})"
                                       for a in SHARES))
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"jobs": jobs, "split": split, "duration": args.duration}, f)
        ok = True
    finally:
        sys.exit(benchlib.finish(cluster, ok, args.keep))


if __name__ == "__main__":
    main()
