"""HealthCheckProgram, HealthCheckInterval: slurmd runs the program as
root when it starts and whenever the controller asks (every interval, to
the nodes HealthCheckNodeState names); the program drains its node with
scontrol as LBNL NHC does. Output of any size is read and dropped; a
program that hangs is killed after 60 s."""

import os

import pytest

from cluster import Cluster, wait_for, node

CLUSTER_KWARGS = dict(
    nodes=["n1", "n2"],
    settings={"HealthCheckProgram": "@RUN_DIR@/hc/check",
              "HealthCheckInterval": "2"})

CHECK = """#!/bin/sh
d=$(dirname "$0")
env | sort > "$d/env.$SLURMD_NODENAME"
echo run >> "$d/runs.$SLURMD_NODENAME"
if [ -e "$d/bad.$SLURMD_NODENAME" ]; then
    {scontrol} update NodeName=$SLURMD_NODENAME State=DRAIN Reason="NHC: marker found"
fi
[ -e "$d/noisy" ] && head -c 5000000 /dev/zero
[ -e "$d/hang.$SLURMD_NODENAME" ] && exec sleep 300
exit 0
"""


def hc_dir(cluster):
    return cluster.dir / "hc"


def make_cluster():
    """The module's cluster, unstarted: the program must be in place
    before the slurmds start (they run it then)."""
    c = Cluster(name="health_check", **CLUSTER_KWARGS)
    d = c.dir / "hc"
    d.mkdir(exist_ok=True)
    (d / "check").write_text(CHECK.format(scontrol=c.bin_dir / "scontrol"))
    os.chmod(d / "check", 0o755)
    return c


def runs(cluster, node):
    f = hc_dir(cluster) / f"runs.{node}"
    return len(f.read_text().splitlines()) if f.exists() else 0


def test_the_program_runs_at_start_and_every_interval_with_slurms_variables(cluster):
    wait_for(lambda: runs(cluster, "n1") >= 3 and runs(cluster, "n2") >= 3, timeout=20,
             what="three runs on each node")
    env = dict(line.split("=", 1) for line in
               (hc_dir(cluster) / "env.n1").read_text().splitlines() if "=" in line)
    assert env["SLURMD_NODENAME"] == "n1"
    assert env["SLURM_CONF"].endswith("slurm.conf")
    cfg = cluster.out("scontrol", "show", "config")
    assert "HealthCheckInterval     = 2 sec" in cfg
    assert "HealthCheckNodeState    = ANY" in cfg


def test_the_program_drains_its_node(cluster):
    marker = hc_dir(cluster) / "bad.n2"
    marker.touch()
    try:
        wait_for(lambda: "DRAIN" in node(cluster, "n2")["State"], timeout=20, what="n2 drained")
        assert node(cluster, "n2")["Reason"].startswith("NHC: marker found")
        assert "DRAIN" not in node(cluster, "n1")["State"]
    finally:
        marker.unlink()
    cluster.run("scontrol", "update", "NodeName=n2", "State=RESUME")
    wait_for(lambda: node(cluster, "n2")["State"] == "IDLE", what="n2 back")


def test_megabytes_of_output_are_read_and_dropped(cluster):
    noisy = hc_dir(cluster) / "noisy"
    noisy.touch()
    try:
        before = runs(cluster, "n1")
        wait_for(lambda: runs(cluster, "n1") >= before + 2, timeout=20, what="two noisy runs")
    finally:
        noisy.unlink()
    assert cluster.out("sinfo", "-h", "-N", "-o", "%N %t") == "n1 idle\nn2 idle\n"


@pytest.mark.slow
def test_a_program_that_hangs_is_killed_after_a_minute(cluster):
    hang = hc_dir(cluster) / "hang.n1"
    hang.touch()
    try:
        before = runs(cluster, "n1")
        wait_for(lambda: runs(cluster, "n1") > before, timeout=20, what="a hanging run")
    finally:
        hang.unlink()  # that run hangs on; the next ones will not
    n = runs(cluster, "n1")
    wait_for(lambda: "still runs after 60 s: killed" in cluster.log_text("slurmd-n1"),
             timeout=90, what="the hanging run killed")
    wait_for(lambda: runs(cluster, "n1") > n, timeout=20, what="runs again after the kill")
