"""benchlib.py - what every benchmark here does around its measurement:
point the integration-test harness (tests/integration/cluster.py) at the
binaries to test, and stop the private cluster afterwards, keeping its
directory when something went wrong.
"""

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def harness(build_dir, needs):
    """The cluster module, its binaries taken from build_dir (or
    $SL_BUILD_DIR, or build/); exits when the binary `needs` is missing."""
    if build_dir:
        os.environ["SL_BUILD_DIR"] = str(Path(build_dir).resolve())
    sys.path.insert(0, str(REPO / "tests" / "integration"))
    import cluster  # noqa: E402 - after SL_BUILD_DIR is set

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
    return ap


def percentile(values, p):
    """Nearest-rank percentile of values (p in 0..100)."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))
    return s[int(k)]
