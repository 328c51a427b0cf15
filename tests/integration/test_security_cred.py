"""The step credential binds what it grants.

A normal user owns a running job on n1 and asks the controller for steps
of it (as srun does) with tests/tools/launch_forge.c, which then sends
slurmd launches srun would never send: to n2, a node the step (and the
job) does not have; with mem_limit 0, more cpus or a GPU; the same launch
again after the step ended, also across a slurmd restart; a launch of a
step made before its job ended, sent after. Each is refused
(ESLURMD_INVALID_JOB_CREDENTIAL 4004, ESLURMD_CREDENTIAL_REVOKED 4008,
ESLURMD_CREDENTIAL_REPLAYED 4009),
logged by the slurmd with the user's uid, and nothing ran: the step's
command (which would create a marker file) did not, and no slurmstepd
was started.
"""

import contextlib
import os
import signal
import subprocess

import pytest

from cluster import BUILD_DIR, submit, wait_for, wait_state

CLUSTER_KWARGS = dict(nodes=["n1", "n2"])

USER_ID_MISSING = 2010
INVALID_CRED = 4004
CRED_REVOKED = 4008
CRED_REPLAYED = 4009


@pytest.fixture(scope="module")
def user_dir(cluster, test_user):
    d = cluster.dir / "cred-user"
    d.mkdir(exist_ok=True)
    os.chown(d, test_user.pw_uid, test_user.pw_gid)
    return d


@pytest.fixture(scope="module")
def user_job(cluster, test_user, user_dir):
    """A running job of test_user on n1 with a memory limit."""
    job_id = submit(cluster, "-w", "n1", "-N1", "--mem=100", "-o", "/dev/null",
                    "--wrap", "sleep 600", user=test_user.pw_name)
    wait_state(cluster, job_id, "RUNNING")
    yield job_id
    cluster.run("scancel", str(job_id), check=False)


def forge_argv(job_id, mode, marker, *extra):
    return [str(BUILD_DIR / "launch_forge"), "-j", str(job_id), "-w", "n1", "-m", mode,
            *extra, "--", "/bin/sh", "-c", f"echo ran >> {marker}"]


def forge(cluster, test_user, job_id, mode, marker, *extra):
    argv = forge_argv(job_id, mode, marker, *extra)
    r = cluster.run(argv[0].rsplit("/", 1)[1], *argv[1:], user=test_user.pw_name, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def step_of(out):
    line = next(line for line in out.splitlines() if line.startswith("step "))
    return line.split()[1]


def assert_refused(out, what, code):
    assert f"launch {what} rc={code} " in out, out


def test_launch_on_a_node_outside_the_step_is_refused(cluster, test_user, user_dir, user_job):
    marker = user_dir / "cross"
    before = set(cluster.stepd_pids())
    mark = cluster.log_mark("slurmd-n2")
    out = forge(cluster, test_user, user_job, "cross", marker, "-t", "n2")
    assert_refused(out, "cross-node", INVALID_CRED)
    assert_refused(out, "cross-node-claimed", INVALID_CRED)
    step = step_of(out)
    line = cluster.wait_for_log(rf"Security violation: REQUEST_LAUNCH_TASKS StepId={step} on n2 "
                                rf"from uid {test_user.pw_uid}: credential does not grant it "
                                r"\(node not in the step\)", daemon="slurmd-n2", since=mark)
    assert line
    assert not marker.exists()
    assert not set(cluster.stepd_pids()) - before
    assert "n2" not in cluster.out("squeue", "-h", "-o", "%N", "-j", str(user_job))


def test_launch_beyond_the_grant_is_refused(cluster, test_user, user_dir, user_job):
    """mem_limit 0 would lift the step's memory limit; more cpus or a GPU
    would be in the tasks' environment; the credential grants none."""
    marker = user_dir / "mem0"
    before = set(cluster.stepd_pids())
    mark = cluster.log_mark("slurmd-n1")
    out = forge(cluster, test_user, user_job, "mem0", marker)
    assert " mem=100 " in out, out  # the grant the attack tries to lift
    for what in ("mem-limit-0", "more-cpus", "gpu"):
        assert_refused(out, what, INVALID_CRED)
    step = step_of(out)
    for why in ("memory limit", "cpus", "GPUs"):
        cluster.wait_for_log(rf"REQUEST_LAUNCH_TASKS StepId={step} on n1 from uid "
                             rf"{test_user.pw_uid}: credential does not grant it \({why}\)",
                             daemon="slurmd-n1", since=mark)
    assert not marker.exists()
    assert not set(cluster.stepd_pids()) - before


def test_batch_launch_from_a_user_is_refused(cluster, test_user, user_dir, user_job):
    """Only the controller (root or SlurmUser) may start a batch script, so
    none can come with a memory limit of the user's choosing."""
    marker = user_dir / "batch"
    before = set(cluster.stepd_pids())
    mark = cluster.log_mark("slurmd-n1")
    out = forge(cluster, test_user, user_job, "batch", marker)
    assert_refused(out, "batch", USER_ID_MISSING)
    cluster.wait_for_log(rf"Security violation, REQUEST_BATCH_JOB_LAUNCH RPC from "
                         rf"uid={test_user.pw_uid}", daemon="slurmd-n1", since=mark)
    assert not marker.exists()
    assert not set(cluster.stepd_pids()) - before


@contextlib.contextmanager
def forge_in_background(cluster, test_user, cwd, argv):
    """launch_forge as test_user, killed on the way out if still running."""
    pw = test_user

    def as_user():
        os.setgroups([])
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=cluster.env(), cwd=cwd, preexec_fn=as_user)
    try:
        yield p
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def replay(cluster, test_user, user_dir, user_job, name, between=None):
    """launch_forge replay: a real launch, then (once its stepd is gone and
    between() ran) the same launch again. Returns the tool's output."""
    marker, gate = user_dir / name, user_dir / f"{name}.gate"
    before = set(cluster.stepd_pids())
    argv = forge_argv(user_job, "replay", marker, "-g", str(gate))
    with forge_in_background(cluster, test_user, user_dir, argv) as p:
        wait_for(lambda: marker.exists() or p.poll() is not None, timeout=30,
                 what="the first launch's command")
        assert marker.read_text() == "ran\n"
        wait_for(lambda: not set(cluster.stepd_pids()) - before, timeout=30,
                 what="the step's slurmstepd to end")
        marker.unlink()
        if between:
            between()
        gate.write_text("")
        out, _ = p.communicate(timeout=60)
    assert p.returncode == 0, out
    assert "launch first rc=0 ok" in out, out
    assert_refused(out, "replay", CRED_REPLAYED)
    assert not marker.exists()
    assert not set(cluster.stepd_pids()) - before
    return out


def test_replayed_launch_after_the_step_ended_is_refused(cluster, test_user, user_dir, user_job):
    mark = cluster.log_mark("slurmd-n1")
    out = replay(cluster, test_user, user_dir, user_job, "replay")
    cluster.wait_for_log(rf"StepId={step_of(out)}: launch from uid {test_user.pw_uid} refused: "
                         r"Job credential replayed", daemon="slurmd-n1", since=mark)


def test_replay_is_refused_across_a_slurmd_restart(cluster, test_user, user_dir, user_job):
    def restart():
        cluster.kill_slurmd("n1", sig=signal.SIGTERM)
        mark = cluster.log_mark("slurmd-n1")
        cluster.start_slurmd("n1")
        cluster.wait_for_log(r"slurmd registered with the controller", daemon="slurmd-n1",
                             since=mark, timeout=30)
    mark = cluster.log_mark("slurmd-n1")
    out = replay(cluster, test_user, user_dir, user_job, "restart", between=restart)
    cluster.wait_for_log(rf"StepId={step_of(out)}: launch from uid {test_user.pw_uid} refused: "
                         r"Job credential replayed", daemon="slurmd-n1", since=mark)
    assert wait_state(cluster, user_job, "RUNNING")  # the job lived through it


def test_launch_after_the_job_ended_is_refused(cluster, test_user, user_dir):
    """A step created while the job ran, launched once the job ended on
    the node (within the credential's lifetime): revoked."""
    job_id = submit(cluster, "-w", "n1", "-N1", "-o", "/dev/null", "--wrap", "sleep 600",
                    user=test_user.pw_name)
    wait_state(cluster, job_id, "RUNNING")
    marker, gate = user_dir / "late", user_dir / "late.gate"
    ready = user_dir / "late.gate.ready"
    argv = forge_argv(job_id, "late", marker, "-g", str(gate))
    with forge_in_background(cluster, test_user, user_dir, argv) as p:
        wait_for(lambda: ready.exists() or p.poll() is not None, timeout=30,
                 what="the step's creation")
        assert ready.exists()
        before = set(cluster.stepd_pids())
        cluster.run("scancel", str(job_id))
        wait_state(cluster, job_id, ("CANCELLED", "COMPLETED"))
        wait_for(lambda: "COMPLETING" not in cluster.out("scontrol", "show", "job", str(job_id)),
                 timeout=30, what=f"job {job_id} to finish completing")
        mark = cluster.log_mark("slurmd-n1")
        gate.write_text("")
        out, _ = p.communicate(timeout=60)
    assert p.returncode == 0, out
    assert_refused(out, "late", CRED_REVOKED)
    cluster.wait_for_log(rf"StepId={step_of(out)}: launch from uid {test_user.pw_uid} refused: "
                         r"Job credential revoked", daemon="slurmd-n1", since=mark)
    assert not marker.exists()
    assert not set(cluster.stepd_pids()) - before


def test_srun_still_launches_as_granted(cluster, test_user, user_dir, user_job):
    """The checks refuse forgeries, not srun: a step across both nodes runs."""
    out = cluster.out("srun", "-N2", "-n3", "--mem=50", "hostname",
                      user=test_user.pw_name, timeout=60)
    assert out.count("\n") == 3, out
