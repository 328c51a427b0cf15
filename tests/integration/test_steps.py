"""srun, salloc and job steps on a cluster configured like the reference
(n1-n4 with 4 cpus in cpu-queue, g1-g2 with 4 GPUs in gpu-queue, KillWait=2):
srun creates a job and its step 0, or a numbered step inside an allocation;
task output streams back live (labelled with -l), stdin reaches the tasks,
exit codes and signals are reported as Slurm does; salloc runs a command on
an allocation and gives it back; steps can be listed and cancelled.
"""

import os
import re
import signal
import time

import pytest

from cluster import REFERENCE_DIR, Cluster, wait_for, submit, job, wait_state, parse_record

make_cluster = Cluster.like_reference


@pytest.fixture
def workdir(cluster, tmp_path_factory):
    d = tmp_path_factory.mktemp("steps")
    os.chmod(d, 0o777)
    return d


@pytest.fixture(scope="module", autouse=True)
def timeout_jobs(cluster, tmp_path_factory):
    """One-minute jobs whose steps would sleep 300 s (a salloc and a batch
    job, on gpu-queue so that cpu-queue stays free for the other tests),
    started first so that the minute passes while the other tests run."""
    d = tmp_path_factory.mktemp("timeout")
    os.chmod(d, 0o777)
    p = cluster.popen("salloc", "-p", "gpu-queue", "-t1", "-N1", "-J", "to_salloc",
                      "srun", "-l", "sleep", "300")
    job_id = submit(cluster, "-D", d, "-p", "gpu-queue", "-t1", "-J", "to_batch",
                    "-o", "to.out", "--wrap", "srun sleep 300")
    return p, job_id, d / "to.out"


def read(path, timeout=10):
    wait_for(lambda: path.exists(), timeout=timeout, what=f"{path} exists")
    return path.read_text()


def reference_env_names(name):
    """SLURM_* variable names of one task in a reference env dump."""
    text = (REFERENCE_DIR / name).read_text().split("--- stdout\n", 1)[1].split("--- stderr")[0]
    return {line.split(": ", 1)[1].split("=", 1)[0] for line in text.splitlines()
            if line.startswith("0: SLURM")}


def labelled(stdout):
    """{task: [lines]} from -l output."""
    tasks = {}
    for line in stdout.splitlines():
        m = re.fullmatch(r"\s*(\d+): (.*)", line)
        assert m, f"unlabelled line {line!r}"
        tasks.setdefault(int(m.group(1)), []).append(m.group(2))
    return tasks


def all_idle(cluster, nodes=("n1", "n2", "n3", "n4")):
    states = cluster.node_states()
    return all(states[n] == "idle" for n in nodes)


# ----- srun on its own --------------------------------------------------------


def test_srun_label_hostname_runs_every_task(cluster):
    r = cluster.run("srun", "-n4", "-l", "hostname")
    host = os.uname().nodename.split(".")[0]
    assert sorted(r.stdout.splitlines()) == [f"{i}: {host}" for i in range(4)]
    assert r.returncode == 0


def test_srun_task_environment_per_rank(cluster):
    r = cluster.run("srun", "-N2", "-n4", "-l", "printenv", "SLURMD_NODENAME", "SLURM_PROCID",
                    "SLURM_LOCALID", "SLURM_NODEID")
    tasks = labelled(r.stdout)
    assert sorted(tasks) == [0, 1, 2, 3]
    nodes = {}
    for rank, (node, procid, localid, nodeid) in tasks.items():
        assert int(procid) == rank
        nodes.setdefault(node, []).append((rank, int(localid), int(nodeid)))
    assert len(nodes) == 2
    # block layout: each node holds consecutive ranks, local ids count from 0
    for node_id, node in enumerate(sorted(nodes, key=lambda n: min(nodes[n]))):
        ranks = sorted(nodes[node])
        assert [r[1] for r in ranks] == list(range(len(ranks)))
        assert {r[2] for r in ranks} == {node_id}
        assert [r[0] for r in ranks] == list(range(ranks[0][0], ranks[0][0] + len(ranks)))


def test_each_task_gets_its_own_pid_and_rank_in_its_environment(cluster, workdir):
    """The stepd makes each task's variables before it vforks the task,
    and the task writes its own pid in: SLURM_TASK_PID is the task's pid
    ($$ of the shell that is the task), for every rank of a step and for
    a batch script, and no rank's variables leak into another's."""
    r = cluster.run("srun", "-n4", "-l", "sh", "-c",
                    'echo "$SLURM_PROCID $SLURM_LOCALID $SLURM_TASK_PID $$"')
    tasks = labelled(r.stdout)
    assert sorted(tasks) == [0, 1, 2, 3]
    pids = set()
    for rank, (line,) in tasks.items():
        procid, localid, task_pid, pid = line.split()
        assert (int(procid), task_pid) == (rank, pid), line
        pids.add(pid)
    assert len(pids) == 4
    job_id = submit(cluster, "-D", workdir, "-o", "pid.out", "--wrap",
                    'echo "$SLURM_TASK_PID $$"')
    wait_state(cluster, job_id, "COMPLETED")
    task_pid, pid = (workdir / "pid.out").read_text().split()
    assert task_pid == pid


def test_srun_task_environment_matches_the_reference(cluster):
    r = cluster.run("srun", "-n4", "-l", "bash", "-c", "env | grep -E '^SLURM' | sort")
    tasks = labelled(r.stdout)
    assert sorted(tasks) == [0, 1, 2, 3]
    for rank, lines in tasks.items():
        env = dict(line.split("=", 1) for line in lines)
        assert set(env) == reference_env_names("srun_n4_l_env.txt"), rank
        assert env["SLURM_PROCID"] == str(rank)
        assert env["SLURM_STEP_ID"] == env["SLURM_STEPID"] == "0"
        assert env["SLURM_NTASKS"] == env["SLURM_STEP_NUM_TASKS"] == "4"
        assert env["SLURM_JOB_NAME"] == "bash"
        assert env["SLURM_LABELIO"] == "1"
        assert env["SLURM_GTIDS"].split(",")[int(env["SLURM_LOCALID"])] == str(rank)


def test_srun_step_gets_its_gpus(cluster):
    r = cluster.run("srun", "-p", "gpu-queue", "--gres=gpu:2", "-l", "printenv",
                    "CUDA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "SLURM_GPUS_ON_NODE")
    assert labelled(r.stdout) == {0: ["0,1", "0,1", "2"]}


def test_srun_output_patterns_per_task(cluster, workdir):
    r = cluster.run("srun", "-n2", "-D", workdir, "-o", "out-%j-%t.txt", "-e", "err-%t.txt",
                    "bash", "-c", "echo out $SLURM_PROCID; echo err $SLURM_PROCID >&2")
    assert r.stdout == "" and r.stderr == ""
    outs = sorted(workdir.glob("out-*-*.txt"))
    assert [p.read_text() for p in outs] == ["out 0\n", "out 1\n"]
    job_id = outs[0].name.split("-")[1]
    assert outs[0].name == f"out-{job_id}-0.txt"
    assert (workdir / "err-1.txt").read_text() == "err 1\n"


def test_srun_stdin_reaches_the_tasks(cluster):
    r = cluster.run("srun", "-n2", "-l", "cat", input="hello\n")
    assert labelled(r.stdout) == {0: ["hello"], 1: ["hello"]}
    r = cluster.run("srun", "-n2", "-l", "--input=0", "cat", input="only zero\n")
    assert labelled(r.stdout) == {0: ["only zero"]}


def test_srun_exit_code_and_error_line_of_a_failing_task(cluster):
    r = cluster.run("srun", "-n4", "bash", "-c", "exit $((SLURM_PROCID == 2 ? 3 : 0))",
                    check=False)
    assert r.returncode == 3
    assert re.search(r"^srun: error: n\d: task 2: Exited with exit code 3$", r.stderr, re.M), \
        r.stderr
    assert "task 0" not in r.stderr


def test_srun_reports_a_task_killed_by_a_signal(cluster):
    r = cluster.run("srun", "-n1", "bash", "-c", "kill -9 $$", check=False)
    assert r.returncode != 0
    assert re.search(r"^srun: error: n\d: task 0: Killed$", r.stderr, re.M), r.stderr


def test_srun_large_output_of_four_tasks_arrives_complete(cluster):
    size = 10 * 1024 * 1024
    r = cluster.run("srun", "-n4", "-l", "bash", "-c",
                    f"yes $SLURM_PROCID | head -c {size}", timeout=120)
    assert r.returncode == 0, r.stderr
    # every line is "N: N" (each task's lines under its own label), all there
    lines = size // 2
    assert [r.stdout.count(f"{i}: {i}\n") for i in range(4)] == [lines] * 4
    assert len(r.stdout) == 4 * lines * len("0: 0\n")


def test_srun_bad_partition_matches_the_reference(cluster):
    r = cluster.run("srun", "-p", "nosuchpart", "true", check=False)
    assert r.returncode == 1
    assert r.stderr == ("srun: error: invalid partition specified: nosuchpart\n"
                        "srun: error: Unable to allocate resources: Invalid partition name "
                        "specified\n")


def test_srun_job_ends_completed_and_frees_its_nodes(cluster):
    r = cluster.run("srun", "-N2", "-J", "twonodes", "true")
    assert r.returncode == 0
    wait_for(lambda: all_idle(cluster), timeout=10, what="nodes idle")
    out = cluster.out("squeue", "-h", "-t", "all", "-n", "twonodes", "-o", "%i %T")
    assert out.split()[1] == "COMPLETED"


def test_ctrl_c_twice_forwards_sigint_to_the_tasks(cluster, workdir):
    mark = workdir / "ready"
    p = cluster.popen("srun", "-n1", "bash", "-c",
                      f"trap 'echo got INT; exit 7' INT; touch {mark}; "
                      "while :; do sleep 0.1; done")
    wait_for(lambda: mark.exists(), timeout=20, what="task started")
    p.send_signal(signal.SIGINT)
    time.sleep(0.2)  # the second Ctrl-C must come within one second of the first
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert "got INT" in out
    assert "srun: interrupt (one more within 1 sec to abort)" in err
    # the trap's exit code, unless the termination that follows won the race
    assert p.returncode in (7, 128 + signal.SIGTERM, 128 + signal.SIGKILL), err


def test_ctrl_c_with_disable_status_forwards_at_once(cluster, workdir):
    mark = workdir / "ready-x"
    p = cluster.popen("srun", "-X", "-n1", "bash", "-c",
                      f"trap 'echo got INT; exit 5' INT; touch {mark}; "
                      "while :; do sleep 0.1; done")
    wait_for(lambda: mark.exists(), timeout=20, what="task started")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert "got INT" in out
    assert p.returncode == 5


def test_killing_srun_frees_its_allocation(cluster, workdir):
    mark = workdir / "ready-kill"
    p = cluster.popen("srun", "-N4", "-J", "killme", "bash", "-c",
                      f"touch {mark}; sleep 300")
    wait_for(lambda: mark.exists(), timeout=20, what="task started")
    job_id = cluster.out("squeue", "-h", "-n", "killme", "-o", "%i").strip()
    assert len(step_sockets(cluster, job_id)) == 4
    p.kill()
    p.communicate()
    wait_for(lambda: not step_sockets(cluster, job_id), timeout=30, what="its stepds gone")
    wait_for(lambda: all_idle(cluster), timeout=30, what="nodes idle")


def step_sockets(cluster, job_id):
    """The control sockets of the job's stepds, in every node's spool dir."""
    return list(cluster.dir.glob(f"spool/*/*_{job_id}.*"))


# ----- steps inside allocations ------------------------------------------------


def test_srun_in_a_batch_script_creates_numbered_steps(cluster, workdir):
    script = workdir / "steps.sh"
    script.write_text("#!/bin/bash\n"
                      "srun printenv SLURM_STEP_ID\n"
                      "srun printenv SLURM_STEP_ID\n"
                      "srun -N2 -n4 -l printenv SLURM_JOB_ID | sort\n")
    job_id = submit(cluster, "-D", workdir, "-N2", "-n4", "-o", "steps.out", script)
    wait_state(cluster, job_id, "COMPLETED", timeout=60)
    lines = read(workdir / "steps.out").splitlines()
    # without -n, srun inside the job runs the job's 4 tasks
    assert lines[:8] == ["0"] * 4 + ["1"] * 4
    assert lines[8:] == [f"{i}: {job_id}" for i in range(4)]


def test_srun_in_a_batch_script_uses_the_jobs_layout(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "-N2", "-n4", "-o", "layout.out", "--wrap",
                    "srun -l bash -c 'echo $SLURMD_NODENAME $SLURM_GTIDS'")
    wait_state(cluster, job_id, "COMPLETED", timeout=60)
    tasks = labelled(read(workdir / "layout.out"))
    assert sorted(tasks) == [0, 1, 2, 3]
    by_node = {}
    for rank, [line] in tasks.items():
        node, gtids = line.split()
        by_node.setdefault(node, set()).add(rank)
        assert str(rank) in gtids.split(",")
    assert len(by_node) == 2
    # each node's SLURM_GTIDS lists exactly the ranks it runs
    for ranks in by_node.values():
        assert all(tasks[r][0].split()[1] == ",".join(map(str, sorted(ranks))) for r in ranks)


def test_steps_are_listed_and_one_can_be_cancelled(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "-n2", "-o", "cancel.out", "--wrap",
                    "srun -n1 --overlap sleep 300; echo after $?")
    wait_for(lambda: f"{job_id}.0" in cluster.out("squeue", "-s", "-h", "-o", "%i"),
             timeout=30, what="step 0 listed")
    out = cluster.out("squeue", "-s", "-j", str(job_id))
    header, *rows = out.splitlines()
    assert header.split() == ["STEPID", "NAME", "PARTITION", "USER", "TIME", "NODELIST"]
    assert any(row.split()[:2] == [f"{job_id}.0", "sleep"] for row in rows), out
    rec = parse_record(cluster.out("scontrol", "show", "step", f"{job_id}.0"))
    assert rec["StepId"] == f"{job_id}.0"
    assert rec["State"] == "RUNNING"
    assert rec["Tasks"] == "1"
    cluster.run("scancel", f"{job_id}.0")
    wait_state(cluster, job_id, ("COMPLETED", "FAILED"), timeout=30)
    out = read(workdir / "cancel.out")
    assert re.search(rf"\*\*\* STEP {job_id}\.0 ON n\d CANCELLED AT ", out), out
    assert "after " in out


def test_a_killed_srun_frees_its_step_inside_an_allocation(cluster, workdir):
    # one cpu: the second srun can only start once the first step is gone
    job_id = submit(cluster, "-D", workdir, "-n1", "-o", "freed.out", "--wrap",
                    "srun sleep 300 & pid=$!; "
                    "until squeue -s -h -j $SLURM_JOB_ID -o %i | grep -q '\\.0$'; do sleep 0.1; done; "
                    "kill -9 $pid; srun echo second step ran")
    wait_state(cluster, job_id, "COMPLETED", timeout=60)
    assert "second step ran" in read(workdir / "freed.out")


# ----- salloc -----------------------------------------------------------------


def test_salloc_runs_the_command_and_releases_the_nodes(cluster):
    r = cluster.run("salloc", "-N1", "true")
    m = re.fullmatch(r"salloc: Granted job allocation (\d+)\n"
                     r"salloc: Relinquishing job allocation \1\n", r.stderr)
    assert m, r.stderr
    assert r.returncode == 0
    assert job(cluster, m.group(1))["JobState"] == "COMPLETED"
    assert all_idle(cluster)


def test_salloc_environment_matches_the_reference(cluster):
    r = cluster.run("salloc", "-N1", "-n2", "bash", "-c", "env | grep -E '^SLURM' | sort")
    env = dict(line.split("=", 1) for line in r.stdout.splitlines())
    text = (REFERENCE_DIR / "salloc_env.txt").read_text()
    ref = dict(line.split("=", 1) for line in
               text.split("--- stdout\n", 1)[1].split("--- stderr")[0].splitlines())
    assert set(env) == set(ref)
    assert env["SLURM_JOB_ACCOUNT"] == "root" and env["SLURM_JOB_QOS"] == "normal"
    for key in ("SLURM_JOB_NAME", "SLURM_JOB_NUM_NODES", "SLURM_NTASKS", "SLURM_NPROCS",
                "SLURM_TASKS_PER_NODE", "SLURM_JOB_CPUS_PER_NODE", "SLURM_NODE_ALIASES",
                "SLURM_JOB_PARTITION", "SLURM_CLUSTER_NAME"):
        assert env[key] == ref[key], key


def test_salloc_exit_code_is_the_commands(cluster):
    r = cluster.run("salloc", "-N1", "bash", "-c", "exit 4", check=False)
    assert r.returncode == 4
    job_id = re.search(r"Granted job allocation (\d+)", r.stderr).group(1)
    rec = job(cluster, job_id)
    assert rec["JobState"] == "FAILED"
    assert rec["ExitCode"] == "4:0"


def test_srun_inside_salloc_creates_steps(cluster):
    r = cluster.run("salloc", "-N2", "-n2", "bash", "-c",
                    "srun -l printenv SLURM_STEP_ID SLURM_JOB_ID | sort; "
                    "srun -n1 printenv SLURM_STEP_ID")
    job_id = re.search(r"Granted job allocation (\d+)", r.stderr).group(1)
    assert r.stdout.splitlines() == ["0: 0", f"0: {job_id}", "1: 0", f"1: {job_id}", "1"]


def test_scancel_revokes_a_salloc(cluster, workdir):
    mark = workdir / "salloc-ready"
    p = cluster.popen("salloc", "-N1", "-J", "revokeme", "bash", "-c",
                      f"touch {mark}; sleep 300")
    wait_for(lambda: mark.exists(), timeout=20, what="salloc command started")
    job_id = cluster.out("squeue", "-h", "-n", "revokeme", "-o", "%i").strip()
    cluster.run("scancel", job_id)
    out, err = p.communicate(timeout=30)
    assert f"salloc: Job allocation {job_id} has been revoked." in err
    assert job(cluster, job_id)["JobState"] == "CANCELLED"
    wait_for(lambda: all_idle(cluster), timeout=15, what="nodes idle")


def test_killed_salloc_frees_its_nodes(cluster, workdir):
    mark = workdir / "salloc-kill"
    p = cluster.popen("salloc", "-N2", "bash", "-c", f"echo $$ > {mark}; exec sleep 300")
    wait_for(lambda: mark.exists() and mark.read_text().strip(), timeout=20,
             what="salloc command started")
    p.kill()  # salloc only: its command lives on, as with Slurm
    try:
        wait_for(lambda: all_idle(cluster), timeout=30, what="nodes idle")
    finally:
        os.kill(int(mark.read_text()), signal.SIGKILL)
        p.communicate(timeout=30)


# ----- users ------------------------------------------------------------------


def test_srun_tasks_run_as_the_user(cluster, workdir, test_user):
    r = cluster.run("srun", "-n2", "-l", "-D", workdir, "id", "-u", user=test_user.pw_name)
    assert labelled(r.stdout) == {0: [str(test_user.pw_uid)], 1: [str(test_user.pw_uid)]}


def test_another_user_cannot_start_a_step_in_my_job(cluster, workdir, test_user):
    mark = workdir / "owner-ready"
    p = cluster.popen("salloc", "-N1", "-J", "mine", "bash", "-c",
                      f"echo $$ > {mark}; exec sleep 300")
    try:
        wait_for(lambda: mark.exists() and mark.read_text().strip(), timeout=20,
                 what="salloc command started")
        job_id = cluster.out("squeue", "-h", "-n", "mine", "-o", "%i").strip()
        r = cluster.run("srun", f"--jobid={job_id}", "true", user=test_user.pw_name,
                        check=False)
        assert r.returncode == 1
        assert r.stderr == (f"srun: error: Unable to create step for job {job_id}: "
                            "Access/permission denied\n")
        r = cluster.run("scancel", f"{job_id}.0", user=test_user.pw_name, check=False)
        assert r.returncode != 0
        assert "Access/permission denied" in r.stderr
    finally:
        if mark.exists() and mark.read_text().strip():
            os.kill(int(mark.read_text()), signal.SIGKILL)  # salloc then relinquishes
        p.communicate(timeout=30)
    wait_for(lambda: all_idle(cluster), timeout=30, what="nodes idle")


# ----- time limit (last: its jobs were started when the module started) -------


@pytest.mark.slow
def test_steps_are_killed_with_their_job_at_its_time_limit(cluster, timeout_jobs):
    p, batch_id, out = timeout_jobs
    _, err = p.communicate(timeout=100)
    salloc_id = re.search(r"Granted job allocation (\d+)", err).group(1)
    assert (f"salloc: Job {salloc_id} has exceeded its time limit and its allocation has "
            "been revoked.") in err, err
    assert job(cluster, salloc_id)["JobState"] == "TIMEOUT"
    rec = wait_state(cluster, batch_id, {"TIMEOUT", "COMPLETED", "FAILED", "CANCELLED"},
                     timeout=30)
    assert rec["JobState"] == "TIMEOUT"
    text = read(out)
    assert re.search(rf"^slurmstepd: error: \*\*\* STEP {batch_id}\.0 ON g\d CANCELLED AT "
                     r"\S+ DUE TO TIME LIMIT \*\*\*$", text, re.M), text
    assert "srun: Job step aborted" in text
    wait_for(lambda: not cluster.stepd_pids(), timeout=30, what="every stepd gone")


def test_cpu_bind_without_task_affinity_says_so_and_runs(cluster):
    # the reference config has TaskPlugin=task/none
    r = cluster.run("srun", "-n1", "--cpu-bind=cores", "true")
    assert r.stderr == "srun: cluster configuration lacks support for cpu binding\n"
