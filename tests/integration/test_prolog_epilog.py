"""Prolog and Epilog (slurm.conf Prolog=, Epilog=, PrologEpilogTimeout=)
run by slurmd on the job's nodes: the Prolog before the job's first
launch on a node, the Epilog when the job ends there, each with the job's
facts and nothing of the user's environment. The job stays COMPLETING,
and its nodes take no other job, until every Epilog is done; a failing
Prolog drains the node ("Prolog error") and holds the job, a failing
Epilog drains the node ("Epilog error"). PrologSlurmctld and
EpilogSlurmctld run on the controller: the job is CONFIGURING until the
first is done (a failure requeues it), COMPLETING until the second is."""

import os

import pytest

from cluster import marker, parse_record, submit, wait_for, node

CLUSTER_KWARGS = dict(
    nodes=["n1", "n2"],
    settings={"Prolog": "@RUN_DIR@/pe/prolog",
              "Epilog": "@RUN_DIR@/pe/epilog.d/*",
              "PrologSlurmctld": "@RUN_DIR@/pe/ctld_prolog",
              "EpilogSlurmctld": "@RUN_DIR@/pe/ctld_epilog",
              "PrologEpilogTimeout": "4"})

CTLD_SCRIPT = """#!/bin/sh
d=$(dirname "$0")
env | sort > "$d/out/ctld_{kind}.$SLURM_JOB_ID"
while [ -e "$d/hold-ctld-{kind}" ]; do sleep 0.05; done
[ -e "$d/fail-ctld-{kind}" ] && exit 1
exit 0
"""

PROLOG = """#!/bin/sh
d=$(dirname "$0")
env | sort > "$d/out/prolog.$SLURM_JOB_ID.$SLURMD_NODENAME"
[ -e "$d/fail-prolog" ] && exit 1
[ -e "$d/hang-prolog" ] && sleep 60
exit 0
"""

EPILOG = """#!/bin/sh
d=$(dirname "$0")/..
env | sort > "$d/out/epilog.$SLURM_JOB_ID.$SLURMD_NODENAME"
while [ -e "$d/hold-epilog" ]; do sleep 0.05; done
[ -e "$d/fail-epilog" ] && exit 3
exit 0
"""

SECOND = """#!/bin/sh
touch "$(dirname "$0")/../out/second.$SLURM_JOB_ID.$SLURMD_NODENAME"
"""


@pytest.fixture(scope="module")
def pe(cluster):
    d = cluster.dir / "pe"
    (d / "epilog.d").mkdir(parents=True, exist_ok=True)
    (d / "out").mkdir(exist_ok=True)
    for path, text in ((d / "prolog", PROLOG), (d / "epilog.d" / "10-record", EPILOG),
                       (d / "epilog.d" / "20-second", SECOND),
                       (d / "ctld_prolog", CTLD_SCRIPT.format(kind="prolog")),
                       (d / "ctld_epilog", CTLD_SCRIPT.format(kind="epilog"))):
        path.write_text(text)
        os.chmod(path, 0o755)
    return d


def env_of(path):
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def job(cluster, job_id):
    return parse_record(cluster.out("scontrol", "show", "job", str(job_id)))


def resume(cluster, name):
    cluster.run("scontrol", "update", f"NodeName={name}", "State=RESUME")
    wait_for(lambda: node(cluster, name)["State"] == "IDLE", what=f"{name} idle")


def test_prolog_and_epilog_run_on_each_node_with_the_jobs_facts(cluster, pe, test_user):
    jid = submit(cluster, "-N2", "-o", "/dev/null", "--wrap", "srun true",
                 user=test_user.pw_name, env={"LEAK_ME": "user-set"})
    wait_for(lambda: all((pe / "out" / f"{k}.{jid}.{n}").exists()
                         for k in ("epilog", "second") for n in ("n1", "n2")),
             what="both epilogs on both nodes")
    for n in ("n1", "n2"):
        pro = env_of(pe / "out" / f"prolog.{jid}.{n}")
        epi = env_of(pe / "out" / f"epilog.{jid}.{n}")
        assert pro["SLURM_SCRIPT_CONTEXT"] == "prolog_slurmd"
        assert epi["SLURM_SCRIPT_CONTEXT"] == "epilog_slurmd"
        for e in (pro, epi):
            assert e["SLURM_JOB_ID"] == e["SLURM_JOBID"] == str(jid)
            assert e["SLURM_JOB_UID"] == str(test_user.pw_uid)
            assert e["SLURM_JOB_USER"] == test_user.pw_name
            assert e["SLURMD_NODENAME"] == n
            assert "LEAK_ME" not in e and "PATH" not in e
        assert epi["SLURM_JOB_PARTITION"] == "debug"
        assert epi["SLURM_JOB_NODELIST"] == "n[1-2]"
        assert epi["SLURM_JOB_EXIT_CODE2"] == "0:0"
    # the batch host's Prolog ran at the batch launch, with the job's facts
    assert env_of(pe / "out" / f"prolog.{jid}.n1")["SLURM_JOB_PARTITION"] == "debug"
    wait_for(lambda: job(cluster, jid)["JobState"] == "COMPLETED", what="the job done")


def test_completing_lasts_until_the_epilog_ends_and_the_node_waits(cluster, pe):
    with marker(pe / "hold-epilog"):
        first = submit(cluster, "-w", "n2", "-o", "/dev/null", "--wrap", "true")
        wait_for(lambda: (pe / "out" / f"epilog.{first}.n2").exists(), what="the epilog")
        assert cluster.out("squeue", "-h", "-j", str(first), "-o", "%t").strip() == "CG"
        assert "COMPLETING" in node(cluster, "n2")["State"]
        assert cluster.out("sinfo", "-h", "-n", "n2", "-o", "%t").strip() == "comp"
        second = submit(cluster, "-w", "n2", "-o", "/dev/null", "--wrap", "true")
        # n2 takes nothing while its epilog runs
        wait_for(lambda: job(cluster, second)["Reason"] != "None", what="a scheduling pass")
        assert job(cluster, second)["JobState"] == "PENDING"
    wait_for(lambda: job(cluster, first)["JobState"] == "COMPLETED"
             and cluster.out("squeue", "-h", "-j", str(first), "-o", "%t").strip() in ("CD", ""),
             what="the first job done")
    wait_for(lambda: job(cluster, second)["JobState"] == "COMPLETED", what="the second job run")


@pytest.mark.parametrize("name", ["fail-prolog", "hang-prolog"])
def test_a_failing_prolog_drains_the_node_and_holds_the_job(cluster, pe, name):
    """A Prolog that fails, or outlives PrologEpilogTimeout (4 s) and is
    killed: the node drains with "Prolog error", the job waits held."""
    with marker(pe / name):
        jid = submit(cluster, "-w", "n2", "-o", "/dev/null", "--wrap", "true")
        wait_for(lambda: "DRAIN" in node(cluster, "n2")["State"], timeout=20,
                 what="n2 drained")
        assert node(cluster, "n2")["Reason"].startswith("Prolog error")
        # requeued at once; COMPLETING until the node's Epilog for that run is done
        rec = wait_for(lambda: (lambda r: r if r["Reason"] != "None"
                                and r["JobState"] == "PENDING" else None)(job(cluster, jid)),
                       what="the job requeued and pending")
        assert rec["Reason"].replace("_", " ") == "launch failed requeued held"
        assert rec["Priority"] == "0"
    cluster.run("scancel", str(jid))
    resume(cluster, "n2")


def test_a_failing_epilog_drains_the_node(cluster, pe):
    with marker(pe / "fail-epilog"):
        jid = submit(cluster, "-w", "n1", "-o", "/dev/null", "--wrap", "true")
        wait_for(lambda: "DRAIN" in node(cluster, "n1")["State"], what="n1 drained")
        assert node(cluster, "n1")["Reason"].startswith("Epilog error")
        wait_for(lambda: job(cluster, jid)["JobState"] == "COMPLETED", what="the job done")
    resume(cluster, "n1")


def test_the_controllers_scripts_run_with_the_jobs_facts(cluster, pe, test_user):
    jid = submit(cluster, "-N2", "-J", "facts", "-o", "/dev/null", "--wrap", "exit 3",
                 user=test_user.pw_name)
    wait_for(lambda: (pe / "out" / f"ctld_epilog.{jid}").exists()
             and job(cluster, jid)["JobState"] == "FAILED", what="the job and its epilog done")
    pro, epi = env_of(pe / "out" / f"ctld_prolog.{jid}"), env_of(pe / "out" / f"ctld_epilog.{jid}")
    assert pro["SLURM_SCRIPT_CONTEXT"] == "prolog_slurmctld"
    assert epi["SLURM_SCRIPT_CONTEXT"] == "epilog_slurmctld"
    for e in (pro, epi):
        assert e["SLURM_JOB_ID"] == str(jid)
        assert e["SLURM_JOB_USER"] == test_user.pw_name
        assert e["SLURM_JOB_UID"] == str(test_user.pw_uid)
        assert e["SLURM_JOB_NAME"] == "facts"
        assert e["SLURM_JOB_NODELIST"] == "n[1-2]"
        assert e["SLURM_JOB_PARTITION"] == "debug"
    assert epi["SLURM_JOB_EXIT_CODE2"] == "3:0"


def test_a_job_is_configuring_until_prolog_slurmctld_is_done(cluster, pe):
    with marker(pe / "hold-ctld-prolog"):
        jid = submit(cluster, "-w", "n1", "-o", "/dev/null", "--wrap", "true")
        wait_for(lambda: (pe / "out" / f"ctld_prolog.{jid}").exists(), what="the script")
        assert cluster.out("squeue", "-h", "-j", str(jid), "-o", "%t").strip() == "CF"
        assert job(cluster, jid)["JobState"] == "CONFIGURING"
        assert not (pe / "out" / f"prolog.{jid}.n1").exists()  # nothing launched yet
    wait_for(lambda: job(cluster, jid)["JobState"] == "COMPLETED", what="the job done")
    assert (pe / "out" / f"prolog.{jid}.n1").exists()


def test_a_failing_prolog_slurmctld_requeues_the_job(cluster, pe):
    with marker(pe / "fail-ctld-prolog"):
        jid = submit(cluster, "-w", "n1", "-o", "/dev/null", "--wrap", "true")
        wait_for(lambda: int(job(cluster, jid)["Restarts"]) >= 1, what="the job requeued")
        assert not (pe / "out" / f"prolog.{jid}.n1").exists()
    wait_for(lambda: job(cluster, jid)["JobState"] == "COMPLETED", what="the job run again")


def test_a_job_is_completing_until_epilog_slurmctld_is_done(cluster, pe):
    with marker(pe / "hold-ctld-epilog"):
        jid = submit(cluster, "-w", "n1", "-o", "/dev/null", "--wrap", "true")
        wait_for(lambda: (pe / "out" / f"ctld_epilog.{jid}").exists(), what="the script")
        wait_for(lambda: (pe / "out" / f"second.{jid}.n1").exists(), what="the node epilog")
        assert cluster.out("squeue", "-h", "-j", str(jid), "-o", "%t").strip() == "CG"
    wait_for(lambda: cluster.out("squeue", "-h", "-j", str(jid), "-o", "%t").strip()
             in ("CD", ""), what="the job done")


def test_an_allocation_is_granted_once_prolog_slurmctld_is_done(cluster, pe):
    r = cluster.run("srun", "-w", "n1", "-n1", "echo", "granted")
    assert "granted" in r.stdout.splitlines()
    with marker(pe / "fail-ctld-prolog"):
        r = cluster.run("srun", "-w", "n1", "-n1", "echo", "never", check=False, timeout=30)
    assert r.returncode != 0 and "never" not in r.stdout, (r.stdout, r.stderr)
