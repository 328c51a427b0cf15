"""scontrol reboot / cancel_reboot, RebootProgram, ResumeTimeout.

The controller marks nodes REBOOT_REQUESTED, sends REQUEST_REBOOT_NODES
to each one once it runs nothing, and slurmd runs RebootProgram as root.
The reboot is done when the node registers from a new boot or, as here,
a new slurmd: the test stands in for the machine's reboot by stopping
the node's slurmd (by pid) once the program ran and starting it again.
A node that does not come back within ResumeTimeout goes DOWN."""

import os
import signal
import subprocess

from cluster import Cluster, marker, parse_record, submit, wait_for, wait_state

RESUME_TIMEOUT = 8

REBOOT = """#!/bin/sh
d=$(dirname "$0")
env | sort > "$d/env.$SLURMD_NODENAME"
echo "$*" >> "$d/runs.$SLURMD_NODENAME"
exit 0
"""


def make_cluster():
    c = Cluster(name="reboot", nodes=["n1", "n2", "n3"],
                settings={"RebootProgram": "\"@RUN_DIR@/rb/reboot --now\"",
                          "ResumeTimeout": str(RESUME_TIMEOUT)})
    d = c.dir / "rb"
    d.mkdir(exist_ok=True)
    (d / "reboot").write_text(REBOOT)
    os.chmod(d / "reboot", 0o755)
    return c


def runs(cluster, name):
    f = cluster.dir / "rb" / f"runs.{name}"
    return f.read_text().splitlines() if f.exists() else []


def node(cluster, name):
    return parse_record(cluster.out("scontrol", "show", "node", name))


def short_state(cluster, name):
    return cluster.out("sinfo", "-h", "-n", name, "-o", "%t").strip()


def reboot_now(cluster, name):
    """The machine reboots: its slurmd stops and starts again."""
    cluster.kill_slurmd(name, sig=signal.SIGTERM)
    cluster.start_slurmd(name)


def wait_issued(cluster, name, n_runs):
    wait_for(lambda: len(runs(cluster, name)) >= n_runs, what=f"RebootProgram run on {name}")
    assert "REBOOT_ISSUED" in node(cluster, name)["State"]


def test_an_idle_node_reboots_and_returns_to_service(cluster):
    before = len(runs(cluster, "n1"))
    cluster.run("scontrol", "reboot", "nextstate=RESUME", "n1")
    wait_issued(cluster, "n1", before + 1)
    assert runs(cluster, "n1")[-1] == "--now"
    env = dict(line.split("=", 1) for line in
               (cluster.dir / "rb" / "env.n1").read_text().splitlines() if "=" in line)
    assert env["SLURMD_NODENAME"] == "n1"
    assert env["SLURM_CONF"].endswith("slurm.conf")
    rec = node(cluster, "n1")
    assert rec["Reason"].startswith("reboot requested : reboot issued")
    assert short_state(cluster, "n1") == "boot^"
    # no job goes to a node being rebooted
    job = submit(cluster, "-w", "n1", "--wrap", "true")
    assert cluster.out("squeue", "-h", "-j", job, "-o", "%T") == "PENDING\n"
    reboot_now(cluster, "n1")
    wait_state(cluster, job, ["COMPLETED"])
    rec = node(cluster, "n1")
    assert "REBOOT" not in rec["State"]
    assert "Reason" not in rec or rec["Reason"] in ("", None)
    assert "Node n1 rebooted" in cluster.log_text()


def test_asap_drains_a_busy_node_and_reboots_it_when_its_job_ends(cluster):
    with marker(cluster.dir / "rb" / "hold.n2") as hold:
        job = submit(cluster, "-w", "n2", "--wrap",
                     f"while [ -e {hold} ]; do sleep 0.1; done")
        wait_state(cluster, job, ["RUNNING"])
        before = len(runs(cluster, "n2"))
        cluster.run("scontrol", "reboot", "ASAP", "n2")
        rec = node(cluster, "n2")
        assert "DRAIN" in rec["State"] and "REBOOT_REQUESTED" in rec["State"]
        assert rec["Reason"].startswith("Reboot ASAP")
        other = submit(cluster, "-w", "n2", "--wrap", "true")
        assert cluster.out("squeue", "-h", "-j", other, "-o", "%T") == "PENDING\n"
        assert len(runs(cluster, "n2")) == before  # not while the job runs
    wait_state(cluster, job, ["COMPLETED"])
    wait_issued(cluster, "n2", before + 1)
    reboot_now(cluster, "n2")
    wait_state(cluster, other, ["COMPLETED"])
    rec = node(cluster, "n2")
    assert "DRAIN" not in rec["State"] and "REBOOT" not in rec["State"]


def test_nextstate_down_keeps_the_node_down_with_the_reason(cluster):
    before = len(runs(cluster, "n3"))
    cluster.run("scontrol", "reboot", "nextstate=DOWN", "reason=firmware update", "n3")
    wait_issued(cluster, "n3", before + 1)
    reboot_now(cluster, "n3")
    wait_for(lambda: node(cluster, "n3")["State"].startswith("DOWN"), what="n3 DOWN")
    rec = node(cluster, "n3")
    assert rec["Reason"].startswith("firmware update : reboot issued : reboot complete")
    assert "REBOOT" not in rec["State"]
    cluster.run("scontrol", "update", "NodeName=n3", "State=RESUME")
    wait_for(lambda: node(cluster, "n3")["State"] == "IDLE", what="n3 resumed")


def test_cancel_reboot_undrains_an_asap_request_and_a_restart_keeps_requests(cluster):
    with marker(cluster.dir / "rb" / "hold.n1") as hold:
        job = submit(cluster, "-w", "n1", "--wrap",
                     f"while [ -e {hold} ]; do sleep 0.1; done")
        wait_state(cluster, job, ["RUNNING"])
        cluster.run("scontrol", "reboot", "ASAP", "n1")
        cluster.restart_slurmctld()
        rec = node(cluster, "n1")
        assert "REBOOT_REQUESTED" in rec["State"] and "DRAIN" in rec["State"]
        cluster.run("scontrol", "cancel_reboot", "n1")
        rec = node(cluster, "n1")
        assert "REBOOT" not in rec["State"] and "DRAIN" not in rec["State"]
        assert "Canceling REBOOT on node n1" in cluster.log_text()
    wait_state(cluster, job, ["COMPLETED"])


def test_a_node_that_does_not_come_back_goes_down_after_resume_timeout(cluster):
    before = len(runs(cluster, "n2"))
    cluster.run("scontrol", "reboot", "n2")
    wait_issued(cluster, "n2", before + 1)
    # an issued reboot cannot be cancelled
    r = cluster.run("scontrol", "cancel_reboot", "n2", check=False)
    assert r.returncode == 1
    assert "slurm_update error: Reboot already in progress" in r.stderr
    wait_for(lambda: node(cluster, "n2")["State"].startswith("DOWN"),
             timeout=RESUME_TIMEOUT + 20, what="n2 DOWN after ResumeTimeout")
    assert node(cluster, "n2")["Reason"].endswith("reboot timed out") or \
        "reboot timed out" in node(cluster, "n2")["Reason"]
    cluster.run("scontrol", "update", "NodeName=n2", "State=RESUME")
    wait_for(lambda: node(cluster, "n2")["State"] == "IDLE", what="n2 resumed")


def test_bad_requests_are_refused_and_change_nothing(cluster, test_user):
    r = cluster.run("scontrol", "reboot", "nextstate=UP", "n1", check=False)
    assert r.returncode == 1
    assert r.stderr == "Invalid state: UP\nValid states: DOWN, RESUME\n"
    r = cluster.run("scontrol", "reboot", "reason=", "n1", check=False)
    assert (r.returncode, r.stderr) == (1, "missing reason\n")
    r = cluster.run("scontrol", "reboot", "n1,n9", check=False)
    assert r.returncode == 1
    assert "scontrol_reboot_nodes error: Invalid node name specified" in r.stderr
    r = cluster.run("scontrol", "reboot", "n1", user=test_user.pw_name, check=False)
    assert r.returncode == 1
    assert "scontrol_reboot_nodes error: Invalid user id" in r.stderr
    # without RebootProgram scontrol says so and sends nothing
    conf = cluster.dir / "no-reboot.conf"
    conf.write_text("".join(line for line in cluster.conf_path.read_text().splitlines(True)
                            if not line.startswith("RebootProgram")))
    r = subprocess.run([str(cluster.bin_dir / "scontrol"), "reboot", "n1"],
                       env=cluster.env({"SLURM_CONF": str(conf)}),
                       capture_output=True, text=True, timeout=30)
    assert (r.returncode, r.stderr) == (1, "RebootProgram isn't defined\n")
    for name in ("n1", "n2", "n3"):
        assert "REBOOT" not in node(cluster, name)["State"]
