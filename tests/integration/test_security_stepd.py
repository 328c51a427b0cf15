"""The root slurmstepd against a hostile job owner.

A normal user names a FIFO as -o or -i: the stepd opens the file
non-blocking and refuses anything but a regular file or /dev/null, so the
job fails its launch at once (FAILED, JobLaunchFailure, "Not a regular
file" in the slurmd log; srun exits non-zero) instead of hanging the
stepd; the node is idle afterwards and runs the next job. A -o that is a
symlink into a root-only place is opened with the user's identity and is
not written. A step launched with 300,000 environment variables is
imported in linear time (a hash of the names): srun ends within a bound.
"""

import os
import resource
import shutil
import stat
import subprocess
import tempfile
import time

import pytest

from cluster import BUILD_DIR, TIMEOUT_SCALE, submit, wait_state

CLUSTER_KWARGS = {"nodes": ("n1",), "name": "sec-stepd"}


@pytest.fixture
def user_dir():
    """A directory every user can reach and write (under /tmp itself)."""
    d = tempfile.mkdtemp(prefix="sl-stepd-", dir="/tmp")
    os.chmod(d, 0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def root_dir():
    """A root-only directory (0700) with a file in it."""
    d = tempfile.mkdtemp(prefix="sl-rootonly-", dir="/tmp")
    os.chmod(d, 0o700)
    with open(os.path.join(d, "secret"), "w") as f:
        f.write("keep\n")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def make_fifo(d, user):
    """A FIFO of the user's, as mkfifo run by the user makes it."""
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    os.chown(fifo, user.pw_uid, user.pw_gid)
    os.chmod(fifo, 0o644)
    return fifo


def node_runs_next_job(cluster, user_dir, test_user):
    """The node is idle again and a next job of the same user completes."""
    cluster.wait_node_state("n1", "idle", timeout=20)
    out = os.path.join(user_dir, "next-%j.out")
    job_id = submit(cluster, "-D", user_dir, "-o", out, "--wrap", "echo next",
                    user=test_user.pw_name)
    wait_state(cluster, job_id, "COMPLETED")
    with open(out.replace("%j", str(job_id))) as f:
        assert f.read() == "next\n"


@pytest.mark.parametrize("option", ["-o", "-i"])
def test_a_fifo_as_batch_stdio_fails_the_job_and_not_the_node(cluster, user_dir, test_user,
                                                               option):
    fifo = make_fifo(user_dir, test_user)
    mark = cluster.log_mark("slurmd-n1")
    job_id = submit(cluster, "-D", user_dir, option, fifo, "--wrap", "echo never",
                    user=test_user.pw_name)
    rec = wait_state(cluster, job_id, ("FAILED", "COMPLETED", "CANCELLED"), timeout=20)
    assert (rec["JobState"], rec["Reason"]) == ("FAILED", "JobLaunchFailure")
    cluster.wait_for_log(r"Could not open std(out|in) file .*fifo: Not a regular file",
                         daemon="slurmd-n1", since=mark)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    node_runs_next_job(cluster, user_dir, test_user)


@pytest.mark.parametrize("option", ["-o", "-i"])
def test_a_fifo_as_step_stdio_fails_the_step_and_srun_returns(cluster, user_dir, test_user,
                                                              option):
    fifo = make_fifo(user_dir, test_user)
    r = cluster.run("srun", "-D", user_dir, option, fifo, "echo", "never",
                    user=test_user.pw_name, check=False, timeout=30)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "never" not in r.stdout
    node_runs_next_job(cluster, user_dir, test_user)


def test_dev_null_is_still_accepted(cluster, user_dir, test_user):
    job_id = submit(cluster, "-D", user_dir, "-o", "/dev/null", "-i", "/dev/null",
                    "--wrap", "echo fine", user=test_user.pw_name)
    wait_state(cluster, job_id, "COMPLETED")


def test_a_symlink_into_a_root_only_place_is_not_written(cluster, user_dir, root_dir,
                                                         test_user):
    """The user's -o is a link to a file in a 0700 root directory and another
    to a root-owned 0644 file: opened as the user, neither is followed into
    a write; the job fails its launch and both files are unchanged."""
    secret = os.path.join(root_dir, "secret")
    readable = os.path.join(user_dir, "root-file")
    with open(readable, "w") as f:
        f.write("keep\n")
    os.chmod(readable, 0o644)
    for target in (secret, readable):
        link = os.path.join(user_dir, "out-link")
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(target, link)
        before = os.stat(target)
        job_id = submit(cluster, "-D", user_dir, "-o", link, "--wrap", "echo overwritten",
                        user=test_user.pw_name)
        rec = wait_state(cluster, job_id, ("FAILED", "COMPLETED"), timeout=20)
        assert (rec["JobState"], rec["Reason"]) == ("FAILED", "JobLaunchFailure"), target
        with open(target) as f:
            assert f.read() == "keep\n", target
        st = os.stat(target)
        assert (st.st_uid, st.st_mode, st.st_mtime_ns) == \
            (0, before.st_mode, before.st_mtime_ns), target
    node_runs_next_job(cluster, user_dir, test_user)


@pytest.mark.slow
def test_300000_environment_variables_do_not_stall_the_stepd(cluster, user_dir, test_user):
    """srun carries its whole environment in the launch; the stepd imports
    it with a hash (the former list search was quadratic: minutes of CPU,
    in srun and in the stepd). srun runs a step in an allocation made with
    a small environment (so no submit-time cap is involved) with 300,000
    variables: the step either runs and sees them or, where the kernel
    refuses an environment that large for execve, fails with execve's
    error; either way srun returns within the bound and the node stays
    usable."""
    n = 300000
    holder = submit(cluster, "-D", user_dir, "-o", "/dev/null", "--wrap", "sleep 120",
                    user=test_user.pw_name)
    wait_state(cluster, holder, "RUNNING")
    # short names (F + 4 base-36 digits): the kernel takes at most 6 MB of
    # arguments and environment in one execve, pointers included
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"

    def name(i):
        return "F" + "".join(digits[(i // 36 ** k) % 36] for k in range(4))
    env = cluster.env({name(i): "" for i in range(n)})
    env.update(HOME=user_dir, USER=test_user.pw_name, LOGNAME=test_user.pw_name)

    def preexec():
        # room for the environment in srun's own execve (ARG_MAX is a
        # quarter of the stack limit)
        hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
        resource.setrlimit(resource.RLIMIT_STACK, (64 << 20, hard))
        os.setgroups([])
        os.setgid(test_user.pw_gid)
        os.setuid(test_user.pw_uid)

    bound = 60 * TIMEOUT_SCALE
    t0 = time.monotonic()
    r = subprocess.run([str(BUILD_DIR / "srun"), f"--jobid={holder}", "-D", user_dir, "sh",
                        "-c", "echo count=$(env | grep -c '^F....=$')"],
                       capture_output=True, text=True, errors="replace", env=env,
                       cwd=user_dir, preexec_fn=preexec, timeout=bound)
    elapsed = time.monotonic() - t0
    print(f"srun with {n} variables: {elapsed:.1f} s, rc {r.returncode}, {r.stdout.strip()!r} "
          f"{r.stderr.strip()[-300:]!r}")
    assert elapsed < bound
    if r.returncode == 0:
        assert r.stdout.strip() == f"count={n}", r.stderr[-2000:]
    else:
        assert "Argument list too long" in r.stderr, r.stderr[-2000:]
    cluster.run("scancel", str(holder))
    wait_state(cluster, holder, ("CANCELLED", "COMPLETED"))
    node_runs_next_job(cluster, user_dir, test_user)
