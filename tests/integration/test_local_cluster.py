"""The cluster of `make run` (etc/local/*.in) comes up as the README says:
c1-c2 in the default cpu-queue, g1-g2 with 4 fake GPUs in gpu-queue, every
node 2 x 32 cores and about 256 GB."""

from cluster import REPO, Cluster


def make_cluster():
    # scripts/local-cluster.sh picks these by what the machine allows
    conf = ((REPO / "etc/local/slurm.conf.in").read_text()
            .replace("@PROCTRACK@", "proctrack/linuxproc").replace("@TASK_PLUGIN@", "task/none")
            .replace("@JOB_CONTAINER@", "job_container/none"))
    return Cluster(conf_template=conf,
                   gres_template=(REPO / "etc/local/gres.conf.in").read_text(), name="local")


def test_the_local_cluster_has_its_four_nodes_idle(cluster):
    assert cluster.nodes == ["c1", "c2", "g1", "g2"]
    r = cluster.run("sinfo")
    assert r.stdout == (
        "PARTITION  AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
        "cpu-queue*    up 1-00:00:00      2   idle c[1-2]\n"
        "gpu-queue     up 1-00:00:00      2   idle g[1-2]\n"
    )


def test_gpu_nodes_report_the_configured_hardware(cluster):
    g1 = cluster.show_node("g1")
    assert (g1["Sockets"], g1["CoresPerSocket"], g1["ThreadsPerCore"]) == ("2", "32", "1")
    assert (g1["CPUTot"], g1["RealMemory"], g1["Gres"]) == ("64", "257000", "gpu:4")
    assert g1["CfgTRES"] == "cpu=64,mem=257000M,billing=64,gres/gpu=4"
    c1 = cluster.show_node("c1")
    assert (c1["CPUTot"], c1["Gres"], c1["Partitions"]) == ("64", "(null)", "cpu-queue")
