"""MaxJobCount: a controller holding as many jobs as slurm.conf allows
refuses the next submission for now (EAGAIN, logged as Slurm logs it) and
sbatch says so once, sleeps and tries again until a job has left."""

from cluster import Cluster, submit, wait_for

MAX = 3


def make_cluster():
    return Cluster(nodes=("n1",), name="maxjobs",
                   settings={"MaxJobCount": str(MAX), "MinJobAge": "1"})


def test_a_full_table_makes_sbatch_wait_until_a_job_leaves(cluster):
    ids = [submit(cluster, "-H", "--wrap", "true") for _ in range(MAX)]
    mark = cluster.log_mark()
    p = cluster.popen("sbatch", "--parsable", "-H", "--wrap", "true")
    cluster.wait_for_log(rf"_job_create: MaxJobCount limit from slurm.conf reached \({MAX}\)",
                         since=mark)
    assert p.poll() is None  # it waits, it did not give up
    cluster.run("scancel", ids[0])
    # the cancelled job leaves after MinJobAge, then the retry gets its place
    wait_for(lambda: str(ids[0]) not in cluster.out("squeue", "-h", "-t", "all", "-o", "%i"),
             timeout=30, what="the cancelled job purged")
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert int(out) > ids[-1]
    assert err.count("sbatch: error: Slurm temporarily unable to accept job, "
                     "sleeping and retrying\n") == 1, err
