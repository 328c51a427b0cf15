"""Our sinfo/scontrol print what Slurm 22.05 printed for the same cluster.

The cluster is configured exactly like tests/reference/slurm.conf (n1-n4 in
cpu-queue, g1-g2 with 4 GPUs in gpu-queue, 4 cores and 4000 MB each), only
with its paths and ports moved to a temp dir. The reference outputs were
captured with jobs running; here every node is idle, so the expected text is
written out below: the reference's layout with the idle values. Values that
belong to the machine or the moment (times, load, free memory, OS, Arch,
ports) are masked or taken from our config.
"""

import re

import socket

import pytest

from cluster import REFERENCE_DIR, Cluster

make_cluster = Cluster.like_reference

TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def reference_stdout(name):
    """The '--- stdout' section of a reference case file."""
    text = (REFERENCE_DIR / name).read_text()
    return text.split("--- stdout\n", 1)[1].split("--- stderr\n", 1)[0]


def assert_ok(r, stdout=None):
    assert r.returncode == 0, f"exit {r.returncode}, stderr: {r.stderr!r}"
    assert r.stderr == ""
    if stdout is not None:
        assert r.stdout == stdout


SINFO_IDLE = (
    "PARTITION  AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
    "cpu-queue*    up 1-00:00:00      4   idle n[1-4]\n"
    "gpu-queue     up 1-00:00:00      2   idle g[1-2]\n"
)

SINFO_N_L_IDLE = (
    "NODELIST   NODES  PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE REASON              \n"
    "g1             1  gpu-queue        idle 4       1:4:1   4000        0      1   (null) none                \n"
    "g2             1  gpu-queue        idle 4       1:4:1   4000        0      1   (null) none                \n"
    "n1             1 cpu-queue*        idle 4       1:4:1   4000        0      1   (null) none                \n"
    "n2             1 cpu-queue*        idle 4       1:4:1   4000        0      1   (null) none                \n"
    "n3             1 cpu-queue*        idle 4       1:4:1   4000        0      1   (null) none                \n"
    "n4             1 cpu-queue*        idle 4       1:4:1   4000        0      1   (null) none                \n"
)

SINFO_DRAIN_N4 = (
    "PARTITION  AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
    "cpu-queue*    up 1-00:00:00      1  drain n4\n"
    "cpu-queue*    up 1-00:00:00      3   idle n[1-3]\n"
    "gpu-queue     up 1-00:00:00      2   idle g[1-2]\n"
)

# scontrol show node, idle. '*' marks a masked value (see mask_node); the
# trailing spaces after CoresPerSocket=4, OS=... and Partitions=... are
# Slurm's. Port is filled in from our config.
SHOW_NODE_IDLE = (
    "NodeName={name} Arch=* CoresPerSocket=4 \n"
    "   CPUAlloc=0 CPUEfctv=4 CPUTot=4 CPULoad=*\n"
    "   AvailableFeatures=(null)\n"
    "   ActiveFeatures=(null)\n"
    "   Gres={gres}\n"
    "   NodeAddr=127.0.0.1 NodeHostName=localhost Port={port} Version=22.05.8\n"
    "   OS=* \n"
    "   RealMemory=4000 AllocMem=0 FreeMem=* Sockets=1 Boards=1\n"
    "   State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
    "   Partitions={partition} \n"
    "   BootTime=* SlurmdStartTime=*\n"
    "   LastBusyTime=*\n"
    "   CfgTRES={cfg_tres}\n"
    "   AllocTRES=\n"
    "   CapWatts=n/a\n"
    "   CurrentWatts=0 AveWatts=0\n"
    "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
    "\n"
)

MASKED_KEYS = ("Arch", "CPULoad", "FreeMem", "BootTime", "SlurmdStartTime", "LastBusyTime")


def mask_node(text):
    """Replace machine- and time-specific values by '*'. OS= runs to the end
    of its line, which must end with the one space Slurm prints."""
    for key in MASKED_KEYS:
        text = re.sub(rf"(?<=\b{key}=)\S+", "*", text)
    return re.sub(r"(?m)^(   OS=).*\S(?= $)", r"\1*", text)


def test_the_reference_layouts_are_the_ones_written_here():
    # Guards the hand-written expectations against a changed reference.
    assert reference_stdout("sinfo.txt").splitlines()[0] == SINFO_IDLE.splitlines()[0]
    assert reference_stdout("sinfo_N_l.txt").splitlines()[1] == SINFO_N_L_IDLE.splitlines()[0]
    ref_n1 = mask_node(reference_stdout("scontrol_show_node_n1.txt"))
    ours = SHOW_NODE_IDLE.format(name="n1", gres="(null)", port=17001, partition="cpu-queue",
                                 cfg_tres="cpu=4,mem=4000M,billing=4")
    differ = [(a, b) for a, b in zip(ref_n1.splitlines(), ours.splitlines()) if a != b]
    # only the job-dependent values differ from the reference's busy n1
    assert differ == [
        ("   CPUAlloc=3 CPUEfctv=4 CPUTot=4 CPULoad=*", "   CPUAlloc=0 CPUEfctv=4 CPUTot=4 CPULoad=*"),
        ("   RealMemory=4000 AllocMem=300 FreeMem=* Sockets=1 Boards=1",
         "   RealMemory=4000 AllocMem=0 FreeMem=* Sockets=1 Boards=1"),
        ("   State=MIXED ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A",
         "   State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A"),
        ("   AllocTRES=cpu=3,mem=300M", "   AllocTRES="),
    ]


def test_scontrol_ping_says_up(cluster):
    # SlurmctldHost=localhost(127.0.0.1): Slurm replaces "localhost" by this
    # machine's short host name (the reference machine was called vm).
    host = socket.gethostname().split(".")[0]
    assert_ok(cluster.run("scontrol", "ping"), f"Slurmctld(primary) at {host} is UP\n")


def test_sinfo_of_an_idle_cluster(cluster):
    assert_ok(cluster.run("sinfo"), SINFO_IDLE)


def test_sinfo_N_l_of_an_idle_cluster(cluster):
    r = cluster.run("sinfo", "-N", "-l")
    assert_ok(r)
    first, _, rest = r.stdout.partition("\n")
    assert re.fullmatch(r"\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4}", first), first
    assert rest == SINFO_N_L_IDLE


def test_scontrol_show_partition_matches_reference_exactly(cluster):
    assert_ok(cluster.run("scontrol", "show", "partition"),
              reference_stdout("scontrol_show_partition.txt"))


@pytest.mark.parametrize("name, gres, partition, cfg_tres", [
    ("n1", "(null)", "cpu-queue", "cpu=4,mem=4000M,billing=4"),
    ("g1", "gpu:4", "gpu-queue", "cpu=4,mem=4000M,billing=4,gres/gpu=4"),
], ids=["n1", "g1"])
def test_scontrol_show_node_of_an_idle_node(cluster, name, gres, partition, cfg_tres):
    r = cluster.run("scontrol", "show", "node", name)
    assert_ok(r)
    expected = SHOW_NODE_IDLE.format(name=name, gres=gres, port=cluster.node_ports[name],
                                     partition=partition, cfg_tres=cfg_tres)
    assert mask_node(r.stdout) == expected


def test_drained_node_in_sinfo_R_and_sinfo(cluster):
    r = cluster.run("scontrol", "update", "NodeName=n4", "State=DRAIN",
                    "Reason=golden: maintenance")
    assert_ok(r, "")
    try:
        r = cluster.run("sinfo", "-R")
        assert_ok(r)
        ref = reference_stdout("sinfo_R.txt")
        assert re.sub(TIMESTAMP, "T", r.stdout) == re.sub(TIMESTAMP, "T", ref)

        assert_ok(cluster.run("sinfo"), SINFO_DRAIN_N4)

        node = cluster.show_node("n4")
        assert node["State"] == "IDLE+DRAIN"
        assert re.fullmatch(rf"golden: maintenance \[root@{TIMESTAMP}\]", node["Reason"])
    finally:
        cluster.run("scontrol", "update", "NodeName=n4", "State=RESUME")
    cluster.wait_all_idle(timeout=10)
    assert_ok(cluster.run("sinfo"), SINFO_IDLE)
    assert "Reason" not in cluster.show_node("n4")
