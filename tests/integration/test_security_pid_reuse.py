"""Signals of the root slurmstepd never reach a process outside the job
after a pid is reused.

With proctrack/linuxproc (this cluster's default) the stepd finds the
job's processes in /proc. A task that has exited and been reaped leaves a
pid the kernel may hand to anyone; a root process that gets it and calls
setsid() leads a session and process group whose id is the dead task's
pid. The test forces that reuse (tests/tools/pid_at: clone3 with set_tid
gives the root process that very pid) while the step's other task still
runs, then has the job's owner signal the step (`scancel -s USR1`), or
lets the step end on its own (the stepd then kills what the job leaves).
The root process must come through alive and unsignalled, while the job's
own task gets the signal.
"""

import os
import signal
import subprocess
import time

import pytest

from cluster import BUILD_DIR, TIMEOUT_SCALE, submit, wait_for, wait_state

CLUSTER_KWARGS = {"nodes": ("n1",), "name": "sec-pid"}

# Task 0 writes "<job id> <its pid> <the stepd's pid>" and exits at once; task 1 waits for
# "go" (or runs until signalled) and then exits.
STEP_SCRIPT = (
    'if [ "$SLURM_PROCID" = 0 ]; then echo "$SLURM_JOB_ID $$ $PPID" > pid0.tmp && mv pid0.tmp pid0;'
    ' exit 0; fi;'
    ' while [ ! -e go ]; do sleep 0.1; done; exit 0'
)


@pytest.fixture
def step_dir(workdir, test_user):
    d = workdir / f"pid-reuse-{time.monotonic_ns()}"
    d.mkdir()
    os.chown(d, test_user.pw_uid, test_user.pw_gid)
    return d


def popen_as(cluster, user, *args):
    """A command of ours started in the background as user."""
    def preexec():
        os.setgroups([])
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)
    env = {"HOME": "/tmp", "USER": user.pw_name, "LOGNAME": user.pw_name}
    return cluster.popen(*args, env=env, preexec_fn=preexec)


def task_start(pid):
    """Field 22 of /proc/PID/stat (start time in ticks), or None once gone
    (or a zombie: it has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None if fields[0] == "Z" else int(fields[19])


class Victim:
    """A root `sleep` leading its own session on a given pid, started by
    tests/tools/pid_at (clone3 with set_tid: exactly that pid, however
    much else forks on the machine), which reports how it ended."""

    def __init__(self, pid):
        self.proc = subprocess.Popen([str(BUILD_DIR / "pid_at"), str(pid), "sleep", "600"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if line != str(pid):
            self.proc.wait()
            pytest.fail(f"could not start a process on pid {pid}: {self.proc.stderr.read()}")
        self.pid = pid

    def ended(self):
        """None while the victim lives, else how it ended ("signal USR1")."""
        if self.proc.poll() is None:
            return None
        return self.proc.stdout.read().strip() or f"pid_at exited {self.proc.returncode}"

    def end(self):
        if self.proc.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.communicate()


def step_with_reused_pid(cluster, test_user, step_dir):
    """Start the two-task step; once task 0 is reaped, a root session leader
    takes its pid. Returns (srun, job id, (stepd pid, its start), Victim)."""
    srun = popen_as(cluster, test_user, "srun", "-N1", "-n2", "-D", step_dir,
                    "bash", "-c", STEP_SCRIPT)
    pid_file = step_dir / "pid0"
    wait_for(lambda: pid_file.exists() or srun.poll() is not None, timeout=30,
             what="task 0's pid")
    assert pid_file.exists(), srun.communicate()
    job_id, task0, stepd = (int(x) for x in pid_file.read_text().split())
    stepd_start = task_start(stepd)
    wait_for(lambda: task_start(task0) is None, timeout=10, what=f"task 0 (pid {task0}) reaped")
    victim = Victim(task0)
    wait_for(lambda: os.getsid(victim.pid) == victim.pid, timeout=10,
             what="the victim's session")
    assert srun.poll() is None, "task 1 still runs"
    return srun, job_id, (stepd, stepd_start), victim


@pytest.mark.parametrize("how", ["scancel -s USR1", "step end"])
def test_a_root_process_on_a_dead_tasks_pid_is_not_signalled(cluster, test_user, step_dir, how):
    srun, job_id, stepd, victim = step_with_reused_pid(cluster, test_user, step_dir)
    try:
        if how == "step end":
            (step_dir / "go").touch()
        else:
            cluster.run("scancel", "-s", "USR1", job_id, user=test_user.pw_name)
        out, err = srun.communicate(timeout=30 * TIMEOUT_SCALE)
        wait_state(cluster, job_id, ("COMPLETED", "FAILED", "CANCELLED"), timeout=30)
        if how != "step end":  # the job's own task did get the signal
            assert "User defined signal 1" in err or srun.returncode != 0, (out, err)
        # the stepd has ended: whatever it would have sent has arrived
        wait_for(lambda: task_start(stepd[0]) != stepd[1], timeout=20, what="the stepd's end")
        ended = victim.ended()
        assert ended is None, f"the root process on pid {victim.pid} was ended: {ended}"
    finally:
        victim.end()
        if srun.poll() is None:
            srun.kill()


def test_the_jobs_own_daemon_is_still_ended(cluster, test_user, step_dir):
    """A process of the job's that left every task's session (setsid, its
    parent gone) is the job's by descent: the stepd ends it with the job."""
    pid_file, go = step_dir / "daemon", step_dir / "go"
    job_id = submit(cluster, "-D", step_dir, "-o", "/dev/null", "--wrap",
                    f"setsid sh -c 'sleep 300 & echo $! > {pid_file}.tmp; "
                    f"mv {pid_file}.tmp {pid_file}'; "
                    f"while [ ! -e {go} ]; do sleep 0.1; done",
                    user=test_user.pw_name)
    wait_for(pid_file.exists, timeout=30, what="the daemon's pid")
    daemon = int(pid_file.read_text())
    start = task_start(daemon)
    assert start is not None, "the daemon lives while the job runs"
    try:
        go.touch()
        wait_state(cluster, job_id, "COMPLETED", timeout=30)
        wait_for(lambda: task_start(daemon) != start, timeout=20, what="the daemon's end")
    finally:
        if task_start(daemon) == start:
            os.kill(daemon, signal.SIGKILL)
