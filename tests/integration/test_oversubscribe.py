"""Partition OverSubscribe= and -s/--oversubscribe on a real cluster.

Three nodes of 4 CPUs, one per partition: n1 in "force"
(OverSubscribe=FORCE:2), n2 in "yes" (OverSubscribe=YES), n3 in "excl"
(OverSubscribe=EXCLUSIVE). Jobs ask --mem, as jobs that share must (a job
without one takes the whole node's memory).
"""

from cluster import job, node, submit, wait_for, wait_state

CLUSTER_KWARGS = dict(
    nodes=("n1", "n2", "n3"),
    partitions=("force Nodes=n1 OverSubscribe=FORCE:2 Default=YES State=UP",
                "yes Nodes=n2 OverSubscribe=YES State=UP",
                "excl Nodes=n3 OverSubscribe=EXCLUSIVE State=UP"),
)


def sleeper(cluster, *args):
    return submit(cluster, "-o", "/dev/null", "--mem=100", *args, "--wrap", "sleep 300")


def test_force_shares_each_core_between_two_jobs(cluster, cancel_after):
    a = sleeper(cluster, "-p", "force", "-n4")
    b = sleeper(cluster, "-p", "force", "-n4")
    cancel_after.extend([a, b])
    assert wait_state(cluster, a, "RUNNING")["NodeList"] == "n1"
    assert wait_state(cluster, b, "RUNNING")["NodeList"] == "n1"
    # a third would be a third job on the same cores: it waits
    c = sleeper(cluster, "-p", "force", "-n1")
    cancel_after.append(c)
    wait_for(lambda: job(cluster, c)["Reason"] == "Resources", what="third job waits")
    n = node(cluster, "n1")
    assert (n["CPUAlloc"], n["State"]) == ("4", "ALLOCATED")
    # an exclusive job is not made to share
    e = sleeper(cluster, "-p", "force", "--exclusive", "-n1")
    cancel_after.append(e)
    cluster.run("scancel", str(a), str(b))
    wait_state(cluster, c, "RUNNING")
    assert job(cluster, e)["JobState"] == "PENDING"


def test_yes_shares_only_jobs_that_ask(cluster, cancel_after):
    a = sleeper(cluster, "-p", "yes", "-n4")
    cancel_after.append(a)
    wait_state(cluster, a, "RUNNING")
    b = sleeper(cluster, "-p", "yes", "-s", "-n4")
    cancel_after.append(b)
    wait_for(lambda: job(cluster, b)["Reason"] == "Resources", what="-s job waits for cores")
    assert job(cluster, b)["OverSubscribe"] == "YES"
    cluster.run("scancel", str(a))
    wait_state(cluster, b, "RUNNING")
    c = sleeper(cluster, "-p", "yes", "-s", "-n4")
    cancel_after.append(c)
    assert wait_state(cluster, c, "RUNNING")["NodeList"] == "n2"
    # one without -s keeps its cores to itself: it waits
    d = sleeper(cluster, "-p", "yes", "-n1")
    cancel_after.append(d)
    wait_for(lambda: job(cluster, d)["Reason"] == "Resources", what="plain job waits")


def test_exclusive_partition_gives_whole_nodes(cluster, cancel_after):
    a = sleeper(cluster, "-p", "excl", "-n1")
    cancel_after.append(a)
    r = wait_state(cluster, a, "RUNNING")
    assert r["NumCPUs"] == "4"
    assert node(cluster, "n3")["State"] == "ALLOCATED"


def test_shared_cores_stay_shared_across_a_controller_restart(cluster, cancel_after):
    a = sleeper(cluster, "-p", "force", "-n4")
    b = sleeper(cluster, "-p", "force", "-n4")
    cancel_after.extend([a, b])
    wait_state(cluster, a, "RUNNING")
    wait_state(cluster, b, "RUNNING")
    cluster.restart_slurmctld()
    cluster.run("scancel", str(b))
    wait_state(cluster, b, "CANCELLED")
    # one sharer left: a second one fits beside it again (charged as cores
    # of its own after the restart, a would leave no room)
    c = sleeper(cluster, "-p", "force", "-n4")
    cancel_after.append(c)
    assert wait_state(cluster, c, "RUNNING")["NodeList"] == "n1"
