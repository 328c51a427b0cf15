"""Root never removes through what a user controls: the PMIx directory
and the batch script's directory.

The attack of Slurm's CVE-2023-41914 class, as an unprivileged user: the
root slurmstepd of each `--mpi=pmix` step makes `<spool>/pmix.J.S` and
removes it at the end. A racer of the job's fills a directory `b` in it
with files, waits (inotify) for root's first unlink there, renames `b`
away and puts a symlink to a root-only directory in its place; a removal
by path string then deletes the root-only files of the same names. The
directory is root's (0711) and removed fd by fd, so the racer cannot
even make `b`, and nothing outside the spool goes.

The batch script's directory `<spool>/jobNNNNN` is root's (0750, the job's
group) as in Slurm: the job cannot leave files in it (they would block a
relaunch of the same id and fill the spool's disk), it goes whole at the
end, and a leftover of a stepd that died is replaced, never followed.
"""

import os
import pwd
import shutil
import signal
import stat
import subprocess
import tempfile
import textwrap

import pytest

from cluster import BUILD_DIR, submit, wait_for, wait_state

CLUSTER_KWARGS = {"nodes": ("n1",), "name": "sec-paths"}

VICTIMS = 2000  # files in b, and root-only files of the same names

# Runs as the job's user beside the steps: for each pmix.J.S that appears,
# make b/ full of files, wait for root's first unlink in it, then swap b
# for a link to the target. Prints one line per step.
RACER = textwrap.dedent(r"""
    import ctypes, os, struct, sys, threading, time
    spool, job, target, nsteps, nfiles = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    libc = ctypes.CDLL(None, use_errno=True)
    IN_DELETE = 0x200
    out = []

    def race(step):
        d = os.path.join(spool, "pmix.%s.%d" % (job, step))
        deadline = time.time() + 30
        while not os.path.isdir(d):
            if time.time() > deadline:
                out.append("step %d: no directory" % step)
                return
            time.sleep(0.005)
        b = os.path.join(d, "b")
        try:
            os.mkdir(b)
        except OSError as e:
            out.append("step %d: mkdir refused: %s" % (step, e.strerror))
            return
        for i in range(nfiles):
            open(os.path.join(b, "f%05d" % i), "w").close()
        fd = libc.inotify_init()
        libc.inotify_add_watch(fd, b.encode(), IN_DELETE)
        os.read(fd, 4096)  # root's first unlink in b
        os.rename(b, b + ".moved")
        os.symlink(target, b)
        out.append("step %d: swapped" % step)

    threads = [threading.Thread(target=race, args=(s,), daemon=True) for s in range(nsteps)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    print("\n".join(sorted(out)), flush=True)
""")


def has_pmix(cluster):
    return "\tpmix\n" in cluster.out("srun", "--mpi=list")


@pytest.fixture
def user_dir():
    d = tempfile.mkdtemp(prefix="sl-paths-", dir="/tmp")
    os.chmod(d, 0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def root_only():
    """A root-only directory (0700) holding files named as the racer's."""
    d = tempfile.mkdtemp(prefix="sl-rootonly-", dir="/tmp")
    os.chmod(d, 0o700)
    for i in range(VICTIMS):
        open(os.path.join(d, "f%05d" % i), "w").close()
    yield d
    shutil.rmtree(d, ignore_errors=True)


def spool(cluster):
    return cluster.dir / "spool" / "n1"


@pytest.mark.parametrize("attempt", range(3))
def test_the_pmix_directory_race_deletes_nothing_of_roots(cluster, user_dir, root_only,
                                                          test_user, attempt):
    if not has_pmix(cluster):
        pytest.skip("built without libpmix (libpmix-dev): no --mpi=pmix")
    racer = os.path.join(user_dir, "racer.py")
    with open(racer, "w") as f:
        f.write(RACER)
    steps = 8
    script = textwrap.dedent(f"""\
        #!/bin/bash
        python3 {racer} {spool(cluster)} $SLURM_JOB_ID {root_only} {steps} {VICTIMS} &
        racer=$!
        for i in $(seq {steps}); do
            {BUILD_DIR / 'srun'} --overlap --mpi=pmix -n1 sleep 3 &
        done
        wait
        """)
    out = os.path.join(user_dir, "race.out")
    job_id = submit(cluster, "-D", user_dir, "-o", out, "-n1", "--wrap", script,
                    user=test_user.pw_name)
    wait_state(cluster, job_id, ("COMPLETED", "FAILED"), timeout=90)
    text = open(out).read()
    left = len(os.listdir(root_only))
    assert left == VICTIMS, f"root lost {VICTIMS - left} file(s)\n{text}"
    assert "swapped" not in text, text
    assert text.count("mkdir refused: Permission denied") == steps, text
    wait_for(lambda: not list(spool(cluster).glob("pmix.*")),
             what="the PMIx servers' directories removed")


def test_the_pmix_directory_is_roots_while_the_step_runs(cluster, user_dir, test_user):
    if not has_pmix(cluster):
        pytest.skip("built without libpmix (libpmix-dev): no --mpi=pmix")
    p = cluster.popen("srun", "--mpi=pmix", "-n1", "sleep", "20",
                      preexec_fn=lambda: (os.setgroups([]), os.setgid(test_user.pw_gid),
                                          os.setuid(test_user.pw_uid)))
    try:
        wait_for(lambda: list(spool(cluster).glob("pmix.*")), what="a pmix directory")
        d = list(spool(cluster).glob("pmix.*"))[0]
        st = os.lstat(d)
        assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (0, 0o711)
    finally:
        p.kill()
        p.wait()


def batch_dir(cluster, job_id):
    return spool(cluster) / f"job{job_id:05d}"


def test_the_batch_directory_is_roots_and_takes_nothing_of_the_users(cluster, user_dir,
                                                                    test_user):
    out = os.path.join(user_dir, "dir.out")
    script = textwrap.dedent("""\
        #!/bin/bash
        d=$(dirname "$0")
        stat -c '%u %g %a' "$d" "$0"
        touch "$d/junk" 2>/dev/null && echo wrote || echo refused
        mkdir "$d/sub" 2>/dev/null && echo made || echo refused
        """)
    job_id = submit(cluster, "-D", user_dir, "-o", out, "--wrap", script,
                    user=test_user.pw_name)
    wait_state(cluster, job_id, "COMPLETED")
    uid, gid = test_user.pw_uid, test_user.pw_gid
    assert open(out).read().splitlines() == [f"0 {gid} 750", f"{uid} {gid} 500", "refused",
                                             "refused"]
    wait_for(lambda: not batch_dir(cluster, job_id).exists(),
             what="the batch directory removed whole")


def test_a_leftover_batch_directory_is_replaced_not_followed(cluster, user_dir, root_only,
                                                            test_user):
    """What a stepd that died left (a file, and a link of the user's to a
    root-only directory) under the next job's name: the launch removes it
    without following the link and runs."""
    first = submit(cluster, "-D", user_dir, "-o", "/dev/null", "--wrap", "true",
                   user=test_user.pw_name)
    wait_state(cluster, first, "COMPLETED")
    nxt = batch_dir(cluster, first + 1)
    nxt.mkdir()
    (nxt / "slurm_script").write_text("old\n")
    os.symlink(root_only, nxt / "sub")
    os.chown(nxt, test_user.pw_uid, test_user.pw_gid)
    mark = cluster.log_mark("slurmd-n1")
    out = os.path.join(user_dir, "next.out")
    job_id = submit(cluster, "-D", user_dir, "-o", out, "--wrap", "echo ran",
                    user=test_user.pw_name)
    assert job_id == first + 1
    wait_state(cluster, job_id, "COMPLETED")
    assert open(out).read() == "ran\n"
    assert len(os.listdir(root_only)) == VICTIMS
    cluster.wait_for_log(rf"job{job_id:05d}: already there", daemon="slurmd-n1", since=mark)
    wait_for(lambda: not nxt.exists(), what="the batch directory removed")


def test_a_requeued_job_runs_again_on_the_same_node(cluster, user_dir, test_user):
    """Nothing the first run could leave blocks the second run's script."""
    out = os.path.join(user_dir, "requeue-%j.out")
    mark = os.path.join(user_dir, "ran-once")
    script = textwrap.dedent(f"""\
        #!/bin/bash
        touch "$(dirname "$0")/junk" 2>/dev/null
        if [ -e {mark} ]; then echo second run; exit 0; fi
        touch {mark}
        sleep 30
        """)
    job_id = submit(cluster, "-D", user_dir, "-o", out, "--open-mode=append", "--requeue",
                    "--wrap", script, user=test_user.pw_name)
    wait_state(cluster, job_id, "RUNNING")
    wait_for(lambda: os.path.exists(mark), what="the first run")
    cluster.run("scontrol", "requeue", str(job_id), user=test_user.pw_name)
    cluster.run("scontrol", "release", str(job_id), check=False)
    rec = wait_state(cluster, job_id, ("COMPLETED", "FAILED"), timeout=60)
    assert rec["JobState"] == "COMPLETED", rec
    assert "second run" in open(out.replace("%j", str(job_id))).read()


def test_an_openmpi_ring_of_the_users_runs_in_roots_directory(cluster, user_dir, test_user):
    """The user's tasks reach libpmix's socket and dstore in the root-owned
    directory by name: an Open MPI ring of the test user's over PMIx."""
    from test_mpi import MPICC_OMPI, RING
    if not MPICC_OMPI or not has_pmix(cluster):
        pytest.skip("needs Debian's openmpi-bin/libopenmpi-dev and a build with libpmix")
    src = os.path.join(user_dir, "ring.c")
    with open(src, "w") as f:
        f.write(RING)
    ring = os.path.join(user_dir, "ring")
    subprocess.run([MPICC_OMPI, "-o", ring, src], check=True, capture_output=True)
    os.chmod(ring, 0o755)
    r = cluster.run("srun", "--mpi=pmix", "-n4", ring, user=test_user.pw_name, timeout=120,
                    env={"OMPI_MCA_btl": "self,tcp"})
    lines = sorted(l for l in r.stdout.splitlines() if l.startswith("rank "))
    assert len(lines) == 4 and all("token" in l for l in lines), r.stdout + r.stderr


def test_slurmd_refuses_a_spool_others_may_write(cluster):
    """The stepds make and remove the jobs' files in the spool by name:
    slurmd does not start on one that group or others may write."""
    cluster.kill_slurmd("n1", signal.SIGTERM)
    try:
        os.chmod(spool(cluster), 0o777)
        mark = cluster.log_mark("slurmd-n1")
        cluster.start_slurmd("n1")
        status = cluster.wait_exited(["slurmd-n1"], timeout=10)["slurmd-n1"]
        assert status not in (0, None), f"slurmd exit status {status} (None: still running)"
        cluster.wait_for_log(r"SlurmdSpoolDir .* must be a directory of uid 0 that group and "
                             r"others cannot write \(it is a directory of uid 0, mode 0777\)",
                             daemon="slurmd-n1", since=mark)
    finally:
        os.chmod(spool(cluster), 0o755)
    cluster.start_slurmd("n1")
    cluster.wait_node_state("n1", "idle")
