"""sched/backfill on a real cluster (two nodes of 4 cpus, bf_interval=1):

* a wide job at the head of the queue waits for Resources with an expected
  start (StartTime, SchedNodeList, squeue --start) at the end of the job
  that holds its nodes;
* a short job behind it starts at once on the free node (Scheduler=Backfill),
  because it ends before the head job's expected start;
* a long job behind it does not (it would delay the head job): it stays
  Priority with an expected start after the head job's end;
* the plain-words explanation names the start, the nodes and the job whose
  end it waits for;
* sbatch --test-only says when and where a job would start;
* with SchedulerType=sched/builtin the short job is not started.
"""

import re
from datetime import datetime

import pytest

from cluster import Cluster, job, submit, wait_for, wait_state

CLUSTER_KWARGS = dict(
    nodes=("n1", "n2"),
    settings={"SchedulerParameters": "bf_interval=1,bf_resolution=1"},
)


def ts(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp()


def sleeper(cluster, *args):
    return submit(cluster, "-o", "/dev/null", *args, "--wrap", "sleep 600")


@pytest.fixture(scope="module")
def queue(cluster):
    """n1 full for 10 minutes; a 2-node head job; a short and a long job."""
    blocker = sleeper(cluster, "-w", "n1", "-n4", "-t", "10", "-J", "blocker")
    wait_state(cluster, blocker, "RUNNING")
    head = sleeper(cluster, "-N2", "-n8", "-t", "10", "-J", "head")
    short = sleeper(cluster, "-N1", "-n4", "-t", "5", "-J", "short")
    long_ = sleeper(cluster, "-N1", "-n4", "-t", "20", "-J", "long")
    yield dict(blocker=blocker, head=head, short=short, long=long_)
    cluster.run("scancel", str(blocker), str(head), str(short), str(long_), check=False)


def test_short_job_is_backfilled(cluster, queue):
    rec = wait_state(cluster, queue["short"], "RUNNING", timeout=20)
    assert rec["NodeList"] == "n2"
    assert rec["Scheduler"] == "Backfill"
    head = job(cluster, queue["head"])
    assert head["JobState"] == "PENDING" and head["Reason"] == "Resources"


def test_head_job_gets_the_blocker_end_as_start(cluster, queue):
    wait_state(cluster, queue["short"], "RUNNING", timeout=20)
    blocker = job(cluster, queue["blocker"])

    def planned():
        return job(cluster, queue["head"]).get("StartTime", "Unknown") != "Unknown"

    wait_for(planned, timeout=20, what="the head job's expected start")
    head = job(cluster, queue["head"])
    assert abs(ts(head["StartTime"]) - ts(blocker["EndTime"])) <= 2, (head, blocker)
    assert ts(head["EndTime"]) - ts(head["StartTime"]) == 600
    assert head["SchedNodeList"] == "n[1-2]"
    assert head["Scheduler"] == "Backfill:*"
    words = head.get("Explanation", "")
    # a start past midnight names its day: "at 2026-12-05 00:06"
    assert re.search(r"expected to start at (?:\d{4}-\d\d-\d\d )?\d\d:\d\d on n\[1-2\] when job %d ends"
                     % queue["blocker"], words), words


def test_long_job_waits_behind_the_head_job(cluster, queue):
    wait_state(cluster, queue["short"], "RUNNING", timeout=20)

    def planned():
        return job(cluster, queue["long"]).get("StartTime", "Unknown") != "Unknown"

    wait_for(planned, timeout=20, what="the long job's expected start")
    head, long_ = job(cluster, queue["head"]), job(cluster, queue["long"])
    assert long_["JobState"] == "PENDING" and long_["Reason"] == "Priority"
    # it may not run into the head job's window: it starts when that ends
    assert ts(long_["StartTime"]) >= ts(head["EndTime"]) - 1, (long_, head)


def test_squeue_start(cluster, queue):
    wait_state(cluster, queue["short"], "RUNNING", timeout=20)
    wait_for(lambda: job(cluster, queue["long"]).get("StartTime", "Unknown") != "Unknown",
             timeout=20, what="estimates")
    out = cluster.out("squeue", "--start")
    lines = out.splitlines()
    assert lines[0].split() == ["JOBID", "PARTITION", "NAME", "USER", "ST", "START_TIME",
                                "NODES", "SCHEDNODES", "NODELIST(REASON)"], out
    rows = {int(line.split()[0]): line.split() for line in lines[1:]}
    assert set(rows) == {queue["head"], queue["long"]}, out  # pending jobs only
    head = rows[queue["head"]]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", head[5]), out
    assert head[7] == "n[1-2]" and head[8] == "(Resources)", out
    # sorted by start time: the head job first
    assert lines[1].split()[0] == str(queue["head"]), out


def test_test_only_says_when_and_where(cluster, queue):
    wait_state(cluster, queue["short"], "RUNNING", timeout=20)
    blocker = job(cluster, queue["blocker"])
    r = cluster.run("sbatch", "--test-only", "-N2", "-n8", "-t", "5", "--wrap", "true")
    m = re.fullmatch(r"sbatch: Job \d+ to start at (\S+) using 8 processors on nodes "
                     r"n\[1-2\] in partition debug\n", r.stderr)
    assert m, r.stderr
    # n2 is held by the short job (5 min), n1 by the blocker (10 min)
    assert abs(ts(m.group(1)) - ts(blocker["EndTime"])) <= 2, (r.stderr, blocker)
    r = cluster.run("sbatch", "--test-only", "-N1", "-n1", "-t", "5", "-w", "n2", "--wrap", "true")
    assert "on nodes n2 " in r.stderr, r.stderr


def test_builtin_does_not_backfill(fresh_cluster):
    c = fresh_cluster(nodes=("n1", "n2"), settings={"SchedulerType": "sched/builtin"})
    blocker = sleeper(c, "-w", "n1", "-n4", "-t", "10")
    wait_state(c, blocker, "RUNNING")
    head = sleeper(c, "-N2", "-n8", "-t", "10")
    short = sleeper(c, "-N1", "-n4", "-t", "5")
    # several scheduling passes later the short job still waits behind the head
    wait_for(lambda: job(c, short)["Reason"] == "Priority", timeout=10, what="Priority")
    c.run("scontrol", "reconfigure")
    wait_for(lambda: job(c, head)["Reason"] == "Resources", timeout=10, what="Resources")
    assert job(c, short)["JobState"] == "PENDING"
    assert job(c, head)["StartTime"] == "Unknown"
    c.run("scancel", str(blocker), str(head), str(short), check=False)


def test_held_jobs_order_as_the_reference(cluster, queue):
    """Reference squeue.txt: a job held by the admin after backfill planned it
    (11208) is listed above an older one submitted held (11207): squeue
    sorts pending jobs by their expected start first, and a hold keeps it."""
    wait_state(cluster, queue["short"], "RUNNING", timeout=20)
    user_held = sleeper(cluster, "-H", "-N1", "-n4", "-t", "5", "-J", "held_user")
    admin_held = sleeper(cluster, "-N1", "-n4", "-t", "5", "-J", "held_admin")
    wait_for(lambda: job(cluster, admin_held).get("StartTime", "Unknown") != "Unknown",
             timeout=20, what="an estimate for the job held next")
    cluster.run("scontrol", "hold", str(admin_held))
    rec = job(cluster, admin_held)
    assert rec["Reason"] == "JobHeldAdmin" and rec["Priority"] == "0"
    assert job(cluster, user_held)["StartTime"] == "Unknown"
    ids = [int(line.split()[0]) for line in
           cluster.out("squeue", "-h", "-t", "PD", "-o", "%i").splitlines()]
    assert ids.index(admin_held) < ids.index(user_held), ids
    cluster.run("scancel", str(user_held), str(admin_held))


def test_backfill_keeps_association_limits(fresh_cluster):
    """MaxJobs=2 with one job running: of two jobs backfill could start
    beside the blocked head job, only one starts; the other waits with
    AssocMaxJobsLimit."""
    c = fresh_cluster(nodes=("n1", "n2"), settings={
        "SchedulerParameters": "bf_interval=1",
        "AccountingStorageEnforce": "associations,limits"})
    for args in (("add", "cluster", "test"), ("add", "account", "lim"),
                 ("add", "user", "root", "account=lim", "MaxJobs=2")):
        c.run("sacctmgr", "-i", *args)
    blocker = sleeper(c, "-A", "lim", "-w", "n1", "-n4", "-t", "10")
    wait_state(c, blocker, "RUNNING")
    head = sleeper(c, "-A", "lim", "-N2", "-n8", "-t", "10")
    s1 = sleeper(c, "-A", "lim", "-N1", "-n2", "-t", "5")
    s2 = sleeper(c, "-A", "lim", "-N1", "-n2", "-t", "5")

    def one_started():
        return sorted(job(c, j)["JobState"] for j in (s1, s2)) == ["PENDING", "RUNNING"]

    wait_for(one_started, timeout=20, what="one of the two short jobs started")
    waiting = s2 if job(c, s1)["JobState"] == "RUNNING" else s1
    wait_for(lambda: job(c, waiting)["Reason"] == "AssocMaxJobsLimit", timeout=10,
             what="AssocMaxJobsLimit")
    assert job(c, head)["JobState"] == "PENDING"
    c.run("scancel", str(blocker), str(head), str(s1), str(s2), check=False)
