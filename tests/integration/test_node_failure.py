"""Jobs on a node that fails: with the default (JobRequeue) the batch job is
requeued and runs again elsewhere; with --no-requeue it ends NODE_FAIL with
reason NodeDown. An admin's State=DOWN does the same. No job is left
RUNNING on a node that is gone."""

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
