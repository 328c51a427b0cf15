"""The daemons' life: scontrol reconfigure (good and broken slurm.conf),
scontrol shutdown (everything, or only the controller), who may do either,
registration of a node with less hardware than configured, slurmd -C,
SLURM_CONF, scontrol -o, and slurmctld's -c / -i start options.

The module's cluster (n1, n2 in cpu-queue, n3 in gpu-queue) is shared by
the tests that leave it as they found it; a test that stops daemons or
needs another slurm.conf starts a cluster of its own (fresh_cluster).
MessageTimeout is short so that a shutdown waits little for slurmds.
"""

import os
import re
import signal
import socket
import subprocess

import pytest

from cluster import (BUILD_DIR, TIMEOUT_SCALE, Cluster, free_ports, parse_record, wait_for,
                     wait_state)

CLUSTER_NAME = "lifecycle"
MESSAGE_TIMEOUT = 2
SETTINGS = {"ClusterName": CLUSTER_NAME, "SlurmdTimeout": 10, "MessageTimeout": MESSAGE_TIMEOUT}
GPU_QUEUE = "PartitionName=gpu-queue Nodes=n3 MaxTime=1-00:00:00 State=UP"
CLUSTER_KWARGS = dict(
    nodes=["n1", "n2", "n3"],
    partitions=["cpu-queue Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 State=UP",
                GPU_QUEUE.removeprefix("PartitionName=")],
    settings=SETTINGS,
)
# a cluster of its own, for the tests that stop daemons
SMALL = dict(nodes=["n1", "n2"], settings=SETTINGS)

TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"
# How long `scontrol shutdown` may take to stop every daemon: the controller
# waits at most MessageTimeout for the slurmds' answers.
SHUTDOWN_DEADLINE = 5 + MESSAGE_TIMEOUT
CONNECT_FAILURE = "Unable to contact slurm controller (connect failure)"


def partitions(cluster, env=None):
    """scontrol show partition -> {name: record}."""
    text = cluster.out("scontrol", "show", "partition", env=env)
    recs = [parse_record(block) for block in text.split("\n\n") if block.strip()]
    return {r["PartitionName"]: r for r in recs}


def sinfo_R(cluster):
    lines = cluster.out("sinfo", "-R").splitlines()
    assert lines[0] == "REASON               USER      TIMESTAMP           NODELIST"
    return lines[1:]


def sinfo_R_line(reason, user, node):
    """Regex of one `sinfo -R` line; the reason column is 20 wide (%20E) and cut."""
    return re.escape(f"{reason[:20]:<20} {user:<9} ") + TIMESTAMP + re.escape(f" {node}")


def machine_memory_mb():
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1024 * 1024)


# ----- reconfigure ---------------------------------------------------------------


def test_reconfigure_picks_up_a_changed_slurm_conf_and_keeps_node_states(cluster):
    original = cluster.conf_path.read_text()
    assert GPU_QUEUE in original
    changed = original.replace(GPU_QUEUE, GPU_QUEUE.replace("MaxTime=1-00:00:00",
                                                            "MaxTime=2:00:00"))
    changed += "PartitionName=extra Nodes=n[1-3] MaxTime=30 State=UP\n"

    r = cluster.run("scontrol", "update", "NodeName=n2", "State=DRAIN",
                    "Reason=kept across reconfigure", check=False)
    assert r.returncode == 0, r.stderr
    reason = cluster.show_node("n2")["Reason"]
    try:
        cluster.conf_path.write_text(changed)
        marks = {n: cluster.log_mark(f"slurmd-{n}") for n in cluster.nodes}
        r = cluster.run("scontrol", "reconfigure", check=False)
        assert (r.returncode, r.stdout, r.stderr) == (0, "", "")

        parts = partitions(cluster)
        assert list(parts) == ["cpu-queue", "gpu-queue", "extra"]
        assert parts["gpu-queue"]["MaxTime"] == "02:00:00"
        assert parts["cpu-queue"]["MaxTime"] == "1-00:00:00"
        assert (parts["extra"]["MaxTime"], parts["extra"]["Nodes"],
                parts["extra"]["TotalNodes"]) == ("00:30:00", "n[1-3]", "3")
        assert cluster.out("sinfo", "-h", "-o", "%P %l").splitlines() == [
            "cpu-queue* 1-00:00:00", "gpu-queue 2:00:00", "extra 30:00"]

        # the drain and its reason (user, time) survive, also once the
        # slurmds, told to reconfigure too, have registered again
        for n in cluster.nodes:
            cluster.wait_for_log(r"registered with the controller", daemon=f"slurmd-{n}",
                                 since=marks[n])
        assert cluster.node_states() == {"n1": "idle", "n2": "drain", "n3": "idle"}
        node = cluster.show_node("n2")
        assert (node["State"], node["Reason"]) == ("IDLE+DRAIN", reason)
        assert node["Partitions"] == "cpu-queue,extra"
    finally:
        cluster.conf_path.write_text(original)
        cluster.run("scontrol", "reconfigure")
        cluster.run("scontrol", "update", "NodeName=n2", "State=RESUME")
    parts = partitions(cluster)
    assert list(parts) == ["cpu-queue", "gpu-queue"]
    assert parts["gpu-queue"]["MaxTime"] == "1-00:00:00"
    cluster.wait_all_idle()


@pytest.mark.parametrize("bad_line, what", [
    ("Bogus=1", "Bogus"),
    ("NodeName=x CPUs=abc", "abc"),
], ids=["unknown-key", "bad-number"])
def test_a_broken_slurm_conf_fails_reconfigure_and_the_old_config_stays(cluster, bad_line,
                                                                       what):
    original = cluster.conf_path.read_text()
    broken = original + bad_line + "\n"
    where = f"{cluster.conf_path}:{len(broken.splitlines())}"
    # the commands read an unbroken copy, so that they reach the controller
    good = cluster.dir / "good.conf"
    good.write_text(original)
    env = {"SLURM_CONF": str(good)}
    sinfo_before = cluster.out("sinfo", env=env)
    parts_before = cluster.out("scontrol", "show", "partition", env=env)
    mark = cluster.log_mark()
    try:
        cluster.conf_path.write_text(broken)

        # an admin's scontrol, reading the broken file itself, says where
        r = cluster.run("scontrol", "reconfigure", check=False)
        assert (r.returncode, r.stdout) == (1, ""), r.stderr
        assert where in r.stderr and what in r.stderr, r.stderr

        # the controller refuses the file and says so, with file:line in its log
        r = cluster.run("scontrol", "reconfigure", check=False, env=env)
        assert (r.returncode, r.stdout) == (1, ""), r.stderr
        assert re.fullmatch(r"slurm_reconfigure error: \S.*\n", r.stderr), r.stderr
        line = cluster.wait_for_log(re.escape(where), since=mark)
        assert "error" in line and what in line, line

        # and keeps serving with the old configuration
        r = cluster.run("scontrol", "ping", check=False, env=env)
        assert r.returncode == 0 and " is UP" in r.stdout, r.stdout + r.stderr
        assert cluster.out("sinfo", env=env) == sinfo_before
        assert cluster.out("scontrol", "show", "partition", env=env) == parts_before
    finally:
        cluster.conf_path.write_text(original)
        good.unlink()
    assert set(cluster.node_states().values()) == {"idle"}


@pytest.mark.parametrize("verb, rpc", [("reconfigure", "RECONFIGURE"),
                                       ("shutdown", "SHUTDOWN")])
def test_a_user_may_neither_reconfigure_nor_shut_down(cluster, test_user, verb, rpc):
    mark = cluster.log_mark()
    r = cluster.run("scontrol", verb, user=test_user.pw_name, check=False)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", f"slurm_{verb} error: Invalid user id\n")
    cluster.wait_for_log(rf"Security violation, (REQUEST_)?{rpc} RPC from "
                         rf"uid={test_user.pw_uid}\b", since=mark)
    assert cluster.ping_up()
    for name, p in cluster.procs.items():
        assert p.poll() is None, f"{name} exited with status {p.returncode}"
    assert set(cluster.node_states().values()) == {"idle"}


# ----- small read-only checks on the module's cluster ------------------------------


def test_scontrol_show_config_reports_the_file_slurm_conf_names(cluster):
    lines = cluster.out("scontrol", "show", "config").splitlines()
    for key, value in (("ClusterName", CLUSTER_NAME), ("SlurmctldPort", cluster.ctld_port),
                       ("SLURM_CONF", cluster.conf_path)):
        assert f"{key:<23} = {value}" in lines, key


def test_every_command_goes_where_its_slurm_conf_says(cluster):
    # a copy of the file naming a closed controller port
    elsewhere = cluster.dir / "elsewhere.conf"
    elsewhere.write_text(re.sub(r"(?m)^SlurmctldPort=\d+$",
                                f"SlurmctldPort={free_ports(1)[0]}",
                                cluster.conf_path.read_text()))
    try:
        for args, stderr in (
                (["sinfo"], f"slurm_load_partitions: {CONNECT_FAILURE}\n"),
                (["scontrol", "show", "node"], f"slurm_load_node error: {CONNECT_FAILURE}\n")):
            r = cluster.run(*args, check=False, env={"SLURM_CONF": str(elsewhere)})
            assert (r.returncode, r.stdout, r.stderr) == (1, "", stderr), args
    finally:
        elsewhere.unlink()


@pytest.mark.parametrize("args", [["sinfo"], ["scontrol", "show", "node"]],
                         ids=["sinfo", "scontrol"])
def test_a_missing_slurm_conf_is_an_error_naming_the_file(cluster, args):
    missing = cluster.dir / "no-such-dir" / "slurm.conf"
    r = cluster.run(*args, check=False, env={"SLURM_CONF": str(missing)})
    assert (r.returncode, r.stdout) == (1, ""), r.stderr
    assert str(missing) in r.stderr, r.stderr


def test_scontrol_oneliner_prints_one_line_per_node(cluster):
    r = cluster.run("scontrol", "-o", "show", "node", "n1")
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("NodeName=n1 "), r.stdout
    assert r.stderr == ""
    # the same fields as the multi-line form
    assert parse_record(lines[0]).keys() == cluster.show_node("n1").keys()

    lines = cluster.out("scontrol", "-o", "show", "node").splitlines()
    assert [parse_record(line)["NodeName"] for line in lines] == ["n1", "n2", "n3"]


def test_scontrol_show_node_of_an_unknown_node(cluster):
    r = cluster.run("scontrol", "show", "node", "nosuch", check=False)
    assert (r.returncode, r.stdout, r.stderr) == (1, "Node nosuch not found\n", "")


def _children(pid):
    """{child pid: state letter} of process pid, from /proc."""
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids[int(entry)] = fields[0]
    return kids


def test_slurmd_reaps_the_stepds_it_started(cluster):
    """slurmd spawns each stepd as its own child (no double fork): while a
    job runs its stepd is slurmd's child, and once the jobs have ended
    none is left as a zombie of slurmd's."""
    slurmd = cluster.procs["slurmd-n1"].pid
    stepd = str(cluster.sbin_dir / "slurmstepd")

    def stepds():
        live = []
        for pid, state in _children(slurmd).items():
            try:
                if state != "Z" and os.readlink(f"/proc/{pid}/exe") == stepd:
                    live.append(pid)
            except OSError:
                pass
        return live

    long_job = cluster.out("sbatch", "--parsable", "-w", "n1", "-o", "/dev/null", "--wrap",
                           "sleep 300").strip()
    wait_state(cluster, long_job, "RUNNING")
    wait_for(stepds, timeout=10, what=f"a slurmstepd child of slurmd (pid {slurmd})")
    ids = [cluster.out("sbatch", "--parsable", "-w", "n1", "-o", "/dev/null", "--wrap",
                       "true").strip() for _ in range(3)]
    for job_id in ids:
        wait_state(cluster, job_id, "COMPLETED")
    cluster.run("scancel", long_job)
    wait_state(cluster, long_job, "CANCELLED")
    wait_for(lambda: not stepds() and "Z" not in _children(slurmd).values(), timeout=20,
             what=f"slurmd (pid {slurmd}) to reap its stepds: {_children(slurmd)}")
    assert cluster.procs["slurmd-n1"].poll() is None


def test_slurmd_C_prints_this_machines_hardware():
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    r = subprocess.run([str(BUILD_DIR / "slurmd"), "-C"], capture_output=True, text=True,
                       env=env, timeout=30 * TIMEOUT_SCALE)
    assert (r.returncode, r.stderr) == (0, "")
    lines = r.stdout.splitlines()
    assert len(lines) == 2, r.stdout
    host = socket.gethostname().split(".")[0]
    m = re.fullmatch(rf"NodeName={re.escape(host)} CPUs=(\d+) Boards=1 SocketsPerBoard=(\d+) "
                     r"CoresPerSocket=(\d+) ThreadsPerCore=(\d+) RealMemory=(\d+)", lines[0])
    assert m, lines[0]
    cpus, sockets, cores, threads, mem = map(int, m.groups())
    assert cpus == sockets * cores * threads == os.cpu_count(), lines[0]
    assert abs(mem - machine_memory_mb()) <= 1, (mem, machine_memory_mb())
    u = re.fullmatch(r"UpTime=(\d+)-(\d\d):(\d\d):(\d\d)", lines[1])
    assert u, lines[1]
    days, hours, minutes, seconds = map(int, u.groups())
    assert hours < 24 and minutes < 60 and seconds < 60, lines[1]
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    assert abs(((days * 24 + hours) * 60 + minutes) * 60 + seconds - uptime) <= 5, lines[1]


# ----- shutdown -----------------------------------------------------------------------


def test_scontrol_shutdown_stops_the_controller_and_every_slurmd(fresh_cluster):
    c = fresh_cluster(**SMALL)
    daemons = ["slurmctld"] + [f"slurmd-{n}" for n in c.nodes]
    pids = {d: c.procs[d].pid for d in daemons}
    r = c.run("scontrol", "shutdown", check=False)
    exited = c.wait_exited(daemons, timeout=SHUTDOWN_DEADLINE)
    # exit statuses: None = still running after the deadline
    got = (r.returncode, r.stdout, r.stderr, exited)
    assert got == (0, "", "", {d: 0 for d in daemons}), f"got {got!r}; pids {pids}"


def test_scontrol_shutdown_slurmctld_stops_only_the_controller(fresh_cluster):
    c = fresh_cluster(**SMALL)
    slurmds = {n: c.procs[f"slurmd-{n}"] for n in c.nodes}
    started = {n: c.show_node(n)["SlurmdStartTime"] for n in c.nodes}
    r = c.run("scontrol", "shutdown", "slurmctld", check=False)
    exited = c.wait_exited(["slurmctld"], timeout=SHUTDOWN_DEADLINE)
    got = (r.returncode, r.stdout, r.stderr, exited)
    assert got == (0, "", "", {"slurmctld": 0}), f"got {got!r}"

    # the slurmds keep running: a new controller finds the same ones
    c.start_slurmctld()
    c.wait_all_idle()
    for n, p in slurmds.items():
        assert p.poll() is None, f"slurmd of {n} exited with status {p.returncode}"
        assert c.show_node(n)["SlurmdStartTime"] == started[n]


# ----- registration of a node with less hardware than configured --------------------


class _NoIdleWait(Cluster):
    """A cluster whose start() does not wait for every node to be idle (some
    are drained at registration)."""

    def start(self, wait_idle=False):
        return super().start(wait_idle=wait_idle)


def test_without_config_overrides_a_node_with_less_hardware_is_drained(fresh_cluster):
    c = fresh_cluster(make=lambda: _NoIdleWait(
        nodes=["ok", "bigmem RealMemory=100000000",
               "bigcpu CPUs=4096 Boards=1 SocketsPerBoard=64 CoresPerSocket=64 "
               "ThreadsPerCore=1"],
        node_defaults="CPUs=1 RealMemory=1",
        settings=dict(SETTINGS, SlurmdParameters=None), name="low-hw"))
    c.wait_node_state("ok", "idle")
    c.wait_node_state("bigmem", "drain")
    c.wait_node_state("bigcpu", "drain")

    node = c.show_node("bigmem")
    assert node["State"] == "IDLE+DRAIN"
    m = re.fullmatch(rf"(Low RealMemory \(reported:(\d+) < 100\.00% of configured:100000000\)) "
                     rf"\[root@{TIMESTAMP}\]", node["Reason"])
    assert m, node["Reason"]
    mem_reason = m.group(1)
    assert abs(int(m.group(2)) - machine_memory_mb()) <= 1, node["Reason"]

    node = c.show_node("bigcpu")
    assert node["State"] == "IDLE+DRAIN"
    assert node["Reason"].startswith("Low socket*core*thread count"), node["Reason"]
    m = re.fullmatch(rf"(.*) \[root@{TIMESTAMP}\]", node["Reason"])
    assert m, node["Reason"]
    cpu_reason = m.group(1)

    assert "Reason" not in c.show_node("ok")
    lines = sinfo_R(c)
    assert len(lines) == 2, lines
    for reason, node in ((mem_reason, "bigmem"), (cpu_reason, "bigcpu")):
        assert any(re.fullmatch(sinfo_R_line(reason, "root", node), line) for line in lines), (
            node, lines)


# ----- slurmctld -c and -i ---------------------------------------------------------


def test_slurmctld_c_and_i_and_a_corrupt_node_state_file(fresh_cluster):
    c = fresh_cluster(**SMALL)
    state = c.dir / "state" / "node_state"

    # -c: a saved drain is not recovered
    r = c.run("scontrol", "update", "NodeName=n1", "State=DRAIN", "Reason=saved drain",
              check=False)
    assert r.returncode == 0, r.stderr
    c.kill_slurmctld(signal.SIGTERM)
    assert state.exists()
    c.start_slurmctld_with("-c")
    c.wait_all_idle()
    assert "Reason" not in c.show_node("n1")
    assert sinfo_R(c) == []

    # a corrupt node_state file: no start, and the file is left as it was
    r = c.run("scontrol", "update", "NodeName=n2", "State=DRAIN", "Reason=before corruption",
              check=False)
    assert r.returncode == 0, r.stderr
    c.kill_slurmctld(signal.SIGTERM)
    garbage = b"this is not a node_state file\n" * 8
    state.write_bytes(garbage)
    mark = c.log_mark()
    c.start_slurmctld_with(wait=False)
    status = c.wait_exited(["slurmctld"], timeout=10)["slurmctld"]
    assert status not in (0, None), f"slurmctld exit status {status} (None: still running)"
    line = c.wait_for_log(r"node_state", since=mark)
    assert str(c.dir / "state") in line, line
    assert state.read_bytes() == garbage

    # -i: starts anyway, without the unreadable state
    c.start_slurmctld_with("-i")
    c.wait_all_idle()
    assert sinfo_R(c) == []
