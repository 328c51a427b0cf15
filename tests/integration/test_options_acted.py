"""Options that change how a job runs, acted on (they were once parsed and
dropped):

* --ntasks-per-socket places at most N tasks on each socket of a node and
  reaches the job's steps (SLURM_NTASKS_PER_SOCKET), as --hint does
  (SLURM_HINT);
* sbatch --export-file adds its NUL-separated definitions; --export=NONE
  and --get-user-env give the script the user's login environment;
* salloc/srun -I give up when not granted in time; salloc -K picks the
  signal its command gets when the allocation is revoked;
* srun -r starts a step at node N of the allocation, -E takes the node and
  task counts of the environment over -N and -n, --multi-prog runs each
  task the program its configuration file names.

n1, n2: 1 socket x 4 cores; n3: 2 sockets x 2 cores.
"""

import os
import re

from cluster import cancel_and_wait, job, submit, wait_for, wait_state

CLUSTER_KWARGS = dict(
    nodes=("n1", "n2", "n3 SocketsPerBoard=2 CoresPerSocket=2"),
)


def output_of(cluster, tmp_path, *args, script):
    out = tmp_path / "job.out"
    j = submit(cluster, "-o", str(out), *args, "--wrap", script)
    rec = wait_state(cluster, j, {"COMPLETED", "FAILED"})
    assert rec["JobState"] == "COMPLETED", rec
    return j, out.read_text()


def test_ntasks_per_socket_places_and_reaches_the_steps(cluster, tmp_path):
    # two tasks on one node, one per socket: only n3 has two sockets
    j, text = output_of(cluster, tmp_path, "-N1", "-n2", "--ntasks-per-socket=1",
                        script="printenv SLURM_NTASKS_PER_SOCKET")
    assert job(cluster, j)["NodeList"] == "n3"
    assert text == "1\n"
    r = cluster.run("sbatch", "-N1", "-n3", "--ntasks-per-socket=1", "--wrap", "true",
                    check=False)
    assert r.returncode == 1
    assert "Requested node configuration is not available" in r.stderr


def test_hint_reaches_the_steps_and_is_checked(cluster, tmp_path):
    _, text = output_of(cluster, tmp_path, "--hint=nomultithread", script="printenv SLURM_HINT")
    assert text == "nomultithread\n"
    r = cluster.run("sbatch", "--hint=fast", "--wrap", "true", check=False)
    assert r.returncode == 1
    assert 'unrecognized --hint argument "fast"' in r.stderr


def test_export_file_adds_its_definitions(cluster, tmp_path):
    defs = tmp_path / "env.defs"
    defs.write_bytes(b"EXPORTED_ONE=a b c\0EXPORTED_TWO=line1\nline2\0")
    _, text = output_of(cluster, tmp_path, f"--export-file={defs}",
                        script='echo "[$EXPORTED_ONE]"; echo "[$EXPORTED_TWO]"')
    assert text == "[a b c]\n[line1\nline2]\n"
    r = cluster.run("sbatch", f"--export-file={tmp_path}/none", "--wrap", "true", check=False)
    assert r.returncode == 1
    assert r.stderr.startswith(f"sbatch: error: --export-file: {tmp_path}/none: ")


def test_export_none_and_get_user_env_load_the_login_environment(cluster, tmp_path):
    # root's login shell sets PATH (/etc/profile) and HOME; the script of an
    # --export=NONE job gets them, its own SLURM_* winning
    script = "/usr/bin/env"
    for args in (("--export=NONE",), ("--get-user-env", "--export=ALL")):
        _, text = output_of(cluster, tmp_path, *args, script=script)
        env = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
        assert env.get("HOME") == "/root", (args, text)
        assert "/usr/sbin" in env.get("PATH", ""), (args, text)
        assert env.get("SLURM_JOB_ID"), (args, text)


def fill_cluster(cluster, cancel_after):
    j = submit(cluster, "-N3", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    cancel_after.append(j)
    wait_state(cluster, j, "RUNNING")


def test_immediate_gives_up_when_nothing_is_free(cluster, cancel_after):
    fill_cluster(cluster, cancel_after)
    for cmd in ("salloc", "srun"):
        r = cluster.run(cmd, "-I", "-N1", "true", check=False, timeout=30)
        assert r.returncode == 1, (cmd, r.stderr)
        assert r.stderr.endswith(
            f"{cmd}: error: Unable to allocate resources: Requested nodes are busy\n"), r.stderr
    # what they asked for is given back, nothing waits
    wait_for(lambda: cluster.out("squeue", "-h", "-t", "PD") == "", what="no pending job")
    r = cluster.run("salloc", "--immediate=x", "true", check=False)
    assert (r.returncode, r.stderr) == (1, 'salloc: error: Invalid numeric value "x" for '
                                           'immediate.\n')
    cancel_and_wait(cluster, cancel_after)
    cancel_after.clear()
    r = cluster.run("salloc", "-I", "-N1", "true", check=False, timeout=30)
    assert r.returncode == 0, r.stderr


def test_immediate_bounds_a_step_that_cannot_start(cluster, tmp_path):
    # inside a one-cpu allocation a second step has to wait for the first:
    # with -I it gives up instead
    srun, squeue = str(cluster.bin_dir / "srun"), str(cluster.bin_dir / "squeue")
    script = tmp_path / "steps.sh"
    script.write_text(f"""#!/bin/bash
{srun} -n1 sleep 60 &
until {squeue} -h -s -j $SLURM_JOB_ID -o %i | grep -q '\\.0$'; do sleep 0.1; done
{srun} -n1 -I true
echo "second rc=$?"
kill %1
""")
    script.chmod(0o755)
    r = cluster.run("salloc", "-Q", "-w", "n1", "-n1", str(script), timeout=60)
    assert "second rc=1" in r.stdout, (r.stdout, r.stderr)
    assert "Unable to create step for job" in r.stderr, r.stderr


def test_salloc_kill_command_signals_the_command_on_revocation(cluster):
    p = cluster.popen("salloc", "-N1", "--kill-command=USR1", "bash", "-c",
                      'trap "echo got-usr1; exit 0" USR1; echo ready; sleep 300 & wait')
    try:
        line = wait_for(lambda: re.search(r"Granted job allocation (\d+)", p.stderr.readline()),
                        timeout=20, what="the allocation")
        # the command's trap is set once it says so
        wait_for(lambda: p.stdout.readline() == "ready\n", timeout=20, what="the trap")
        cluster.run("scancel", line.group(1))
        out, err = p.communicate(timeout=30)
        assert out == "got-usr1\n", (out, err)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    r = cluster.run("salloc", "--kill-command=NOSUCH", "true", check=False)
    assert (r.returncode, r.stderr) == (255, "salloc: error: Invalid --kill-command "
                                             "specification\n")


def test_srun_relative_starts_the_step_at_node_n(cluster):
    srun = str(cluster.bin_dir / "srun")
    out = cluster.out("salloc", "-N3", "-Q", srun, "-r", "1", "-N1", "printenv",
                      "SLURMD_NODENAME")
    assert out == "n2\n"
    r = cluster.run("salloc", "-N2", "-Q", srun, "-r", "1", "-N2", "printenv",
                    "SLURMD_NODENAME", check=False)
    assert r.stdout == "n2\n", r.stdout
    assert "srun: warning: --relative and --nodes option incompatible, count reset to 1" \
        in r.stderr
    r = cluster.run("srun", "-r", "1", "true", check=False)
    assert r.returncode == 1
    assert "--relative option invalid outside of a job allocation" in r.stderr


def test_srun_preserve_env_takes_the_counts_of_the_environment(cluster):
    srun = str(cluster.bin_dir / "srun")
    out = cluster.out("salloc", "-N2", "-n2", "-Q", srun, "-N1", "-n1", "printenv",
                      "SLURM_NTASKS")
    assert out == "1\n"
    out = cluster.out("salloc", "-N2", "-n2", "-Q", srun, "-E", "-N1", "-n1", "printenv",
                      "SLURM_NTASKS")
    assert out == "2\n2\n"


def test_srun_multi_prog_runs_each_task_its_line(cluster, tmp_path):
    conf = tmp_path / "silly.conf"
    conf.write_text("###########\n"
                    "# srun -n8 -l --multi-prog silly.conf\n"
                    "4-6       printenv SLURM_PROCID\n"
                    "1,7       echo  task:%t\n"
                    "0,2-3     echo  offset:%o 'literal:%t'\n")
    os.chmod(tmp_path, 0o755)
    out = cluster.out("srun", "-n8", "-l", "--multi-prog", str(conf))
    lines = sorted(out.splitlines(), key=lambda s: int(s.split(":")[0]))
    assert lines == ["0: offset:0 literal:%t", "1: task:1", "2: offset:1 literal:%t",
                     "3: offset:2 literal:%t", "4: 4", "5: 5", "6: 6", "7: task:7"], out
    # without -n the file's ranks give the task count; extra arguments are appended
    # (printenv then names a variable that is not set: its tasks exit 1)
    r = cluster.run("srun", "-l", "--multi-prog", str(conf), "extra", check=False)
    assert "1: task:1 extra\n" in r.stdout and "7: task:7 extra\n" in r.stdout, r.stdout
    assert "4: 4\n" in r.stdout and "8:" not in r.stdout, r.stdout
    # a task no line names fails with Slurm's line, a bad file before anything runs
    conf.write_text("0 true\n")
    r = cluster.run("srun", "-n2", "--multi-prog", str(conf), check=False)
    assert r.returncode != 0
    assert "No executable program specified for this task" in r.stderr, r.stderr
    conf.write_text("0 true\n2-1 false\n")
    r = cluster.run("srun", "--multi-prog", str(conf), check=False)
    assert (r.returncode, r.stdout) == (1, "")
    assert f"srun: error: Invalid line 2 of configuration file {conf}" in r.stderr
