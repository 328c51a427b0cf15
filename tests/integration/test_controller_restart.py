"""The controller killed (SIGKILL) and started again while clients work:
a batch job's srun step, an salloc running srun and an
srun started while the controller is down all carry on and end as they
would have; nothing a client was told is forgotten. Commands retry a
refused connection to the controller for MessageTimeout seconds, as
Slurm's do.
"""

import signal
import time

from cluster import job, submit, wait_for, wait_state

CLUSTER_KWARGS = dict(nodes=["n1", "n2"],
                      settings={"SlurmdTimeout": 6, "MessageTimeout": 6,
                                "BatchStartTimeout": 2})


def workdir(cluster):
    d = cluster.dir / "work"
    d.mkdir(exist_ok=True)
    d.chmod(0o777)
    return d


def test_a_batch_jobs_step_survives_a_controller_restart(cluster):
    wd = workdir(cluster)
    j = submit(cluster, "-D", str(wd), "-N1", "--wrap", "srun sleep 5; echo step=$?")
    wait_for(lambda: f"{j}.0" in cluster.out("squeue", "-h", "-s", "-j", str(j), "-o", "%i").split(),
             timeout=20, what=f"step {j}.0 to run")
    cluster.kill_slurmctld(signal.SIGKILL)
    time.sleep(1)  # down for a while: the outage itself is what is tested
    cluster.start_slurmctld()
    rec = wait_state(cluster, j, "COMPLETED", timeout=40)
    assert rec["ExitCode"] == "0:0", rec
    assert (wd / f"slurm-{j}.out").read_text() == "step=0\n"
    rows = cluster.out("sacct", "-j", str(j), "-n", "-P", "-o", "JobID,State")
    assert f"{j}.0|COMPLETED" in rows.split(), rows
    cluster.wait_all_idle()


def test_an_salloc_and_its_srun_survive_a_controller_restart(cluster):
    p = cluster.popen("salloc", "-N1", "bash", "-c", "srun sleep 5; echo rc=$?")
    try:
        wait_for(lambda: any(s.endswith(".0") for s in
                             cluster.out("squeue", "-h", "-s", "-o", "%i").split()),
                 timeout=20, what="the salloc's step to run")
        cluster.kill_slurmctld(signal.SIGKILL)
        time.sleep(1)
        cluster.start_slurmctld()
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert out == "rc=0\n", (out, err)
    cluster.wait_all_idle()


def test_commands_started_while_the_controller_is_down_wait_for_it(cluster):
    wd = workdir(cluster)
    cluster.kill_slurmctld(signal.SIGKILL)
    sb = cluster.popen("sbatch", "--parsable", "-D", str(wd), "--wrap", "true")
    sr = cluster.popen("srun", "-N1", "echo", "hello")
    try:
        time.sleep(2)  # the commands are now retrying a refused connection
        assert sb.poll() is None and sr.poll() is None
        cluster.start_slurmctld()
        out, err = sb.communicate(timeout=30)
        assert sb.returncode == 0, err
        j = int(out.strip())
        out, err = sr.communicate(timeout=30)
        assert (sr.returncode, out) == (0, "hello\n"), err
    finally:
        for p in (sb, sr):
            if p.poll() is None:
                p.kill()
                p.wait()
    wait_state(cluster, j, "COMPLETED", timeout=30)
    assert job(cluster, j)["ExitCode"] == "0:0"
