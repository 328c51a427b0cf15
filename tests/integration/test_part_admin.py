"""Partition administration with scontrol on a running controller:

* update State=DRAIN refuses new jobs (Slurm's words) and runs those it
  has; DOWN queues them (PartitionDown) until UP; INACTIVE refuses them;
* MaxTime, MaxNodes, Nodes, AllowGroups, PriorityTier and Default change
  what sinfo and scontrol show and what jobs may do;
* create and delete partitions (not while a job uses one);
* bad words are refused before anything is sent, and users may not edit;
* edits survive a controller restart; scontrol reconfigure goes back to
  slurm.conf.
"""

import pytest

from cluster import job, submit, wait_for, wait_state

CLUSTER_KWARGS = dict(
    nodes=("n1", "n2", "n3"),
    partitions=("main Nodes=n[1-3] Default=YES", "small Nodes=n3"),
)


def scontrol(cluster, *args, **kw):
    return cluster.run("scontrol", *args, check=False, **kw)


def part(cluster, name):
    out = cluster.out("scontrol", "-o", "show", "partition", name)
    return dict(w.split("=", 1) for w in out.split() if "=" in w)


def sleeper(cluster, *args):
    return submit(cluster, "-o", "/dev/null", *args, "--wrap", "sleep 300")


@pytest.fixture
def restore(cluster):
    """Back to slurm.conf's partitions after the test."""
    yield
    r = scontrol(cluster, "reconfigure")
    assert r.returncode == 0, r.stderr


def test_drain_refuses_new_jobs_and_runs_queued_ones(cluster, cancel_after, restore):
    held = submit(cluster, "-p", "small", "-H", "-o", "/dev/null", "--wrap", "sleep 300")
    cancel_after.append(held)
    r = scontrol(cluster, "update", "PartitionName=small", "State=DRAIN")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert part(cluster, "small")["State"] == "DRAIN"
    assert cluster.out("sinfo", "-h", "-p", "small", "-o", "%a") == "drain\n"
    r = cluster.run("sbatch", "-p", "small", "--wrap", "true", check=False)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == ("sbatch: error: Batch job submission failed: Required partition "
                        "not available (inactive or drain)\n")
    # a job already queued there still runs
    cluster.run("scontrol", "release", str(held))
    assert wait_state(cluster, held, "RUNNING")["Partition"].split()[0] == "small"
    # a list falls through to the next partition that takes jobs
    j = sleeper(cluster, "-p", "small,main")
    cancel_after.append(j)
    assert job(cluster, j)["Partition"].split()[0] == "main"


def test_down_queues_and_up_runs(cluster, cancel_after, restore):
    r = scontrol(cluster, "update", "PartitionName=small", "State=DOWN")
    assert r.returncode == 0, r.stderr
    j = sleeper(cluster, "-p", "small")
    cancel_after.append(j)
    wait_for(lambda: job(cluster, j)["Reason"] == "PartitionDown", timeout=20,
             what="the job to wait with PartitionDown")
    r = scontrol(cluster, "update", "PartitionName=small", "State=UP")
    assert r.returncode == 0, r.stderr
    wait_state(cluster, j, "RUNNING")


def test_inactive_refuses(cluster, restore):
    r = scontrol(cluster, "update", "PartitionName=small", "State=INACTIVE")
    assert r.returncode == 0, r.stderr
    assert cluster.out("sinfo", "-h", "-p", "small", "-o", "%a") == "inact\n"
    r = cluster.run("sbatch", "-p", "small", "--wrap", "true", check=False)
    assert r.returncode == 1 and "Required partition not available" in r.stderr


def test_limits_nodes_and_default(cluster, cancel_after, restore):
    r = scontrol(cluster, "update", "PartitionName=small", "MaxTime=10", "MaxNodes=1",
                 "Nodes=n[2-3]", "PriorityTier=5", "Default=YES")
    assert (r.returncode, r.stderr) == (0, "")
    p = part(cluster, "small")
    assert (p["MaxTime"], p["MaxNodes"], p["Nodes"], p["PriorityTier"], p["Default"]) == (
        "00:10:00", "1", "n[2-3]", "5", "YES")
    assert part(cluster, "main")["Default"] == "NO"
    assert cluster.out("sinfo", "-h", "-o", "%P %D") == "main 3\nsmall* 2\n"
    j = sleeper(cluster)  # the new default
    cancel_after.append(j)
    rec = wait_state(cluster, j, "RUNNING")
    assert rec["Partition"].split()[0] == "small" and rec["NodeList"] in ("n2", "n3")
    assert rec["TimeLimit"] == "00:10:00"


def test_allow_groups(cluster, test_user, restore):
    r = scontrol(cluster, "update", "PartitionName=small", "AllowGroups=root")
    assert r.returncode == 0, r.stderr
    r = cluster.run("sbatch", "-p", "small", "--wrap", "true", user=test_user.pw_name,
                    check=False)
    assert r.returncode == 1
    assert "User's group not permitted to use this partition" in r.stderr


def test_create_and_delete(cluster, cancel_after, restore):
    r = scontrol(cluster, "create", "PartitionName=extra", "Nodes=n1", "MaxTime=5")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    p = part(cluster, "extra")
    assert (p["Nodes"], p["MaxTime"], p["State"]) == ("n1", "00:05:00", "UP")
    assert "extra" in cluster.show_node("n1")["Partitions"].split(",")
    r = scontrol(cluster, "create", "PartitionName=extra", "Nodes=n1")
    assert r.returncode == 1
    assert r.stderr == "Error creating the partition: Invalid partition name specified\n"
    j = sleeper(cluster, "-p", "extra")
    cancel_after.append(j)
    assert wait_state(cluster, j, "RUNNING")["NodeList"] == "n1"
    r = scontrol(cluster, "delete", "PartitionName=extra")
    assert (r.returncode, r.stderr) == (1, "delete_partition PartitionName=extra: "
                                           "Partition is in use\n")
    cluster.run("scancel", str(j))
    wait_for(lambda: job(cluster, j)["JobState"] == "CANCELLED", timeout=20)
    wait_for(lambda: scontrol(cluster, "delete", "PartitionName=extra").returncode == 0,
             timeout=20, what="the partition to be deleted once its job ended")
    r = scontrol(cluster, "show", "partition", "extra")
    assert r.returncode == 1 and r.stdout == "Partition extra not found\n"


def test_bad_words_and_users_are_refused(cluster, test_user):
    cases = [
        (["update", "PartitionName=small", "State=SLEEPY"],
         "Invalid input: State=SLEEPY\nRequest aborted\n"),
        (["update", "PartitionName=small", "MaxTime=forever"],
         "Invalid input: MaxTime=forever\nRequest aborted\n"),
        (["update", "PartitionName=small", "Colour=blue"],
         "Update of this parameter is not supported: Colour=blue\nRequest aborted\n"),
        (["update", "PartitionName=nope", "State=UP"],
         "slurm_update error: Invalid partition name specified\n"),
        (["update", "PartitionName=small", "Nodes=n9"],
         "slurm_update error: Invalid node name specified\n"),
    ]
    for args, err in cases:
        r = scontrol(cluster, *args)
        assert (r.returncode, r.stderr) == (1, err), args
    r = scontrol(cluster, "update", "PartitionName=small", "State=DRAIN",
                 user=test_user.pw_name)
    assert (r.returncode, r.stderr) == (1, "slurm_update error: Invalid user id\n")
    assert part(cluster, "small")["State"] == "UP"


def test_edits_survive_a_restart_and_reconfigure_resets_them(cluster, restore):
    assert scontrol(cluster, "update", "PartitionName=small", "State=DRAIN").returncode == 0
    assert scontrol(cluster, "update", "PartitionName=small", "MaxTime=30").returncode == 0
    assert scontrol(cluster, "create", "PartitionName=extra", "Nodes=n2").returncode == 0
    assert scontrol(cluster, "update", "PartitionName=extra", "State=DOWN").returncode == 0
    cluster.restart_slurmctld()
    p = part(cluster, "small")
    assert (p["State"], p["MaxTime"]) == ("DRAIN", "00:30:00")
    assert part(cluster, "extra")["State"] == "DOWN"
    assert cluster.out("sinfo", "-h", "-o", "%P %a") == "main* up\nsmall drain\nextra down\n"
    r = scontrol(cluster, "reconfigure")
    assert r.returncode == 0, r.stderr
    assert part(cluster, "small")["State"] == "UP"
    assert scontrol(cluster, "show", "partition", "extra").returncode == 1
    cluster.restart_slurmctld()  # and the forgotten edits stay forgotten
    assert part(cluster, "small")["State"] == "UP"
    assert scontrol(cluster, "show", "partition", "extra").returncode == 1
