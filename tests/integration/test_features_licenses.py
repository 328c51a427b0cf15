"""Node features and -C/--constraint, --prefer, licenses and --reservation
on a real cluster.

Four nodes of 4 CPUs: n1 and n2 are "a100,rack1" / "a100,rack2", n3 and n4
"v100,rack1" / "v100,rack2". Licenses=matlab:2,fluent:1.

* a constraint chooses among the nodes (&, |, counts, matching OR);
* a constraint no node could ever meet is refused with Slurm's words;
* --prefer takes its nodes when it can, and the constraint's otherwise;
* scontrol update AvailableFeatures/ActiveFeatures moves jobs, and is
  shown by sinfo %f/%b;
* licenses: counted while jobs run, a job waits with reason Licenses,
  scontrol show licenses, refused when unknown or too many;
* --reservation names a reservation that does not exist: refused.
"""

import pytest

from cluster import job, submit, wait_for, wait_state

CLUSTER_KWARGS = dict(
    nodes=("n1 Features=a100,rack1", "n2 Features=a100,rack2", "n3 Features=v100,rack1",
           "n4 Features=v100,rack2"),
    settings={"Licenses": "matlab:2,fluent:1"},
)


def sleeper(cluster, *args):
    return submit(cluster, "-o", "/dev/null", *args, "--wrap", "sleep 300")


def nodes_of(cluster, job_id):
    return wait_state(cluster, job_id, "RUNNING")["NodeList"]


@pytest.mark.parametrize("expr, nodes", [
    ("v100", "n[3-4]"),
    ("a100&rack2", "n2"),
    ("rack2&(a100|v100)", "n[2,4]"),
    ("[rack1|rack2]", "n[1,3]"),
    ("a100*1", "n[1-2]"),
    ("v100*2", "n[3-4]"),
])
def test_constraint_chooses_nodes(cluster, cancel_after, expr, nodes):
    n = 1 if expr == "a100&rack2" else 2
    j = sleeper(cluster, "-N", str(n), "-C", expr)
    cancel_after.append(j)
    assert nodes_of(cluster, j) == nodes
    assert job(cluster, j)["Features"] == expr


def test_counts_raise_the_node_count(cluster, cancel_after):
    j = sleeper(cluster, "-n2", "-C", "v100*2")
    cancel_after.append(j)
    assert nodes_of(cluster, j) == "n[3-4]"


def test_unknown_feature_is_refused(cluster):
    r = cluster.run("sbatch", "-C", "h100", "--wrap", "true", check=False)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "sbatch: error: Batch job submission failed: Invalid feature specification\n"
    for bad in ("a100|", "a100*0", "[rack1|rack2]|v100", "a100 rack1"):
        r = cluster.run("sbatch", "-C", bad, "--wrap", "true", check=False)
        assert r.returncode == 1 and "Invalid feature specification" in r.stderr, (bad, r.stderr)


def test_constraint_no_node_set_can_meet_is_refused(cluster):
    # both features exist, but no node has both
    r = cluster.run("sbatch", "-C", "a100&v100", "--wrap", "true", check=False)
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: Requested node "
                        "configuration is not available\n")
    # three nodes in one rack: there are two
    r = cluster.run("sbatch", "-N3", "-C", "[rack1|rack2]", "--wrap", "true", check=False)
    assert r.returncode == 1 and "Requested node configuration is not available" in r.stderr


def test_busy_feature_nodes_make_the_job_wait(cluster, cancel_after):
    a = sleeper(cluster, "-N2", "-n8", "-C", "a100")
    cancel_after.append(a)
    assert nodes_of(cluster, a) == "n[1-2]"
    b = sleeper(cluster, "-C", "a100")
    cancel_after.append(b)
    wait_for(lambda: job(cluster, b)["Reason"] == "Resources", timeout=20,
             what="the a100 job to wait for Resources")
    assert job(cluster, b)["JobState"] == "PENDING"
    # a v100 job behind it runs on the free nodes
    c = sleeper(cluster, "-C", "v100")
    cancel_after.append(c)
    assert nodes_of(cluster, c) == "n3"


def test_prefer_takes_its_nodes_when_it_can(cluster, cancel_after):
    j = sleeper(cluster, "--prefer", "v100")
    cancel_after.append(j)
    assert nodes_of(cluster, j) == "n3"
    cluster.run("scancel", str(j))
    wait_for(lambda: job(cluster, j)["JobState"] == "CANCELLED", timeout=20)
    # v100 nodes full: a job that prefers them runs elsewhere rather than wait
    k = sleeper(cluster, "-n8", "-N2", "-C", "v100")
    cancel_after.append(k)
    assert nodes_of(cluster, k) == "n[3-4]"
    l_ = sleeper(cluster, "--prefer", "v100", "-n4")
    cancel_after.append(l_)
    assert nodes_of(cluster, l_) == "n1"
    r = cluster.run("sbatch", "--prefer", "h100", "--wrap", "true", check=False)
    assert r.returncode == 1 and "Invalid feature specification" in r.stderr


def test_update_features_moves_jobs_and_shows_in_sinfo(cluster, cancel_after):
    try:
        r = cluster.run("scontrol", "update", "NodeName=n4", "AvailableFeatures=v100,rack2,ib",
                        check=False)
        assert (r.returncode, r.stderr) == (0, "")
        out = cluster.out("sinfo", "-h", "-N", "-n", "n4", "-o", "%N %f %b")
        assert out.split() == ["n4", "v100,rack2,ib", "v100,rack2,ib"]
        assert cluster.show_node("n4")["AvailableFeatures"] == "v100,rack2,ib"
        j = sleeper(cluster, "-C", "ib")
        cancel_after.append(j)
        assert nodes_of(cluster, j) == "n4"
        # active features are a subset of the available ones
        r = cluster.run("scontrol", "update", "NodeName=n4", "ActiveFeatures=v100,rack2",
                        check=False)
        assert (r.returncode, r.stderr) == (0, "")
        assert cluster.show_node("n4")["ActiveFeatures"] == "v100,rack2"
        # known (available), but active nowhere: it could not run
        r = cluster.run("sbatch", "-C", "ib", "--wrap", "true", check=False)
        assert r.returncode == 1
        assert "Requested node configuration is not available" in r.stderr
        r = cluster.run("scontrol", "update", "NodeName=n4", "ActiveFeatures=gpu", check=False)
        assert r.returncode == 1
        assert "Active features not subset of available features" in r.stderr
    finally:
        cluster.run("scontrol", "update", "NodeName=n4", "AvailableFeatures=v100,rack2")


def test_licenses_are_counted_and_make_jobs_wait(cluster, cancel_after):
    out = cluster.out("scontrol", "show", "licenses")
    assert out == ("LicenseName=matlab\n    Total=2 Used=0 Free=2 Reserved=0 Remote=no\n"
                   "LicenseName=fluent\n    Total=1 Used=0 Free=1 Reserved=0 Remote=no\n")
    a = sleeper(cluster, "-L", "matlab:2")
    cancel_after.append(a)
    wait_state(cluster, a, "RUNNING")
    assert job(cluster, a)["Licenses"] == "matlab:2"
    out = cluster.out("scontrol", "-o", "show", "licenses", "matlab")
    assert out == "LicenseName=matlab Total=2 Used=2 Free=0 Reserved=0 Remote=no\n"
    b = sleeper(cluster, "-L", "matlab")
    cancel_after.append(b)
    wait_for(lambda: job(cluster, b)["Reason"] == "Licenses", timeout=20,
             what="the second matlab job to wait for Licenses")
    assert cluster.out("squeue", "-h", "-j", str(b), "-o", "%r %W").split() == [
        "Licenses", "matlab"]
    # another license does not wait
    c = sleeper(cluster, "-L", "fluent")
    cancel_after.append(c)
    wait_state(cluster, c, "RUNNING")
    cluster.run("scancel", str(a))
    wait_state(cluster, b, "RUNNING")


def test_bad_licenses_are_refused(cluster):
    for spec in ("ansys", "matlab:3", "matlab:0", "matlab:x", "matlab,"):
        r = cluster.run("sbatch", "-L", spec, "--wrap", "true", check=False)
        assert (r.returncode, r.stdout) == (1, ""), spec
        assert r.stderr == ("sbatch: error: Batch job submission failed: Invalid license "
                            "specification\n"), spec


def test_unknown_reservation_is_refused(cluster):
    r = cluster.run("sbatch", "--reservation", "maint", "--wrap", "true", check=False)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == ("sbatch: error: Batch job submission failed: Requested reservation "
                        "is invalid\n")
    r = cluster.run("srun", "--reservation=maint", "true", check=False)
    assert r.returncode == 1 and "Requested reservation is invalid" in r.stderr


def test_licenses_survive_a_controller_restart(cluster, cancel_after):
    a = sleeper(cluster, "-L", "fluent")
    cancel_after.append(a)
    wait_state(cluster, a, "RUNNING")
    cluster.restart_slurmctld()
    out = cluster.out("scontrol", "-o", "show", "licenses", "fluent")
    assert out == "LicenseName=fluent Total=1 Used=1 Free=0 Reserved=0 Remote=no\n"
    rec = job(cluster, a)
    assert rec["Licenses"] == "fluent"
    j = sleeper(cluster, "-C", "rack2&v100")
    cancel_after.append(j)
    assert nodes_of(cluster, j) == "n4"
    assert job(cluster, j)["Features"] == "rack2&v100"


def test_reconfigure_changes_totals_and_keeps_what_jobs_hold(cluster, cancel_after):
    a = sleeper(cluster, "-L", "matlab")
    cancel_after.append(a)
    wait_state(cluster, a, "RUNNING")
    original = cluster.conf_path.read_text()
    try:
        cluster.conf_path.write_text(original.replace("Licenses=matlab:2,fluent:1",
                                                      "Licenses=matlab:5,comsol:3"))
        cluster.run("scontrol", "reconfigure")
        out = cluster.out("scontrol", "-o", "show", "licenses")
        assert out == ("LicenseName=matlab Total=5 Used=1 Free=4 Reserved=0 Remote=no\n"
                       "LicenseName=comsol Total=3 Used=0 Free=3 Reserved=0 Remote=no\n")
        r = cluster.run("sbatch", "-L", "fluent", "--wrap", "true", check=False)
        assert r.returncode == 1 and "Invalid license specification" in r.stderr
    finally:
        cluster.conf_path.write_text(original)
        cluster.run("scontrol", "reconfigure")
    out = cluster.out("scontrol", "-o", "show", "licenses", "matlab")
    assert out == "LicenseName=matlab Total=2 Used=1 Free=1 Reserved=0 Remote=no\n"
