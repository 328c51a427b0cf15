"""PreemptType=preempt/qos (one node of 4 cpus): a job of QOS "high"
(Preempt=low) that cannot start preempts the running "low" jobs it needs,
and only those:

* PreemptMode=REQUEUE (slurm.conf): the low job is requeued (Restarts=1)
  and runs again once the high one is done;
* the QOS's PreemptMode=cancel: the low job ends PREEMPTED (scontrol, sacct);
* the QOS's GraceTime: the low job gets SIGTERM first and ends that many
  seconds later;
* a "normal" job preempts nothing: it waits for Resources.
"""

import time

import pytest

from cluster import job, submit, wait_for, wait_state

CLUSTER_KWARGS = dict(
    nodes=["n1"],
    settings={"AccountingStorageEnforce": "associations,qos",
              "PreemptType": "preempt/qos", "PreemptMode": "REQUEUE"},
)


def mgr(cluster, *args):
    r = cluster.run("sacctmgr", "-i", *args, check=False)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def qos(cluster):
    mgr(cluster, "add", "cluster", "test")
    mgr(cluster, "add", "account", "pre")
    mgr(cluster, "add", "qos", "low")
    mgr(cluster, "add", "qos", "high")
    mgr(cluster, "modify", "qos", "high", "set", "Preempt=low", "Priority=100")
    mgr(cluster, "add", "user", "root", "account=pre", "QOS=normal,low,high")
    return cluster


def low_job(cluster, *args, script="sleep 300"):
    return submit(cluster, "-A", "pre", "-q", "low", "-n4", "-o", "/dev/null", *args,
                  "--wrap", script)


def high_job(cluster):
    return submit(cluster, "-A", "pre", "-q", "high", "-n4", "-o", "/dev/null", "--wrap", "sleep 1")


def test_requeue(qos):
    low = low_job(qos, "--requeue")
    wait_state(qos, low, "RUNNING")
    high = high_job(qos)
    wait_state(qos, high, ("RUNNING", "COMPLETED"), timeout=30)
    rec = job(qos, low)
    assert rec["Restarts"] == "1", rec
    assert rec["JobState"] in ("PENDING", "RUNNING"), rec
    # once the high job is done the low one runs again
    wait_state(qos, high, "COMPLETED", timeout=30)
    wait_state(qos, low, "RUNNING", timeout=30)
    qos.run("scancel", str(low))
    wait_state(qos, low, "CANCELLED")


def test_cancel_mode_ends_preempted(qos):
    mgr(qos, "modify", "qos", "low", "set", "PreemptMode=cancel")
    low = low_job(qos)
    wait_state(qos, low, "RUNNING")
    high = high_job(qos)
    rec = wait_state(qos, low, "PREEMPTED", timeout=30)
    assert rec["Restarts"] == "0"
    wait_state(qos, high, "COMPLETED", timeout=30)

    def in_sacct():
        out = qos.out("sacct", "-X", "-n", "-P", "-j", str(low), "-o", "State")
        return out.strip() == "PREEMPTED"

    wait_for(in_sacct, timeout=20, what="sacct's PREEMPTED")
    mgr(qos, "modify", "qos", "low", "set", "PreemptMode=cluster")


def test_grace_time_sends_sigterm_first(qos, tmp_path):
    mgr(qos, "modify", "qos", "low", "set", "PreemptMode=cancel", "GraceTime=4")
    out = tmp_path / "low.out"
    out.touch(mode=0o666)
    low = submit(qos, "-A", "pre", "-q", "low", "-n4", "-o", str(out), "--wrap",
                 "trap 'echo got TERM' TERM; echo ready; for i in $(seq 300); do sleep 1; done")
    wait_for(lambda: "ready" in out.read_text(), timeout=20, what="the trap set")
    t0 = time.monotonic()
    high = high_job(qos)
    wait_for(lambda: "got TERM" in out.read_text(), timeout=20, what="SIGTERM in the output")
    assert job(qos, low)["JobState"] == "RUNNING"  # still in its grace time
    wait_state(qos, low, "PREEMPTED", timeout=30)
    assert time.monotonic() - t0 >= 3.5
    wait_state(qos, high, "COMPLETED", timeout=30)
    mgr(qos, "modify", "qos", "low", "set", "PreemptMode=cluster", "GraceTime=0")


def test_normal_qos_preempts_nothing(qos):
    low = low_job(qos)
    wait_state(qos, low, "RUNNING")
    normal = submit(qos, "-A", "pre", "-n4", "-o", "/dev/null", "--wrap", "true")
    wait_for(lambda: job(qos, normal)["Reason"] == "Resources", timeout=20, what="Resources")
    assert job(qos, low)["JobState"] == "RUNNING"
    qos.run("scancel", str(low), str(normal))
    wait_state(qos, low, "CANCELLED")
