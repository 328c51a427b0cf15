"""conftest.py - fixtures that give tests a private, running cluster.

* cluster (module scope): one cluster per test module. A module configures
  it with CLUSTER_KWARGS = {...} (Cluster() arguments) or with a function
  make_cluster() returning an unstarted Cluster (e.g. Cluster.like_reference).
* fresh_cluster (function scope): a factory, fresh_cluster(**kwargs), for
  tests that need a cluster of their own; each is stopped after the test.
* cancel_after (function scope): a list of job ids the test started;
  they are cancelled and waited for when it ends.
* test_user (session scope): a non-root account (sltest) for permission
  tests, created with useradd when running as root; without root the tests
  that need it are skipped.

When a test fails, the tail of every daemon log of the clusters it used is
attached to its report, and their directories are kept for inspection.
A daemon that crashed, or ignored SIGTERM at teardown, fails the teardown.
"""

import os
import pwd
import subprocess

import pytest

from cluster import BUILD_DIR, Cluster, cancel_and_wait, wait_for

TEST_USER = "sltest"
REQUIRED_BINARIES = ("slurmctld", "slurmd", "sinfo", "scontrol")


class ClusterFactory:
    def __init__(self, prefix):
        self.prefix = prefix
        self.clusters = []

    def __call__(self, make=None, **kwargs):
        """fresh_cluster(**Cluster kwargs) or fresh_cluster(make=callable)."""
        _require_binaries()
        kwargs.setdefault("name", self.prefix)
        c = make() if make else Cluster(**kwargs)
        self.clusters.append(c)
        return c.start()


def _require_binaries():
    missing = [b for b in REQUIRED_BINARIES if not os.access(BUILD_DIR / b, os.X_OK)]
    if missing:
        pytest.fail(f"not built in {BUILD_DIR}: {', '.join(missing)} (run `make build` "
                    "or set SL_BUILD_DIR)", pytrace=False)


def _finish(clusters):
    """Stop clusters; keep the directories of failed ones; fail on crashes."""
    errors = []
    for c in clusters:
        problems = c.stop()
        if problems and c.started:  # a failed start() already raised with the logs
            errors.append(f"cluster {c.dir}:\n  " + "\n  ".join(problems) + "\n" + c.log_tails())
        if c.failed or problems:
            print(f"\nkept the directory of cluster {c.name}: {c.dir}")
        else:
            c.cleanup()
    if errors:
        pytest.fail("daemons misbehaved:\n" + "\n".join(errors), pytrace=False)


def _short_name(request):
    return request.node.name.removesuffix(".py").removeprefix("test_")[:20]


@pytest.fixture(scope="module")
def cluster(request):
    _require_binaries()
    make = getattr(request.module, "make_cluster", None)
    if make is not None:
        c = make()
    else:
        kwargs = dict(getattr(request.module, "CLUSTER_KWARGS", {}))
        kwargs.setdefault("name", _short_name(request))
        c = Cluster(**kwargs)
    try:
        c.start()  # on failure it stops what it started and raises with the logs
    except Exception:
        print(f"\nkept the directory of cluster {c.name}: {c.dir}")
        raise
    yield c
    _finish([c])


@pytest.fixture
def fresh_cluster(request):
    factory = ClusterFactory(request.node.name[:20])
    yield factory
    _finish(factory.clusters)


@pytest.fixture
def cancel_after(cluster):
    """A list the test appends its job ids to: they are cancelled, and
    waited for, when the test ends, however it ends."""
    ids = []
    yield ids
    cancel_and_wait(cluster, ids)


@pytest.fixture(scope="module")
def workdir(cluster):
    """A directory in the module's cluster that every user may write (job
    output, scripts); modules that want another kind define their own."""
    d = cluster.dir / "work"
    d.mkdir(exist_ok=True)
    os.chmod(d, 0o777)
    return d


@pytest.fixture(scope="module")
def restd(cluster):
    """The module's cluster with slurmrestd running (restd_port, restd_socket)."""
    cluster.start_slurmrestd()
    return cluster


@pytest.fixture(scope="session")
def test_user():
    """pwd entry of a non-root user that tests run commands as."""
    if os.geteuid() != 0:
        pytest.skip(f"needs root to run commands as the test user {TEST_USER}")
    def made():
        try:
            return pwd.getpwnam(TEST_USER)
        except KeyError:
            pass
        # pytest-xdist workers may race here: useradd then finds the user
        # made (status 9) or /etc/passwd locked (10); the next look decides
        r = subprocess.run(["useradd", "--no-create-home", "--user-group", "--shell",
                            "/usr/sbin/nologin", TEST_USER], capture_output=True, text=True)
        if r.returncode not in (0, 9, 10):
            pytest.fail(f"useradd {TEST_USER}: {r.stderr.strip()}", pytrace=False)
        return None
    return wait_for(made, timeout=30, what=f"the test user {TEST_USER}")


def _clusters_of(item):
    found = []
    for value in getattr(item, "funcargs", {}).values():
        if isinstance(value, Cluster):
            found.append(value)
        elif isinstance(value, ClusterFactory):
            found.extend(value.clusters)
    return found


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if not rep.failed:
        return
    for c in _clusters_of(item):
        c.failed = True
        rep.sections.append((f"daemon logs of cluster {c.name} ({c.dir})", c.log_tails()))


# Modules whose clusters share something of the host that only one cluster
# at a time may hold: cgroup trees are named after the node
# (/sys/fs/cgroup/<controller>/slurm_<node>), and these modules run
# confined nodes of the same names. Under pytest-xdist (--dist loadgroup)
# they run one after another on one worker; every other module is a group
# of its own, so each module's tests share a worker and its cluster.
SERIAL_GROUPS = {
    "test_cgroup.py": "cgroup-trees",
    "test_security_pmi.py": "cgroup-trees",
}

# Modules that take longest, started first so that none is left running
# alone at the end (the order of the rest is pytest's).
LONG_FIRST = ("test_local_cluster_script.py", "test_many_nodes.py", "test_security_stall.py",
              "test_dashboard.py", "test_security_stepd.py", "test_security_rules.py",
              "test_job_limits.py", "test_steps.py", "test_security_root_paths.py",
              "test_accounting.py", "test_slurmrestd.py", "test_node_reconcile.py",
              "test_job_durability.py")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes a minute or more; `make check-fast` "
                            "leaves these out, CI runs them")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable
    for item in items:
        name = item.path.name
        item.add_marker(pytest.mark.xdist_group(SERIAL_GROUPS.get(name, name)))
