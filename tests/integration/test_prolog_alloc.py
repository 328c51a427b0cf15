"""PrologFlags=Alloc: every node of a job runs its Prolog when the job
gets its nodes (REQUEST_LAUNCH_PROLOG), steps or not; the job is
CONFIGURING and its batch script waits until the batch host's Prolog is
done; a Prolog that fails on any node drains it and holds the job.
PrologFlags=Serial: one Prolog at a time on a node."""

import os

import pytest

from cluster import marker, parse_record, submit, wait_for

CLUSTER_KWARGS = dict(
    nodes=["n1", "n2"],
    settings={"Prolog": "@RUN_DIR@/pa/prolog", "PrologFlags": "Alloc,Serial"})

PROLOG = """#!/bin/sh
d=$(dirname "$0")
echo "$SLURM_SCRIPT_CONTEXT $SLURM_JOB_USER" > "$d/out/prolog.$SLURM_JOB_ID.$SLURMD_NODENAME"
while [ -e "$d/hold.$SLURMD_NODENAME" ]; do sleep 0.05; done
[ -e "$d/fail.$SLURMD_NODENAME" ] && exit 1
exit 0
"""


@pytest.fixture(scope="module")
def pa(cluster):
    d = cluster.dir / "pa"
    (d / "out").mkdir(parents=True, exist_ok=True)
    (d / "prolog").write_text(PROLOG)
    os.chmod(d / "prolog", 0o755)
    return d


def job(cluster, job_id):
    return parse_record(cluster.out("scontrol", "show", "job", str(job_id)))


def test_every_node_runs_the_prolog_at_allocation(cluster, pa):
    jid = submit(cluster, "-N2", "-o", "/dev/null", "--wrap", "true")  # no step on n2
    wait_for(lambda: job(cluster, jid)["JobState"] == "COMPLETED", what="the job done")
    for n in ("n1", "n2"):
        assert (pa / "out" / f"prolog.{jid}.{n}").read_text().split()[0] == "prolog_slurmd"


def test_the_batch_script_waits_for_the_batch_hosts_prolog(cluster, pa, workdir):
    out = workdir / "alloc.out"
    with marker(pa / "hold.n1"):
        jid = submit(cluster, "-w", "n1", "-o", str(out), "--wrap", "echo ran")
        wait_for(lambda: (pa / "out" / f"prolog.{jid}.n1").exists(), what="the prolog")
        assert cluster.out("squeue", "-h", "-j", str(jid), "-o", "%t").strip() == "CF"
        assert not out.exists()
    wait_for(lambda: job(cluster, jid)["JobState"] == "COMPLETED", what="the job done")
    assert out.read_text() == "ran\n"


def test_a_prolog_failing_on_a_node_without_a_step_drains_it_and_holds_the_job(cluster, pa):
    with marker(pa / "fail.n2"):
        jid = submit(cluster, "-N2", "-o", "/dev/null", "--wrap", "true")
        wait_for(lambda: "DRAIN" in parse_record(cluster.out("scontrol", "show", "node",
                                                             "n2"))["State"],
                 what="n2 drained")
        rec = wait_for(lambda: (lambda r: r if r["JobState"] == "PENDING" else None)(
            job(cluster, jid)), what="the job requeued")
        assert rec["Reason"].replace("_", " ") == "launch failed requeued held"
    node = parse_record(cluster.out("scontrol", "show", "node", "n2"))
    assert node["Reason"].startswith("Prolog error")
    cluster.run("scancel", str(jid))
    cluster.run("scontrol", "update", "NodeName=n2", "State=RESUME")


def test_serial_runs_one_prolog_at_a_time_on_a_node(cluster, pa):
    with marker(pa / "hold.n1"):
        first = submit(cluster, "-w", "n1", "-n1", "-o", "/dev/null", "--wrap", "true")
        wait_for(lambda: (pa / "out" / f"prolog.{first}.n1").exists(), what="the first prolog")
        second = submit(cluster, "-w", "n1", "-n1", "-o", "/dev/null", "--wrap", "true")
        wait_for(lambda: f"JobId={second}: its prolog waits for another job's"
                 in cluster.log_text("slurmd-n1"), what="the second prolog queued")
        assert job(cluster, second)["JobState"] == "CONFIGURING"
        assert not (pa / "out" / f"prolog.{second}.n1").exists()
    for j in (first, second):
        wait_for(lambda: job(cluster, j)["JobState"] == "COMPLETED", what=f"job {j} done")
    assert (pa / "out" / f"prolog.{second}.n1").exists()
