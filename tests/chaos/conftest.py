"""conftest.py - the chaos run's cluster.

The cluster is tests/integration/cluster.py's, imported from there (its
directory goes on sys.path), not a copy. The run is long, so it only runs
when CHAOS_SECONDS is set (`make chaos` sets it): a plain `pytest tests`
skips it, and `make check` only collects tests/integration.

The cluster's configuration is in chaos_config.py.
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

from chaos_config import NODE_DEFAULTS, NODE_SCRIPT, NODES, SETTINGS  # noqa: E402
from cluster import BUILD_DIR, Cluster, kill_tree  # noqa: E402 - needs the path above
from monkey import job_processes  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "chaos: the chaos run (make chaos); needs CHAOS_SECONDS")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("CHAOS_SECONDS"):
        return
    skip = pytest.mark.skip(reason="the chaos run needs CHAOS_SECONDS (make chaos)")
    for item in items:
        if "chaos" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def chaos_cluster(request):
    """A started 4-node cluster; stopped by pid at the end. Its directory
    (logs, the invariant table) is kept when the test failed."""
    missing = [b for b in ("slurmctld", "slurmd", "slurmstepd", "sbatch", "salloc", "sacct")
               if not os.access(BUILD_DIR / b, os.X_OK)]
    if missing:
        pytest.fail(f"not built in {BUILD_DIR}: {', '.join(missing)} (make build, or set "
                    "SL_BUILD_DIR)", pytrace=False)
    c = Cluster(nodes=NODES, node_defaults=NODE_DEFAULTS, settings=SETTINGS, name="chaos")
    (c.dir / "pe").mkdir()
    for name in ("prolog", "epilog"):
        (c.dir / "pe" / name).write_text(NODE_SCRIPT)
        os.chmod(c.dir / "pe" / name, 0o755)
    request.node.chaos_cluster = c
    c.start()
    yield c
    c.stop()  # the test stops it itself to check crashes; this is for errors
    for pid in job_processes(c, ()):  # what its jobs left running, by pid
        kill_tree(pid)
    if c.failed:
        print(f"\nkept the directory of the chaos cluster: {c.dir}")
    else:
        c.cleanup()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    c = getattr(item, "chaos_cluster", None)
    if c is not None and rep.failed:
        c.failed = True
        rep.sections.append((f"daemon logs of the chaos cluster ({c.dir})", c.log_tails(40)))
