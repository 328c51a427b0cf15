"""benchlib.py - what every benchmark here does around its measurement:
point the integration-test harness (tests/integration/cluster.py) at the
binaries to test, and stop the private cluster afterwards, keeping its
directory when something went wrong.
"""

import os
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def harness(build_dir, needs):
    """The cluster module, its binaries taken from build_dir (or
    $SL_BUILD_DIR, or build/); exits when the binary `needs` is missing."""
    if build_dir:
        os.environ["SL_BUILD_DIR"] = str(Path(build_dir).resolve())
    sys.path.insert(0, str(REPO / "tests" / "integration"))
    import cluster  # noqa: E402 - after SL_BUILD_DIR is set

    cluster.CHECK_KEPT_JOB_RECORDS = False  # a test's check: not what is measured
    if not (cluster.BUILD_DIR / needs).exists():
        sys.exit(f"no {needs} in {cluster.BUILD_DIR}: run `make build` first")
    return cluster


def finish(cluster, ok, keep=False):
    """Stop every daemon of cluster; remove its directory unless the run
    failed, a daemon misbehaved or keep. Returns the exit status."""
    problems = cluster.stop()
    if problems:
        print("daemon problems:", *problems, sep="\n  ")
    if ok and not problems and not keep:
        cluster.cleanup()
    else:
        print(f"kept {cluster.dir}")
    return 0 if ok and not problems else 1


def add_common_args(ap):
    """The options every benchmark takes: which build, where to write its
    results, real Slurm's results to compare with, keep the cluster."""
    ap.add_argument("--build-dir", help="binaries to test (default $SL_BUILD_DIR or build/)")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--compare", help="results (--json format) of real Slurm, for ratios")
    ap.add_argument("--keep", action="store_true", help="keep the cluster's directory")
    ap.add_argument("--slurm-ref", action="store_true",
                    help="run the workload on Debian's Slurm 22.05 instead (slurm_ref.py)")
    return ap


def percentile(values, p):
    """Nearest-rank percentile of values (p in 0..100)."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))
    return s[int(k)]


def rss_kb(pid):
    """Resident memory of process pid in KB (VmRSS)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def reference(build_dir, needs, name, slurm=False):
    """A reference-shaped cluster (n1-n4 cpu-queue, g1-g2 gpu-queue), not
    started, running the binaries of build_dir, or Debian's Slurm 22.05
    when slurm; returns (cluster module, cluster)."""
    h = harness(build_dir, needs)
    if slurm:
        import slurm_ref
        cluster = slurm_ref.cluster(h, name)
    else:
        cluster = h.Cluster.like_reference(name=name)
        cluster.is_slurm = False
    print(f"cluster: reference-shaped (n1-n4 cpu-queue, g1-g2 gpu-queue) in {cluster.dir}")
    print(f"binaries: {cluster.bin_dir}, {cluster.sbin_dir}")
    return h, cluster


def start_reference(build_dir, needs, slurm=False):
    """reference(), started."""
    h, cluster = reference(build_dir, needs, "bench", slurm)
    cluster.start()
    return h, cluster


def submit_held(cluster, n, parallel=4, args=("-H",), own_env=False):
    """n held jobs (`sbatch -H --parsable --wrap true`; other sbatch
    options than -H in args) from parallel submitters; returns (wall
    seconds, sorted job ids). own_env: each job's environment differs (a
    variable with its number), as jobs submitted from different shells.
    The first failure is raised once every submitter has stopped."""
    ids, errors = [], []

    def worker(count):
        try:
            for i in range(count):
                env = {"BENCH_JOB_SERIAL": f"{threading.get_ident()}.{i}"} if own_env else None
                ids.append(int(cluster.run("sbatch", *args, "--parsable", "--wrap",
                                           "true", env=env).stdout))
        except Exception as e:  # noqa: BLE001 - raised below
            errors.append(e)

    shares = [n // parallel + (1 if i < n % parallel else 0) for i in range(parallel)]
    threads = [threading.Thread(target=worker, args=(c,)) for c in shares]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return time.perf_counter() - t0, sorted(ids)


def report(results, columns, json_path=None):
    """Print results (dicts) as a table of columns, (header, key) pairs,
    the first left-aligned; also write {"results": results} to json_path."""
    widths = [max(len(h), *(len(str(r.get(k))) for r in results)) for h, k in columns]
    print()
    for row in [[h for h, _ in columns]] + [[str(r.get(k)) for _, k in columns]
                                            for r in results]:
        print(" ".join(f"{v:<{w}}" if i == 0 else f"{v:>{w}}"
                       for i, (v, w) in enumerate(zip(row, widths))))
    if json_path:
        import json
        with open(json_path, "w") as f:
            json.dump({"results": results}, f, indent=1)


def wait_all(cluster, ids, timeout=900):
    """Wait until every job of ids has ended: scontrol wait_job, in
    batches of what one request may name. Slurm has no wait_job: there
    squeue is asked until it lists none of them (it lists no ended job)."""
    if getattr(cluster, "is_slurm", False):  # clusters not made by reference() are ours
        left = set(ids)
        deadline = time.monotonic() + timeout
        while left:
            listed = {int(j) for j in cluster.out("squeue", "-h", "-o", "%i").split()
                      if j.isdigit()}
            left &= listed
            if left and time.monotonic() > deadline:
                raise RuntimeError(f"{len(left)} jobs still queued after {timeout} s")
            if left:
                time.sleep(0.25)  # each squeue costs the machine CPU
        return
    for i in range(0, len(ids), 1000):
        cluster.run("scontrol", "wait_job", ",".join(map(str, ids[i:i + 1000])),
                    "state=finished", "all", f"timeout={timeout}", timeout=timeout + 60)
