"""Batch jobs end to end on a cluster configured like the reference
(n1-n4 in cpu-queue, g1-g2 with 4 GPUs in gpu-queue, 4 cpus and 4000 MB a
node, DefMemPerCPU=100): sbatch prints the id, the script runs as the
submitter in its directory with Slurm's environment, its output lands in
slurm-<id>.out, and the final state, exit code and reasons are Slurm's.
"""

import os
import re
import signal

import pytest

from cluster import Cluster, wait_for, submit, job, wait_state

make_cluster = Cluster.like_reference


@pytest.fixture
def workdir(cluster, tmp_path_factory):
    d = tmp_path_factory.mktemp("jobs")
    os.chmod(d, 0o777)
    return d








def read(path):
    wait_for(lambda: path.exists(), timeout=10, what=f"{path} exists")
    return path.read_text()


def test_sbatch_wrap_runs_the_command_and_writes_slurm_id_out(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "--wrap", "echo hello")
    rec = wait_state(cluster, job_id, "COMPLETED")
    assert rec["ExitCode"] == "0:0"
    assert rec["Reason"] == "None"
    assert read(workdir / f"slurm-{job_id}.out") == "hello\n"


def test_a_failing_script_ends_failed_with_its_exit_code(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "--wrap", "exit 3")
    rec = wait_state(cluster, job_id, "FAILED")
    assert rec["ExitCode"] == "3:0"
    assert rec["Reason"] == "NonZeroExitCode"


def test_the_script_sees_slurms_environment(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "-J", "envjob", "--wrap", "env | sort")
    wait_state(cluster, job_id, "COMPLETED")
    env = dict(line.split("=", 1)
               for line in read(workdir / f"slurm-{job_id}.out").splitlines() if "=" in line)
    assert env["SLURM_JOB_ID"] == str(job_id)
    assert env["SLURM_JOBID"] == str(job_id)
    assert env["SLURM_JOB_NAME"] == "envjob"
    assert env["SLURM_JOB_PARTITION"] == "cpu-queue"
    assert env["SLURM_JOB_NUM_NODES"] == env["SLURM_NNODES"] == "1"
    assert env["SLURM_CPUS_ON_NODE"] == "1"
    assert env["SLURM_MEM_PER_CPU"] == "100"
    assert env["SLURM_SUBMIT_DIR"] == str(workdir)
    assert env["SLURM_CLUSTER_NAME"] == "anchor"
    assert env["SLURMD_NODENAME"] == env["SLURM_JOB_NODELIST"]
    assert env["SLURM_JOB_NODELIST"] in {"n1", "n2", "n3", "n4"}
    assert "SLURM_UMASK" not in env and not any(k.startswith("SLURM_RLIMIT_") for k in env)


def test_test_only_says_where_and_when_without_creating_a_job(cluster, workdir):
    before = cluster.out("squeue", "-h", "-t", "all")
    r = cluster.run("sbatch", "--test-only", "-p", "gpu-queue", "-N", "2", "--wrap", "true")
    assert r.stdout == ""
    assert re.fullmatch(r"sbatch: Job \d+ to start at \S+ using 2 processors on nodes g\[1-2\] "
                        r"in partition gpu-queue\n", r.stderr), r.stderr
    assert cluster.out("squeue", "-h", "-t", "all") == before


def test_gpu_jobs_get_distinct_gpu_indexes(cluster, workdir):
    a = submit(cluster, "-D", workdir, "-p", "gpu-queue", "-w", "g1", "--gres=gpu:2",
               "--wrap", "echo $CUDA_VISIBLE_DEVICES; sleep 3")
    b = submit(cluster, "-D", workdir, "-p", "gpu-queue", "-w", "g1", "--gres=gpu:2",
               "--wrap", "echo $CUDA_VISIBLE_DEVICES")
    wait_state(cluster, a, "COMPLETED")
    wait_state(cluster, b, "COMPLETED")
    got = {read(workdir / f"slurm-{a}.out").strip(), read(workdir / f"slurm-{b}.out").strip()}
    assert got == {"0,1", "2,3"}


def test_a_job_that_does_not_fit_waits_for_resources_and_the_next_for_priority(cluster, workdir):
    blocker = submit(cluster, "-D", workdir, "-p", "gpu-queue", "-N", "2", "-n", "8",
                     "--wrap", "sleep 60")
    wait_state(cluster, blocker, "RUNNING")
    waits = submit(cluster, "-D", workdir, "-p", "gpu-queue", "--wrap", "true")
    behind = submit(cluster, "-D", workdir, "-p", "gpu-queue", "--wrap", "true")
    wait_for(lambda: job(cluster, waits)["Reason"] == "Resources", what="Resources")
    wait_for(lambda: job(cluster, behind)["Reason"] == "Priority", what="Priority")
    out = cluster.out("squeue", "-j", f"{waits},{behind}", "-o", "%i %t %r")
    assert out == f"JOBID ST REASON\n{waits} PD Resources\n{behind} PD Priority\n"
    cluster.run("scancel", str(blocker))
    wait_state(cluster, blocker, "CANCELLED")
    wait_state(cluster, waits, "COMPLETED")
    wait_state(cluster, behind, "COMPLETED")


def test_scancel_ends_pending_and_running_jobs(cluster, workdir):
    running = submit(cluster, "-D", workdir, "--wrap", "sleep 60")
    held = submit(cluster, "-D", workdir, "-H", "--wrap", "true")
    wait_state(cluster, running, "RUNNING")
    cluster.run("scancel", str(running), str(held))
    assert wait_state(cluster, held, "CANCELLED")["Reason"] == "None"
    wait_state(cluster, running, "CANCELLED")
    out = read(workdir / f"slurm-{running}.out")
    assert re.search(rf"\*\*\* JOB {running} ON n\d CANCELLED AT \S+ \*\*\*", out), out


def test_a_cancelled_scripts_children_get_until_killwait_to_finish(cluster, workdir):
    """The script dies on SIGTERM at once; a child that handles it (srun
    reporting its step's end, a program saving a checkpoint) is not killed
    with the script but given KillWait, as the job's steps are."""
    done, ready = workdir / "saved", workdir / "ready"
    child = (f'trap "sleep 1; echo saved > {done}; exit 0" TERM; touch {ready}; '
             'sleep 100 & wait')
    job_id = submit(cluster, "-D", workdir, "--wrap", f"bash -c '{child}' & wait")
    wait_for(ready.exists, what="the child's trap set")
    cluster.run("scancel", str(job_id))
    wait_state(cluster, job_id, "CANCELLED")
    assert read(done) == "saved\n"


def test_a_held_job_waits_until_released(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "-H", "--wrap", "true")
    rec = job(cluster, job_id)
    assert (rec["JobState"], rec["Reason"], rec["Priority"]) == ("PENDING", "JobHeldUser", "0")
    cluster.run("scontrol", "release", str(job_id))
    wait_state(cluster, job_id, "COMPLETED")


def test_an_unknown_partition_is_refused_with_slurms_words(cluster):
    r = cluster.run("sbatch", "-p", "nosuchpart", "--wrap", "true", check=False)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == ("sbatch: error: invalid partition specified: nosuchpart\n"
                        "sbatch: error: Batch job submission failed: "
                        "Invalid partition name specified\n")


def test_more_memory_than_any_node_has_is_refused(cluster):
    r = cluster.run("sbatch", "--mem=8000", "--wrap", "true", check=False)
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        "Requested node configuration is not available\n")


def test_more_nodes_than_the_partition_has_waits_with_partition_config(cluster, workdir):
    many = submit(cluster, "-D", workdir, "-N", "999", "--wrap", "true")
    too_long = submit(cluster, "-D", workdir, "-t", "2-00:00:00", "--wrap", "true")
    for job_id in (many, too_long):
        wait_for(lambda j=job_id: job(cluster, j)["Reason"] == "PartitionConfig",
                 what="PartitionConfig")
    # and scontrol says why, in words
    text = cluster.out("scontrol", "show", "job", str(many))
    assert ("   Explanation=it asks for 999 nodes but partition cpu-queue has 4, so it can "
            "never start there; lower -N or choose another partition\n") in text
    text = cluster.out("scontrol", "show", "job", str(too_long))
    assert "Explanation=its time limit 2-00:00:00 is over partition cpu-queue's MaxTime" in text
    cluster.run("scancel", str(many), str(too_long))


def test_another_user_cannot_cancel_or_hold_a_job(cluster, workdir, test_user):
    job_id = submit(cluster, "-D", workdir, "-H", "--wrap", "true")
    r = cluster.run("scancel", str(job_id), user=test_user.pw_name, check=False)
    assert r.returncode != 0
    assert "Access/permission denied" in r.stderr
    assert job(cluster, job_id)["JobState"] == "PENDING"
    cluster.run("scancel", str(job_id))


def test_jobs_whose_id_was_printed_survive_kill_9_of_the_controller(cluster, workdir):
    ids = [submit(cluster, "-D", workdir, "-H", "--wrap", "true") for _ in range(20)]
    cluster.kill_slurmctld(signal.SIGKILL)
    cluster.start_slurmctld()
    cluster.wait_ctld_up()
    out = cluster.out("squeue", "-h", "-o", "%i %r")
    seen = {int(line.split()[0]) for line in out.splitlines() if line.endswith("JobHeldUser")}
    assert set(ids) <= seen
    later = submit(cluster, "-D", workdir, "--wrap", "true")
    assert later > max(ids), "a job id was handed out twice"
    cluster.run("scancel", *map(str, ids))


def test_scontrol_requeue_runs_a_finished_job_again(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "--wrap", "echo run")
    wait_state(cluster, job_id, "COMPLETED")
    cluster.run("scontrol", "requeue", str(job_id))
    rec = wait_state(cluster, job_id, "COMPLETED")
    assert rec["Restarts"] == "1"


def test_scontrol_requeuehold_stops_a_running_job_and_holds_it(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "--wrap", "sleep 60")
    wait_state(cluster, job_id, "RUNNING")
    cluster.run("scontrol", "requeuehold", str(job_id))
    wait_for(lambda: job(cluster, job_id)["Reason"] == "JobHeldAdmin", what="held")
    rec = job(cluster, job_id)
    assert (rec["JobState"], rec["Restarts"]) == ("PENDING", "1")
    cluster.run("scancel", str(job_id))


def test_update_lowers_a_time_limit_and_owners_cannot_raise_it(cluster, workdir, test_user):
    job_id = submit(cluster, "-D", workdir, "-H", "-t", "10", "--wrap", "true")
    cluster.run("scontrol", "update", f"jobid={job_id}", "timelimit=3")
    assert job(cluster, job_id)["TimeLimit"] == "00:03:00"
    r = cluster.run("scontrol", "hold", str(job_id), user=test_user.pw_name, check=False)
    assert r.returncode == 1
    assert f"Invalid user id for job {job_id}" in r.stdout + r.stderr
    cluster.run("scancel", str(job_id))


def test_an_array_runs_each_task_with_its_index_and_throttle(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "-a", "1-4%2", "-J", "arr",
                    "--wrap", "echo task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID"
                    " $SLURM_ARRAY_TASK_COUNT $SLURM_ARRAY_TASK_MIN-$SLURM_ARRAY_TASK_MAX; sleep 3")

    def queue():
        return cluster.out("squeue", "-h", "-j", str(job_id), "-o", "%i %t %r").splitlines()

    # two tasks run, the rest wait folded in one line for the %2 throttle
    wait_for(lambda: sum(" R " in line for line in queue()) == 2, what="two tasks running")
    lines = queue()
    assert sum(" R " in line for line in lines) == 2, lines
    assert f"{job_id}_[3-4%2] PD JobArrayTaskLimit" in lines, lines
    wait_for(lambda: all(
        (workdir / f"slurm-{job_id}_{t}.out").exists()
        and (workdir / f"slurm-{job_id}_{t}.out").read_text() == f"task {t} of {job_id} 4 1-4\n"
        for t in range(1, 5)), timeout=30, what="every task's output")
    wait_for(lambda: queue() == [], timeout=20, what="the array finished")


def test_scancel_of_one_pending_task_and_of_the_whole_array(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "-a", "0-9", "-H", "--wrap", "true")
    cluster.run("scancel", f"{job_id}_3")
    rec = job(cluster, job_id)
    assert rec["ArrayTaskId"] == "0-2,4-9", rec
    cluster.run("scancel", str(job_id))
    wait_state(cluster, job_id, "CANCELLED")


def test_afterok_waits_for_success_and_never_runs_after_a_failure(cluster, workdir):
    # the first job is held until the dependent one was seen waiting on it
    first = submit(cluster, "-D", workdir, "-H", "--wrap", "true")
    fails = submit(cluster, "-D", workdir, "--wrap", "exit 1")
    after_ok = submit(cluster, "-D", workdir, "-d", f"afterok:{first}", "--wrap", "true")
    never = submit(cluster, "-D", workdir, "-d", f"afterok:{fails}", "--wrap", "true")
    rec = job(cluster, after_ok)
    assert rec["JobState"] == "PENDING"
    assert rec["Dependency"] == f"afterok:{first}(unfulfilled)"
    wait_for(lambda: job(cluster, after_ok)["Reason"] == "Dependency", what="Dependency")
    cluster.run("scontrol", "release", str(first))
    wait_state(cluster, after_ok, "COMPLETED")
    wait_for(lambda: job(cluster, never)["Reason"] == "DependencyNeverSatisfied",
             what="DependencyNeverSatisfied")
    cluster.run("scancel", str(never))


def test_a_malformed_dependency_is_refused(cluster):
    r = cluster.run("sbatch", "-d", "afterok:abc", "--wrap", "true", check=False)
    assert r.returncode == 1
    assert r.stderr.endswith("sbatch: error: Batch job submission failed: "
                             "Job dependency problem\n"), r.stderr


def test_signal_option_warns_the_job_before_its_time_limit(cluster, workdir):
    # -t 1 with --signal=USR1@50: the signal comes 10 s after the start
    job_id = submit(cluster, "-D", workdir, "-t", "1", "--signal=B:USR1@50", "--wrap",
                    "trap 'echo got USR1; exit 0' USR1; sleep 100 & wait")
    rec = wait_state(cluster, job_id, "COMPLETED", timeout=40)
    assert read(workdir / f"slurm-{job_id}.out") == "got USR1\n"
    assert rec["ExitCode"] == "0:0"


def test_nice_lowers_the_priority(cluster, workdir):
    plain = submit(cluster, "-D", workdir, "-H", "--wrap", "true")
    nice = submit(cluster, "-D", workdir, "-H", "--nice=100", "--wrap", "true")
    cluster.run("scontrol", "release", str(plain), str(nice))
    p_plain, p_nice = (int(job(cluster, j)["Priority"]) for j in (plain, nice))
    assert job(cluster, nice)["Nice"] == "100"
    assert p_plain - p_nice >= 100
    cluster.run("scancel", str(plain), str(nice))


def test_squeue_j_and_scontrol_show_job_pick_one_job_or_array_task(cluster, workdir):
    """squeue -j and scontrol show job ask the controller for those jobs
    only (an array's id brings its tasks); what they print is the same as
    filtering the whole list."""
    other = submit(cluster, "-H", "-D", workdir, "--wrap", "true")
    arr = submit(cluster, "-H", "-D", workdir, "-a", "1-3", "--wrap", "true")
    try:
        assert cluster.out("squeue", "-h", "-j", str(other), "-o", "%i").split() == [str(other)]
        assert cluster.out("squeue", "-h", "-j", str(arr), "-o", "%i").split() == [f"{arr}_[1-3]"]
        both = cluster.out("squeue", "-h", "-j", f"{other},{arr}", "-o", "%i").split()
        assert sorted(both) == sorted([str(other), f"{arr}_[1-3]"])
        shown = cluster.out("scontrol", "show", "job", str(other))
        assert f"JobId={other} " in shown and f"JobId={arr}" not in shown
        r = cluster.run("scontrol", "show", "job", str(arr + 100), check=False)
        assert r.returncode == 1 and "Invalid job id specified" in r.stderr
        r = cluster.run("squeue", "-j", str(arr + 100), check=False)
        assert r.returncode == 1 and "Invalid job id specified" in r.stderr
    finally:
        cluster.run("scancel", str(other), str(arr), check=False)


def test_a_running_job_requeued_again_and_again_runs_each_time(cluster, workdir):
    """The controller relaunches a requeued job as soon as its node reports
    the end of the previous run, on the same node here, while that run's
    stepd may still wait for its completion's (fsynced) reply: the new run
    must start, not fail as a duplicate step (Job step already exists).
    The race needs a slow disk to show; this checks the path each time."""
    job_id = submit(cluster, "-D", workdir, "-o", "/dev/null", "-w", "n1", "--wrap", "sleep 60")
    try:
        wait_state(cluster, job_id, "RUNNING")
        for restarts in range(1, 6):
            cluster.run("scontrol", "requeue", str(job_id))
            wait_for(lambda: job(cluster, job_id)["Restarts"] == str(restarts)
                     and job(cluster, job_id)["JobState"] in ("RUNNING", "FAILED"),
                     what=f"run {restarts + 1}")
            rec = job(cluster, job_id)
            assert rec["JobState"] == "RUNNING", rec
            assert rec["NodeList"] == "n1"
    finally:
        cluster.run("scancel", str(job_id), check=False)


@pytest.fixture
def user_dir(tmp_path_factory):
    """A directory every user can reach and write (under /tmp itself: the
    test user cannot walk through pytest's 0700 base directory)."""
    import shutil
    import tempfile
    d = tempfile.mkdtemp(prefix="sl-outdirs-", dir="/tmp")
    os.chmod(d, 0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_missing_output_directories_are_created_as_the_user(cluster, user_dir, test_user):
    """A client may create the -o directory right after sbatch returns, and
    our jobs start at once: the stepd makes the missing directories, as the
    job's user, instead of failing the job (Slurm fails it)."""
    out = os.path.join(user_dir, "logs", "run1", "out-%j.txt")
    err = os.path.join(user_dir, "errs", "err-%j.txt")
    job_id = submit(cluster, "-D", user_dir, "-o", out, "-e", err,
                    "--wrap", "echo to-out; echo to-err >&2", user=test_user.pw_name)
    wait_state(cluster, job_id, "COMPLETED")
    with open(out.replace("%j", str(job_id))) as f:
        assert f.read() == "to-out\n"
    with open(err.replace("%j", str(job_id))) as f:
        assert f.read() == "to-err\n"
    for d in ("logs", "logs/run1", "errs"):
        st = os.stat(os.path.join(user_dir, d))
        assert (st.st_uid, st.st_gid) == (test_user.pw_uid, test_user.pw_gid), d


def test_an_output_directory_the_user_may_not_make_fails_the_job(cluster, user_dir, test_user):
    """The directories are made with the user's rights only: where the user
    may not write, nothing is created (not as root either) and the job
    fails its launch."""
    closed = os.path.join(user_dir, "closed")
    os.mkdir(closed, 0o755)  # root's, not writable by the test user
    out = os.path.join(closed, "sub", "out-%j.txt")
    job_id = submit(cluster, "-D", user_dir, "-o", out, "--wrap", "echo never",
                    user=test_user.pw_name)
    rec = wait_state(cluster, job_id, ("FAILED", "COMPLETED"))
    assert (rec["JobState"], rec["Reason"]) == ("FAILED", "JobLaunchFailure")
    assert not os.path.exists(os.path.join(closed, "sub"))
