"""Node administration: drain/resume, who may do it, durability of a drain,
and what happens to a node whose slurmd stops answering.

The module's cluster has a short SlurmdTimeout (6 s) so that a dead slurmd
is noticed quickly, and ReturnToService=2. Every test leaves its nodes idle.
"""

import re
import signal

import pytest

from cluster import wait_for

SLURMD_TIMEOUT = 6
CLUSTER_KWARGS = dict(nodes=["n1", "n2", "n3", "n4"],
                      settings={"SlurmdTimeout": SLURMD_TIMEOUT, "ReturnToService": 2})

TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"
NEED_REASON = "You must specify a reason when DOWNING or DRAINING a node. Request denied\n"
# How long a dead slurmd may take to be noticed: SlurmdTimeout plus a ping
# period and slack.
NOTICE_TIMEOUT = 3 * SLURMD_TIMEOUT + 10


def update(cluster, *args, **kw):
    return cluster.run("scontrol", "update", *args, check=False, **kw)


def sinfo_R_line(reason, user, node):
    """Regex of one `sinfo -R` line (columns as in reference/sinfo_R.txt)."""
    return re.escape(f"{reason:<20} {user:<9} ") + TIMESTAMP + re.escape(f" {node}")


def sinfo_R(cluster):
    r = cluster.run("sinfo", "-R")
    lines = r.stdout.splitlines()
    assert lines[0] == "REASON               USER      TIMESTAMP           NODELIST"
    return lines[1:]


def test_root_drains_and_resumes_a_node(cluster):
    r = update(cluster, "NodeName=n1", "State=DRAIN", "Reason=disk check")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    try:
        assert cluster.node_state("n1") == "drain"
        node = cluster.show_node("n1")
        assert node["State"] == "IDLE+DRAIN"
        assert re.fullmatch(rf"disk check \[root@{TIMESTAMP}\]", node["Reason"]), node["Reason"]
        lines = sinfo_R(cluster)
        assert len(lines) == 1 and re.fullmatch(sinfo_R_line("disk check", "root", "n1"),
                                                lines[0]), lines
    finally:
        r = update(cluster, "NodeName=n1", "State=RESUME")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert cluster.node_state("n1") == "idle"
    node = cluster.show_node("n1")
    assert node["State"] == "IDLE"
    assert "Reason" not in node
    assert sinfo_R(cluster) == []


def test_a_user_can_read_but_not_update_nodes(cluster, test_user):
    r = cluster.run("sinfo", "-h", "-N", "-o", "%N %t", user=test_user.pw_name)
    assert r.returncode == 0, r.stderr
    assert "n2 idle" in r.stdout.splitlines()

    for args in (["State=DRAIN", "Reason=not mine"], ["State=DOWN", "Reason=not mine"],
                 ["State=RESUME"]):
        mark = cluster.log_mark()
        r = update(cluster, "NodeName=n2", *args, user=test_user.pw_name)
        assert (r.returncode, r.stdout, r.stderr) == (
            1, "", "slurm_update error: Invalid user id\n"), args
        assert cluster.node_state("n2") == "idle"
        assert "Reason" not in cluster.show_node("n2")
        # every refusal is logged (docs/protocol.md, Privileges)
        cluster.wait_for_log(rf"Security violation, REQUEST_UPDATE_NODE RPC from "
                             rf"uid={test_user.pw_uid}\b", since=mark)


@pytest.mark.parametrize("args", [
    ["State=DRAIN"],
    ["State=DOWN"],
    ["State=DRAIN", "Reason="],
], ids=["drain", "down", "drain-empty-reason"])
def test_drain_or_down_without_a_reason_is_refused(cluster, args):
    r = update(cluster, "NodeName=n2", *args)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", NEED_REASON)
    assert cluster.node_state("n2") == "idle"


def test_a_drain_and_its_reason_survive_a_controller_restart(cluster):
    r = update(cluster, "NodeName=n3", "State=DRAIN", "Reason=survives restart")
    assert r.returncode == 0, r.stderr
    try:
        reason = cluster.show_node("n3")["Reason"]
        cluster.restart_slurmctld()
        # the node re-registers; the drain, its reason, user and time stay
        cluster.wait_node_state("n3", "drain", timeout=30)
        node = cluster.show_node("n3")
        assert node["State"] == "IDLE+DRAIN"
        assert node["Reason"] == reason
        for n in ("n1", "n2", "n4"):
            cluster.wait_node_state(n, "idle", timeout=30)
    finally:
        update(cluster, "NodeName=n3", "State=RESUME")
    cluster.wait_all_idle()


def test_a_killed_slurmd_makes_its_node_not_responding_then_down_until_it_returns(cluster):
    cluster.kill_slurmd("n4")  # SIGKILL, by pid
    seen = []

    def down():
        s = cluster.node_state("n4")
        if not seen or seen[-1] != s:
            seen.append(s)
        return s == "down*"
    wait_for(down, timeout=NOTICE_TIMEOUT, what="n4 to be down*")
    # first not responding (idle*), then DOWN after SlurmdTimeout
    assert seen in (["idle", "idle*", "down*"], ["idle*", "down*"]), seen

    node = cluster.show_node("n4")
    assert node["State"] == "DOWN+NOT_RESPONDING"
    assert re.fullmatch(rf"Not responding \[root@{TIMESTAMP}\]", node["Reason"]), node["Reason"]
    lines = sinfo_R(cluster)
    assert len(lines) == 1 and re.fullmatch(sinfo_R_line("Not responding", "root", "n4"),
                                            lines[0]), lines
    for n in ("n1", "n2", "n3"):
        assert cluster.node_state(n) == "idle"

    # ReturnToService=2: back to idle as soon as it registers again
    cluster.start_slurmd("n4")
    cluster.wait_node_state("n4", "idle", timeout=30)
    assert "Reason" not in cluster.show_node("n4")
    assert sinfo_R(cluster) == []


def test_return_to_service_2_also_returns_a_node_an_admin_set_down(cluster):
    r = update(cluster, "NodeName=n2", "State=DOWN", "Reason=broken fan")
    assert r.returncode == 0, r.stderr
    assert cluster.node_state("n2") == "down"
    cluster.kill_slurmd("n2", signal.SIGTERM)
    cluster.start_slurmd("n2")
    cluster.wait_node_state("n2", "idle", timeout=30)
    assert "Reason" not in cluster.show_node("n2")


def test_return_to_service_1_returns_only_nodes_that_were_not_responding(fresh_cluster):
    c = fresh_cluster(nodes=["n1", "n2"],
                      settings={"SlurmdTimeout": SLURMD_TIMEOUT, "ReturnToService": 1})

    # a node that stopped responding comes back when its slurmd registers
    c.kill_slurmd("n1")
    c.wait_node_state("n1", "down*", timeout=NOTICE_TIMEOUT)
    c.start_slurmd("n1")
    c.wait_node_state("n1", "idle", timeout=30)

    # a node set DOWN by an admin stays down, with its reason, after it
    # registers again (SlurmdStartTime changes on registration)
    r = c.run("scontrol", "update", "NodeName=n2", "State=DOWN", "Reason=broken fan",
              check=False)
    assert r.returncode == 0, r.stderr
    started = c.show_node("n2")["SlurmdStartTime"]
    c.kill_slurmd("n2", signal.SIGTERM)
    c.start_slurmd("n2")
    wait_for(lambda: c.show_node("n2").get("SlurmdStartTime") != started, timeout=30,
             what="n2 to register again")
    assert c.node_state("n2") == "down"
    node = c.show_node("n2")
    assert node["State"] == "DOWN"
    assert re.fullmatch(rf"broken fan \[root@{TIMESTAMP}\]", node["Reason"]), node["Reason"]
