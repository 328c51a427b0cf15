"""Jobs on a node that fails: with the default (JobRequeue) the batch job is
requeued and runs again elsewhere; with --no-requeue it ends NODE_FAIL with
reason NodeDown. An admin's State=DOWN does the same. No job is left
RUNNING on a node that is gone. A --no-kill job on several nodes goes on
without the failed one: its steps there end NODE_FAIL unless they are
srun --no-kill steps, which go on too; salloc is told."""

import os
import re
import signal

from cluster import job, kill_tree, wait_for

CLUSTER_KWARGS = dict(nodes=["n1", "n2"],
                      settings={"SlurmdTimeout": 6, "ReturnToService": 0, "DefMemPerCPU": 100,
                                "SlurmdParameters": "config_overrides"})


def submit(cluster, *args):
    out = cluster.out("sbatch", "--parsable", *args)
    return int(re.match(r"(\d+)", out).group(1))



def workdir(cluster):
    d = cluster.dir / "work"
    d.mkdir(exist_ok=True)
    os.chmod(d, 0o777)
    return str(d)


def test_a_failed_node_requeues_its_job_or_ends_it_node_fail(cluster):
    wd = workdir(cluster)
    again = submit(cluster, "-D", wd, "-w", "n1", "--wrap", "sleep 300")
    lost = submit(cluster, "-D", wd, "-w", "n1", "--no-requeue", "--wrap", "sleep 300")
    for j in (again, lost):
        wait_for(lambda j=j: job(cluster, j)["JobState"] == "RUNNING", what=f"{j} runs")
        # RUNNING is set at allocation: the launch must have reached the
        # node (its stepd says so) before the node dies, or the launch
        # fails instead and the job is retried, as a launch that never got
        # there should be
        wait_for(lambda j=j: f"JobId={j}: 1 task(s) launched" in cluster.log_text("slurmd-n1"),
                 what=f"{j} launched on n1")
    wait_for(lambda: len(cluster.stepd_pids()) >= 2, what="both slurmstepds")
    cluster.kill_slurmd("n1", signal.SIGKILL)
    # the node is gone with everything on it: nothing reports back
    for pid in cluster.stepd_pids():
        kill_tree(pid)
    wait_for(lambda: job(cluster, lost)["JobState"] == "NODE_FAIL", timeout=30,
             what="NODE_FAIL")
    assert job(cluster, lost)["Reason"] == "NodeDown"
    rec = job(cluster, again)
    assert rec["JobState"] == "PENDING" and rec["Restarts"] == "1", rec
    cluster.run("scancel", str(again))


def test_an_admin_down_requeues_what_runs_there(cluster):
    wd = workdir(cluster)
    cluster.wait_node_state("n2", {"idle"})
    job_id = submit(cluster, "-D", wd, "-w", "n2", "--wrap", "sleep 300")
    wait_for(lambda: job(cluster, job_id)["JobState"] == "RUNNING", what="runs")
    cluster.run("scontrol", "update", "NodeName=n2", "State=DOWN", "Reason=broken")
    rec = job(cluster, job_id)
    assert (rec["JobState"], rec["Restarts"]) == ("PENDING", "1"), rec
    cluster.run("scancel", str(job_id))
    cluster.run("scontrol", "update", "NodeName=n2", "State=RESUME")


def test_a_job_that_requires_a_drained_node_waits_with_req_node_not_avail(cluster):
    wd = workdir(cluster)
    cluster.wait_node_state("n2", {"idle"})
    cluster.run("scontrol", "update", "NodeName=n2", "State=DRAIN", "Reason=maint")
    job_id = submit(cluster, "-D", wd, "-w", "n2", "--wrap", "true")
    wait_for(lambda: cluster.out("squeue", "-h", "-j", str(job_id), "-o", "%r")
             == "ReqNodeNotAvail, UnavailableNodes:n2\n", what="ReqNodeNotAvail")
    assert "Explanation=a node it requires with -w is down" in cluster.out(
        "scontrol", "show", "job", str(job_id))
    cluster.run("scontrol", "update", "NodeName=n2", "State=RESUME")
    wait_for(lambda: job(cluster, job_id)["JobState"] == "COMPLETED", what="runs once back")


def test_an_salloc_on_a_lost_node_is_told_and_the_node_returns(fresh_cluster):
    c = fresh_cluster(nodes=["n1"], settings={"SlurmdTimeout": 6, "ReturnToService": 2,
                                              "SlurmdParameters": "config_overrides"})
    p = c.popen("salloc", "-N1", "sleep", "300")
    try:
        line = wait_for(lambda: re.search(r"Granted job allocation (\d+)", p.stderr.readline()),
                        timeout=20, what="the allocation")
        job_id = int(line.group(1))
        c.kill_slurmd("n1", signal.SIGKILL)
        rec = wait_for(lambda: (r := job(c, job_id))["JobState"] == "NODE_FAIL" and r,
                       timeout=30, what="NODE_FAIL")
        assert rec["Reason"] == "NodeDown", rec
        _, err = p.communicate(timeout=30)
        assert f"Job allocation {job_id} has been revoked." in err, err
        assert c.node_state("n1") == "down*"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    c.start_slurmd("n1")
    c.wait_node_state("n1", "idle")


def stepds_on(cluster, name):
    """The slurmstepds node name's slurmd started (their argv: -N name)."""
    pids = []
    for pid in cluster.stepd_pids():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if any(a == "-N" and b == name for a, b in zip(argv, argv[1:])):
            pids.append(pid)
    return pids


def idle_cluster(fresh_cluster):
    """A cluster of its own (these tests take a node down), both nodes idle."""
    cluster = fresh_cluster(**CLUSTER_KWARGS)
    for n in ("n1", "n2"):
        cluster.wait_node_state(n, {"idle"})
    return cluster


def lose_n2(cluster, job_id):
    """n2 goes, with everything that ran there; the --no-kill job goes on
    on n1. Returns its record."""
    cluster.kill_slurmd("n2", signal.SIGKILL)
    for pid in stepds_on(cluster, "n2"):
        kill_tree(pid)
    return wait_for(lambda: (r := job(cluster, job_id))["NodeList"] == "n1" and r, timeout=30,
                    what="n2 leaves the job")


def test_a_no_kill_job_goes_on_without_its_failed_node(fresh_cluster):
    cluster = idle_cluster(fresh_cluster)
    wd = workdir(cluster)
    out = os.path.join(wd, "nokill.out")
    script = ("srun -N2 -n2 sleep 300; echo \"first step rc=$?\"; "
              "srun -N1 -n1 hostname; echo \"second step rc=$?\"; sleep 300")
    job_id = submit(cluster, "-D", wd, "-N2", "--no-kill", "--no-requeue", "-o", out,
                    "--wrap", script)
    wait_for(lambda: f"StepId={job_id}.0: 1 task(s) launched" in cluster.log_text("slurmd-n2"),
             what="the two-node step runs on n2")
    assert job(cluster, job_id)["BatchHost"] == "n1"
    rec = lose_n2(cluster, job_id)
    assert (rec["JobState"], rec["NumNodes"]) == ("RUNNING", "1"), rec
    text = wait_for(lambda: "second step rc=" in (t := open(out).read()) and t, timeout=30,
                    what="the script goes on")
    assert "second step rc=0" in text, text
    assert "first step rc=0" not in text, text
    acct = cluster.out("sacct", "-n", "-P", "-j", f"{job_id}.0", "-o", "State")
    assert acct.split("\n")[0] == "NODE_FAIL", acct
    assert "Removing failed node n2 from JobId=" in cluster.log_text()
    cluster.run("scancel", str(job_id))
    wait_for(lambda: job(cluster, job_id)["JobState"] == "CANCELLED", what="cancelled")


def test_an_srun_no_kill_step_goes_on_without_the_failed_node(fresh_cluster):
    cluster = idle_cluster(fresh_cluster)
    wd = workdir(cluster)
    out, flag = os.path.join(wd, "nokillstep.out"), os.path.join(wd, "nokillstep.flag")
    task = (f"if [ $SLURM_NODEID = 0 ]; then while [ ! -e {flag} ]; do sleep 0.1; done; "
            "echo survivor-done; else sleep 300; fi")
    script = (f"srun -N2 -n2 --no-kill bash -c '{task}'; echo \"step rc=$?\"; sleep 300")
    job_id = submit(cluster, "-D", wd, "-N2", "--no-kill", "--no-requeue", "-o", out,
                    "--wrap", script)
    wait_for(lambda: f"StepId={job_id}.0: 1 task(s) launched" in cluster.log_text("slurmd-n2"),
             what="the step runs on n2")
    lose_n2(cluster, job_id)
    assert f"StepId={job_id}.0 (--no-kill) goes on without node n2" in cluster.log_text()
    open(flag, "w").close()
    text = wait_for(lambda: "step rc=" in (t := open(out).read()) and t, timeout=30,
                    what="the step ends")
    assert "survivor-done" in text, text
    assert "srun: error: Node failure on n2" in text, text
    assert job(cluster, job_id)["JobState"] == "RUNNING"
    cluster.run("scancel", str(job_id))
    wait_for(lambda: job(cluster, job_id)["JobState"] == "CANCELLED", what="cancelled")


def test_without_no_kill_the_same_failure_ends_the_job(fresh_cluster):
    cluster = idle_cluster(fresh_cluster)
    wd = workdir(cluster)
    job_id = submit(cluster, "-D", wd, "-N2", "--no-requeue", "--wrap", "sleep 300")
    wait_for(lambda: job(cluster, job_id)["JobState"] == "RUNNING", what="runs")
    wait_for(lambda: stepds_on(cluster, "n1"), what="the batch stepd")
    cluster.kill_slurmd("n2", signal.SIGKILL)
    wait_for(lambda: job(cluster, job_id)["JobState"] == "NODE_FAIL", timeout=30,
             what="NODE_FAIL")


def test_a_no_kill_salloc_is_told_and_keeps_its_allocation(fresh_cluster):
    c = idle_cluster(fresh_cluster)
    p = c.popen("salloc", "-N2", "--no-kill", "sleep", "300")
    try:
        line = wait_for(lambda: re.search(r"Granted job allocation (\d+)", p.stderr.readline()),
                        timeout=20, what="the allocation")
        job_id = int(line.group(1))
        c.kill_slurmd("n2", signal.SIGKILL)
        wait_for(lambda: p.stderr.readline() == "salloc: error: Node failure on n2\n",
                 timeout=30, what="salloc told")
        rec = job(c, job_id)
        assert (rec["JobState"], rec["NodeList"]) == ("RUNNING", "n1"), rec
        assert p.poll() is None
        c.run("scancel", str(job_id))
        p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
