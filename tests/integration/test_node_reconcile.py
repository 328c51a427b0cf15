"""A cluster that survives daemon restarts and lost processes:

* slurmd killed in the middle of a job costs the job nothing;
* a job the node no longer runs (its slurmstepd gone while the controller
  was down) ends NODE_FAIL or is requeued when the node reports, instead
  of staying RUNNING forever; one the controller does not know is killed;
* a cancel of a job whose node has no trace of it completes at once;
* a job that ended while the controller was down keeps its real end time,
  even when its slurmstepd was killed before it could report (slurmd sends
  the completion the stepd left in the spool);
* a job that will not die drains its node after UnkillableStepTimeout;
* the processes a SIGKILLed slurmstepd left are killed by slurmd.

Each test SIGKILLs real daemons at a chosen moment and polls with deadlines.
"""

import os
import signal
import struct
import time
from datetime import datetime

from cluster import job, kill_tree, submit, wait_for, wait_gone, wait_state

CLUSTER_KWARGS = dict(nodes=["n1", "n2"],
                      settings={"SlurmdTimeout": 6, "MessageTimeout": 3, "BatchStartTimeout": 5,
                                "UnkillableStepTimeout": 5, "ReturnToService": 2})

# BatchStartTimeout + MessageTimeout: a job that started later than that
# before its node reported is not judged missing (its launch may be on its way)
GRACE = 5 + 3
MESSAGE_TIMEOUT = 3


def workdir(cluster):
    d = cluster.dir / "work"
    d.mkdir(exist_ok=True)
    os.chmod(d, 0o777)
    return d


def spool(cluster, node):
    return cluster.dir / "spool" / node


def done_files(cluster, node):
    return sorted(p.name for p in spool(cluster, node).glob("*.done"))


def completion_left_in_spool(cluster, node, script):
    """A job running script on node ends while the controller is down, and
    its stepd is killed after it kept the completion in node's spool.
    Returns (job id, the time the completion was seen)."""
    # the script starts only once the controller is gone, however long the
    # wait for RUNNING and the kill take
    go = workdir(cluster) / f"go-{time.monotonic_ns()}"
    j = submit(cluster, "-D", str(workdir(cluster)), "-w", node, "--wrap",
               f"while [ ! -e {go} ]; do sleep 0.05; done; {script}")
    wait_state(cluster, j, "RUNNING")
    cluster.kill_slurmctld(signal.SIGKILL)
    go.touch()
    # the script ends; its stepd keeps the report and retries
    wait_for(lambda: done_files(cluster, node), timeout=30, what="a .done file in the spool")
    ended = time.time()
    pids = cluster.stepd_pids()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)  # the stepd only: the script is over
    wait_gone(pids)
    return j, ended


def seconds(rec, key):
    return datetime.strptime(rec[key], "%Y-%m-%dT%H:%M:%S").timestamp()


def test_a_slurmd_killed_in_the_middle_of_a_job_costs_it_nothing(cluster):
    wd = workdir(cluster)
    j = submit(cluster, "-D", str(wd), "-w", "n1", "--wrap", "sleep 4; echo ok")
    wait_state(cluster, j, "RUNNING")
    cluster.kill_slurmd("n1", signal.SIGKILL)
    cluster.start_slurmd("n1")
    rec = wait_state(cluster, j, "COMPLETED", timeout=30)
    assert rec["ExitCode"] == "0:0", rec
    assert (wd / f"slurm-{j}.out").read_text() == "ok\n"
    cluster.wait_node_state("n1", "idle")


def test_a_job_ending_while_its_slurmd_is_down_completes(cluster):
    wd = workdir(cluster)
    j = submit(cluster, "-D", str(wd), "-w", "n1", "--wrap", "sleep 2; exit 3")
    wait_state(cluster, j, "RUNNING")
    cluster.kill_slurmd("n1", signal.SIGKILL)
    try:
        rec = wait_state(cluster, j, "FAILED", timeout=30)
        assert rec["ExitCode"] == "3:0", rec
    finally:
        cluster.start_slurmd("n1")
    cluster.wait_node_state("n1", "idle")


def test_jobs_whose_stepd_died_while_the_controller_was_down_end_on_registration(cluster):
    wd = workdir(cluster)
    lost = submit(cluster, "-D", str(wd), "-w", "n1", "--no-requeue", "--wrap", "sleep 300")
    again = submit(cluster, "-D", str(wd), "-w", "n1", "--wrap", "sleep 300")
    for j in (lost, again):
        wait_state(cluster, j, "RUNNING")
    # older than the launch grace, so the first report judges them
    wait_for(lambda: time.time() > seconds(job(cluster, lost), "StartTime") + GRACE + 1,
             timeout=GRACE + 5, what="the launch grace to pass")
    cluster.kill_slurmctld(signal.SIGKILL)
    pids = cluster.stepd_pids()
    assert pids
    for pid in pids:
        kill_tree(pid)
    wait_gone(pids)
    mark = cluster.log_mark()
    cluster.start_slurmctld()
    rec = wait_state(cluster, lost, "NODE_FAIL", timeout=20)
    assert rec["Reason"] == "NodeDown", rec
    cluster.wait_for_log(r"node n1 does not run the job any more", since=mark,
                         containing=f"JobId={lost}")
    rec = wait_for(lambda: (r := job(cluster, again))["Restarts"] == "1" and r, timeout=20,
                   what=f"job {again} requeued")
    assert rec["JobState"] in ("PENDING", "RUNNING"), rec
    cluster.run("scancel", str(again))
    wait_for(lambda: job(cluster, again)["JobState"] == "CANCELLED", timeout=20,
             what=f"job {again} cancelled")
    cluster.wait_all_idle(timeout=30)


def test_a_cancel_of_a_job_its_node_has_no_trace_of_completes_at_once(cluster):
    wd = workdir(cluster)
    j = submit(cluster, "-D", str(wd), "-w", "n2", "--wrap", "sleep 300")
    wait_state(cluster, j, "RUNNING")
    pids = cluster.stepd_pids()
    for pid in pids:
        kill_tree(pid)
    wait_gone(pids)
    cluster.run("scancel", str(j))
    # not COMPLETING until a node that will never answer does
    rec = wait_state(cluster, j, "CANCELLED", timeout=GRACE - 2)
    assert "COMPLETING" not in rec["JobState"], rec
    cluster.wait_node_state("n2", "idle", timeout=10)


def established_to(port):
    """Connections to 127.0.0.1:port the kernel has established, taken by
    the listener or not (/proc/net/tcp: state 01)."""
    n = 0
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            local, st = line.split()[1], line.split()[3]
            if local == f"0100007F:{port:04X}" and st == "01":
                n += 1
    return n


def test_a_cancel_that_overtakes_the_launch_still_ends_the_script(cluster):
    """With slurmd stopped, a job's launch and its cancel wait together in
    the node's socket: the cancel finds no slurmstepd yet. The controller
    must not end the job then as "no trace" (batch 0:9) while the script
    starts and runs on, unseen: once the launch is answered the kill goes
    again, the script gets SIGTERM (its batch step CANCELLED 0:15, as a
    cancel of a running job) and nothing of it is left on the node."""
    wd = workdir(cluster)
    slurmd = cluster.procs["slurmd-n2"]
    port = cluster.node_ports["n2"]
    os.kill(slurmd.pid, signal.SIGSTOP)
    try:
        j = submit(cluster, "-D", str(wd), "-w", "n2", "--wrap", "sleep 300")
        wait_state(cluster, j, "RUNNING")  # the launch is sent (queued at n2)
        before = established_to(port)
        cluster.run("scancel", str(j))
        wait_for(lambda: established_to(port) > before, timeout=10,
                 what="the terminate queued at n2 beside the launch")
    finally:
        os.kill(slurmd.pid, signal.SIGCONT)
    wait_state(cluster, j, "CANCELLED", timeout=30)
    wait_for(lambda: not list(spool(cluster, "n2").glob(f"n2_{j}.*")), timeout=30,
             what=f"job {j}'s slurmstepd gone from n2")

    def batch_row():
        out = cluster.out("sacct", "-j", str(j), "-n", "-P", "-o", "JobID,State,ExitCode")
        return [r for r in out.splitlines() if r.startswith(f"{j}.batch|")]

    wait_for(batch_row, timeout=30, what=f"job {j}'s batch step in sacct")
    assert batch_row() == [f"{j}.batch|CANCELLED|0:15"]
    cluster.wait_node_state("n2", "idle", timeout=30)


def test_a_completion_left_by_a_killed_stepd_is_sent_by_slurmd_with_its_end_time(cluster):
    j, ended = completion_left_in_spool(cluster, "n1", "sleep 2; echo bye; exit 4")
    assert done_files(cluster, "n1") == [f"n1_{j}.4294967291.done"]
    # the controller comes back well after the end
    wait_for(lambda: time.time() > ended + 6, timeout=10, what="6 s to pass")
    cluster.start_slurmctld()
    rec = wait_state(cluster, j, "FAILED", timeout=30)
    assert rec["ExitCode"] == "4:0", rec
    run_time = seconds(rec, "EndTime") - seconds(rec, "StartTime")
    assert 1 <= run_time <= 5, rec  # the script's 2 s, not the ~8 s until the report
    wait_for(lambda: not done_files(cluster, "n1"), timeout=10,
             what="slurmd to remove the delivered completion")
    row = cluster.out("sacct", "-j", str(j), "-X", "-n", "-P", "-o", "State,ExitCode,Elapsed")
    state, code, elapsed = row.strip().split("|")
    assert (state, code) == ("FAILED", "4:0"), row
    assert elapsed <= "00:00:05", row


def test_a_terminate_for_a_job_whose_completion_waits_in_the_spool_is_answered(cluster):
    """slurmd answers REQUEST_TERMINATE_JOB for a job that ended on it and
    whose completion still waits in its spool (the stepd gone): rc 0 at
    once, not silence until the sender's MessageTimeout (that request was
    kept unanswered, and leaked, by slurmd)."""
    from test_protocol_abuse import exchange, pack_str, rc_of, signed_frame

    j, _ = completion_left_in_spool(cluster, "n1", "sleep 1")
    # job, all steps, SIGKILL, flags, reason; then ours: uid, gid, exit
    # code, user, partition, account, nodes (what the node's Epilog is told),
    # cpus, memory, GPUs (REQUEST_LAUNCH_PROLOG's)
    body = (struct.pack(">IIHH", j, 0xfffffffe, 9, 0) + pack_str(b"test")
            + struct.pack(">III", 0, 0, 0) + pack_str(None) * 4
            + struct.pack(">IQ", 0, 0) + pack_str(None))
    t0 = time.monotonic()
    reply = exchange(cluster, signed_frame(cluster, 6011, body), timeout=MESSAGE_TIMEOUT,
                     port=cluster.node_ports["n1"])
    assert reply is not None, "slurmd closed the connection without an answer"
    assert rc_of(reply) == 0
    assert time.monotonic() - t0 < MESSAGE_TIMEOUT
    cluster.start_slurmctld()
    wait_state(cluster, j, "COMPLETED", timeout=30)
    cluster.wait_all_idle(timeout=30)


def test_a_job_ending_while_the_controller_is_down_keeps_its_end_time(cluster):
    wd = workdir(cluster)
    j = submit(cluster, "-D", str(wd), "-w", "n2", "--wrap", "sleep 3; echo done")
    wait_state(cluster, j, "RUNNING")
    cluster.kill_slurmctld(signal.SIGKILL)
    out = wd / f"slurm-{j}.out"
    wait_for(lambda: out.exists() and out.read_text() == "done\n", timeout=30,
             what=f"job {j} to finish while the controller is down")
    ended = time.time()
    wait_for(lambda: time.time() > ended + 8, timeout=12, what="8 s to pass")
    cluster.start_slurmctld()
    rec = wait_state(cluster, j, "COMPLETED", timeout=40)
    run_time = seconds(rec, "EndTime") - seconds(rec, "StartTime")
    assert 2 <= run_time <= 5, rec
    assert rec["RunTime"] <= "00:00:05", rec


def test_a_job_the_controller_does_not_know_is_killed_on_its_node(fresh_cluster):
    c = fresh_cluster(nodes=["n1"], settings={"SlurmdTimeout": 6, "MessageTimeout": 3,
                                                    "BatchStartTimeout": 5})
    wd = workdir(c)
    j = submit(c, "-D", str(wd), "--wrap", "sleep 300")
    wait_state(c, j, "RUNNING")
    pids = c.stepd_pids()
    assert pids
    c.kill_slurmctld(signal.SIGKILL)
    # the controller comes back with no memory of the job
    for f in (c.dir / "state").iterdir():
        if f.is_file():
            f.unlink()
    mark = c.log_mark()
    c.start_slurmctld()
    c.wait_for_log(r"runs on node n1 but the controller has it as unknown: killing it",
                   since=mark, containing=f"StepId={j}.batch", timeout=20)
    wait_gone(pids)
    c.wait_all_idle()


def test_a_job_that_will_not_die_drains_its_node_after_unkillable_step_timeout(cluster):
    wd = workdir(cluster)
    j = submit(cluster, "-D", str(wd), "-w", "n2", "--wrap", "sleep 300")
    wait_state(cluster, j, "RUNNING")
    pids = cluster.stepd_pids()
    assert len(pids) == 1
    os.kill(pids[0], signal.SIGSTOP)  # it can kill nothing any more
    try:
        cluster.run("scancel", str(j))
        node = wait_for(lambda: (n := cluster.show_node("n2"))["State"].find("DRAIN") >= 0
                        and n, timeout=40, what="n2 drained")
        assert node["Reason"].startswith("Kill task failed"), node
        rec = wait_state(cluster, j, "CANCELLED", timeout=10)
        assert "COMPLETING" not in rec["JobState"], rec
    finally:
        os.kill(pids[0], signal.SIGCONT)
        kill_tree(pids[0])
    wait_gone(pids)
    cluster.run("scontrol", "update", "NodeName=n2", "State=RESUME")
    cluster.wait_node_state("n2", "idle")


def descendants(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = [int(x) for x in f.read().split()]
    except OSError:
        return []
    return kids + [d for k in kids for d in descendants(k)]


def test_the_processes_of_a_killed_stepd_are_killed_and_its_job_ends(cluster):
    wd = workdir(cluster)
    # the stepds of earlier tests' jobs may still be on their way out
    wait_for(lambda: not cluster.stepd_pids(), timeout=30, what="earlier slurmstepds to exit")
    j = submit(cluster, "-D", str(wd), "-w", "n2", "--no-requeue", "--wrap", "sleep 300")
    wait_state(cluster, j, "RUNNING")
    stepds = cluster.stepd_pids()
    assert len(stepds) == 1
    tasks = wait_for(lambda: descendants(stepds[0]), timeout=10, what="the job's processes")
    mark = cluster.log_mark("slurmd-n2")
    os.kill(stepds[0], signal.SIGKILL)  # the stepd only: its tasks are orphaned
    wait_gone(stepds)
    wait_gone(tasks, timeout=20)  # killed by slurmd at its next report
    cluster.wait_for_log(r"its slurmstepd died; \d+ process\(es\) it left killed",
                         daemon="slurmd-n2", since=mark, containing=f"StepId={j}.")
    rec = wait_state(cluster, j, "NODE_FAIL", timeout=GRACE + 20)
    assert rec["Reason"] == "NodeDown", rec
    cluster.wait_node_state("n2", "idle")
