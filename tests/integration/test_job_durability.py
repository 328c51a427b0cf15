"""Durability of jobs across `kill -9` of the controller, on a cluster
configured like the reference (n1-n4 in cpu-queue, g1-g2 in gpu-queue).

The promise (README): every job whose id sbatch printed is on disk before
the id is printed, so it comes back after SIGKILL of slurmctld and runs to
the end. A submission caught by the outage may fail, but then sbatch exits
non-zero and prints no id; an id is never handed out twice. A job that runs
while the controller is down is not lost either: its completion reaches the
restarted controller.
"""

import os
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from cluster import Cluster, wait_for, wait_state


def make_cluster():
    return Cluster.like_reference(name="durability")


SUBMITTERS = 4
PER_PHASE = 15  # successful submissions to see before each kill and after the last restart


@pytest.fixture
def workdir(cluster, tmp_path_factory):
    d = tmp_path_factory.mktemp("durable")
    os.chmod(d, 0o777)
    return d






class Submitters:
    """SUBMITTERS threads running `sbatch --parsable -J d<thread>-<n> --wrap
    'sleep 1'` back to back until stopped. Each result is recorded as
    (name, returncode, stdout, stderr, phase) where phase counts the
    controller kills seen when the submission started."""

    def __init__(self, cluster, workdir):
        self.cluster, self.workdir = cluster, workdir
        self.lock = threading.Lock()
        self.results = []
        self.phase = 0
        self.stop = threading.Event()
        self.errors = []
        self.threads = [threading.Thread(target=self._loop, args=(i,), daemon=True)
                        for i in range(SUBMITTERS)]

    def _loop(self, i):
        n = 0
        try:
            while not self.stop.is_set():
                n += 1
                name = f"d{i}-{n}"
                phase = self.phase
                r = self.cluster.run("sbatch", "--parsable", "-J", name, "-D", self.workdir,
                                     "--wrap", "sleep 1", check=False, timeout=60)
                with self.lock:
                    self.results.append((name, r.returncode, r.stdout, r.stderr, phase))
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.errors.append(f"submitter {i}: {e!r}")

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=120)

    def count(self, ok, phase):
        with self.lock:
            return sum(1 for r in self.results if (r[1] == 0) == ok and r[4] == phase)

    def wait_count(self, ok, phase, n, timeout):
        what = f"{n} {'successful' if ok else 'failed'} submissions in phase {phase}"
        wait_for(lambda: self.errors or self.count(ok, phase) >= n, timeout=timeout,
                 interval=0.05, what=what)
        assert not self.errors, self.errors


def test_printed_job_ids_survive_kill_9_during_parallel_submission(cluster, workdir):
    kills = 2
    with Submitters(cluster, workdir) as subs:
        for k in range(kills):
            subs.wait_count(True, k, PER_PHASE, timeout=60)
            subs.phase = k + 1  # submissions from now on may meet the outage
            cluster.kill_slurmctld(signal.SIGKILL)
            # the submitters notice: connections are refused while it is down
            subs.wait_count(False, k + 1, 1, timeout=60)
            cluster.start_slurmctld()
        subs.wait_count(True, kills, PER_PHASE, timeout=60)
    assert not subs.errors, subs.errors
    assert not any(t.is_alive() for t in subs.threads), "a submitter hung"

    printed = {}  # id -> job name
    failed = 0
    for name, rc, out, err, phase in subs.results:
        if rc == 0:
            assert re.fullmatch(r"\d+\n", out), (name, rc, out, err)
            job_id = int(out)
            assert job_id not in printed, \
                f"job id {job_id} printed twice: for {printed[job_id]} and {name}"
            printed[job_id] = name
        else:
            failed += 1
            assert out == "", f"{name} failed ({rc}) but printed {out!r}; stderr {err!r}"
            assert err != "", f"{name} failed ({rc}) without a word on stderr"
    print(f"\n{len(printed)} ids printed, {failed} submissions failed across {kills} kills")
    assert failed >= kills
    assert len(printed) >= (kills + 1) * PER_PHASE

    # every printed id is there, is the job that got it, and runs to COMPLETED
    def states():
        got = {}
        for line in cluster.out("squeue", "-h", "-t", "all", "-o", "%i %j %T").splitlines():
            i, name, state = line.split()
            got[int(i)] = (name, state)
        return got

    def all_completed():
        got = states()
        missing = [i for i in printed if i not in got]
        assert not missing, f"printed job ids missing after the restarts: {sorted(missing)}"
        wrong = {i: (printed[i], got[i][0]) for i in printed if got[i][0] != printed[i]}
        assert not wrong, f"printed ids now name other jobs (printed, now): {wrong}"
        bad = {i: got[i][1] for i in printed if got[i][1] not in ("PENDING", "RUNNING",
                                                                    "COMPLETING", "COMPLETED")}
        assert not bad, f"printed jobs that did not complete: {bad}"
        return all(got[i][1] == "COMPLETED" for i in printed)

    try:
        wait_for(lambda: all_completed(), timeout=60 + len(printed) / 2,
                 what=f"all {len(printed)} printed jobs to be COMPLETED")
    except TimeoutError:
        all_completed()  # raises the precise complaint, if there is one
        raise
    later = int(cluster.out("sbatch", "--parsable", "-H", "-D", workdir, "--wrap", "true"))
    assert later > max(printed), "an id was handed out again after the restarts"
    cluster.run("scancel", str(later))


@pytest.mark.parametrize("ends", ["while_down", "after_restart"])
def test_a_job_running_when_the_controller_is_killed_completes(cluster, workdir, ends):
    job_id = int(cluster.out("sbatch", "--parsable", "-J", f"survivor-{ends}", "-D", workdir,
                             "--wrap", "sleep 3; echo done"))
    wait_state(cluster, job_id, "RUNNING")
    out = workdir / f"slurm-{job_id}.out"
    cluster.kill_slurmctld(signal.SIGKILL)
    if ends == "while_down":
        wait_for(lambda: out.exists() and out.read_text() == "done\n", timeout=30,
                 what=f"job {job_id} to finish while the controller is down")
    cluster.start_slurmctld()
    rec = wait_state(cluster, job_id, "COMPLETED", timeout=60)
    assert (rec["ExitCode"], rec["Reason"]) == ("0:0", "None"), rec
    assert out.read_text() == "done\n"
    start_time = time.strptime(rec["StartTime"], "%Y-%m-%dT%H:%M:%S")
    end_time = time.strptime(rec["EndTime"], "%Y-%m-%dT%H:%M:%S")
    assert 3 <= time.mktime(end_time) - time.mktime(start_time) <= 30, rec


def blob_files(cluster):
    """The blob store's segments in the cluster's StateSaveLocation."""
    state = re.search(r"(?m)^StateSaveLocation=(.*)$", cluster.conf_path.read_text()).group(1)
    return sorted(Path(state).glob("job_blobs.*"))


def test_a_held_jobs_script_and_environment_come_back_from_state_save_location(cluster,
                                                                                workdir):
    """A pending job's script and environment live in StateSaveLocation's
    blob store (docs/design.md, "Scripts and environments"), not only in
    the controller's memory: after kill -9 the released job runs the
    script it was given, with the environment it was submitted with."""
    mark = f"mark-{os.getpid()}-{time.monotonic_ns()}"
    script = workdir / "held.sh"
    script.write_text(f"#!/bin/sh\necho script {mark}\necho env $BLOB_ENV_MARK\n")
    job_id = int(cluster.out("sbatch", "--parsable", "-H", "-D", workdir, script,
                             env={"BLOB_ENV_MARK": mark + "-env"}))
    assert any(mark.encode() in f.read_bytes() for f in blob_files(cluster)), \
        "the script is not in StateSaveLocation"
    cluster.kill_slurmctld(signal.SIGKILL)
    cluster.start_slurmctld()
    cluster.run("scontrol", "release", str(job_id))
    rec = wait_state(cluster, job_id, "COMPLETED", timeout=60)
    assert rec["ExitCode"] == "0:0", rec
    assert (workdir / f"slurm-{job_id}.out").read_text() == \
        f"script {mark}\nenv {mark}-env\n"


def test_a_damaged_script_fails_the_launch_and_runs_nothing(cluster, workdir):
    """Bytes in the blob store that are not what was written (checked
    against their SHA-256) fail the job's launch: the job ends FAILED and
    nothing runs, never a script other than the one submitted."""
    mark = f"ran-{os.getpid()}-{time.monotonic_ns()}"
    out = workdir / f"{mark}.txt"
    job_id = int(cluster.out("sbatch", "--parsable", "-H", "-D", workdir, "--wrap",
                             f"echo {mark} > {out}"))
    damaged = 0
    for f in blob_files(cluster):
        data = f.read_bytes()
        if mark.encode() in data:
            f.write_bytes(data.replace(mark.encode(), mark.upper().encode()))
            damaged += 1
    assert damaged == 1
    log = cluster.log_mark()
    cluster.run("scontrol", "release", str(job_id))
    rec = wait_state(cluster, job_id, "FAILED", timeout=60)
    assert rec["Reason"] == "JobLaunchFailure", rec
    cluster.wait_for_log(r"JobId=%d: its script or environment cannot be read" % job_id,
                         since=log)
    assert not out.exists() and not (workdir / f"{mark.upper()}.txt").exists()
