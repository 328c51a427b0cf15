"""Waiting without polling: scontrol wait_job and sbatch --wait hold one
REQUEST_JOB_WAIT until the controller sees the jobs get there; its caps,
PrivateData, timeouts, clients that go away, and what it costs (sdiag)."""

import os
import re
import subprocess
import time

import pytest

from cluster import BUILD_DIR, submit, wait_for, wait_state

CLUSTER_KWARGS = {"name": "wait", "nodes": ("n1", "n2")}
PER_UID_MAX = 32  # limits.h SL_WAIT_PER_UID_MAX


def sub(cluster, workdir, *args, **kw):
    return submit(cluster, "-D", workdir, "-o", "/dev/null", *args, **kw)


def wait_job(cluster, *args, **kw):
    return cluster.run("scontrol", "wait_job", *[str(a) for a in args], check=False, **kw)


def rpc_count(cluster, name):
    out = cluster.out("sdiag")
    m = re.search(rf"\t{name} +\( *\d+\) count:(\d+)", out)
    return int(m.group(1)) if m else 0


def test_wait_for_running_answers_once_it_runs(cluster, workdir):
    jid = sub(cluster, workdir, "--wrap", "sleep 60")
    try:
        r = wait_job(cluster, jid, "state=RUNNING", "timeout=30")
        assert r.returncode == 0, r.stderr
        assert re.fullmatch(rf"JobId={jid} JobState=RUNNING ExitCode=0:0 Wait=REACHED\n",
                            r.stdout), r.stdout
        # Slurm's form: the job is ready for use, exit 0 and nothing said
        r = wait_job(cluster, jid)
        assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    finally:
        cluster.run("scancel", str(jid))


def test_wait_for_completion_gives_the_exit_code(cluster, workdir):
    jid = sub(cluster, workdir, "--wrap", "sleep 1; exit 3")
    r = wait_job(cluster, jid, "state=finished", "timeout=30")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"JobId={jid} JobState=FAILED ExitCode=3:0 Wait=REACHED\n"
    # ended, but not in the set asked for: exit 1
    r = wait_job(cluster, jid, "state=COMPLETED", "timeout=5")
    assert r.returncode == 1 and "Wait=ENDED" in r.stdout


def test_a_set_is_answered_when_the_first_one_finishes(cluster, workdir):
    short = sub(cluster, workdir, "--wrap", "sleep 1")
    long = sub(cluster, workdir, "--wrap", "sleep 60")
    try:
        t0 = time.monotonic()
        r = wait_job(cluster, f"{short},{long}", "state=finished", "timeout=30")
        assert r.returncode == 0, r.stderr
        assert time.monotonic() - t0 < 25
        lines = r.stdout.splitlines()
        assert lines[0] == f"JobId={short} JobState=COMPLETED ExitCode=0:0 Wait=REACHED"
        assert lines[1].startswith(f"JobId={long} JobState=") and "Wait=PENDING" in lines[1]
        # all: not before both
        r = wait_job(cluster, f"{short},{long}", "state=finished", "all", "timeout=2")
        assert r.returncode == 2 and "Wait=TIMEOUT" in r.stdout
    finally:
        cluster.run("scancel", str(long))


def test_a_wait_times_out(cluster, workdir):
    jid = sub(cluster, workdir, "-H", "--wrap", "true")
    try:
        t0 = time.monotonic()
        r = wait_job(cluster, jid, "state=RUNNING", "timeout=2")
        took = time.monotonic() - t0
        assert r.returncode == 2, r.stderr
        assert r.stdout == f"JobId={jid} JobState=PENDING ExitCode=0:0 Wait=TIMEOUT\n"
        assert 1.5 <= took < 15
    finally:
        cluster.run("scancel", str(jid))


def test_an_unknown_job(cluster):
    r = wait_job(cluster, 999999)
    assert r.returncode == 1
    assert r.stderr == "scontrol: error: Invalid job id specified\n"
    r = wait_job(cluster, 999999, "state=RUNNING", "timeout=5")
    assert (r.returncode, r.stdout) == (1, "JobId=999999 Wait=UNKNOWN\n")
    r = wait_job(cluster, "abc")
    assert r.returncode == 1 and "Invalid job id specified" in r.stderr


def test_sbatch_wait_exits_with_the_jobs_code(cluster, workdir):
    r = cluster.run("sbatch", "-D", workdir, "-o", "/dev/null", "--wait", "--wrap", "exit 3",
                    check=False)
    assert r.returncode == 3, r.stderr
    r = cluster.run("sbatch", "-D", workdir, "-o", "/dev/null", "-W", "-a", "1-2",
                    "--wrap", "exit $SLURM_ARRAY_TASK_ID", check=False)
    assert r.returncode == 2, r.stderr
    r = cluster.run("sbatch", "-D", workdir, "-o", "/dev/null", "-W", "--wrap", "true",
                    check=False)
    assert r.returncode == 0, r.stderr


def test_a_wait_costs_one_request_and_no_polling(cluster, workdir):
    jid = sub(cluster, workdir, "-H", "--wrap", "sleep 2")
    waits, infos = rpc_count(cluster, "REQUEST_JOB_WAIT"), rpc_count(cluster, "REQUEST_JOB_INFO")
    p = subprocess.Popen([str(BUILD_DIR / "scontrol"), "wait_job", str(jid), "state=finished",
                          "timeout=60"], env=cluster.env(), stdout=subprocess.PIPE, text=True)
    try:
        cluster.run("scontrol", "release", str(jid))
        out, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0 and "JobState=COMPLETED" in out
    assert rpc_count(cluster, "REQUEST_JOB_WAIT") == waits + 1
    # the two sdiag calls are the only info requests meanwhile: none from the wait
    assert rpc_count(cluster, "REQUEST_JOB_INFO") == infos


def test_waits_beyond_the_cap_are_refused_and_closed_ones_dropped(cluster, workdir):
    jid = sub(cluster, workdir, "-H", "--wrap", "true")
    procs = []
    base = rpc_count(cluster, "REQUEST_JOB_WAIT")
    try:
        for _ in range(PER_UID_MAX):
            procs.append(subprocess.Popen(
                [str(BUILD_DIR / "scontrol"), "wait_job", str(jid), "state=RUNNING",
                 "timeout=120"], env=cluster.env(), stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        # every one is held: dispatched (sdiag counts it) and still waiting
        wait_for(lambda: rpc_count(cluster, "REQUEST_JOB_WAIT") >= base + PER_UID_MAX,
                 timeout=60, what="the waits dispatched")
        assert [p.poll() for p in procs] == [None] * PER_UID_MAX
        r = wait_job(cluster, jid, "state=RUNNING", "timeout=1")
        assert (r.returncode, r.stdout, r.stderr) == (
            1, "", "scontrol: error: wait_job: Too many job waits at once, try again later\n")
    finally:
        for p in procs:  # the clients go away: their waits must go too
            p.kill()
        for p in procs:
            p.wait()
    # the dropped waits no longer count: a new one is held (and times out)
    r = wait_for(lambda: (lambda r: r if r.returncode == 2 else None)(
        wait_job(cluster, jid, "state=RUNNING", "timeout=1")), timeout=30,
        what="a wait accepted again")
    assert "Wait=TIMEOUT" in r.stdout
    cluster.run("scontrol", "ping")
    cluster.run("scancel", str(jid))
    wait_state(cluster, jid, "CANCELLED")


def test_private_data_hides_other_users_jobs(fresh_cluster, tmp_path, test_user):
    c = fresh_cluster(nodes=("n1",), settings={"PrivateData": "jobs"})
    os.chmod(tmp_path, 0o777)
    held = submit(c, "-D", tmp_path, "-o", "/dev/null", "-H", "--wrap", "true")
    theirs = submit(c, "-D", tmp_path, "-o", "/dev/null", "-H", "--wrap", "true",
                    user=test_user.pw_name)
    try:
        r = c.run("scontrol", "wait_job", str(held), "state=PENDING", "timeout=5",
                  user=test_user.pw_name, check=False)
        assert (r.returncode, r.stdout) == (1, f"JobId={held} Wait=UNKNOWN\n")
        r = c.run("scontrol", "wait_job", str(theirs), "state=PENDING", "timeout=5",
                  user=test_user.pw_name, check=False)
        assert r.returncode == 0 and "Wait=REACHED" in r.stdout
    finally:
        c.run("scancel", str(held), str(theirs))


@pytest.mark.parametrize("state", ["RUNNING"])
def test_wait_state_helper_uses_the_wait(cluster, workdir, state):
    jid = sub(cluster, workdir, "--wrap", "sleep 60")
    try:
        assert wait_state(cluster, jid, state)["JobState"] == state
    finally:
        cluster.run("scancel", str(jid))
