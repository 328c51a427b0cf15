"""Submission rules a user cannot get around.

* --mail-user is an address, never an option of MailProg: a value starting
  with '-' is refused at submit and never reaches MailProg; a good one
  reaches it after "--", and MailProg runs as SlurmUser, or nobody when
  that is root (never root).
* a negative --nice is for administrators only.
* partition access rules (RootOnly, AllowGroups, AllowAccounts,
  DenyAccounts, AllowQos, DenyQos) and, with EnforcePartLimits=ALL, its
  size limits (MaxNodes, MaxCPUsPerNode, MaxMemPerNode, MaxTime) refuse at
  submit and at update with Slurm's texts, and nothing is queued.
* the job record is bounded: script (SchedulerParameters=max_script_size),
  environment, comment.
* the job runs with the submitting shell's resource limits.

Every refusal is checked as the unprivileged test user, together with the
proof that nothing was queued.
"""

import os
import pwd
import stat
import subprocess

import pytest

from cluster import BUILD_DIR, Cluster, job, pid_gone, submit, wait_for, wait_state

TEST_USER = "sltest"  # conftest.py's test user; its group is its default account
MAIL_LOG = "mail/sent.log"


def make_cluster():
    c = Cluster(
        nodes=["n1", "n2"],
        partitions=[
            "debug Nodes=n[1-2] Default=YES MaxTime=INFINITE State=UP",
            "rootonly Nodes=n1 RootOnly=YES State=UP",
            "grp Nodes=n1 AllowGroups=root State=UP",
            "allowacct Nodes=n1 AllowAccounts=root State=UP",
            f"denyacct Nodes=n1 DenyAccounts=other,{TEST_USER} State=UP",
            "allowqos Nodes=n1 AllowQos=high State=UP",
            "denyqos Nodes=n1 DenyQos=normal State=UP",
            "excl Nodes=n2 ExclusiveUser=YES State=UP",
            "small Nodes=n[1-2] MaxNodes=1 MaxCPUsPerNode=2 MaxMemPerNode=1000 MaxTime=10 "
            "State=UP",
        ],
        settings={
            "EnforcePartLimits": "ALL",
            "MailProg": "@RUN_DIR@/mail/mailprog",
            "SchedulerParameters": "max_script_size=4000",
        },
        name="sec-rules",
    )
    mail = c.dir / "mail"
    mail.mkdir()
    mail.chmod(0o777)
    prog = mail / "mailprog"
    # one line per call: uid, then the arguments, tab-separated; the mail
    # of a job named "hangmail" hangs (its pid in mail/hang.pid)
    prog.write_text("#!/bin/sh\n"
                    "line=$(printf '%s\\t' \"$(id -u)\" \"$@\")\n"
                    f"printf '%s\\n' \"$line\" >> {c.dir / MAIL_LOG}\n"
                    f"case \"$*\" in *Name=hangmail*) echo $$ > {mail / 'hang.pid'}; "
                    "exec sleep 300;; esac\n")
    prog.chmod(0o755)
    return c


@pytest.fixture(scope="module")
def workdir(cluster):
    d = cluster.dir / "work"  # the cluster's directory is open to the test user
    d.mkdir(exist_ok=True)
    os.chmod(d, 0o777)
    return d


def mails(cluster):
    p = cluster.dir / MAIL_LOG
    if not p.exists():
        return []
    return [line.rstrip("\t").split("\t") for line in p.read_text().splitlines() if line]


def queued(cluster):
    return set(cluster.out("squeue", "-h", "-t", "all", "-o", "%i").split())


def refused(cluster, user, *args, text, input=None):
    """sbatch as user must fail with Slurm's text and queue nothing."""
    before = queued(cluster)
    r = cluster.run("sbatch", *args, user=user, check=False, input=input)
    assert r.returncode != 0, r.stdout
    assert f"sbatch: error: Batch job submission failed: {text}\n" in r.stderr, r.stderr
    assert queued(cluster) == before
    return r


def sbatch_args(workdir, *extra):
    return ["-o", f"{workdir}/%j.out", "-D", str(workdir), *extra]


# ----- MailProg --------------------------------------------------------------


@pytest.mark.parametrize("bad", ["--exec=touch /tmp/sl-mail-pwned", "-fme", "a,-x", "a b;c"])
def test_mail_user_option_refused(cluster, test_user, workdir, bad):
    before = mails(cluster)
    r = refused(cluster, test_user.pw_name, *sbatch_args(workdir, "--mail-type=ALL",
                                                          f"--mail-user={bad}", "--wrap", "true"),
                text="Invalid argument")
    assert "invalid --mail-user" in r.stderr
    assert mails(cluster) == before
    assert not os.path.exists("/tmp/sl-mail-pwned")


def test_mail_reaches_mailprog_after_dashdash_not_as_root(cluster, test_user, workdir):
    job_id = submit(cluster, *sbatch_args(workdir, "--mail-type=END",
                                          "--mail-user=someone@example.com", "--wrap", "true"),
                    user=test_user.pw_name)

    def sent():
        return [m for m in mails(cluster) if any(f"Job_id={job_id} " in a for a in m)]

    got = wait_for(sent, timeout=30, what=f"the mail of job {job_id}")
    uid, *argv = got[0]
    assert argv[0] == "-s" and argv[2:] == ["--", "someone@example.com"], argv
    # SlurmUser is the user running the tests: when that is root, nobody
    expected = os.getuid() if os.getuid() != 0 else pwd.getpwnam("nobody").pw_uid
    assert int(uid) == expected != 0


@pytest.mark.slow
def test_hanging_mailprog_blocks_nothing_and_is_killed(cluster, workdir):
    pidfile = cluster.dir / "mail" / "hang.pid"
    job_id = submit(cluster, *sbatch_args(workdir, "-J", "hangmail", "--mail-type=END",
                                          "--wrap", "true"))
    wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), timeout=30,
             what="the hanging MailProg")
    pid = int(pidfile.read_text())
    # the controller answers while MailProg hangs
    again = submit(cluster, *sbatch_args(workdir, "--wrap", "true"))
    wait_state(cluster, again, "COMPLETED")
    assert job(cluster, job_id)["JobState"] == "COMPLETED"

    # MAIL_TIMEOUT_S is 60 s; the controller kills it and reaps it
    wait_for(lambda: pid_gone(pid), timeout=90, what=f"MailProg pid {pid} killed at its timeout")
    cluster.wait_for_log("still running after 60 s: killed", containing=f"pid {pid})")


# ----- nice ------------------------------------------------------------------


def test_negative_nice_is_for_admins(cluster, test_user, workdir):
    refused(cluster, test_user.pw_name, *sbatch_args(workdir, "--nice=-100", "-H", "--wrap",
                                                      "true"),
            text="Access/permission denied")
    job_id = submit(cluster, *sbatch_args(workdir, "--nice=-100", "-H", "--wrap", "true"))
    assert job(cluster, job_id)["Nice"] == "-100"
    cluster.run("scancel", str(job_id))


# ----- partitions --------------------------------------------------------------


@pytest.mark.parametrize("part,extra,text", [
    ("rootonly", [], "Access/permission denied"),
    ("grp", [], "User's group not permitted to use this partition"),
    ("allowacct", [], "Invalid account or account/partition combination specified"),
    ("denyacct", [], "Invalid account or account/partition combination specified"),
    ("allowqos", [], "Invalid qos specification"),
    ("denyqos", [], "Invalid qos specification"),
    ("small", ["-N", "2"], "Node count specification invalid"),
    ("small", ["-c", "3"], "More processors requested than permitted"),
    ("small", ["--mem=2000"], "Memory required by task is not available"),
    ("small", ["-t", "20"], "Requested time limit is invalid (missing or exceeds some limit)"),
])
def test_partition_rules_at_submit(cluster, test_user, workdir, part, extra, text):
    refused(cluster, test_user.pw_name, *sbatch_args(workdir, "-p", part, *extra, "--wrap",
                                                      "true"), text=text)


def test_partition_rules_admin_passes(cluster, workdir):
    for part in ("rootonly", "grp", "allowqos", "denyqos"):
        job_id = submit(cluster, *sbatch_args(workdir, "-p", part, "-H", "--wrap", "true"))
        cluster.run("scancel", str(job_id))


@pytest.mark.parametrize("update,text", [
    (["Partition=rootonly"], "Access/permission denied"),
    (["Partition=grp"], "User's group not permitted to use this partition"),
    (["Partition=denyqos"], "Invalid qos specification"),
    (["Partition=small", "NumNodes=2"], "Node count specification invalid"),
])
def test_partition_rules_at_update(cluster, test_user, workdir, update, text):
    job_id = submit(cluster, *sbatch_args(workdir, "-H", "--wrap", "true"),
                    user=test_user.pw_name)
    try:
        r = cluster.run("scontrol", "update", f"JobId={job_id}", *update,
                        user=test_user.pw_name, check=False)
        assert r.returncode != 0
        assert text in r.stderr, r.stderr
        rec = job(cluster, job_id)
        assert rec["Partition"].split()[0] == "debug" and rec["NumNodes"] == "1"
    finally:
        cluster.run("scancel", str(job_id))


def _other_user_kept_off(cluster, test_user, workdir, mine_args, other_args):
    """Our job (mine_args) runs; a job of the test user (other_args) on its
    node waits though the node has free cpus, while a later job of ours on
    it runs; once ours ends, theirs runs. Returns our first job's record
    while it ran."""
    mine = submit(cluster, *sbatch_args(workdir, *mine_args, "-n", "1", "--wrap", "sleep 300"))
    other = None
    try:
        rec = wait_state(cluster, mine, "RUNNING")
        other = submit(cluster, *sbatch_args(workdir, *other_args, "-n", "1", "--wrap", "true"),
                       user=test_user.pw_name)
        # a later job of the same owner on the same node starts: the
        # scheduler has passed over the other user's job by then
        again = submit(cluster, *sbatch_args(workdir, *mine_args, "-n", "1", "--wrap", "true"))
        wait_state(cluster, again, "COMPLETED")
        assert job(cluster, other)["JobState"] == "PENDING"
        cluster.run("scancel", str(mine))
        wait_state(cluster, other, "COMPLETED")
        return rec
    finally:
        cluster.run("scancel", str(mine), check=False)
        if other:
            cluster.run("scancel", str(other), check=False)


def test_exclusive_user_nodes_not_shared(cluster, test_user, workdir):
    """A node running a job of an ExclusiveUser partition takes no job of
    another user, though it has free cpus; the owner's jobs still fit."""
    _other_user_kept_off(cluster, test_user, workdir, ["-p", "excl"],
                         ["-p", "debug", "-w", "n2"])


def test_exclusive_user_option_keeps_other_users_off(cluster, test_user, workdir):
    """--exclusive=user does the same for one job, shown as
    OverSubscribe=USER; --exclusive=mcs is refused (no MCS plugin)."""
    rec = _other_user_kept_off(cluster, test_user, workdir, ["--exclusive=user", "-w", "n1"],
                               ["-w", "n1"])
    assert rec["OverSubscribe"] == "USER"
    r = cluster.run("sbatch", "--exclusive=mcs", "--wrap", "true", check=False)
    assert r.returncode == 255
    assert "--exclusive=mcs is not supported" in r.stderr


def test_node_count_update_over_max_nodes(cluster, test_user, workdir):
    job_id = submit(cluster, *sbatch_args(workdir, "-p", "small", "-H", "--wrap", "true"),
                    user=test_user.pw_name)
    try:
        r = cluster.run("scontrol", "update", f"JobId={job_id}", "NumNodes=2",
                        user=test_user.pw_name, check=False)
        assert r.returncode != 0
        assert "Node count specification invalid" in r.stderr, r.stderr
        assert job(cluster, job_id)["NumNodes"] == "1"
    finally:
        cluster.run("scancel", str(job_id))


# ----- record sizes ---------------------------------------------------------


TOO_LONG = "Pathname of a file, directory or other parameter too long"


def test_script_over_max_script_size(cluster, test_user, workdir):
    script = "#!/bin/sh\n" + "#" * 5000 + "\ntrue\n"
    refused(cluster, test_user.pw_name, *sbatch_args(workdir), input=script, text=TOO_LONG)


def test_comment_too_long(cluster, test_user, workdir):
    refused(cluster, test_user.pw_name, *sbatch_args(workdir, "--comment", "c" * 2000,
                                                      "--wrap", "true"), text=TOO_LONG)


def test_environment_too_large(cluster, test_user, workdir):
    env = {f"SL_BIG_{i}": "x" * 100000 for i in range(12)}  # 1.2 MB, each under 128 KiB
    before = queued(cluster)
    r = cluster.run("sbatch", *sbatch_args(workdir, "--wrap", "true"), user=test_user.pw_name,
                    check=False, env=env)
    assert r.returncode != 0
    assert f"Batch job submission failed: {TOO_LONG}" in r.stderr, r.stderr
    assert queued(cluster) == before


# ----- resource limits ------------------------------------------------------


def test_job_gets_the_submitting_shells_rlimits(cluster, workdir):
    out = workdir / "rlimit.out"
    cmd = (f"ulimit -n 123 && ulimit -S -c 0 && exec {BUILD_DIR / 'sbatch'} -o {out} "
           f"-D {workdir} --wrap 'echo nofile=$(ulimit -n) core=$(ulimit -c)'")
    r = subprocess.run(["bash", "-c", cmd], env=cluster.env(None), capture_output=True,
                       text=True, timeout=60, cwd=workdir)
    assert r.returncode == 0, r.stderr
    job_id = int(r.stdout.split()[-1])
    wait_state(cluster, job_id, "COMPLETED")
    wait_for(lambda: out.exists() and out.read_text(), what="the job's output")
    assert out.read_text().split() == ["nofile=123", "core=0"]
    assert stat.S_ISREG(out.stat().st_mode)


def test_srun_tasks_get_the_submitting_shells_rlimits(cluster, workdir):
    cmd = (f"ulimit -n 123 && exec {BUILD_DIR / 'srun'} -N1 -D {workdir} "
           "sh -c 'echo nofile=$(ulimit -n); env | grep -c ^SLURM_RLIMIT_ || true'")
    r = subprocess.run(["bash", "-c", cmd], env=cluster.env(None), capture_output=True,
                       text=True, timeout=60, cwd=workdir)
    assert r.returncode == 0, r.stderr
    # applied by slurmstepd, and (as in Slurm) not left in the task's environment
    assert r.stdout.split() == ["nofile=123", "0"], r.stdout


def test_propagate_forces_limits_the_configuration_keeps(fresh_cluster, tmp_path):
    """PropagateResourceLimits=NONE keeps the submitting shell's limits
    from the job; --propagate=NOFILE forces that one through, as Slurm."""
    c = fresh_cluster(nodes=("n1",), name="propagate",
                      settings={"PropagateResourceLimits": "NONE"})

    def job_nofile(*opts):
        out = tmp_path / f"nofile{len(opts)}.out"
        cmd = (f"ulimit -S -n 123 && exec {BUILD_DIR / 'sbatch'} -o {out} {' '.join(opts)} "
               "--wrap 'ulimit -n'")
        r = subprocess.run(["bash", "-c", cmd], env=c.env(None), capture_output=True,
                           text=True, timeout=60, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        wait_state(c, int(r.stdout.split()[-1]), "COMPLETED")
        return out.read_text().strip()

    assert job_nofile() != "123"
    assert job_nofile("--propagate=NOFILE") == "123"
    r = c.run("sbatch", "--propagate=nofile", "--wrap", "true", check=False)
    assert (r.returncode, r.stderr.splitlines()) == (
        1, ["sbatch: error: Bad rlimit name: nofile",
            "sbatch: error: --propagate=nofile is not valid."])


def test_limits_not_enforced_wait_with_partition_config(fresh_cluster):
    """EnforcePartLimits=NO (Slurm's default): a job over the partition's
    limits is accepted and waits with PartitionConfig; it never runs."""
    c = fresh_cluster(nodes=["n1", "n2"], partitions=[
        "debug Nodes=n[1-2] Default=YES State=UP",
        "small Nodes=n[1-2] MaxNodes=1 MaxCPUsPerNode=2 MaxMemPerNode=1000 MaxTime=10 "
        "State=UP"], name="sec-noenf")
    work = c.dir / "work"
    work.mkdir()
    work.chmod(0o777)
    over = [submit(c, "-o", f"{work}/%j.out", "-p", "small", *extra, "--wrap", "true")
            for extra in (["-N", "2"], ["-c", "3"], ["--mem=2000"], ["-t", "20"])]
    # a later job of the same partition within its limits runs: the
    # scheduler has looked at the ones over them
    ok = submit(c, "-o", f"{work}/%j.out", "-p", "small", "--wrap", "true")
    wait_state(c, ok, "COMPLETED")
    for job_id in over:
        rec = job(c, job_id)
        assert (rec["JobState"], rec["Reason"]) == ("PENDING", "PartitionConfig"), rec
