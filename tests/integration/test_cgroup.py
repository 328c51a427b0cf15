"""cgroup confinement (ProctrackType=proctrack/cgroup, TaskPlugin=task/cgroup,
cgroup.conf Constrain*) on the machine's cgroup v1 hierarchies, and process
tracking on its v2 hierarchy.

Two nodes of 2 CPUs (as many as this host has, so the cores are real),
each with two GPUs that are character devices of the nvidia major (195)
with no driver behind them: open() of an allowed one fails with ENXIO,
of one the devices cgroup denies with EPERM.

Skipped where the machine has no writable cgroup v1 memory, cpuset,
devices and freezer hierarchies (not root, or no such mount).
"""

import os
import re
import signal
from pathlib import Path

import pytest

from cluster import Cluster, job, pid_gone, submit, wait_for, wait_state

MNT = Path("/sys/fs/cgroup")
V1 = ("freezer", "cpuset", "memory", "devices")
NODE = ("CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 "
        "RealMemory=4000 Gres=gpu:2")
CGROUP_CONF = """ConstrainCores=yes
ConstrainRAMSpace=yes
ConstrainDevices=yes
"""


def _v1_problem():
    if os.geteuid() != 0:
        return "needs root to build cgroups"
    for c in V1:
        probe = MNT / c / f"sl-probe-{os.getpid()}"
        try:
            probe.mkdir()
            probe.rmdir()
        except OSError as e:
            return f"no writable cgroup v1 {c} hierarchy under {MNT}: {e}"
    return None


pytestmark = pytest.mark.skipif(_v1_problem() is not None, reason=str(_v1_problem()))


def _mknod_gpus(c, n=2):
    for i in range(n):
        p = c.dir / "dev" / f"nvidia{i}"
        p.parent.mkdir(exist_ok=True)
        if p.exists():
            p.unlink()
        os.mknod(p, 0o666 | 0o020000, os.makedev(195, i))


def make_cluster():
    c = Cluster(nodes=(f"n1 {NODE}", f"n2 {NODE}"),
                settings={"ProctrackType": "proctrack/cgroup",
                          "TaskPlugin": "task/cgroup,task/affinity"},
                gres=("Name=gpu File=@RUN_DIR@/dev/nvidia[0-1]",),
                name="cgroup", fake_gpus=0)
    _mknod_gpus(c)
    (c.dir / "cgroup.conf").write_text(CGROUP_CONF)
    return c


def _out(c, jid):
    p = c.dir / f"slurm-{jid}.out"
    return p.read_text() if p.exists() else ""


def _sbatch(c, *args):
    return submit(c, f"--chdir={c.dir}", *args)


def _status_field(text, name):
    m = re.search(rf"^{name}:\s*(\S+)", text, re.M)
    return m and m.group(1)


def test_jobs_get_distinct_cores_and_see_only_them(cluster):
    c = cluster
    script = "grep Cpus_allowed_list /proc/self/status; taskset -p $$; echo ready; sleep 300"
    a = _sbatch(c, "-w", "n1", "-n1", "--wrap", script)
    wait_for(lambda: "ready" in _out(c, a), what="job a's cores")
    b = _sbatch(c, "-w", "n1", "-n1", "--wrap", script)
    wait_for(lambda: "ready" in _out(c, b), what="job b's cores")
    ca, cb = _status_field(_out(c, a), "Cpus_allowed_list"), _status_field(_out(c, b), "Cpus_allowed_list")
    assert {ca, cb} == {"0", "1"}, (_out(c, a), _out(c, b))
    # taskset agrees: one CPU's mask
    assert re.search(r"current affinity mask: [12]$", _out(c, a), re.M)
    job_dir = MNT / "cpuset" / "slurm_n1" / "uid_0" / f"job_{a}"
    assert (job_dir / "cpuset.cpus").read_text().strip() == ca
    assert (job_dir / "step_batch" / "task_0" / "cpuset.cpus").read_text().strip() == ca
    # a job on the other node has its own tree
    d = _sbatch(c, "-w", "n2", "-n2", "--wrap", script)
    wait_for(lambda: "ready" in _out(c, d), what="job d's cores")
    assert _status_field(_out(c, d), "Cpus_allowed_list") == "0-1"
    for j in (a, b, d):
        c.run("scancel", str(j))
    for j in (a, b, d):
        wait_state(c, j, "CANCELLED")
    # the job's directories go with it
    wait_for(lambda: not job_dir.exists(), what=f"{job_dir} removed")


def test_step_layout_in_every_hierarchy(cluster):
    out = cluster.out("srun", "-w", "n2", "-n1", "cat", "/proc/self/cgroup")
    jid = re.search(r"job_(\d+)", out).group(1)
    for ctrl in V1:
        assert re.search(rf"^\d+:{ctrl}:/slurm_n2/uid_0/job_{jid}/step_0/task_0$", out, re.M), out
    assert not (MNT / "freezer" / "slurm_n2" / "uid_0" / f"job_{jid}").exists()


def test_kernel_oom_kill_ends_the_job_out_of_memory(cluster):
    c = cluster
    neighbour = _sbatch(c, "-w", "n1", "-n1", "--mem=50M", "--wrap", "sleep 300")
    wait_state(c, neighbour, "RUNNING")
    hog = _sbatch(c, "-w", "n1", "-n1", "--mem=50M", "--wrap",
                  "python3 -c 'a = bytearray(200 << 20); import time; time.sleep(5)'; "
                  "echo after")
    r = wait_state(c, hog, ("OUT_OF_MEMORY", "COMPLETED", "FAILED"), timeout=60)
    out = _out(c, hog)
    assert r["JobState"] == "OUT_OF_MEMORY", out
    assert (f"slurmstepd-n1: error: Detected 1 oom-kill event(s) in StepId={hog}.batch. "
            "Some of your processes may have been killed by the cgroup out-of-memory "
            "handler.") in out
    assert "exceeded memory limit" not in out  # the kernel's kill, not our sampling
    assert "after" in out  # only the process over the limit was killed
    assert job(c, neighbour)["JobState"] == "RUNNING"
    c.run("scancel", str(neighbour))
    wait_state(c, neighbour, "CANCELLED")


def test_devices_only_the_allocated_gpu(cluster):
    c = cluster
    holder = _sbatch(c, "-w", "n2", "--gres=gpu:1", "--wrap", "sleep 300")
    wait_state(c, holder, "RUNNING")
    probe = ("import os\n"
             "for i in (0, 1):\n"
             "    try:\n"
             f"        os.open('{c.dir}/dev/nvidia%d' % i, os.O_RDONLY)\n"
             "        print(i, 'opened')\n"
             "    except OSError as e:\n"
             "        print(i, e.strerror)\n")
    (c.dir / "probe.py").write_text(probe)
    out = c.out("srun", "-w", "n2", "--gres=gpu:1", "sh", "-c",
                f"echo CUDA=$CUDA_VISIBLE_DEVICES; python3 {c.dir}/probe.py")
    assert "0 Operation not permitted" in out, out
    assert "1 No such device or address" in out, out  # allowed: no driver behind it
    c.run("scancel", str(holder))
    wait_state(c, holder, "CANCELLED")


def test_a_daemon_started_by_a_job_dies_with_it(cluster):
    c = cluster
    pidfile = c.dir / "daemon.pid"
    # setsid and an empty environment: neither the process group nor
    # SLURM_JOB_ID finds it; only its cgroup does
    j = _sbatch(c, "-w", "n1", "--wrap",
                f"env -i /usr/bin/setsid /bin/sh -c 'sleep 300 & echo $! > {pidfile}'; "
                f"while [ ! -s {pidfile} ]; do sleep 0.1; done")
    wait_state(c, j, "COMPLETED")
    pid = int(pidfile.read_text())
    try:
        wait_for(lambda: pid_gone(pid), timeout=10, what=f"daemon {pid} killed with job {j}")
    finally:
        if not pid_gone(pid):
            os.kill(pid, signal.SIGKILL)


def test_v2_tracks_the_steps_processes(fresh_cluster):
    unified = MNT / "unified"
    if not (unified / "cgroup.procs").exists() or (MNT / "cgroup.controllers").exists():
        pytest.skip(f"no hybrid cgroup v2 hierarchy at {unified}")
    def make():
        c = Cluster(nodes=("n1",), settings={"ProctrackType": "proctrack/cgroup"}, name="cgv2")
        (c.dir / "cgroup.conf").write_text(
            f"CgroupPlugin=cgroup/v2\nCgroupMountpoint={unified}\n")
        return c

    c = fresh_cluster(make=make)
    out = c.out("srun", "-n1", "cat", "/proc/self/cgroup")
    jid = re.search(r"job_(\d+)", out).group(1)
    assert re.search(rf"^0::/system.slice/n1_slurmstepd.scope/job_{jid}/step_0/user/task_0$",
                     out, re.M), out
    assert not (unified / "system.slice" / "n1_slurmstepd.scope" / f"job_{jid}").exists()


def test_without_usable_cgroups_the_job_runs_and_the_log_says_so(fresh_cluster):
    def make():
        c = Cluster(nodes=("n1",), settings={"ProctrackType": "proctrack/cgroup",
                                             "TaskPlugin": "task/cgroup"}, name="cgnone")
        (c.dir / "cgroup.conf").write_text(f"CgroupMountpoint={c.dir}/no-cgroups\n"
                                           "ConstrainRAMSpace=yes\n")
        return c

    c = fresh_cluster(make=make)
    assert c.out("srun", "-n1", "echo", "ran") == "ran\n"
    c.wait_for_log("cannot build the cgroups of StepId=1.0 under .*no-cgroups.*tracked "
                   "through /proc and memory by sampling", daemon="slurmd-n1")


def test_cpu_bind_pins_each_task_within_the_cpuset(cluster):
    c = cluster
    r = c.run("srun", "-w", "n1", "-n2", "--cpu-bind=verbose,cores", "-l", "sh", "-c",
              "grep Cpus_allowed_list /proc/self/status")
    allowed = sorted(re.findall(r"^(\d): Cpus_allowed_list:\s+(\S+)$", r.stdout, re.M))
    assert allowed == [("0", "0"), ("1", "1")], r.stdout
    for task, mask in (("0", "0x1"), ("1", "0x2")):  # on the task's stderr
        assert re.search(rf"^{task}: cpu-bind=MASK - n1, task  {task}  {task} \[\d+\]: "
                         rf"mask {mask} set$", r.stderr, re.M), r.stderr
    # map_cpu, in the order given
    out = c.out("srun", "-w", "n1", "-n2", "--cpu-bind=map_cpu:1,0", "-l", "sh", "-c",
                "grep Cpus_allowed_list /proc/self/status")
    assert sorted(re.findall(r"^(\d): Cpus_allowed_list:\s+(\S+)$", out, re.M)) == [
        ("0", "1"), ("1", "0")], out
    # a job of one core: a CPU outside its cpuset cannot be had; the task
    # runs unbound within the cpuset, the node's log says why
    out = c.out("srun", "-w", "n1", "-n1", "--cpu-bind=map_cpu:7", "sh", "-c",
                "grep Cpus_allowed_list /proc/self/status")
    assert re.search(r"Cpus_allowed_list:\s+[01]$", out, re.M), out
    c.wait_for_log("--cpu-bind=map_cpu:7 cannot be met", daemon="slurmd-n1")


def test_a_killed_stepds_daemons_are_killed_by_slurmd_through_the_cgroup(cluster):
    """Last in the module: the job ends NODE_FAIL as test_node_reconcile's."""
    c = cluster
    pidfile = c.dir / "orphan.pid"
    j = _sbatch(c, "-w", "n2", "--no-requeue", "--wrap",
                f"env -i /usr/bin/setsid /bin/sh -c 'sleep 300 & echo $! > {pidfile}'; sleep 300")
    wait_state(c, j, "RUNNING")
    wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), what="the daemon")
    pid = int(pidfile.read_text())
    mark = c.log_mark("slurmd-n2")
    stepds = c.stepd_pids()
    assert len(stepds) == 1
    os.kill(stepds[0], signal.SIGKILL)
    try:
        # no SLURM_JOB_ID in its environment: only the cgroup finds it
        wait_for(lambda: pid_gone(pid), timeout=30, what=f"daemon {pid} of a dead stepd")
    finally:
        if not pid_gone(pid):
            os.kill(pid, signal.SIGKILL)
    c.wait_for_log(r"its slurmstepd died; \d+ process\(es\) of its cgroups killed",
                   daemon="slurmd-n2", since=mark, containing=f"StepId={j}.")
    wait_for(lambda: not list((MNT / "freezer" / "slurm_n2").glob(f"uid_*/job_{j}")),
             what="the dead step's cgroups removed")
