"""TaskProlog, TaskEpilog and srun --task-prolog/--task-epilog: the
prologs run in each task's process as the user just before it execs, and
their output's "export", "unset" and "print" lines are acted on as in
Slurm; a failing prolog ends the task with its exit code. The epilogs
run once per task, as the user, after the step's tasks ended."""

import os

import pytest

from cluster import wait_for

CLUSTER_KWARGS = dict(
    nodes=["n1"],
    settings={"TaskProlog": "@RUN_DIR@/tp/prolog",
              "TaskEpilog": "@RUN_DIR@/tp/epilog"})

PROLOG = """#!/bin/sh
echo "print hello from task prolog $SLURM_PROCID"
echo "export FROM_PROLOG=yes-$SLURM_PROCID"
echo "unset DROP_ME"
echo "this line means nothing"
[ -e "$(dirname "$0")/fail" ] && exit 7
exit 0
"""

EPILOG = """#!/bin/sh
echo "conf $SLURM_JOB_ID.$SLURM_STEP_ID $SLURM_PROCID $(id -u)" >> {log}
"""

USER_PROLOG = """#!/bin/sh
echo "export FROM_USER=u-$FROM_PROLOG"
"""

USER_EPILOG = """#!/bin/sh
echo "user $SLURM_JOB_ID.$SLURM_STEP_ID $SLURM_PROCID $(id -u)" >> {log}
"""


def write(path, text, mode=0o755, owner=None):
    path.write_text(text)
    os.chmod(path, mode)
    if owner:
        os.chown(path, owner.pw_uid, owner.pw_gid)


@pytest.fixture(scope="module")
def tp(cluster, workdir, test_user):
    d = cluster.dir / "tp"
    d.mkdir(exist_ok=True)
    log = workdir / "epilog.log"
    write(d / "prolog", PROLOG)
    write(d / "epilog", EPILOG.format(log=log))
    write(workdir / "user_prolog", USER_PROLOG, owner=test_user)
    write(workdir / "user_epilog", USER_EPILOG.format(log=log), owner=test_user)
    return d


def test_the_prologs_output_sets_the_tasks_environment_and_prints(cluster, tp, test_user):
    r = cluster.run("srun", "-n2", "sh", "-c", 'echo "T$SLURM_PROCID FROM=$FROM_PROLOG '
                    'DROP=${DROP_ME-unset}"', user=test_user.pw_name, env={"DROP_ME": "x"})
    lines = r.stdout.splitlines()
    for t in ("0", "1"):
        assert f"hello from task prolog {t}" in lines, r.stdout
        assert f"T{t} FROM=yes-{t} DROP=unset" in lines, r.stdout
    assert "this line means nothing" not in r.stdout


def test_a_batch_script_gets_the_task_prolog_too(cluster, tp, workdir, test_user):
    out = workdir / "batch.out"
    r = cluster.run("sbatch", "-W", "-o", str(out), "--wrap", 'echo "FROM=$FROM_PROLOG"',
                    user=test_user.pw_name)
    assert r.returncode == 0
    text = out.read_text()
    assert "hello from task prolog 0" in text and "FROM=yes-0" in text, text


def test_srun_task_prolog_runs_after_the_configured_one(cluster, tp, workdir, test_user):
    r = cluster.run("srun", "-n1", f"--task-prolog={workdir / 'user_prolog'}", "sh", "-c",
                    'echo "USER=$FROM_USER"', user=test_user.pw_name)
    assert "USER=u-yes-0" in r.stdout.splitlines(), r.stdout


def test_a_failing_prolog_ends_the_task_with_its_exit_code(cluster, tp, test_user):
    (tp / "fail").touch()
    try:
        r = cluster.run("srun", "-n1", "echo", "never", user=test_user.pw_name, check=False)
    finally:
        (tp / "fail").unlink()
    assert r.returncode == 7, (r.returncode, r.stdout, r.stderr)
    assert "never" not in r.stdout
    assert "TaskProlog failed status=" in r.stderr, r.stderr


def test_the_epilogs_run_once_per_task_as_the_user(cluster, tp, workdir, test_user):
    log = workdir / "epilog.log"
    r = cluster.run("srun", "-n2", f"--task-epilog={workdir / 'user_epilog'}", "true",
                    user=test_user.pw_name, check=False)
    assert r.returncode == 0, r.stderr
    step = None

    def mine():
        lines = [l.split() for l in log.read_text().splitlines()] if log.exists() else []
        return [l for l in lines if l[0] in ("conf", "user")]

    wait_for(lambda: len({(l[0], l[1]) for l in mine()}) >= 2, what="both epilogs")
    rows = mine()
    step = max(l[1] for l in rows if l[0] == "user")
    ran = sorted((l[0], l[2], l[3]) for l in rows if l[1] == step)
    uid = str(test_user.pw_uid)
    assert ran == [("conf", "0", uid), ("conf", "1", uid), ("user", "0", uid),
                   ("user", "1", uid)], rows


SRUN_SCRIPT = """#!/bin/sh
echo "$SLURM_SCRIPT_CONTEXT $SLURM_JOB_ID $* " >> {log}
[ -e {fail} ] && exit 3
exit 0
"""


def test_srun_prolog_and_epilog_run_around_the_step(cluster, workdir, test_user):
    log, fail = workdir / "srun_scripts.log", workdir / "srun_fail"
    write(workdir / "srun_script", SRUN_SCRIPT.format(log=log, fail=fail), owner=test_user)
    script = workdir / "srun_script"
    r = cluster.run("srun", "-n1", f"--prolog={script}", f"--epilog={script}", "echo", "hi",
                    user=test_user.pw_name)
    assert r.stdout.splitlines()[-1] == "hi"  # after the TaskProlog's print
    lines = log.read_text().splitlines()
    assert [l.split()[0] for l in lines] == ["prolog_srun", "epilog_srun"], lines
    assert all(l.endswith(" echo hi ") for l in lines), lines
    fail.touch()
    try:
        r = cluster.run("srun", "-n1", f"--prolog={script}", "echo", "never",
                        user=test_user.pw_name, check=False)
    finally:
        fail.unlink()
    assert r.returncode != 0 and "never" not in r.stdout
    assert "srun prolog failed rc = 768. Aborting step." in r.stderr, r.stderr
