"""JobContainerType=job_container/tmpfs (job_container.conf): each job
has a mount namespace of its own in which /tmp and /dev/shm are private.
slurmd makes it before the job's first stepd (the extern step of
PrologFlags=Contain), every step of the job joins it, and it and its
directory under BasePath go once the job's stepds are gone.

The cluster lives in /var/tmp: what is under /tmp (the usual place of
these test clusters, the job scripts in their spool too) is what a job no
longer sees; the jobs run a copy of srun kept there too (the build may be
under /tmp, as a CI clone is). Skipped without root (mounts, namespaces)."""

import os
import shutil
from pathlib import Path

import pytest

from cluster import Cluster, marker, submit, wait_for, wait_state

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (mount namespaces)")

MINE = "sl-jc-mine"  # a name nobody else puts in /tmp

INIT = """#!/bin/sh
# InitScript: before each job's namespace is built, as root
env > {out}/init.$SLURM_JOB_ID
[ -e {out}/init-fails ] && exit 3
exit 0
"""


def make_cluster():
    c = Cluster(nodes=("n1", "n2"), name="jobcontainer", tmp_root="/var/tmp",
                settings={"PrologFlags": "Contain",
                          "JobContainerType": "job_container/tmpfs"})
    (c.dir / "job_container.conf").write_text(
        f"# every node: its own base\nAutoBasePath=true\nBasePath={c.dir}/jc/%n\n"
        f"InitScript={c.dir}/init\n")
    (c.dir / "out").mkdir()
    (c.dir / "init").write_text(INIT.format(out=c.dir / "out"))
    os.chmod(c.dir / "init", 0o755)
    (c.dir / "bin").mkdir()
    shutil.copy2(c.bin_dir / "srun", c.dir / "bin" / "srun")
    return c


def job_script(out, hold):
    srun = out.parent / "bin" / "srun"
    return (f"echo $SLURM_JOB_ID > /tmp/{MINE}; ls -a /tmp > {out}/ls.$SLURM_JOB_ID; "
            f"touch /dev/shm/{MINE}.$SLURM_JOB_ID; ls /dev/shm > {out}/shm.$SLURM_JOB_ID; "
            f"{srun} cat /tmp/{MINE} > {out}/srun.$SLURM_JOB_ID 2> {out}/srun_err.$SLURM_JOB_ID; "
            f"readlink /proc/self/ns/mnt > {out}/ns.$SLURM_JOB_ID; "
            f"while [ -e {hold} ]; do sleep 0.1; done")


def extern_ns(job):
    """The mount namespace of job's extern sleeper (found by its
    environment)."""
    for p in Path("/proc").iterdir():
        try:
            if (p / "cmdline").read_bytes() != b"/bin/sleep\x00100000000\x00":
                continue
            if f"SLURM_JOB_ID={job}\x00".encode() in (p / "environ").read_bytes():
                return os.readlink(p / "ns" / "mnt")
        except OSError:
            pass
    return None


def test_two_jobs_on_a_node_have_their_own_tmp_which_goes_with_them(cluster):
    out = cluster.dir / "out"
    with marker(cluster.dir / "hold") as hold:
        jobs = [submit(cluster, "-w", "n1", "-o", "/dev/null", "--wrap", job_script(out, hold))
                for _ in range(2)]
        for j in jobs:
            wait_for(lambda j=j: (out / f"ns.{j}").exists(), what=f"job {j} set up")
        base = cluster.dir / "jc" / "n1"
        for j in jobs:
            assert (out / f"ls.{j}").read_text().split() == [".", "..", MINE]
            # the step's /tmp too
            assert (out / f"srun.{j}").read_text().strip() == str(j), \
                (out / f"srun_err.{j}").read_text()
            assert (out / f"shm.{j}").read_text().split() == [f"{MINE}.{j}"]
            assert (base / str(j) / "_tmp" / MINE).read_text().strip() == str(j)
            # the extern step's sleeper starts beside the batch script, not
            # before it: the namespace is there first, the process may follow
            wait_for(lambda j=j: extern_ns(j) is not None, what=f"job {j}'s extern sleeper")
            assert extern_ns(j) == (out / f"ns.{j}").read_text().strip()
        ns = {(out / f"ns.{j}").read_text() for j in jobs}
        assert len(ns) == 2 and os.readlink("/proc/self/ns/mnt") + "\n" not in ns
        assert not Path(f"/tmp/{MINE}").exists()
    for j in jobs:
        wait_state(cluster, j, ["COMPLETED"])
        wait_for(lambda j=j: not (base / str(j)).exists(), what=f"job {j}'s directory gone")
    assert not any(Path("/dev/shm").glob(f"{MINE}.*"))


def test_show_config_names_the_plugin(cluster):
    cfg = cluster.out("scontrol", "show", "config")
    assert "JobContainerType        = job_container/tmpfs" in cfg
    assert "PrologFlags             = Contain" in cfg


def test_the_init_script_runs_first_and_its_failure_fails_the_launch(cluster):
    out = cluster.dir / "out"
    j = submit(cluster, "-w", "n2", "-o", "/dev/null", "--wrap", "true")
    wait_state(cluster, j, ["COMPLETED"])
    env = dict(line.split("=", 1) for line in (out / f"init.{j}").read_text().splitlines()
               if "=" in line)
    assert env["SLURMD_NODENAME"] == "n2"
    assert env["SLURM_JOB_MOUNTPOINT_SRC"] == str(cluster.dir / "jc" / "n2" / str(j))
    assert env["SLURM_CONF"].endswith("slurm.conf")
    with marker(out / "init-fails"):
        j = submit(cluster, "-w", "n2", "-o", "/dev/null", "--no-requeue", "--wrap", "true")
        wait_for(lambda: f"JobId={j}: job_container/tmpfs: InitScript" in
                 cluster.log_text("slurmd-n2"), what="the InitScript's failure logged")
        wait_state(cluster, j, ["FAILED"])
    assert not (cluster.dir / "jc" / "n2" / str(j)).exists()
