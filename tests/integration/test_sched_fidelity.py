"""Placement fidelity against the reference (tests/reference): a node's
CPUAlloc/AllocMem/AllocTRES and sinfo's %C from the real allocations, a GPU
job's TRES with gres/gpu, EligibleTime/AccrueTime Unknown for held and
dependent jobs, the pending reasons of a blocked partition, and cons_tres
taking nodes by Weight."""

import re

import pytest

from cluster import Cluster, parse_record, submit, wait_for, wait_state, job, node

make_cluster = Cluster.like_reference


def sinfo_cpus(cluster):
    out = cluster.out("sinfo", "-h", "-N", "-o", "%N %C %e")
    return {n: c for n, c, _ in (line.split() for line in out.splitlines())}


@pytest.fixture
def blocker(cluster):
    """The reference's blocker: 2 nodes, 8 cpus, 4 GPUs per node, 100M a cpu."""
    j = submit(cluster, "-p", "gpu-queue", "-J", "blocker", "-N2", "-n8", "--gres=gpu:4",
               "--mem-per-cpu=100", "--wrap", "sleep 300")
    wait_state(cluster, j, "RUNNING")
    yield j
    cluster.run("scancel", str(j))
    wait_for(lambda: node(cluster, "g1")["CPUAlloc"] == "0", what="g1 released")


def test_a_running_gpu_job_shows_on_its_nodes_and_in_its_tres(cluster, blocker):
    for name in ("g1", "g2"):
        n = node(cluster, name)
        assert (n["CPUAlloc"], n["AllocMem"], n["State"]) == ("4", "400", "ALLOCATED")
        assert n["AllocTRES"] == "cpu=4,mem=400M,gres/gpu=4"  # reference g1
        assert n["CfgTRES"] == "cpu=4,mem=4000M,billing=4,gres/gpu=4"
    n1 = node(cluster, "n1")
    assert (n1["CPUAlloc"], n1["AllocMem"], n1["AllocTRES"]) == ("0", "0", "")
    cpus = sinfo_cpus(cluster)
    assert cpus["g1"] == cpus["g2"] == "4/0/0/4"
    assert cpus["n1"] == "0/4/0/4"
    assert job(cluster, blocker)["TRES"] == "cpu=8,mem=800M,node=2,billing=8,gres/gpu=8"
    # accounting has the GPUs too, in sacct's name order (its row is written
    # by a thread: poll)
    tres = "billing=8,cpu=8,gres/gpu=8,mem=800M,node=2"
    wait_for(lambda: cluster.out("sacct", "-j", str(blocker), "-X", "-n", "-P", "-o",
                                 "AllocTRES,ReqTRES") == f"{tres}|{tres}\n",
             what="sacct AllocTRES and ReqTRES with gres/gpu")
    # the partition line sums its nodes
    out = cluster.out("sinfo", "-h", "-p", "gpu-queue", "-o", "%C")
    assert out == "8/0/0/8\n"


def test_a_half_used_node_is_mixed_and_counts_what_is_left(cluster):
    j = submit(cluster, "-p", "gpu-queue", "-w", "g2", "-n1", "--gres=gpu:1", "--mem=300",
               "--wrap", "sleep 300")
    wait_state(cluster, j, "RUNNING")
    n = node(cluster, "g2")
    assert (n["CPUAlloc"], n["AllocMem"], n["State"]) == ("1", "300", "MIXED")
    assert n["AllocTRES"] == "cpu=1,mem=300M,gres/gpu=1"
    assert sinfo_cpus(cluster)["g2"] == "1/3/0/4"
    assert cluster.out("sinfo", "-h", "-n", "g2", "-o", "%t %C") == "mix 1/3/0/4\n"
    cluster.run("scancel", str(j))
    wait_for(lambda: node(cluster, "g2")["AllocTRES"] == "", what="g2 released")
    assert sinfo_cpus(cluster)["g2"] == "0/4/0/4"


def test_held_and_dependent_jobs_are_not_eligible_yet(cluster, blocker):
    held = submit(cluster, "-H", "-J", "held_user", "--wrap", "true")
    dep = submit(cluster, "-p", "gpu-queue", "-J", "wants_dep",
                 f"--dependency=afterok:{blocker}", "--wrap", "true")
    res = submit(cluster, "-p", "gpu-queue", "-J", "wants_res", "-N2", "-t", "5", "--wrap",
                 "true")
    prio = submit(cluster, "-p", "gpu-queue", "-J", "wants_prio", "--wrap", "true")
    wait_for(lambda: job(cluster, prio)["Reason"] == "Priority", what="wants_prio: Priority")
    for j, reason in ((held, "JobHeldUser"), (dep, "Dependency")):
        r = job(cluster, j)
        assert r["Reason"] == reason
        assert (r["EligibleTime"], r["AccrueTime"], r["StartTime"]) == ("Unknown",) * 3
    for j, reason in ((res, "Resources"), (prio, "Priority")):
        r = job(cluster, j)
        assert r["Reason"] == reason
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", r["EligibleTime"])
        assert r["AccrueTime"] == r["EligibleTime"]
    assert job(cluster, held)["Priority"] == "0"
    # released, it is eligible (and runs)
    cluster.run("scontrol", "release", str(held))
    r = wait_state(cluster, held, ("RUNNING", "COMPLETED"))
    assert r["EligibleTime"] != "Unknown"
    for j in (dep, res, prio):
        cluster.run("scancel", str(j))


def test_an_array_at_its_throttle_is_not_eligible(cluster):
    """reference scontrol_show_job_array_pending.txt: the pending rest of a
    %2 array shows Unknown; its running tasks became eligible when they
    started and accrued nothing."""
    arr = submit(cluster, "-J", "arr", "-a", "1-6%2", "--wrap", "sleep 300")

    def meta_record():  # the first record: the array's pending rest
        out = cluster.out("scontrol", "show", "job", str(arr))
        return parse_record(out.split("\n\n")[0])

    wait_for(lambda: meta_record()["Reason"] == "JobArrayTaskLimit", what="throttled")
    meta = meta_record()
    assert meta["ArrayTaskId"] == "3-6%2"
    assert (meta["EligibleTime"], meta["AccrueTime"]) == ("Unknown", "Unknown")
    out = cluster.out("scontrol", "show", "job", f"{arr}_1")
    task = parse_record(out)
    assert task["JobState"] == "RUNNING"
    assert task["EligibleTime"] == task["StartTime"]
    assert task["AccrueTime"] == "Unknown"
    cluster.run("scancel", str(arr))


def weighted_cluster():
    return Cluster(nodes=("n1 Weight=10", "n2 Weight=10", "n3 Weight=1", "n4 Weight=5"),
                   name="weights")


def test_nodes_are_taken_by_weight_then_config_order(fresh_cluster):
    c = fresh_cluster(make=weighted_cluster)
    order = []
    for _ in range(4):
        j = submit(c, "--exclusive", "--wrap", "sleep 300")
        order.append(wait_state(c, j, "RUNNING")["NodeList"])
    assert order == ["n3", "n4", "n1", "n2"]
    assert c.out("sinfo", "-h", "-N", "-o", "%N %w") == "n1 10\nn2 10\nn3 1\nn4 5\n"


def test_a_shared_job_fills_the_lightest_node_first(fresh_cluster):
    c = fresh_cluster(make=weighted_cluster)
    # 4 cpus on the light node, then the next lightest; two nodes list in name order
    a = submit(c, "-n4", "--wrap", "sleep 300")
    assert wait_state(c, a, "RUNNING")["NodeList"] == "n3"
    b = submit(c, "-N2", "--wrap", "sleep 300")
    assert wait_state(c, b, "RUNNING")["NodeList"] == "n[1,4]"


def test_typed_gpus_in_cfg_and_alloc_tres(fresh_cluster):
    c = fresh_cluster(nodes=("g1 Gres=gpu:a100:2",), name="typed",
                      gres=("NodeName=g1 Name=gpu Type=a100 File=@RUN_DIR@/dev/nvidia[0-1]",))
    assert node(c, "g1")["CfgTRES"] == "cpu=4,mem=4000M,billing=4,gres/gpu=2,gres/gpu:a100=2"
    j = submit(c, "--gres=gpu:1", "--mem=100", "--wrap", "sleep 300")
    r = wait_state(c, j, "RUNNING")
    assert node(c, "g1")["AllocTRES"] == "cpu=1,mem=100M,gres/gpu=1,gres/gpu:a100=1"
    # an untyped request gets typed GPUs: its TRES names the type
    assert r["TRES"] == "cpu=1,mem=100M,node=1,billing=1,gres/gpu=1,gres/gpu:a100=1"
    # a typed request shows its type while it waits
    held = submit(c, "-H", "--gres=gpu:a100:2", "--mem=100", "--wrap", "true")
    assert job(c, held)["TRES"] == "cpu=1,mem=100M,node=1,billing=1,gres/gpu=2,gres/gpu:a100=2"
    plain = submit(c, "-H", "--gres=gpu:2", "--mem=100", "--wrap", "true")
    assert job(c, plain)["TRES"] == "cpu=1,mem=100M,node=1,billing=1,gres/gpu=2"


def test_scontrol_update_weight_reorders_until_reconfigure(fresh_cluster):
    c = fresh_cluster(make=weighted_cluster)
    c.run("scontrol", "update", "NodeName=n2", "Weight=0")
    assert node(c, "n2")["Weight"] == "0"
    a = submit(c, "--exclusive", "--wrap", "sleep 300")
    assert wait_state(c, a, "RUNNING")["NodeList"] == "n2"
    c.run("scancel", str(a))
    wait_state(c, a, "CANCELLED")
    wait_for(lambda: node(c, "n2")["CPUAlloc"] == "0", what="n2 released")
    # a bad weight changes nothing
    r = c.run("scontrol", "update", "NodeName=n2", "Weight=-1", check=False)
    assert r.returncode == 1
    assert node(c, "n2")["Weight"] == "0"
    c.run("scontrol", "reconfigure")
    wait_for(lambda: node(c, "n2")["Weight"] == "10", what="slurm.conf's weight again")
    b = submit(c, "--exclusive", "--wrap", "sleep 300")
    assert wait_state(c, b, "RUNNING")["NodeList"] == "n3"
