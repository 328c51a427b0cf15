"""The PMI server of a --mpi=pmi2 step against its own job.

The stepd runs as root, and on cgroup v1 outside the job's memory limit:
what a task or srun makes it hold is the node's memory. It is bounded
(limits.h, SL_PMI_*): a task that sends commands without reading the
replies is cut off once 256 KiB of them wait, srun's key space is taken
only while a fence of ours is in flight and the step's space is at most
32 MiB. Over a bound the user is told ("slurmstepd: error: ... PMI: ...")
and the step's tasks are killed; the stepd's resident memory stays small.

The attacks run as test_user: the task through a real srun, the forged
srun frames from tests/tools/pmi_forge.c, which creates and launches a
step of the user's job as srun does and then feeds the stepd IO_PMI_KVS
frames on the step's I/O connection.

On cgroup v2 the stepd sits in its step's "slurm" leaf, as Slurm's
cgroup/v2 puts it, so its memory counts in the job's memory.max; on v1 it
is in the freezer's job directory only (Slurm's proctrack/cgroup).
"""

import os
import re
import threading
import time
from pathlib import Path

import pytest

from cluster import BUILD_DIR, Cluster, memory_bound, submit, wait_for, wait_state

CLUSTER_KWARGS = {"nodes": ("n1",), "name": "sec-pmi"}
MIB = 1 << 20

# PMI-1: one 1 KB value put, then 4 MiB of gets sent without reading a
# reply (each ~40 times its size): a get flood
FLOOD = r"""
import os, socket, sys, time
while not os.path.exists(sys.argv[1]):  # the test watches the stepd from then on
    time.sleep(0.02)
s = socket.socket(fileno=int(os.environ["PMI_FD"]))
s.sendall(b"cmd=init pmi_version=1 pmi_subversion=1\n")
s.sendall(b"cmd=put kvsname=x key=big value=" + b"v" * 1000 + b"\n")
gets, sent = b"cmd=get kvsname=x key=big\n" * 1000, 0
try:
    while sent < (4 << 20):
        s.sendall(gets)
        sent += len(gets)
except OSError as e:
    print("cut off after", sent, flush=True)
time.sleep(2)
print("sent", sent, flush=True)
"""

# PMI-1 fences in a loop (each answered by pmi_forge with 16 MiB of keys)
FENCES = r"""
import os
fd = int(os.environ["PMI_FD"])
while True:
    os.write(fd, b"cmd=barrier_in\n")
    buf = b""
    while b"barrier_out" not in buf:
        d = os.read(fd, 4096)
        if not d:
            raise SystemExit("PMI connection closed")
        buf += d
"""


class PeakRss:
    """Samples VmHWM (the peak resident set) of the stepds that were not
    running when it started, until stopped; peak is the highest seen."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.before = set(cluster.stepd_pids())
        self.peak = 0
        self.seen = set()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self.done.is_set():
            for pid in set(self.cluster.stepd_pids()) - self.before:
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                m = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
                if m:
                    self.seen.add(pid)
                    self.peak = max(self.peak, int(m.group(1)) * 1024)
            time.sleep(0.02)

    def __enter__(self):
        self.thread.start()
        return self

    def wait_seen(self, gate):
        """Once the step's stepd was sampled: create gate (the attack starts)."""
        wait_for(lambda: self.seen, what="the step's slurmstepd")
        gate.write_text("")

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()


@pytest.fixture(scope="module")
def user_dir(cluster):
    d = cluster.dir / "pmi-work"
    d.mkdir(exist_ok=True)
    os.chmod(d, 0o777)
    return d


@pytest.fixture(scope="module")
def user_job(cluster, test_user, user_dir):
    """A running job of test_user on n1 for pmi_forge's steps."""
    job_id = submit(cluster, "-w", "n1", "-N1", "-o", "/dev/null", "--wrap", "sleep 600",
                    user=test_user.pw_name)
    wait_state(cluster, job_id, "RUNNING")
    yield job_id
    cluster.run("scancel", str(job_id), check=False)


def node_runs_a_pmi_step(cluster, test_user, user_dir):
    out = cluster.out("srun", "--mpi=pmi2", "-n1", "-D", user_dir, "python3", "-c",
                      "import os; print(os.environ['PMI_RANK'])", user=test_user.pw_name)
    assert out == "0\n"


def in_thread(fn):
    """fn() started in a thread; join() returns its result."""
    result = []
    t = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    t.start()
    return lambda: (t.join(), result[0])[1]


def forge(cluster, test_user, user_job, user_dir, mode, prog):
    """pmi_forge MODE as test_user, its step's task running prog; the
    attack starts once rss saw the stepd. Returns (its output, peak RSS)."""
    script, gate = user_dir / f"{mode}.py", user_dir / f"{mode}.gate"
    script.write_text(prog)
    gate.unlink(missing_ok=True)
    with PeakRss(cluster) as rss:
        join = in_thread(lambda: cluster.run(
            "pmi_forge", "-j", user_job, "-w", "n1", "-m", mode, "-g", gate, "--",
            "/usr/bin/python3", script, user=test_user.pw_name, check=False, timeout=120))
        rss.wait_seen(gate)
        r = join()
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout, rss.peak


def test_a_task_flooding_gets_without_reading_is_cut_off(cluster, test_user, user_dir):
    mark = cluster.log_mark("slurmd-n1")
    gate = user_dir / "flood.gate"
    with PeakRss(cluster) as rss:
        join = in_thread(lambda: cluster.run(
            "srun", "--mpi=pmi2", "-n1", "-D", user_dir, "python3", "-c", FLOOD, gate,
            user=test_user.pw_name, check=False, timeout=90))
        rss.wait_seen(gate)
        r = join()
    assert rss.peak < memory_bound(64 * MIB), f"the stepd grew to {rss.peak / MIB:.0f} MiB"
    assert r.returncode != 0, r.stdout + r.stderr
    assert "sent 4194" not in r.stdout, r.stdout  # it did not get to send it all
    assert re.search(r"slurmstepd: error: StepId=\d+\.0: PMI: task 0 left over 256 KiB of "
                     r"replies unread: killing the step's tasks", r.stderr), r.stderr
    cluster.wait_for_log(r"PMI: task 0 left over 256 KiB of replies unread", daemon="slurmd-n1",
                         since=mark)
    node_runs_a_pmi_step(cluster, test_user, user_dir)


def test_forged_srun_keys_without_a_fence_end_the_step(cluster, test_user, user_job,
                                                        user_dir):
    mark = cluster.log_mark("slurmd-n1")
    out, peak = forge(cluster, test_user, user_job, user_dir, "nofence",
                      "import time\ntime.sleep(60)\n")
    assert peak < memory_bound(64 * MIB), f"the stepd grew to {peak / MIB:.0f} MiB\n{out}"
    assert "closed=1" in out, out
    assert re.search(r"message: slurmstepd: error: StepId=\d+\.\d+: PMI: srun sent keys "
                     r"\(IO_PMI_KVS\) with no fence in flight: killing the step's tasks", out), out
    cluster.wait_for_log(r"PMI: srun sent keys \(IO_PMI_KVS\) with no fence in flight",
                         daemon="slurmd-n1", since=mark)
    node_runs_a_pmi_step(cluster, test_user, user_dir)


def test_forged_srun_keys_in_every_fence_stop_at_the_cap(cluster, test_user, user_job,
                                                         user_dir):
    mark = cluster.log_mark("slurmd-n1")
    out, peak = forge(cluster, test_user, user_job, user_dir, "fence", FENCES)
    # the space's 32 MiB (entries' bookkeeping included) and one round on its way
    assert peak < memory_bound(100 * MIB), f"the stepd grew to {peak / MIB:.0f} MiB\n{out}"
    assert "closed=1" in out, out
    sent = int(re.search(r"^sent (\d+) MiB$", out, re.M).group(1))
    assert 16 <= sent < 256, out  # one round went in whole, the rest was not taken
    assert re.search(r"message: slurmstepd: error: StepId=\d+\.\d+: PMI: the step's key space "
                     r"is over 262144 keys or 32 MiB: killing the step's tasks", out), out
    cluster.wait_for_log(r"PMI: the step's key space is over 262144 keys or 32 MiB",
                         daemon="slurmd-n1", since=mark)
    node_runs_a_pmi_step(cluster, test_user, user_dir)


# PMI-2 puts until told no: 40,000 values of 1000 bytes (over the space's
# 32 MiB) or 2,000 node attributes (over 1,024)
PUTS = r"""
import os, sys
fd = int(os.environ["PMI_FD"])

def cmd(text):
    os.write(fd, b"%-6d" % len(text) + text.encode())
    n = int(os.read(fd, 6) or b"0")
    body = b""
    while len(body) < n:
        body += os.read(fd, n - len(body))
    return body.decode()

cmd("cmd=fullinit;pmijobid=x;pmirank=0;threaded=FALSE;")
for i in range(40000 if sys.argv[1] == "kvs" else 2000):
    if sys.argv[1] == "kvs":
        cmd("cmd=kvs-put;key=k%d;value=%s;" % (i, "v" * 1000))
    else:
        cmd("cmd=info-putnodeattr;key=a%d;value=x;" % i)
print("never stopped", flush=True)
"""


@pytest.mark.parametrize("what,line", [
    ("kvs", r"task 0 put over 262144 keys or 32 MiB in the key space"),
    ("nodeattr", r"task 0 put over 1024 node attributes")])
def test_a_task_putting_without_end_is_stopped_at_the_cap(cluster, test_user, user_dir, what,
                                                          line):
    r = cluster.run("srun", "--mpi=pmi2", "-n1", "-D", user_dir, "python3", "-c", PUTS, what,
                    user=test_user.pw_name, check=False, timeout=90)
    assert r.returncode != 0 and "never stopped" not in r.stdout, r.stdout + r.stderr
    assert re.search(rf"slurmstepd: error: StepId=\d+\.\d+: PMI: {line}: killing the step's "
                     r"tasks", r.stderr), r.stderr
    node_runs_a_pmi_step(cluster, test_user, user_dir)

def test_the_stepd_is_in_its_steps_cgroup_on_v2(fresh_cluster):
    """Slurm's cgroup/v2 layout: the stepd in job_<j>/step_<s>/slurm, the
    tasks in .../user/task_<n>; so the job's memory.max counts the stepd."""
    mnt = Path("/sys/fs/cgroup")
    unified = mnt / "unified"
    if os.geteuid() != 0:
        pytest.skip("needs root to build cgroups")
    if not (unified / "cgroup.procs").exists() or (mnt / "cgroup.controllers").exists():
        pytest.skip(f"no hybrid cgroup v2 hierarchy at {unified}")

    def make():
        c = Cluster(nodes=("n1",), settings={"ProctrackType": "proctrack/cgroup"},
                    name="pmi-cgv2")
        (c.dir / "cgroup.conf").write_text(
            f"CgroupPlugin=cgroup/v2\nCgroupMountpoint={unified}\n")
        return c

    c = fresh_cluster(make=make)
    # the task's parent is its stepd
    out = c.out("srun", "-n1", "sh", "-c", "cat /proc/$PPID/cgroup; echo; cat /proc/self/cgroup")
    jid = re.search(r"job_(\d+)", out).group(1)
    scope = f"/system.slice/n1_slurmstepd.scope/job_{jid}/step_0"
    assert re.search(rf"^0::{scope}/slurm$", out, re.M), out
    assert re.search(rf"^0::{scope}/user/task_0$", out, re.M), out
    # and every directory goes with the step (the stepd left them first)
    wait_for(lambda: not (unified / "system.slice" / "n1_slurmstepd.scope" / f"job_{jid}").exists(),
             what="the job's v2 directory removed")


def test_the_stepd_is_in_its_jobs_freezer_cgroup_on_v1(fresh_cluster):
    """Slurm's v1 layout (proctrack/cgroup): the stepd in the freezer's
    job_<j>, outside the step directory that a kill freezes; v1's memory
    hierarchy does not get it (so there its caps are what bounds it)."""
    mnt = Path("/sys/fs/cgroup")
    if os.geteuid() != 0:
        pytest.skip("needs root to build cgroups")
    for ctrl in ("freezer", "memory"):
        probe = mnt / ctrl / f"sl-probe-{os.getpid()}"
        try:
            probe.mkdir()
            probe.rmdir()
        except OSError as e:
            pytest.skip(f"no writable cgroup v1 {ctrl} hierarchy: {e}")

    def make():
        c = Cluster(nodes=("n1",), settings={"ProctrackType": "proctrack/cgroup",
                                             "TaskPlugin": "task/cgroup"}, name="pmi-cgv1")
        (c.dir / "cgroup.conf").write_text("ConstrainRAMSpace=yes\n")
        return c

    c = fresh_cluster(make=make)
    out = c.out("srun", "-n1", "--mem=100", "sh", "-c", "cat /proc/$PPID/cgroup")
    jid = re.search(r"job_(\d+)", out).group(1)
    assert re.search(rf"^\d+:freezer:/slurm_n1/uid_0/job_{jid}$", out, re.M), out
    assert not re.search(r"^\d+:memory:.*job_", out, re.M), out
    wait_for(lambda: not (mnt / "freezer" / "slurm_n1" / "uid_0" / f"job_{jid}").exists(),
             what="the job's freezer directory removed")
