"""Node-level task distribution (srun -m block|cyclic|plane=N|arbitrary,
SLURM_HOSTFILE, SLURM_DISTRIBUTION from sbatch/salloc -m): which node
runs each task, with the ids, counts, labels, stdin routing, output files
and exit reports that follow from it.

Steps run inside an allocation of two whole 4-cpu nodes, so the task
counts are the distribution's alone: -n5 is 3 + 2 for block and cyclic.
"""

import re

import pytest

from cluster import Cluster, submit, wait_state

VARS = ("SLURM_PROCID", "SLURMD_NODENAME", "SLURM_NODEID", "SLURM_LOCALID",
        "SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE", "SLURM_DISTRIBUTION")


def make_cluster():
    return Cluster(nodes=("n1", "n2", "n3"), name="dist")


def in_alloc(cluster, *srun_args, env=None, input=None, check=True):
    """srun srun_args inside salloc -N2 --ntasks-per-node=4 (n1 and n2)."""
    return cluster.run("salloc", "-N2", "-w", "n[1-2]", "--ntasks-per-node=4", "srun",
                       *srun_args, env=env, input=input, check=check, timeout=60)


def tasks(stdout):
    """{task: {var: value}} from `srun -l sh -c 'echo VAR=$VAR ...'`."""
    out = {}
    for line in stdout.splitlines():
        m = re.fullmatch(r"\s*(\d+): (\w+)=(.*)", line)
        assert m, f"unexpected line {line!r}"
        out.setdefault(int(m.group(1)), {})[m.group(2)] = m.group(3)
    return out


def layout(cluster, *args, env=None):
    """srun -l ARGS printing VARS of each task: {task: {var: value}}."""
    script = " ; ".join(f'echo {v}=${v}' for v in VARS)
    return tasks(in_alloc(cluster, "-l", *args, "sh", "-c", script, env=env).stdout)


def expect(got, nodes, tpn, dist):
    """nodes: the node name of each task in order; every task's NODEID and
    LOCALID follow from it (n1 is node 0)."""
    assert sorted(got) == list(range(len(nodes))), got
    seen = {}
    for t, node in enumerate(nodes):
        v = got[t]
        assert v["SLURM_PROCID"] == str(t)
        assert v["SLURMD_NODENAME"] == node, (t, got)
        assert v["SLURM_NODEID"] == str(int(node[1:]) - 1), (t, got)
        assert v["SLURM_LOCALID"] == str(seen.get(node, 0)), (t, got)
        seen[node] = seen.get(node, 0) + 1
        assert v["SLURM_STEP_TASKS_PER_NODE"] == tpn and v["SLURM_TASKS_PER_NODE"] == tpn
        assert v["SLURM_DISTRIBUTION"] == dist


def test_block_is_the_default(cluster):
    expect(layout(cluster, "-n5"), ["n1", "n1", "n1", "n2", "n2"], "3,2", "block")


def test_cyclic_deals_tasks_round_robin(cluster):
    expect(layout(cluster, "-n5", "-m", "cyclic"), ["n1", "n2", "n1", "n2", "n1"], "3,2",
           "cyclic")
    # the socket level keeps working beside it
    expect(layout(cluster, "-n4", "-m", "cyclic:block"), ["n1", "n2", "n1", "n2"], "2(x2)",
           "cyclic:block")
    expect(layout(cluster, "-n3", "-m", "block:cyclic"), ["n1", "n1", "n2"], "2,1",
           "block:cyclic")


def test_slurm_distribution_input_variable(cluster):
    got = layout(cluster, "-n4", env={"SLURM_DISTRIBUTION": "cyclic"})
    expect(got, ["n1", "n2", "n1", "n2"], "2(x2)", "cyclic")


def test_plane_deals_blocks_of_n(cluster):
    expect(layout(cluster, "-n5", "-m", "plane=2"), ["n1", "n1", "n2", "n2", "n1"], "3,2",
           "plane=2")
    # planes set the counts: 4 + 2, where block would be 3 + 3
    expect(layout(cluster, "-n6", "-m", "plane=4"), ["n1"] * 4 + ["n2"] * 2, "4,2", "plane=4")


def test_arbitrary_with_slurm_hostfile(cluster):
    hosts = cluster.dir / "hosts"
    hosts.write_text("n2\nn1\nn1\nn2\nn2\n")
    got = layout(cluster, env={"SLURM_HOSTFILE": str(hosts)})
    expect(got, ["n2", "n1", "n1", "n2", "n2"], "2,3", "arbitrary")
    # -n shorter than the file: its first hosts
    got = layout(cluster, "-n3", env={"SLURM_HOSTFILE": str(hosts)})
    expect(got, ["n2", "n1", "n1"], "2,1", "arbitrary")


def test_arbitrary_with_a_node_list(cluster):
    got = layout(cluster, "-m", "arbitrary", "-w", "n2,n1,n2")
    expect(got, ["n2", "n1", "n2"], "1,2", "arbitrary")
    # arbitrary without a list is block
    expect(layout(cluster, "-n3", "-m", "arbitrary"), ["n1", "n1", "n2"], "2,1", "arbitrary")


def test_arbitrary_beyond_what_a_node_holds_is_refused(cluster):
    r = in_alloc(cluster, "-m", "arbitrary", "-w", "n1,n1,n1,n1,n1", "true", check=False)
    assert r.returncode != 0
    assert "Requested node configuration is not available" in r.stderr, r.stderr


def test_labels_stdin_and_output_files_follow_the_layout(cluster, tmp_path_factory):
    # --input=1: only task 1 (on n2 under cyclic) reads stdin
    r = in_alloc(cluster, "-n4", "-m", "cyclic", "-l", "--input=1", "sh", "-c",
                 'read x && echo "$x on $SLURMD_NODENAME" || echo "none on $SLURMD_NODENAME"',
                 input="hello\n")
    assert sorted(r.stdout.splitlines()) == [
        "0: none on n1", "1: hello on n2", "2: none on n1", "3: none on n2"], r.stdout
    # -o with %t: task 3 ran on n2
    d = tmp_path_factory.mktemp("out")
    d.chmod(0o777)
    in_alloc(cluster, "-n4", "-m", "cyclic", "-o", str(d / "out-%t"), "printenv",
             "SLURMD_NODENAME")
    assert [(d / f"out-{t}").read_text() for t in range(4)] == ["n1\n", "n2\n", "n1\n", "n2\n"]


def test_exit_reports_name_each_nodes_tasks(cluster):
    r = in_alloc(cluster, "-n4", "-m", "cyclic", "sh", "-c", "exit $((SLURM_PROCID % 2 * 3))",
                 check=False)
    assert r.returncode == 3
    assert re.search(r"error: n2: tasks 1,3: Exited with exit code 3", r.stderr), r.stderr
    assert "n1: task" not in r.stderr


def test_sbatch_and_salloc_pass_distribution_to_steps(cluster, tmp_path_factory):
    d = tmp_path_factory.mktemp("batch")
    d.chmod(0o777)
    job_id = submit(cluster, "-D", d, "-N2", "-w", "n[1-2]", "--ntasks-per-node=2", "-m",
                    "cyclic", "-o", "out", "--wrap", "srun -l printenv SLURMD_NODENAME")
    wait_state(cluster, job_id, "COMPLETED")
    assert sorted((d / "out").read_text().splitlines()) == [
        "0: n1", "1: n2", "2: n1", "3: n2"]
    r = cluster.run("salloc", "-N2", "-w", "n[1-2]", "--ntasks-per-node=2", "-m", "plane=3",
                    "sh", "-c", "echo $SLURM_DISTRIBUTION; srun -l printenv SLURMD_NODENAME")
    lines = r.stdout.splitlines()
    assert lines[0] == "plane=3"
    # plane=3 on 2 + 2 cpus: each node takes what it holds of a plane
    assert sorted(lines[1:]) == ["0: n1", "1: n1", "2: n2", "3: n2"], r.stdout


@pytest.mark.parametrize("cmd", ["srun", "sbatch", "salloc"])
def test_bad_distribution_is_refused(cluster, cmd):
    r = cluster.run(cmd, "-m", "plane=0", "--wrap" if cmd == "sbatch" else "true",
                    *(["true"] if cmd == "sbatch" else []), check=False)
    assert r.returncode != 0
    assert "Invalid --distribution specification" in r.stderr, r.stderr
