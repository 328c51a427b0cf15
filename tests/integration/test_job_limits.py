"""Limits and the ends they bring, on a small cluster shaped like the
reference one (cpu-queue n1-n2, Default, MaxTime=1-00:00:00; 4 cpus and
4000 MB a node; DefMemPerCPU=100; JobAcctGatherFrequency=task=1 so memory
is sampled every second; KillWait=2):

* a job past its time limit is killed at about one minute and ends TIMEOUT
  with reason TimeLimit and Slurm's "DUE TO TIME LIMIT" line in its output;
* a job past its memory limit ends OUT_OF_MEMORY with Slurm's "exceeded
  memory limit" lines;
* MailProg is run with Slurm's subjects for --mail-type=ALL and FAIL;
* bad sbatch input gets the reference's stderr and exit status, and no job.

The output lines are compared with tests/reference (what Slurm 22.05
printed), normalising only job ids, node names, times, paths and RSS.

The time-limit job takes a minute, so it is submitted when the module
starts (the module fixture timeout_job) and checked by the last test; the
other tests run meanwhile.
"""

import os
import re
import shlex
import stat
from datetime import datetime
from pathlib import Path

import pytest

from cluster import REFERENCE_DIR, REPO, Cluster, wait_for, submit, wait_state

# The sbatch_*, timeout_ and oom_ files are not (yet) copied into
# tests/reference; fall back to the shared originals next to the repository.
REFERENCE_DIRS = [REFERENCE_DIR, REPO.parent / "shared" / "reference"]

MAIL_LOG = "mail/sent.log"


def make_cluster():
    c = Cluster(
        nodes=["n1", "n2"],
        partitions=["cpu-queue Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 State=UP"],
        settings={
            "ClusterName": "anchor",
            "DefMemPerCPU": 100,
            "KillWait": 2,
            "OverTimeLimit": 0,
            "JobAcctGatherType": "jobacct_gather/linux",
            "JobAcctGatherFrequency": "task=1",
            "SlurmdParameters": "config_overrides",
            "MailProg": "@RUN_DIR@/mail/mailprog",
        },
        name="job-limits",
    )
    # MailProg appends its arguments, tab-separated, as one line (one write).
    mail = c.dir / "mail"
    mail.mkdir()
    mail.chmod(0o777)  # MailProg runs as SlurmUser, or nobody when that is root
    prog = mail / "mailprog"
    prog.write_text("#!/bin/sh\n"
                    "line=$(printf '%s\\t' \"$@\")\n"
                    f"printf '%s\\n' \"$line\" >> {shlex.quote(str(c.dir / MAIL_LOG))}\n")
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return c


# ----- helpers -------------------------------------------------------------


def reference(name):
    """(command, stdout, stderr, exit code) of a reference file."""
    for d in REFERENCE_DIRS:
        p = Path(d) / name
        if p.exists():
            text = p.read_text()
            break
    else:
        pytest.fail(f"reference file {name} not found in {[str(d) for d in REFERENCE_DIRS]}")
    m = re.fullmatch(r"\$ (.*?)\n--- stdout\n(.*?)--- stderr\n(.*?)--- exit code: (\d+)\n?",
                     text, re.S)
    assert m, f"cannot parse reference file {name}"
    return m.group(1), m.group(2), m.group(3), int(m.group(4))


def shape(text, job_id=None):
    """Output with what belongs to the moment replaced: job ids, node names
    in slurmstepd-<node> and ' ON <node> ', timestamps, the RSS in
    'exceeded memory limit (<rss> > <limit>)'."""
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", "<TIME>", text)
    text = re.sub(r"slurmstepd-\S+?:", "slurmstepd-<NODE>:", text)
    text = re.sub(r" ON \S+ ", " ON <NODE> ", text)
    text = re.sub(r"\(\d+ > (\d+)\)", r"(<RSS> > \1)", text)
    text = re.sub(r"\bJOB \d+\b", "JOB <ID>", text)
    text = re.sub(r"\bStepId=\d+", "StepId=<ID>", text)
    if job_id is not None:
        text = re.sub(rf"\b{job_id}\b", "<ID>", text)
    return text








def timestamp(value):
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S")


def all_job_ids(cluster):
    return {int(x) for x in cluster.out("squeue", "-h", "-t", "all", "-o", "%i").split()}


def mails(cluster):
    """Every MailProg call so far: lists of its arguments."""
    p = cluster.dir / MAIL_LOG
    if not p.exists():
        return []
    return [line.rstrip("\n").rstrip("\t").split("\t")
            for line in p.read_text().splitlines() if line]


def mails_of(cluster, job_id):
    return [m for m in mails(cluster) if any(f"Job_id={job_id} " in a for a in m)]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("limits")
    os.chmod(d, 0o777)
    return d


@pytest.fixture(scope="module", autouse=True)
def timeout_job(cluster, workdir):
    """A one-minute job that would sleep 300 s, submitted first so that the
    minute passes while the other tests run."""
    return submit(cluster, "-D", workdir, "-J", "to", "-t", "1", "--wrap", "sleep 300")


# ----- memory limit ------------------------------------------------------------


def test_a_job_over_its_memory_limit_ends_out_of_memory(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "-J", "oom_job", "--mem=20M", "--wrap",
                    "/usr/bin/python3 -c 'b = b\"x\" * (200 * 1024 * 1024); "
                    "import time; time.sleep(30)'")
    rec = wait_state(cluster, job_id, {"OUT_OF_MEMORY", "COMPLETED", "FAILED", "CANCELLED"},
                     timeout=25)
    assert rec["JobState"] == "OUT_OF_MEMORY", rec
    out_path = workdir / f"slurm-{job_id}.out"
    text = out_path.read_text()
    _, ref_out, _, _ = reference("oom_job_output.txt")
    ref_shapes = [shape(line) for line in ref_out.splitlines()]
    exceeded = "slurmstepd-<NODE>: error: StepId=<ID>.batch exceeded memory limit " \
               "(<RSS> > 20971520), being killed"
    assert exceeded in ref_shapes and \
        "slurmstepd-<NODE>: error: Exceeded job memory limit" in ref_shapes
    ours = [shape(line, job_id) for line in text.splitlines()]
    assert exceeded in ours, text
    assert "slurmstepd-<NODE>: error: Exceeded job memory limit" in ours, text
    assert all(s in ref_shapes for s in ours if s.startswith("slurmstepd-")), text
    m = re.search(rf"StepId={job_id}\.batch exceeded memory limit \((\d+) > 20971520\)", text)
    node = rec["NodeList"]
    assert f"slurmstepd-{node}: error: StepId={job_id}.batch" in text, text
    assert int(m.group(1)) > 20971520


# ----- mail -----------------------------------------------------------------------


def test_mail_type_all_sends_began_and_ended_to_mail_user(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "-J", "mailjob", "--mail-type=ALL",
                    "--mail-user=someone", "--wrap", "true")
    wait_state(cluster, job_id, "COMPLETED")

    def ended_mail_sent():
        got = mails_of(cluster, job_id)
        return got if any(" Ended," in a for argv in got for a in argv) else None
    got = wait_for(ended_mail_sent, timeout=10, what=f"the Ended mail of job {job_id}")
    subjects = []
    for argv in got:
        assert argv[0] == "-s" and argv[2:] == ["--", "someone"], argv
        subjects.append(argv[1])
    began = [s for s in subjects if " Began," in s]
    ended = [s for s in subjects if " Ended," in s]
    assert len(began) == 1 and len(ended) == 1 and len(subjects) == 2, subjects
    assert re.fullmatch(rf"Slurm Job_id={job_id} Name=mailjob Began, Queued time 00:00:0\d",
                        began[0]), began[0]
    assert re.fullmatch(rf"Slurm Job_id={job_id} Name=mailjob Ended, Run time 00:00:0\d, "
                        r"COMPLETED, ExitCode 0", ended[0]), ended[0]


def test_mail_type_fail_sends_failed_with_the_exit_code(cluster, workdir):
    job_id = submit(cluster, "-D", workdir, "-J", "failjob", "--mail-type=FAIL",
                    "--mail-user=someone", "--wrap", "exit 3")
    wait_state(cluster, job_id, "FAILED")
    got = wait_for(lambda: mails_of(cluster, job_id), timeout=10,
                   what=f"the Failed mail of job {job_id}")
    assert len(got) == 1, got
    argv = got[0]
    assert argv[0] == "-s" and argv[2:] == ["--", "someone"], argv
    assert re.fullmatch(rf"Slurm Job_id={job_id} Name=failjob Failed, Run time 00:00:0\d, "
                        r"FAILED, ExitCode 3", argv[1]), argv[1]


# ----- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("ref", [
    "sbatch_bad_mem.txt",
    "sbatch_bad_time.txt",
    "sbatch_bad_partition.txt",
    "sbatch_bad_option.txt",
    "sbatch_no_shebang.txt",
    "sbatch_missing_script.txt",
    "sbatch_no_args.txt",
])
def test_bad_sbatch_input_is_refused_like_slurm_and_makes_no_job(cluster, workdir, ref):
    cmd, ref_out, ref_err, ref_rc = reference(ref)
    stdin = None
    if cmd.endswith(" < /dev/null"):
        cmd, stdin = cmd[:-len(" < /dev/null")], ""
    argv = shlex.split(cmd)
    assert argv[0] == "sbatch"
    args = []
    for a in argv[1:]:
        if a.endswith("/noshebang.sh"):
            script = workdir / "noshebang.sh"
            script.write_text("echo no interpreter line\n")
            a = str(script)
        args.append(a)
    before = all_job_ids(cluster)
    r = cluster.run("sbatch", *args, check=False, input=stdin)
    assert (r.stdout, r.stderr, r.returncode) == (ref_out, ref_err, ref_rc), \
        f"$ sbatch {shlex.join(args)}"
    assert all_job_ids(cluster) <= before


# ----- time limit (last: its job was submitted when the module started) -------------------


@pytest.mark.slow
def test_a_job_past_its_time_limit_is_killed_and_ends_timeout(cluster, workdir, timeout_job):
    job_id = timeout_job
    rec = wait_state(cluster, job_id, {"TIMEOUT", "COMPLETED", "FAILED", "CANCELLED"},
                     timeout=100)
    assert (rec["JobState"], rec["Reason"]) == ("TIMEOUT", "TimeLimit"), rec
    start, end = timestamp(rec["StartTime"]), timestamp(rec["EndTime"])
    assert 60 <= (end - start).total_seconds() <= 75, (rec["StartTime"], rec["EndTime"])
    assert rec["TimeLimit"] == "00:01:00"
    node = rec["NodeList"]
    text = wait_for(lambda: (workdir / f"slurm-{job_id}.out").read_text(), timeout=10,
                    what="the output of the timed-out job")
    _, ref_out, _, _ = reference("timeout_job_output.txt")
    assert [shape(line, job_id) for line in text.splitlines()] == \
        [shape(line) for line in ref_out.splitlines()], text
    m = re.fullmatch(rf"slurmstepd-{node}: error: \*\*\* JOB {job_id} ON {node} CANCELLED AT "
                     r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d) DUE TO TIME LIMIT \*\*\*\n", text)
    assert m, text
    at = timestamp(m.group(1))
    assert start <= at <= end and (at - start).total_seconds() >= 59, (rec["StartTime"], at)
