"""sprio on a priority/multifactor cluster (2 nodes of 4 CPUs; partitions
debug PriorityJobFactor=1 and high PriorityJobFactor=4; weights age 6000
over PriorityMaxAge=1 minute, job size 800, partition 2000, TRES cpu=800;
fairshare and QOS unweighted, so their columns are left out).

A running job holds the whole cluster; behind it, hand-computed:
* A: debug, -N1 -n2, --nice=100: job size (1/2 + 2/8)/2 x 800 = 300,
  partition 1/4 x 2000 = 500, TRES 2/8 x 800 = 200, minus 100: 900;
* B: high, -N1 -n1: 250 + 2000 + 100 = 2350.
Age is 0 when each is computed at submit, and grows once recomputed.
"""

import time

import pytest

from cluster import Cluster, submit, wait_for, wait_state

WEIGHTS = {
    "PriorityType": "priority/multifactor",
    "PriorityWeightAge": 6000,
    "PriorityMaxAge": 1,
    "PriorityWeightJobSize": 800,
    "PriorityWeightPartition": 2000,
    "PriorityWeightTRES": "cpu=800",
}

# Slurm's default format leaves out FAIRSHARE, ASSOC and QOS: nobody weighs them
HEADER = (f"{'JOBID':>15} {'PARTITION':<9} {'PRIORITY':>10} {'SITE':>10} {'AGE':>10} "
          f"{'JOBSIZE':>10} {'PARTITION':>10} {'TRES':>20}")


def make_cluster():
    return Cluster(
        nodes=["n1", "n2"],
        partitions=["debug Nodes=n[1-2] Default=YES PriorityJobFactor=1 State=UP",
                    "high Nodes=n[1-2] PriorityJobFactor=4 State=UP"],
        settings=WEIGHTS,
        name="sprio",
    )


def row(jid, part, prio, age, js, pf, tres):
    return (f"{jid:>15} {part:<9} {prio:>10} {'0':>10} {age:>10} {js:>10} {pf:>10} "
            f"{tres:>20}")


@pytest.fixture(scope="module")
def jobs(cluster):
    blocker = submit(cluster, "-N2", "--exclusive", "--wrap", "sleep 300")
    wait_state(cluster, blocker, "RUNNING")
    a = submit(cluster, "-p", "debug", "-N1", "-n2", "--nice=100", "--wrap", "sleep 1")
    b = submit(cluster, "-p", "high", "-N1", "-n1", "--wrap", "sleep 1")
    return {"blocker": blocker, "a": a, "b": b}


def test_columns_match_hand_computed_values(cluster, jobs):
    out = cluster.out("sprio")
    assert out == "\n".join([
        HEADER,
        row(jobs["a"], "debug", 900, 0, 300, 500, "cpu=200"),
        row(jobs["b"], "high", 2350, 0, 250, 2000, "cpu=100"),
    ]) + "\n"


def test_priority_in_squeue_and_scontrol_is_sprios_sum(cluster, jobs):
    for key, want in (("a", 900), ("b", 2350)):
        assert cluster.out("squeue", "-h", "-j", jobs[key], "-o", "%Q").strip() == str(want)
        show = cluster.out("scontrol", "show", "job", jobs[key])
        assert f"Priority={want} " in show


def test_weights_line(cluster, jobs):
    out = cluster.out("sprio", "-w")
    weights = (f"{'Weights':>15} {'':<9} {'':>10} {'1':>10} {6000:>10} {800:>10} {2000:>10} "
               f"{'cpu=800':>20}")
    assert out == HEADER + "\n" + weights + "\n"


def test_normalized_factors(cluster, jobs):
    lines = cluster.out("sprio", "-n", "-h", f"-j{jobs['a']}").splitlines()
    assert len(lines) == 1
    f = lines[0].split()
    # JOBID PARTITION PRIORITY AGE JOBSIZE PARTITION TRES (no SITE when normalized)
    assert f[0] == str(jobs["a"]) and f[1] == "debug"
    assert f[2] == f"{900 / 0xffffffff:16.14f}"[:10]  # %10y: left-justified, cut
    assert f[3:6] == ["0.0000000", "0.3750000", "0.2500000"]
    assert f[6] == "cpu=0.25"


def test_long_format_shows_user_and_nice(cluster, jobs):
    out = cluster.out("sprio", "-l", f"--jobs={jobs['a']},{jobs['b']}").splitlines()
    # -l shows every factor, weighed or not
    assert out[0].split() == ["JOBID", "PARTITION", "USER", "PRIORITY", "SITE", "AGE", "ASSOC",
                              "FAIRSHARE", "JOBSIZE", "PARTITION", "QOS", "NICE", "TRES"]
    a = out[1].split()
    assert a[0] == str(jobs["a"]) and a[2] == "root" and a[3] == "900"
    assert a[5:13] == ["0", "0", "0", "300", "500", "0", "100", "cpu=200"]
    assert out[2].split()[11] == "0"


def test_filters(cluster, jobs):
    assert cluster.out("sprio", "-h", "-o", "%i", "-p", "high").split() == [str(jobs["b"])]
    assert cluster.out("sprio", "-h", "-o", "%i", f"-j{jobs['b']}").split() == [str(jobs["b"])]
    assert cluster.out("sprio", "-h", "-o", "%i", "-u", "root").split() == [
        str(jobs["a"]), str(jobs["b"])]
    assert cluster.out("sprio", "-h", "-o", "%i", "-S", "-y").split() == [
        str(jobs["b"]), str(jobs["a"])]
    assert cluster.out("sprio", "-h", "-o", "%c|%i|%u|%N", f"-j{jobs['a']}").split() == [
        f"test|{jobs['a']}|root|100"]
    # the running job is not pending: not listed
    assert cluster.out("sprio", "-h", f"-j{jobs['blocker']}") == (
        "Unable to find jobs matching user/id(s) specified\n")
    # with -u, the default format gains USER
    assert cluster.out("sprio", "-u", "root").splitlines()[0].split()[:3] == [
        "JOBID", "PARTITION", "USER"]
    r = cluster.run("sprio", "-S", "z", check=False)
    assert r.returncode == 1 and "Invalid sort specification: z" in r.stderr
    r = cluster.run("sprio", "-u", "no_such_user_xyz", check=False)
    assert r.returncode == 1 and "Invalid user: no_such_user_xyz" in r.stderr
    r = cluster.run("sprio", "-jabc", check=False)
    assert r.returncode == 1 and "Invalid job id" in r.stderr


def test_age_grows_when_recomputed(cluster, jobs):
    t0 = time.time()
    wait_for(lambda: time.time() - t0 >= 2, what="two seconds of age")
    # a nice update recomputes the job's priority now
    cluster.run("scontrol", "update", f"jobid={jobs['a']}", "nice=100")
    f = cluster.out("sprio", "-h", f"-j{jobs['a']}").split()
    age = int(f[4])
    assert age >= 200  # 100 a second of waiting
    assert int(f[2]) == age + 300 + 500 + 200 - 100
    assert cluster.out("squeue", "-h", "-j", jobs["a"], "-o", "%Q").strip() == f[2]


def test_basic_priority_is_refused_with_slurms_text(cluster, tmp_path):
    conf = tmp_path / "slurm.conf"
    conf.write_text(cluster.conf_path.read_text().replace("priority/multifactor",
                                                          "priority/basic"))
    r = cluster.run("sprio", check=False, env={"SLURM_CONF": str(conf)})
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == ("You are not running a supported priority plugin\n(priority/basic).\n"
                        "Only 'priority/multifactor' is supported.\n")
