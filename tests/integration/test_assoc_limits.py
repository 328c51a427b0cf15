"""AccountingStorageEnforce=associations,limits,qos: a
job's account and QOS at submit, Slurm's refusals, and the limits on
running jobs as pending reasons, the job starting once the limit allows.
Jobs are submitted as root under account "lim" (root's association there).
"""

import pytest

from cluster import job, submit, wait_for, wait_state

CLUSTER_KWARGS = dict(nodes=["n1", "n2"],
                      settings={"AccountingStorageEnforce": "associations,limits,qos"})


def mgr(cluster, *args):
    r = cluster.run("sacctmgr", "-i", *args, check=False)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def tree(cluster):
    mgr(cluster, "add", "cluster", "test")
    mgr(cluster, "add", "account", "lim")
    mgr(cluster, "add", "qos", "high")
    mgr(cluster, "add", "user", "root", "account=lim")
    return cluster


def sbatch_fails(cluster, *args):
    r = cluster.run("sbatch", "-o", "/dev/null", *args, "--wrap", "true", check=False)
    assert r.returncode == 1, r
    return r.stderr


def sleeper(cluster, *args):
    return submit(cluster, "-o", "/dev/null", "-A", "lim", *args, "--wrap", "sleep 300")


def reason(cluster, j):
    return job(cluster, j)["Reason"]


def cancel(cluster, *jobs):
    cluster.run("scancel", *[str(j) for j in jobs])
    for j in jobs:
        wait_state(cluster, j, ("CANCELLED", "COMPLETED"))


def test_defaults_come_from_the_association(tree):
    j = submit(tree, "-o", "/dev/null", "--wrap", "true")
    rec = job(tree, j)
    assert rec["Account"] == "root" and rec["QOS"] == "normal", rec


def test_unknown_account_refused(tree):
    err = sbatch_fails(tree, "-A", "nosuch")
    assert "Invalid account or account/partition combination specified" in err, err


def test_unknown_or_not_allowed_qos_refused(tree):
    assert "Invalid qos specification" in sbatch_fails(tree, "-A", "lim", "-q", "nosuch")
    assert "Invalid qos specification" in sbatch_fails(tree, "-A", "lim", "-q", "high")
    mgr(tree, "modify", "user", "root", "where", "account=lim", "set", "QOS+=high")
    j = submit(tree, "-o", "/dev/null", "-A", "lim", "-q", "high", "-H", "--wrap", "true")
    assert job(tree, j)["QOS"] == "high"
    cancel(tree, j)


def test_max_submit_jobs(tree):
    mgr(tree, "modify", "user", "root", "where", "account=lim", "set", "MaxSubmitJobs=1")
    j = sleeper(tree, "-H")
    err = sbatch_fails(tree, "-A", "lim")
    assert ("Job violates accounting/QOS policy (job submit limit, user's size and/or time "
            "limits)") in err, err
    cancel(tree, j)
    mgr(tree, "modify", "user", "root", "where", "account=lim", "set", "MaxSubmitJobs=-1")


@pytest.mark.parametrize("setting,args,why", [
    ("MaxJobs=1", [], "AssocMaxJobsLimit"),
    ("GrpJobs=1", [], "AssocGrpJobsLimit"),
    ("GrpTRES=cpu=1", [], "AssocGrpCpuLimit"),
    ("GrpTRES=node=1", [], "AssocGrpNodeLimit"),
])
def test_running_limits_hold_the_second_job(tree, setting, args, why):
    entity = ["user", "root", "where", "account=lim"] if "Max" in setting else \
        ["account", "lim"]
    mgr(tree, "modify", *entity, "set", setting)
    first = sleeper(tree, *args)
    wait_state(tree, first, "RUNNING")
    second = sleeper(tree, *args)
    wait_for(lambda: reason(tree, second) == why, what=f"reason {why}")
    assert job(tree, second)["JobState"] == "PENDING"
    cancel(tree, first)
    wait_state(tree, second, "RUNNING")
    cancel(tree, second)
    mgr(tree, "modify", *entity, "set", setting.split("=")[0] + "=" +
        ("cpu=-1,node=-1" if "TRES" in setting else "-1"))


def test_per_job_limits(tree):
    mgr(tree, "modify", "user", "root", "where", "account=lim", "set", "MaxWall=5",
        "MaxTRESPerJob=cpu=2")
    j = sleeper(tree, "-t", "10")
    wait_for(lambda: reason(tree, j) == "AssocMaxWallDurationPerJobLimit")
    k = sleeper(tree, "-n", "3", "-t", "1")
    wait_for(lambda: reason(tree, k) == "AssocMaxCpuPerJobLimit")
    mgr(tree, "modify", "user", "root", "where", "account=lim", "set", "MaxWall=-1",
        "MaxTRESPerJob=cpu=-1")
    wait_state(tree, j, "RUNNING")
    wait_state(tree, k, "RUNNING")
    cancel(tree, j, k)


def test_qos_limits(tree):
    mgr(tree, "modify", "qos", "normal", "set", "MaxWall=5")
    j = sleeper(tree, "-t", "10")
    wait_for(lambda: reason(tree, j) == "QOSMaxWallDurationPerJobLimit")
    mgr(tree, "modify", "qos", "normal", "set", "MaxWall=-1", "MaxJobsPerUser=1")
    wait_state(tree, j, "RUNNING")
    k = sleeper(tree)
    wait_for(lambda: reason(tree, k) == "QOSMaxJobsPerUserLimit")
    cancel(tree, j)
    wait_state(tree, k, "RUNNING")
    cancel(tree, k)
    mgr(tree, "modify", "qos", "normal", "set", "MaxJobsPerUser=-1")


def test_limits_survive_a_restart(tree):
    mgr(tree, "modify", "user", "root", "where", "account=lim", "set", "MaxJobs=1")
    first = sleeper(tree)
    wait_state(tree, first, "RUNNING")
    tree.restart_slurmctld()
    tree.wait_ctld_up()
    second = sleeper(tree)
    wait_for(lambda: reason(tree, second) == "AssocMaxJobsLimit")
    cancel(tree, first)
    wait_state(tree, second, "RUNNING")
    cancel(tree, second)
    mgr(tree, "modify", "user", "root", "where", "account=lim", "set", "MaxJobs=-1")


def test_scontrol_update_account_and_qos(tree):
    j = submit(tree, "-o", "/dev/null", "-A", "lim", "-H", "--wrap", "true")
    r = tree.run("scontrol", "update", f"JobId={j}", "Account=nosuch", check=False)
    assert r.returncode == 1
    assert "Invalid account or account/partition combination specified" in r.stderr, r
    r = tree.run("scontrol", "update", f"JobId={j}", "QOS=nosuch", check=False)
    assert r.returncode == 1 and "Invalid qos specification" in r.stderr, r
    assert job(tree, j)["Account"] == "lim" and job(tree, j)["QOS"] == "normal"
    tree.run("scontrol", "update", f"JobId={j}", "Account=root")
    assert job(tree, j)["Account"] == "root"
    cancel(tree, j)


def test_sacct_shows_the_association_and_qos(tree):
    mgr(tree, "modify", "user", "root", "where", "account=lim", "set", "QOS+=high")
    j = submit(tree, "-o", "/dev/null", "-A", "lim", "-q", "high", "--wrap", "true")
    wait_state(tree, j, "COMPLETED")
    wait_for(lambda: f"{j}|lim|high" in tree.out("sacct", "-X", "-n", "-P", "-j", str(j),
                                                  "-o", "JobID,Account,QOS").split())


def test_memory_limit_and_qos_submit_limit(tree):
    mgr(tree, "modify", "account", "lim", "set", "GrpTRES=mem=1000")
    first = sleeper(tree, "--mem=800")
    wait_state(tree, first, "RUNNING")
    second = sleeper(tree, "--mem=800")
    wait_for(lambda: reason(tree, second) == "AssocGrpMemLimit")
    cancel(tree, first)
    wait_state(tree, second, "RUNNING")
    cancel(tree, second)
    mgr(tree, "modify", "account", "lim", "set", "GrpTRES=mem=-1")
    mgr(tree, "modify", "qos", "normal", "set", "MaxSubmitJobsPerUser=1")
    j = sleeper(tree, "-H")
    err = sbatch_fails(tree, "-A", "lim")
    assert "Job violates accounting/QOS policy" in err, err
    cancel(tree, j)
    mgr(tree, "modify", "qos", "normal", "set", "MaxSubmitJobsPerUser=-1")
