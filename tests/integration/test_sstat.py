"""sstat: live usage of running steps, asked of their stepds through each
node's slurmd, with sacct's fields and formats."""

import os
import re

import pytest

from cluster import Cluster, submit, wait_for, wait_state

# 40 MiB held and 1.5 s of CPU burnt by each of two tasks (CPU time, not wall
# time: on a busy machine a second of wall time may give a task much less),
# then idle
HOG = ("import time; a = bytearray(40 << 20)\n"
       "while time.process_time() < 1.5: pass\n"
       "print('ready', flush=True); time.sleep(300)")


def make_cluster():
    return Cluster(nodes=("n1", "n2"), name="sstat")


@pytest.fixture(scope="module")
def hog(cluster):
    script = cluster.dir / "hog.py"
    script.write_text(HOG)
    j = submit(cluster, f"--chdir={cluster.dir}", "-N2", "-n2", "--wrap",
               f"srun python3 {script}")
    wait_state(cluster, j, "RUNNING")
    out = cluster.dir / f"slurm-{j}.out"
    wait_for(lambda: out.exists() and out.read_text().count("ready") == 2,
             what="both tasks ready")
    yield j
    cluster.run("scancel", str(j), check=False)


def rows(text):
    lines = text.splitlines()
    return [dict(zip(lines[0].split("|"), line.split("|"))) for line in lines[1:]]


def kb(v):
    m = re.fullmatch(r"([\d.]+)([KMG])", v)
    assert m, v
    return float(m.group(1)) * {"K": 1, "M": 1024, "G": 1 << 20}[m.group(2)]


def test_running_step_usage(cluster, hog):
    out = cluster.out("sstat", "-P", "-j", str(hog),
                      "-o", "JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,AveCPU,NTasks")
    (r,) = rows(out)
    assert r["JobID"] == f"{hog}.0" and r["NTasks"] == "2"
    assert kb(r["MaxRSS"]) >= 40 * 1024 and kb(r["AveRSS"]) >= 40 * 1024
    assert r["MaxRSSNode"] in ("n1", "n2") and r["MaxRSSTask"] in ("0", "1")
    h, m, s = (int(x) for x in r["AveCPU"].split(":"))
    assert h * 3600 + m * 60 + s >= 1  # the busy second of each task


def test_all_steps_and_explicit_steps(cluster, hog):
    ids = [r["JobID"] for r in rows(cluster.out("sstat", "-a", "-P", "-j", str(hog),
                                                 "-o", "jobid,ntasks"))]
    assert sorted(ids) == [f"{hog}.0", f"{hog}.batch"]
    assert cluster.out("sstat", "-n", "-P", "-j", f"{hog}.batch", "-o", "jobid,ntasks") == (
        f"{hog}.batch|1\n")
    # the default table: Slurm's header, every field
    lines = cluster.out("sstat", "-j", f"{hog}.0").splitlines()
    assert lines[0].split()[:6] == ["JobID", "MaxVMSize", "MaxVMSizeNode", "MaxVMSizeTask",
                                    "AveVMSize", "MaxRSS"]
    assert lines[2].split()[0] == f"{hog}.0"


def test_another_user_may_not_look(cluster, hog, test_user):
    r = cluster.run("sstat", "-n", "-P", "-j", str(hog), "-o", "jobid", user=test_user.pw_name,
                    check=False)
    assert r.returncode == 1 and r.stdout == ""
    assert "Access/permission denied" in r.stderr


def test_errors(cluster):
    r = cluster.run("sstat", check=False)
    assert r.returncode == 1
    assert r.stderr == "sstat: error: You didn't give me any jobs to stat.\n"
    r = cluster.run("sstat", "-j", "99999", check=False)
    assert r.returncode == 1 and "no steps running for job 99999" in r.stderr
    r = cluster.run("sstat", "-j", "1.x", check=False)
    assert r.returncode == 1 and "Invalid job id 1.x" in r.stderr
    r = cluster.run("sstat", "-j", "1", "-o", "nosuchfield", check=False)
    assert r.returncode == 1 and 'Invalid field requested: "nosuchfield"' in r.stderr


# A detached process of its own job counts; a process of another job on the
# same node does not. The stepd finds its job's processes as its own
# descendants (the kernel's children lists), never by looking at the host.
DETACHED = ("import os, sys, time; a = bytearray({mb} << 20)\n"
            "for i in range(len(a) // 4096): a[i * 4096] = 1\n"
            "open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(300)")


def test_a_detached_process_counts_for_its_job_and_not_for_another(cluster):
    c = cluster
    script = c.dir / "detached.py"
    script.write_text(DETACHED.format(mb=80))
    small = c.dir / "small.py"
    small.write_text(DETACHED.format(mb=1))
    big_pid, small_pid = c.dir / "big.pid", c.dir / "small.pid"
    a = submit(c, "-w", "n1", "-n1", "--wrap",
               f"setsid python3 {script} {big_pid} </dev/null >/dev/null 2>&1 & sleep 300")
    b = submit(c, "-w", "n1", "-n1", "--wrap", f"python3 {small} {small_pid}")
    try:
        wait_for(lambda: big_pid.exists() and small_pid.exists(), what="both processes up")

        def max_rss(j):
            (r,) = rows(c.out("sstat", "-P", "-j", f"{j}.batch", "-o", "JobID,MaxRSS"))
            return kb(r["MaxRSS"])

        assert max_rss(a) >= 80 * 1024
        assert max_rss(b) < 40 * 1024
    finally:
        c.run("scancel", str(a), str(b), check=False)
    wait_state(c, a, "CANCELLED")
    pid = int(big_pid.read_text())
    wait_for(lambda: not os.path.exists(f"/proc/{pid}"), what="the detached process ended")
