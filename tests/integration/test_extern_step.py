"""PrologFlags=Contain: the extern step on every node of a job, and
pam_slurm_adopt.so adopting a login into it.

Each node of a job runs JOB.extern (a stepd whose one task sleeps, in
the job's cgroup step_extern), listed by squeue -s and accounted in
sacct; it ends COMPLETED with the job. The PAM module (built from
src/pam/) is driven by pamtester through a PAM service file in
/etc/pam.d (made and removed here): a user with a job on the node is let
in and the calling process is moved into the newest job's extern step,
where what it starts is confined, counted and killed with the job; a
user without a job is refused with Slurm's message; root is left to the
rest of the stack.

Skipped without root, writable cgroup v1 hierarchies, pamtester or the
built module."""

import os
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from test_cgroup import _v1_problem
from cluster import (BUILD_DIR, Cluster, marker, parse_record, pid_gone, submit, wait_for,
                     wait_state)

PAMTESTER = shutil.which("pamtester")
MODULE = BUILD_DIR / "pam_slurm_adopt.so"
NO_JOBS = "Access denied by pam_slurm_adopt: you have no active jobs on this node"


def _problem():
    cgroups = _v1_problem()  # root, writable v1 freezer, cpuset, memory
    if cgroups:
        return cgroups
    if not PAMTESTER:
        return "pamtester is not installed (make check installs it)"
    if not MODULE.exists():
        return f"{MODULE} was not built (no libpam0g-dev)"
    return None


pytestmark = pytest.mark.skipif(_problem() is not None, reason=str(_problem()))

SPAWN = """#!/bin/sh
# pam_exec after the module: what a login starts, in the cgroup it was given
d={dir}
[ -e "$d/spawn" ] || exit 0
( i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; exec sleep 300 ) \\
    </dev/null >/dev/null 2>&1 &
echo $! > "$d/spawned"
exit 0
"""


def make_cluster():
    c = Cluster(nodes=("n1", "n2"), name="extern",
                settings={"PrologFlags": "Contain", "ProctrackType": "proctrack/cgroup",
                          "TaskPlugin": "task/cgroup"})
    (c.dir / "cgroup.conf").write_text("ConstrainCores=yes\nConstrainRAMSpace=yes\n")
    (c.dir / "pam").mkdir(exist_ok=True)
    spawn = c.dir / "pam" / "spawn.sh"
    spawn.write_text(SPAWN.format(dir=c.dir / "pam"))
    os.chmod(spawn, 0o755)
    return c


class Service:
    """/etc/pam.d/<name>: the module, pam_exec of spawn.sh, pam_permit."""

    def __init__(self, cluster, options=""):
        self.name = f"sl-adopt-{os.getpid()}-{abs(hash(options)) % 10000}"
        self.path = Path("/etc/pam.d") / self.name
        d = cluster.dir / "pam"
        self.path.write_text(
            f"account requisite {MODULE} conf={cluster.conf_path} nodename=n1 {options}\n"
            f"account required pam_exec.so quiet {d / 'spawn.sh'}\n"
            "account required pam_permit.so\n")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.path.unlink()


def pamtester(service, user):
    """pamtester's result (returncode, stdout, stderr) and its pid."""
    p = subprocess.Popen([PAMTESTER, "-v", service.name, user, "acct_mgmt"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=60)
    return SimpleNamespace(returncode=p.returncode, stdout=out, stderr=err, pid=p.pid)


def cgroup_of(pid):
    return Path(f"/proc/{pid}/cgroup").read_text()


def sleepers(job):
    """pids of the extern steps' sleepers of job (one per node)."""
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            if (p / "cmdline").read_bytes() == b"/bin/sleep\x00100000000\x00" \
                    and f"/job_{job}/step_extern/" in (p / "cgroup").read_text():
                out.append(int(p.name))
        except OSError:
            pass
    return out


def hold_job(cluster, *args, user=None):
    """A job that runs until the marker hold.<id> goes; (id, marker path)."""
    d = cluster.dir / "pam"
    os.chmod(d, 0o777)
    r = cluster.run("sbatch", "--parsable", "-o", "/dev/null", "--chdir=/tmp", *args,
                    "--wrap", f"touch {d}/hold.$SLURM_JOB_ID; "
                              f"while [ -e {d}/hold.$SLURM_JOB_ID ]; do sleep 0.1; done",
                    user=user)
    job = r.stdout.strip().split(";")[0]
    path = d / f"hold.{job}"
    wait_for(path.exists, what=f"job {job} running")
    return job, path


def sacct_rows(cluster, job):
    out = cluster.out("sacct", "-j", job, "-P", "--noheader",
                      "-o", "JobID,JobName,State,ExitCode,NNodes,TotalCPU")
    return {r.split("|")[0]: r.split("|")[1:] for r in out.splitlines()}


def cpu_seconds(total):
    """sacct's TotalCPU ([DD-[HH:]]MM:SS.mmm) in seconds."""
    m = re.fullmatch(r"(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.(\d+))?", total)
    d, h, mi, s, ms = m.groups()
    return (int(d or 0) * 86400 + int(h or 0) * 3600 + int(mi) * 60 + int(s)
            + int((ms or "0").ljust(3, "0")) / 1000)


def test_every_node_of_a_job_runs_its_extern_step(cluster):
    job, hold = hold_job(cluster, "-N2")
    steps = cluster.out("squeue", "-h", "-s", "-j", job, "-o", "%i %j %N").split("\n")
    assert f"{job}.extern extern n[1-2]" in steps
    wait_for(lambda: len(sleepers(job)) == 2, what="a sleeper on each node")
    show = parse_record(cluster.out("scontrol", "show", "step", f"{job}.extern"))
    assert show["StepId"] == f"{job}.extern" and show["NodeList"] == "n[1-2]"
    hold.unlink()
    wait_state(cluster, job, ["COMPLETED"])
    wait_for(lambda: not sleepers(job), what="the sleepers gone with the job")
    wait_for(lambda: f"{job}.extern" in sacct_rows(cluster, job), what="the extern row")
    assert sacct_rows(cluster, job)[f"{job}.extern"][:4] == ["extern", "COMPLETED", "0:0", "2"]


def test_a_login_is_adopted_into_the_newest_job_and_ends_with_it(cluster, test_user):
    user = test_user.pw_name
    old, old_hold = hold_job(cluster, "-w", "n1", user=user)
    new, new_hold = hold_job(cluster, "-w", "n1", user=user)
    spawned = cluster.dir / "pam" / "spawned"
    with Service(cluster) as svc, marker(cluster.dir / "pam" / "spawn"):
        r = pamtester(svc, user)
        assert r.returncode == 0, r.stdout + r.stderr
        pid = int(spawned.read_text())
    try:
        assert f"/job_{new}/step_extern/" in cgroup_of(pid)
        wait_for(lambda: Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"sleep"),
                 what="the login's process done with its CPU")
        stat = cluster.out("sstat", "-j", f"{new}.extern", "-P", "--noheader",
                           "-o", "JobID,NTasks")
        assert stat.startswith(f"{new}.extern|")
        assert f"StepId={new}.extern: process {r.pid} adopted" \
            in cluster.log_text("slurmd-n1")
        cluster.run("scancel", new)
        wait_for(lambda: pid_gone(pid), what="the adopted process killed with its job")
    finally:
        spawned.unlink(missing_ok=True)
        if not pid_gone(pid):
            os.kill(pid, 9)
    wait_for(lambda: f"{new}.extern" in sacct_rows(cluster, new), what="the extern row")
    row = sacct_rows(cluster, new)[f"{new}.extern"]
    assert row[1] == "COMPLETED"
    assert cpu_seconds(row[4]) >= 0.05, row  # the login's loop counted
    old_hold.unlink()
    new_hold.unlink(missing_ok=True)
    wait_state(cluster, old, ["COMPLETED"])


def test_without_a_job_a_user_is_refused_and_root_passes(cluster, test_user):
    with Service(cluster) as svc:
        r = pamtester(svc, test_user.pw_name)
        assert r.returncode != 0
        assert NO_JOBS in r.stdout + r.stderr
        r = pamtester(svc, "root")
        assert r.returncode == 0, r.stdout + r.stderr


def test_generic_failures_deny_unless_told_otherwise(cluster, test_user):
    job, hold = hold_job(cluster, "-w", "n1", user=test_user.pw_name)
    try:
        with Service(cluster, "nodename=nosuchnode") as svc:
            assert pamtester(svc, test_user.pw_name).returncode != 0
        with Service(cluster, "nodename=nosuchnode action_generic_failure=ignore") as svc:
            assert pamtester(svc, test_user.pw_name).returncode == 0
        # action_no_jobs=ignore lets a user without a job through to the stack
        with Service(cluster, "action_no_jobs=ignore") as svc:
            assert pamtester(svc, "nobody").returncode == 0
    finally:
        hold.unlink()
    wait_state(cluster, job, ["COMPLETED"])
