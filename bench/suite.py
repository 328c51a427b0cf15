#!/usr/bin/python3
"""suite.py - every benchmark, one table (`make bench`).

Runs the benchmarks of this directory one after the other, each on its own
private cluster of the build under test, with --json into a scratch
directory, and prints one table: the figure, ours, Slurm's, the ratio
(how many times better ours is) and the goal.

Slurm's column: with --with-slurm, each benchmark that can runs a second
time, right after ours, on the same private reference-shaped cluster run
by Debian's Slurm 22.05 (slurm_ref.py; `apt-get install slurm-wlm
slurm-client`); the 100,000-job benchmark runs ours only.
--slurm FILE gives figures measured elsewhere ({"figure name": value},
the names of this table) for the rest; without either the column says
"-". --quick runs smaller sizes (a minute or two) for a check that every
benchmark still runs.

Usage: /usr/bin/python3 bench/suite.py [--quick] [--build-dir build]
           [--with-slurm] [--slurm slurm.json] [--json out.json] [--only NAME]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (name, script, arguments, --quick's arguments); figures() reads each
# one's --json into the table's rows
BENCHES = [
    ("e2e", "e2e_throughput.py", ["-n", "300", "-p", "4"], ["-n", "60", "-p", "4"]),
    ("sbatch", "sbatch_throughput.py", ["-n", "500", "-p", "8"], ["-n", "100", "-p", "8"]),
    ("squeue1k", "squeue_latency.py", ["-n", "1000", "-r", "20"], ["-n", "200", "-r", "5"]),
    ("squeue5k", "squeue_latency.py", ["-n", "5000", "-r", "10"], ["-n", "500", "-r", "3"]),
    ("json1k", "squeue_json.py", ["-n", "1000", "-r", "10"], ["-n", "200", "-r", "3"]),
    ("memory", "job_memory.py", ["-n", "5000"], ["-n", "500"]),
    ("srun", "srun_latency.py", ["-n", "30"], ["-n", "5"]),
    ("nodes", "many_nodes.py", ["-n", "1000", "-j", "2000"], ["-n", "50", "-j", "100"]),
    ("100k", "jobs_100k.py", ["-n", "100000", "-r", "5"], ["-n", "5000", "-r", "2"]),
]


def by(results, key, value):
    return next(r for r in results if r.get(key) == value)


def figures(name, doc, n):
    """(figure, value, unit, higher_is_better, goal) rows of one benchmark
    run with -n n."""
    res = doc["results"]
    if name == "e2e":
        r = res[0]
        return [(f"trivial jobs, {r['run']}, submit to all done", r["jobs_per_s"], "jobs/s",
                 True, ">= 20x"),
                ("slurmstepd CPU per trivial job", r["stepd_cpu_mean_ms"], "ms", False,
                 "<= 1 ms")]
    if name == "sbatch":
        return [("sbatch, one submitter", by(res, "run", "sequential")["jobs_per_s"],
                 "jobs/s", True, ">= 2x"),
                (f"sbatch, {res[1]['run']}", res[1]["jobs_per_s"], "jobs/s", True, ">= 2.5x")]
    if name in ("squeue1k", "squeue5k"):
        rows = [(f"squeue, {n:,} jobs queued", by(res, "command", "squeue")["p50_ms"], "ms",
                 False, ">= 5x" if name == "squeue1k" else ">= 10x")]
        if name == "squeue1k":
            rows += [("sinfo", by(res, "command", "sinfo")["p50_ms"], "ms", False, ">= 2x"),
                     ("scontrol ping", by(res, "command", "scontrol ping")["p50_ms"], "ms",
                      False, ">= 2x")]
        return rows
    if name == "json1k":
        r = by(res, "command", "squeue --json")
        return [(f"squeue --json, {n:,} jobs", r["null_p50_ms"], "ms", False, "keep")]
    if name == "memory":
        return [("controller memory per pending job", res[0]["kb_per_job"], "KB", False,
                 "<= 1.5 KB"),
                ("... once squeue has listed them", res[0]["kb_per_job_listed"], "KB", False,
                 "<= 1.5 KB")]
    if name == "srun":
        return [("srun -n1 true", by(res, "run", "srun -n1 true")["p50_ms"], "ms", False, "-"),
                ("srun step in an allocation", by(res, "run", "step in allocation")["p50_ms"],
                 "ms", False, "-")]
    if name == "nodes":
        r = res[0]
        return [(f"{n:,} nodes: all idle after start", r["up_s"], "s", False, "< 5 s"),
                (f"{n:,} nodes: sinfo", r["sinfo_p50_ms"], "ms", False, "< 5 ms"),
                (f"{n:,} nodes: {r['jobs']:,} trivial jobs", r["jobs_per_s"], "jobs/s", True,
                 "-")]
    if name == "100k":
        goals = {"fill": ("-", True), "kb_per_job": ("<= 1.5 KB", False),
                 "kb_per_job_listed": ("<= 1.5 KB", False),
                 "sbatch": ("keeps its rate", True), "squeue": ("< 200 ms", False),
                 "squeue_ids": ("-", False), "squeue_one": ("-", False),
                 "ping": ("-", False), "sched": ("never stalls", False)}
        return [(r["figure"].replace("controller memory per pending job",
                                     f"controller memory per pending job, {n:,} held"),
                 r["value"], r["unit"], goals[r["key"]][1], goals[r["key"]][0]) for r in res]
    return []


# run on our build only: 100,000 jobs is past the reference config's
# MaxJobCount (60,000), and Slurm's sbatch (about 50 jobs/s here) would
# take over half an hour to queue them
OURS_ONLY = ("100k",)


def run_one(name, script, sizes, build_dir, scratch, slurm):
    """One benchmark's --json document, or None when it failed."""
    out = Path(scratch) / f"{name}{'-slurm' if slurm else ''}.json"
    argv = [sys.executable, str(HERE / script), *sizes, "--json", str(out)]
    if build_dir:
        argv += ["--build-dir", build_dir]
    if slurm:
        argv.append("--slurm-ref")
    t0 = time.monotonic()
    print(f"== {name}{' on Slurm' if slurm else ''}: {' '.join(argv[1:])}", flush=True)
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0 or not out.exists():
        print(r.stdout[-2000:], r.stderr[-2000:], sep="\n")
        return None
    print(f"   {time.monotonic() - t0:.0f} s", flush=True)
    return json.loads(out.read_text())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes: does everything run?")
    ap.add_argument("--build-dir", help="binaries to test (default $SL_BUILD_DIR or build/)")
    ap.add_argument("--with-slurm", action="store_true",
                    help="run each benchmark on Debian's Slurm 22.05 too, right after ours")
    ap.add_argument("--slurm", help="Slurm 22.05's figures measured elsewhere, {figure: value}")
    ap.add_argument("--json", help="also write the table to this file")
    ap.add_argument("--only", action="append", help="run only these benchmarks (names above)")
    args = ap.parse_args()
    slurm = json.loads(Path(args.slurm).read_text()) if args.slurm else {}
    if args.with_slurm:
        import slurm_ref
        why = slurm_ref.installed()
        if why:
            sys.exit(why)
    rows, failed = [], []
    with tempfile.TemporaryDirectory(prefix="sl-bench-") as scratch:
        for name, script, full, quick in BENCHES:
            if args.only and name not in args.only:
                continue
            sizes = quick if args.quick else full
            n = int(sizes[sizes.index("-n") + 1])
            ours = run_one(name, script, sizes, args.build_dir, scratch, slurm=False)
            if ours is None:
                failed.append(name)
                continue
            measured = {}
            if args.with_slurm and name not in OURS_ONLY:
                theirs = run_one(name, script, sizes, args.build_dir, scratch, slurm=True)
                if theirs is None:
                    failed.append(f"{name} (Slurm)")
                else:
                    measured = {f[0]: f[1] for f in figures(name, theirs, n)}
            for fig, value, unit, higher, goal in figures(name, ours, n):
                ref = measured.get(fig, slurm.get(fig))
                ratio = None
                if ref and value:
                    ratio = round(value / ref if higher else ref / value, 2)
                rows.append({"figure": fig, "ours": value, "unit": unit, "slurm": ref,
                             "ratio": ratio, "goal": goal})
    w = max(len(r["figure"]) for r in rows) if rows else 10
    print(f"\n{'figure':<{w}} {'ours':>9} {'slurm':>9} {'unit':<7} {'ratio':>7}  goal")
    for r in rows:
        cell = lambda v: "-" if v is None else str(v)  # noqa: E731
        ratio = "-" if r["ratio"] is None else f"{r['ratio']}x"
        print(f"{r['figure']:<{w}} {cell(r['ours']):>9} {cell(r['slurm']):>9} {r['unit']:<7} "
              f"{ratio:>7}  {r['goal']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows}, indent=1) + "\n")
    if failed:
        print("failed:", *failed)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
