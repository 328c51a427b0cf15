"""priority/multifactor on a running cluster (2 nodes of 4 CPUs; partitions
debug PriorityJobFactor=1, high PriorityJobFactor=4, urgent
PriorityJobFactor=1 PriorityTier=2):

* the scheduler starts the higher-priority job first, whatever the
  submission order, and a higher PriorityTier before any priority;
* a held job stays at 0 and gets its computed priority when released;
* a priority set by an administrator stays as set;
* scontrol show config prints the Priority* keys as Slurm does.
"""

import time

import pytest

from cluster import Cluster, submit, wait_for, wait_state

SETTINGS = {
    "PriorityType": "priority/multifactor",
    "PriorityWeightJobSize": 800,
    "PriorityWeightPartition": 2000,
    "PriorityWeightAge": 1000,
    "PriorityMaxAge": "2-0",
    "PriorityCalcPeriod": 1,
    "PriorityFlags": "SMALL_RELATIVE_TO_TIME,CALCULATE_RUNNING",
    "PriorityFavorSmall": "YES",
    "PriorityUsageResetPeriod": "WEEKLY",
}


def make_cluster():
    return Cluster(
        nodes=["n1", "n2"],
        partitions=["debug Nodes=n[1-2] Default=YES PriorityJobFactor=1 State=UP",
                    "high Nodes=n[1-2] PriorityJobFactor=4 State=UP",
                    "urgent Nodes=n[1-2] PriorityJobFactor=1 PriorityTier=2 State=UP"],
        settings=SETTINGS,
        name="prio-mf",
    )


def prio(cluster, jid):
    return int(cluster.out("squeue", "-h", "-j", jid, "-o", "%Q").strip())


def sprio_sum(cluster, jid):
    f = cluster.out("sprio", "-h", f"-j{jid}", "-o", "%Y %A %J %P").split()
    return int(f[0]), sum(int(x) for x in f[1:])


@pytest.fixture
def blocker(cluster):
    jid = submit(cluster, "-N2", "--exclusive", "--wrap", "sleep 300")
    wait_state(cluster, jid, "RUNNING")
    yield jid
    cluster.run("scancel", jid, check=False)


def whole_cluster_job(cluster, part):
    return submit(cluster, "-p", part, "-N2", "--exclusive", "-t", "5", "--wrap", "sleep 300")


def starts_first(cluster, blocker, first, second):
    """Free the cluster; first runs, second still waits for it."""
    cluster.run("scancel", blocker)
    wait_state(cluster, first, "RUNNING")
    assert cluster.out("squeue", "-h", "-j", second, "-o", "%T").strip() == "PENDING"
    cluster.run("scancel", first, second)
    wait_state(cluster, first, ("CANCELLED", "COMPLETED"))


def test_higher_priority_job_starts_first(cluster, blocker):
    low = whole_cluster_job(cluster, "debug")
    high = whole_cluster_job(cluster, "high")
    assert prio(cluster, high) > prio(cluster, low)
    for jid in (low, high):
        p, total = sprio_sum(cluster, jid)
        assert p == prio(cluster, jid) and abs(p - total) <= 2  # columns are rounded
    starts_first(cluster, blocker, high, low)


def test_partition_priority_tier_goes_before_priority(cluster, blocker):
    high = whole_cluster_job(cluster, "high")
    urgent = whole_cluster_job(cluster, "urgent")
    assert prio(cluster, high) > prio(cluster, urgent)
    starts_first(cluster, blocker, urgent, high)


def test_held_job_stays_zero_until_released(cluster, blocker):
    jid = submit(cluster, "-H", "--wrap", "true")
    assert prio(cluster, jid) == 0
    assert cluster.out("sprio", "-h", f"-j{jid}") == (  # held: not listed
        "Unable to find jobs matching user/id(s) specified\n")
    cluster.run("scontrol", "release", jid)
    p = prio(cluster, jid)
    assert p > 0
    assert sprio_sum(cluster, jid)[0] == p
    cluster.run("scancel", jid)


def test_admin_set_priority_stays(cluster, blocker):
    jid = submit(cluster, "--wrap", "true")
    cluster.run("scontrol", "update", f"jobid={jid}", "priority=5")
    assert prio(cluster, jid) == 5
    assert sprio_sum(cluster, jid) == (5, 0)  # no factor makes it: Slurm shows 0s
    cluster.run("scancel", jid)


def test_show_config_prints_the_multifactor_keys(cluster):
    out = cluster.out("scontrol", "show", "config")
    for line in ("PriorityType            = priority/multifactor",
                 "PriorityDecayHalfLife   = 7-00:00:00",
                 "PriorityCalcPeriod      = 00:01:00",
                 "PriorityFavorSmall      = Yes",
                 "PriorityFlags           = SMALL_RELATIVE_TO_TIME,CALCULATE_RUNNING",
                 "PriorityMaxAge          = 2-00:00:00",
                 "PriorityUsageResetPeriod = WEEKLY",
                 "PriorityWeightAge       = 1000",
                 "PriorityWeightFairShare = 0",
                 "PriorityWeightJobSize   = 800",
                 "PriorityWeightPartition = 2000",
                 "PriorityWeightTRES      = (null)"):
        assert "\n" + line + "\n" in out, line


def test_priorities_are_computed_again_after_a_restart(cluster, blocker):
    """Last: restarts the controller. A pending job's priority is derived:
    the restarted controller computes the same one (age weighs 1000 over
    two days: nothing in a few seconds); sprio still adds up."""
    jid = submit(cluster, "-p", "high", "-N1", "--wrap", "true")
    submitted = time.monotonic()
    before = prio(cluster, jid)
    cluster.restart_slurmctld()
    wait_for(lambda: cluster.run("squeue", "-h", "-j", jid, "-o", "%Q", check=False)
             .stdout.strip().isdigit(), what="the job listed again")
    after = prio(cluster, jid)
    p, total = sprio_sum(cluster, jid)
    # the age factor grows by one every 172.8 s (1000 over two days), and
    # its rounding may tip at any moment: a slow restart may see one more
    grown = int((time.monotonic() - submitted) / 172.8) + 1
    assert before <= after <= p <= before + grown, (before, after, p)
    assert abs(p - total) <= 2
    cluster.run("scancel", jid)
