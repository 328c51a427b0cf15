"""scripts/local-cluster.sh (`make run`) repairs a crashed cluster instead of
wiping it: `up` starts only the daemons that are not running, keeps
run/slurm.conf (its ports) and never stops the slurmstepds of running jobs;
`restart [slurmctld|slurmrestd|NODE...]` restarts exactly the daemons
named; `up` and `dashboard` print the dashboard's address with a token.

The script works on <its repo>/run, so each test copies it and etc/local/
into a private tree laid out like the repo (tmp/scripts/local-cluster.sh,
tmp/etc/local/*.in) and runs it there against the build under test
($SL_BUILD_DIR or <repo>/build, as cluster.py). Every test ends with
`down` (which also stops this tree's slurmstepds), then SIGKILLs by pid
whatever of the tree might still run.
"""

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from cluster import BUILD_DIR, REPO, TIMEOUT_SCALE, unmount_under, wait_for

# each test brings a whole `make run` cluster up and down: a minute or more
pytestmark = pytest.mark.slow

DAEMONS = ("munged", "slurmctld", "slurmd-c1", "slurmd-c2", "slurmd-g1", "slurmd-g2",
           "slurmrestd")
UP_TIMEOUT = int(60 * TIMEOUT_SCALE)  # SL_UP_TIMEOUT given to the script
SCRIPT_TIMEOUT = UP_TIMEOUT + 60      # for one run of the script


def proc_id(pid):
    """(pid, start time) of a live process, None if it is gone or a zombie;
    equal ids mean the same process, not a reused pid."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] in ("Z", "X") else (pid, int(fields[19]))


def parent_of(pid):
    """The parent pid of a process, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


class Tree:
    """A copy of the script and etc/local/ in a temp dir, and its run/."""

    def __init__(self):
        # short path: the munge socket lives under it (sun_path is 108 bytes)
        # not under /tmp either: as root the jobs' /tmp is their own
        # (job_container/tmpfs), and their scripts are in run/spool
        self.dir = Path(tempfile.mkdtemp(prefix="lc-", dir="/var/tmp"))
        (self.dir / "scripts").mkdir()
        shutil.copy2(REPO / "scripts/local-cluster.sh", self.dir / "scripts")
        shutil.copytree(REPO / "etc/local", self.dir / "etc/local")
        # These tests are about which daemons the script starts and keeps.
        # A slurmd killed by a test comes back when `up` gets to it, which
        # on a loaded machine can take longer than the template's 30 s, and
        # the controller would then declare the node dead and end its job.
        conf = self.dir / "etc/local/slurm.conf.in"
        text = conf.read_text()
        assert "\nSlurmdTimeout=30\n" in text
        conf.write_text(text.replace("\nSlurmdTimeout=30\n", "\nSlurmdTimeout=300\n"))
        self.run_dir = self.dir / "run"
        self.conf = self.run_dir / "slurm.conf"
        self.env = dict(os.environ, SL_BUILD_DIR=str(BUILD_DIR),
                        SL_UP_TIMEOUT=str(UP_TIMEOUT), SLURM_CONF=str(self.conf))

    def script(self, *args):
        """Run the copied script; returns CompletedProcess (text)."""
        return subprocess.run([str(self.dir / "scripts/local-cluster.sh"), *args],
                              capture_output=True, text=True, errors="replace", env=self.env,
                              cwd=self.dir, timeout=SCRIPT_TIMEOUT)

    def script_ok(self, *args):
        r = self.script(*args)
        assert r.returncode == 0, describe(r)
        return r

    def cli(self, cmd, *args):
        r = subprocess.run([str(BUILD_DIR / cmd), *map(str, args)], capture_output=True,
                           text=True, errors="replace", env=self.env, cwd=self.dir,
                           timeout=60 * TIMEOUT_SCALE)
        assert r.returncode == 0, describe(r)
        return r.stdout

    def pid(self, name):
        try:
            return int((self.run_dir / f"pid/script/{name}.pid").read_text())
        except (OSError, ValueError):
            return None

    def daemon_ids(self):
        """{daemon: proc_id} of the recorded pids (None: not running)."""
        return {n: (proc_id(self.pid(n)) if self.pid(n) else None) for n in DAEMONS}

    def stepd_ids(self):
        """proc_ids of this tree's slurmstepds: the build's slurmstepd with
        -f <tree>/run/slurm.conf on its command line. A stepd's own child
        between fork and exec (it still looks like one) is not counted, or
        a set taken at that moment would lose a member that did not die."""
        found = {}
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    argv = [a.decode(errors="replace") for a in f.read().split(b"\0")]
            except OSError:
                continue
            if argv and os.path.basename(argv[0]) == "slurmstepd" and str(self.conf) in argv:
                pid = proc_id(int(entry))
                if pid:
                    found[int(entry)] = (pid, parent_of(int(entry)))
        return {pid for pid, ppid in found.values() if ppid not in found}

    def kill9(self, name):
        pid = self.pid(name)
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: proc_id(pid) is None, timeout=10, what=f"{name} (pid {pid}) to die")

    def submit_sleep(self):
        """sbatch a long sleep, wait until it runs and its slurmstepd is
        there; returns (job id, node, stepd ids)."""
        out = self.cli("sbatch", "--parsable", "--wrap", "sleep 300")
        job = out.strip().split(";")[0]
        wait_for(lambda: self.job_state(job) == "RUNNING", timeout=30,
                 what=f"job {job} to run")
        stepds = wait_for(self.stepd_ids, timeout=30, what=f"the slurmstepd of job {job}")
        node = self.cli("squeue", "-h", "-j", job, "-o", "%N").strip()
        return job, node, stepds

    def job_state(self, job):
        return self.cli("squeue", "-h", "-j", job, "-o", "%T").strip()

    def log_tails(self, lines=30):
        out = []
        for f in sorted((self.run_dir / "log").glob("*")):
            text = f.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"----- {f} -----\n" + "\n".join(text))
        return "\n".join(out)

    def teardown(self):
        """`down`, then SIGKILL by pid whatever of this tree still runs."""
        problems = []
        if (self.dir / "run").exists():
            try:
                r = self.script("down")
                if r.returncode != 0:
                    problems.append("down failed: " + describe(r))
            except subprocess.TimeoutExpired:
                problems.append("down timed out")
        recorded = {f.stem for f in (self.run_dir / "pid/script").glob("*.pid")}
        for name in sorted(set(DAEMONS) | recorded):
            ident = proc_id(self.pid(name)) if self.pid(name) else None
            if ident:
                problems.append(f"{name} (pid {ident[0]}) still ran after down")
                os.kill(ident[0], signal.SIGKILL)
        for pid, _ in self.stepd_ids():
            problems.append(f"slurmstepd (pid {pid}) still ran after down")
            os.kill(pid, signal.SIGKILL)
        unmount_under(self.dir)
        return problems


def describe(r):
    return f"exit {r.returncode}\n--- stdout\n{r.stdout}--- stderr\n{r.stderr}"


def _require_build():
    missing = [b for b in ("slurmctld", "slurmd", "slurmstepd", "sinfo", "scontrol", "sbatch",
                           "squeue") if not os.access(BUILD_DIR / b, os.X_OK)]
    if missing:
        pytest.fail(f"not built in {BUILD_DIR}: {', '.join(missing)}", pytrace=False)


@pytest.fixture
def tree(request):
    """A running cluster of a private copy of the script (after `up`)."""
    _require_build()
    t = Tree()
    failed_before = request.session.testsfailed
    try:
        t.script_ok("up")
        yield t
    finally:
        problems = t.teardown()
        if request.session.testsfailed > failed_before or problems:
            print(f"\nkept {t.dir}\n{t.log_tails()}")
        else:
            shutil.rmtree(t.dir, ignore_errors=True)
        assert not problems, "\n".join(problems)


def changed(before, after):
    return sorted(n for n in DAEMONS if before[n] != after[n])


def test_up_after_slurmctld_is_killed_starts_it_and_keeps_the_running_job(tree):
    job, _, stepds = tree.submit_sleep()
    before = tree.daemon_ids()
    conf = tree.conf.read_text()

    tree.kill9("slurmctld")
    r = tree.script_ok("up")

    assert "starting slurmctld" in r.stdout
    after = tree.daemon_ids()
    assert changed(before, after) == ["slurmctld"] and after["slurmctld"], (before, after)
    assert stepds <= tree.stepd_ids(), "up stopped the job's slurmstepd"
    assert tree.job_state(job) == "RUNNING"
    assert tree.conf.read_text() == conf, "up rewrote run/slurm.conf"
    assert not (tree.run_dir / "log.prev").exists(), "up rotated the logs of a running cluster"


def test_up_restarts_only_the_slurmd_that_died(tree):
    before = tree.daemon_ids()
    start = time.monotonic()
    r = tree.script_ok("up")
    assert "already running" in r.stdout
    assert time.monotonic() - start < 10 * TIMEOUT_SCALE
    assert tree.daemon_ids() == before

    job, node, stepds = tree.submit_sleep()
    log = tree.run_dir / f"log/slurmd-{node}.log"
    old_log = log.read_bytes()
    tree.kill9(f"slurmd-{node}")
    r = tree.script_ok("up")

    assert f"starting slurmd -N {node}" in r.stdout
    after = tree.daemon_ids()
    assert changed(before, after) == [f"slurmd-{node}"] and after[f"slurmd-{node}"]
    assert stepds <= tree.stepd_ids(), "up stopped the job's slurmstepd"
    assert tree.job_state(job) == "RUNNING"
    assert log.read_bytes().startswith(old_log), "the restarted slurmd's log was not kept"
    # the node is busy with the job, and up accepted that
    assert tree.cli("sinfo", "-h", "-n", node, "-o", "%t").strip() in ("alloc", "mix")


def test_restart_changes_only_the_daemons_named_and_keeps_the_job(tree):
    job, _, stepds = tree.submit_sleep()
    ids = tree.daemon_ids()

    tree.script_ok("restart", "c1")
    after = tree.daemon_ids()
    assert changed(ids, after) == ["slurmd-c1"] and after["slurmd-c1"]
    assert stepds <= tree.stepd_ids()
    ids = after

    tree.script_ok("restart", "slurmctld")
    after = tree.daemon_ids()
    assert changed(ids, after) == ["slurmctld"] and after["slurmctld"]
    assert stepds <= tree.stepd_ids()
    assert tree.job_state(job) == "RUNNING"
    ids = after

    tree.script_ok("restart")
    after = tree.daemon_ids()
    assert changed(ids, after) == [n for n in DAEMONS if n != "munged"]
    assert all(after.values()), after
    assert stepds <= tree.stepd_ids()
    assert tree.job_state(job) == "RUNNING"
    assert not (tree.run_dir / "log.prev").exists()


def test_restart_of_an_unknown_name_fails_with_2_and_restarts_nothing(tree):
    before = tree.daemon_ids()
    for args in (["bogus"], ["c1", "bogus"]):
        r = tree.script("restart", *args)
        assert r.returncode == 2, describe(r)
        assert "unknown daemon or node 'bogus'" in r.stderr
        assert tree.daemon_ids() == before


def test_up_after_down_keeps_the_config_and_key_and_rotates_the_logs(tree):
    conf = tree.conf.read_text()
    key = (tree.run_dir / "munge/munge.key").read_bytes()
    tree.submit_sleep()
    tree.script_ok("down")
    assert not tree.stepd_ids(), "down left a slurmstepd running"
    assert not any(tree.daemon_ids().values())

    tree.script_ok("up")
    assert all(tree.daemon_ids().values())
    assert tree.conf.read_text() == conf, "a cold start changed the ports"
    assert (tree.run_dir / "munge/munge.key").read_bytes() == key
    assert (tree.run_dir / "log.prev/slurmctld.log").exists(), "a cold start kept no log.prev"


def test_up_with_nodes_makes_that_many_cpu_nodes_and_keeps_the_count(tree):
    # the count of a running cluster changes only through down
    r = tree.script("up", "--nodes", "12")
    assert r.returncode == 1 and "the cluster runs with 2 cpu nodes" in r.stderr, describe(r)
    for bad in ("0", "x", "4001"):
        r = tree.script("up", "--nodes", bad)
        assert r.returncode == 2 and "--nodes takes 1 to 4000" in r.stderr, describe(r)
    tree.script_ok("down")
    r = tree.script_ok("up", "--nodes", "12")
    assert "starting 14 slurmd" in r.stdout, describe(r)  # c1..c12, g1 and g2
    want = "cpu-queue* idle 12 c[1-12]\ngpu-queue idle 2 g[1-2]\n"
    assert tree.cli("sinfo", "-h", "-o", "%P %t %D %N") == want
    ports = {line.split()[0]: line for line in tree.conf.read_text().splitlines()
             if line.startswith("NodeName=c")}
    assert len(ports) == 12 and len({w for line in ports.values() for w in line.split()
                                     if w.startswith("Port=")}) == 12
    # a later up keeps the count and the ports
    conf = tree.conf.read_text()
    tree.script_ok("down")
    tree.script_ok("up")
    assert tree.conf.read_text() == conf
    assert tree.cli("sinfo", "-h", "-o", "%P %t %D %N") == want


def test_up_names_a_foreign_process_holding_a_port_and_stops_nothing(tree):
    port = next(int(w.split("=")[1]) for line in tree.conf.read_text().splitlines()
                if line.startswith("NodeName=c2 ") for w in line.split() if w.startswith("Port="))
    tree.kill9("slurmd-c2")
    before = tree.daemon_ids()
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", port))
        s.listen()
        r = tree.script("up")
        assert r.returncode == 1, describe(r)
        assert f"port {port} of slurmd-c2" in r.stderr and f"pid {os.getpid()} " in r.stderr
        assert tree.daemon_ids() == before, "a failed up stopped or started daemons"
    tree.script_ok("up")
    assert all(tree.daemon_ids().values())


def _dashboard(text):
    """(port, user, token) of the dashboard line a command printed."""
    m = re.search(r"dashboard: http://127\.0\.0\.1:(\d+)/#user=([^&\s]+)&token=(\S+)", text)
    assert m, text
    return int(m.group(1)), m.group(2), m.group(3)


def _get(port, path, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30 * TIMEOUT_SCALE)
    try:
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def test_up_serves_the_dashboard_and_prints_its_address_with_a_token(tree):
    r = tree.script_ok("dashboard")
    port, user, token = _dashboard(r.stdout)
    assert port == int((tree.run_dir / "slurmrestd.port").read_text())
    status, body = _get(port, "/")
    assert status == 200 and b"dashboard.js" in body
    # the token printed is good for the API, as that user
    status, body = _get(port, "/slurm/v0.0.38/nodes",
                        {"X-SLURM-USER-NAME": user, "X-SLURM-USER-TOKEN": token})
    assert status == 200, body
    assert b'"g1"' in body
    status, _ = _get(port, "/slurm/v0.0.38/nodes")
    assert status == 401
    assert (tree.run_dir / "jwt.key").stat().st_mode & 0o077 == 0
    env = tree.script_ok("env").stdout
    assert f"SLURMRESTD_URL=http://127.0.0.1:{port}" in env


def test_restart_slurmrestd_restarts_only_it(tree):
    before = tree.daemon_ids()
    tree.script_ok("restart", "slurmrestd")
    after = tree.daemon_ids()
    assert changed(before, after) == ["slurmrestd"] and after["slurmrestd"]
    port, _, _ = _dashboard(tree.script_ok("dashboard").stdout)
    assert _get(port, "/")[0] == 200


def test_up_configures_the_node_scripts_and_they_run(tree):
    """run/etc holds the Prolog, the Epilog and the health check, 0755 and
    ours (slurmd runs nothing others may change); a job leaves a prolog
    and an epilog line in run/log/node-scripts.log."""
    for name in ("prolog", "epilog", "healthcheck"):
        st = (tree.run_dir / "etc" / name).stat()
        assert st.st_mode & 0o777 == 0o755 and st.st_uid == os.geteuid(), name
    cfg = tree.cli("scontrol", "show", "config")
    assert f"Prolog                  = {tree.run_dir}/etc/prolog" in cfg
    assert "HealthCheckInterval     = 300 sec" in cfg
    assert "PrologFlags             = Alloc,Contain" in cfg
    if os.geteuid() == 0:  # a private /tmp per job: mount namespaces
        assert "JobContainerType        = job_container/tmpfs" in cfg
    job = tree.cli("sbatch", "--parsable", "--wrap", "true").strip().split(";")[0]
    log = tree.run_dir / "log" / "node-scripts.log"

    def ran():
        text = log.read_text() if log.exists() else ""
        return [l.split()[1] for l in text.splitlines() if f" job {job} " in l + " "]

    wait_for(lambda: ran() == ["prolog", "epilog"], timeout=30, what="both scripts for the job")
    wait_for(lambda: tree.job_state(job) in ("COMPLETED", ""), timeout=30, what="the job done")


def test_scontrol_reboot_restarts_the_nodes_slurmd(tree):
    """RebootProgram (etc/local/reboot.in) restarts the node's slurmd
    through this script: the node is back in service, a new slurmd
    recorded, the others untouched."""
    st = (tree.run_dir / "etc" / "reboot").stat()
    assert st.st_mode & 0o777 == 0o755 and st.st_uid == os.geteuid()
    before = tree.daemon_ids()
    tree.cli("scontrol", "reboot", "nextstate=RESUME", "c1")

    def back():
        s = tree.cli("scontrol", "show", "node", "c1")
        return tree.daemon_ids()["slurmd-c1"] not in (None, before["slurmd-c1"]) \
            and " State=IDLE " in s.replace("\n", " ")
    wait_for(back, timeout=60, what="c1 rebooted and idle")
    assert changed(before, tree.daemon_ids()) == ["slurmd-c1"]
    log = tree.run_dir / "log" / "reboot.log"
    wait_for(lambda: "restarted" in log.read_text(), timeout=60, what="the restart logged")
