"""MPI through srun: --mpi=pmi2 gives each task a PMI server in its stepd
(PMI-1 and PMI-2 wire protocols on PMI_FD), --mpi=pmix a libpmix server
(Open MPI); the key space, or PMIx's blobs, cross the step's nodes
through srun at every fence.

The rings are built in the test with Debian's mpicc.mpich (MPICH) and
mpicc.openmpi (Open MPI); each is skipped with a message where its MPI
(or, for Open MPI, libpmix in the build) is not installed. The PMI-2 cases drive the wire
protocol from a small Python client, so they need no MPI library.
"""

import re
import shutil
import subprocess
import textwrap
import time

import pytest

from cluster import Cluster, wait_for

# MPICH's wrapper by its own name: with Open MPI installed too, plain
# "mpicc" may be Open MPI's (Debian's alternatives), which speaks PMIx
MPICC = shutil.which("mpicc.mpich") or shutil.which("mpicc")
MPICC_OMPI = shutil.which("mpicc.openmpi")

RING = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, token = -1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		token = 1000;
		MPI_Send(&token, 1, MPI_INT, 1 % size, 0, MPI_COMM_WORLD);
		MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		token++;
		MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
	}
	printf("rank %d of %d on %s: token %d\n", rank, size, getenv("SLURMD_NODENAME"), token);
	MPI_Finalize();
	return 0;
}
"""

# A PMI-2 client: fullinit, a put with a ';' in it, the fence, the next
# rank's key, the process mapping, finalize.
PMI2_CLIENT = textwrap.dedent(r"""
    import os, sys
    fd = int(os.environ["PMI_FD"])

    def cmd(text):
        os.write(fd, b"%-6d" % len(text) + text.encode())
        n = int(os.read(fd, 6))
        body = b""
        while len(body) < n:
            body += os.read(fd, n - len(body))
        out, name, val, i, s = {}, "", "", 0, body.decode()
        fields = s.replace(";;", "\0").split(";")
        for f in fields:
            if "=" in f:
                k, v = f.split("=", 1)
                out[k] = v.replace("\0", ";")
        return out

    r = cmd("cmd=fullinit;pmijobid=x;pmirank=%s;threaded=FALSE;" % os.environ["PMI_RANK"])
    rank, size = int(r["rank"]), int(r["size"])
    assert r["rc"] == "0"
    jobid = cmd("cmd=job-getid;")["jobid"]
    assert cmd("cmd=kvs-put;key=k%d;value=v%d;;x;" % (rank, rank))["rc"] == "0"
    assert cmd("cmd=kvs-fence;")["rc"] == "0"
    got = cmd("cmd=kvs-get;jobid=%s;srcid=-1;key=k%d;" % (jobid, (rank + 1) % size))
    miss = cmd("cmd=kvs-get;jobid=%s;srcid=-1;key=nope;" % jobid)
    mapping = cmd("cmd=info-getjobattr;key=PMI_process_mapping;")
    assert cmd("cmd=finalize;")["rc"] == "0"
    print("rank %d size %d jobid %s next %s=%s missing %s mapping %s" % (
        rank, size, jobid, got["found"], got.get("value"), miss["found"], mapping["value"]))
""")


def make_cluster():
    return Cluster(nodes=("n1", "n2"), name="mpi")


def build_ring(cluster, cc, name):
    """The ring program built with the MPI compiler wrapper cc."""
    src = cluster.dir / "ring.c"
    src.write_text(RING)
    subprocess.run([cc, "-o", str(cluster.dir / name), str(src)], check=True,
                   capture_output=True)
    return cluster.dir / name


def has_pmix(cluster):
    """This build's srun offers --mpi=pmix (built with libpmix)."""
    return "\tpmix\n" in cluster.out("srun", "--mpi=list")


@pytest.fixture(scope="module")
def ring(cluster):
    if not MPICC:
        pytest.skip("no mpicc: install Debian's mpich and libmpich-dev")
    return build_ring(cluster, MPICC, "ring")


@pytest.fixture(scope="module")
def ring_ompi(cluster):
    if not MPICC_OMPI:
        pytest.skip("no mpicc.openmpi: install Debian's openmpi-bin and libopenmpi-dev")
    if not has_pmix(cluster):
        pytest.skip("built without libpmix (libpmix-dev): no --mpi=pmix")
    return build_ring(cluster, MPICC_OMPI, "ring_ompi")


def ring_lines(out):
    return sorted((l for l in out.splitlines() if l.startswith("rank ")),
                  key=lambda l: int(l.split()[1]))


def test_openmpi_ring_over_pmix(cluster, ring_ompi):
    # Both test nodes are this one host: Open MPI's shared-memory transport
    # (vader) would name its segments alike on both (host name and local
    # rank), so the ranks talk TCP here, as across real nodes.
    r = cluster.run("srun", "--mpi=pmix", "-N2", "-n8", str(ring_ompi), timeout=120,
                    env={"OMPI_MCA_btl": "self,tcp"})
    want = [f"rank {i} of 8 on {'n1' if i < 4 else 'n2'}: token {1000 + (i or 7)}"
            for i in range(8)]
    assert ring_lines(r.stdout) == want, r.stdout + r.stderr
    # the server's files in the spool go with the step's stepds
    wait_for(lambda: not list((cluster.dir / "spool").glob("*/pmix.*")),
             what="the PMIx servers' directories removed")


ABORT = r"""
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 3)
		MPI_Abort(MPI_COMM_WORLD, 7);
	sleep(120);
	MPI_Finalize();
	return 0;
}
"""


def test_openmpi_abort_ends_the_step(cluster, ring_ompi):
    src = cluster.dir / "abort.c"
    src.write_text(ABORT)
    subprocess.run([MPICC_OMPI, "-o", str(cluster.dir / "abort"), str(src)], check=True,
                   capture_output=True)
    mark = cluster.log_mark("slurmd-n2")
    t0 = time.monotonic()
    r = cluster.run("srun", "--mpi=pmix", "-N2", "-n4", str(cluster.dir / "abort"),
                    timeout=90, check=False, env={"OMPI_MCA_btl": "self,tcp"})
    assert r.returncode != 0 and time.monotonic() - t0 < 60, r.stderr
    cluster.wait_for_log("called PMIx_Abort", daemon="slurmd-n2", since=mark)


def test_mpich_ring_over_two_nodes(cluster, ring):
    r = cluster.run("srun", "--mpi=pmi2", "-N2", "-n8", str(ring), timeout=120)
    lines = sorted(r.stdout.splitlines(), key=lambda l: int(l.split()[1]))
    want = [f"rank {i} of 8 on {'n1' if i < 4 else 'n2'}: token {1000 + (i or 7)}"
            for i in range(8)]
    assert lines == want, r.stdout + r.stderr


def test_mpich_ring_with_cyclic_and_plane_layouts(cluster, ring):
    # ranks dealt round-robin (and in planes of 2): MPICH reads the real
    # layout from PMI_process_mapping, so each rank is where SLURMD_NODENAME says
    for dist, node_of in (("cyclic", lambda i: i % 2), ("plane=2", lambda i: i // 2 % 2)):
        r = cluster.run("srun", "--mpi=pmi2", "-N2", "-n8", "-m", dist, str(ring), timeout=120)
        want = [f"rank {i} of 8 on n{1 + node_of(i)}: token {1000 + (i or 7)}"
                for i in range(8)]
        assert ring_lines(r.stdout) == want, dist + r.stdout + r.stderr


def test_openmpi_ring_over_pmix_cyclic(cluster, ring_ompi):
    r = cluster.run("srun", "--mpi=pmix", "-N2", "-n8", "-m", "cyclic", str(ring_ompi),
                    timeout=120, env={"OMPI_MCA_btl": "self,tcp"})
    want = [f"rank {i} of 8 on n{1 + i % 2}: token {1000 + (i or 7)}" for i in range(8)]
    assert ring_lines(r.stdout) == want, r.stdout + r.stderr


def test_mpi_default_and_slurm_mpi_type(cluster, ring):
    # SLURM_MPI_TYPE is what srun reads like --mpi (and what MpiDefault sets)
    r = cluster.run("srun", "-N2", "-n4", str(ring), env={"SLURM_MPI_TYPE": "pmi2"},
                    timeout=120)
    assert len(r.stdout.splitlines()) == 4 and "token 1003" in r.stdout


def test_pmi2_wire_protocol(cluster):
    client = cluster.dir / "pmi2_client.py"
    client.write_text(PMI2_CLIENT)
    out = cluster.out("srun", "--mpi=pmi2", "-N2", "-n4", "python3", str(client))
    lines = sorted(out.splitlines())
    assert len(lines) == 4, out
    for i, line in enumerate(lines):
        m = re.fullmatch(r"rank (\d) size 4 jobid (\d+\.0) next TRUE=(\S+) missing FALSE "
                         r"mapping (\S+)", line)
        assert m, line
        assert int(m.group(1)) == i and m.group(3) == f"v{(i + 1) % 4};x"
        assert m.group(4) == "(vector,(0,1,3),(1,1,1))"  # 3 tasks on n1, 1 on n2, as Slurm lays -N2 -n4 out
    # -m cyclic on the same 3 + 1 cpus: 0 and 2 and 3 on n1, 1 on n2
    out = cluster.out("srun", "--mpi=pmi2", "-N2", "-n4", "-m", "cyclic", "python3", str(client))
    assert {l.rsplit(" ", 1)[1] for l in out.splitlines()} == {"(vector,(0,2,1),(0,1,2))"}, out


def test_environment_of_the_tasks(cluster):
    out = cluster.out("srun", "--mpi=pmi2", "-N2", "-n2", "sh", "-c",
                      "echo $SLURM_PROCID $PMI_RANK $PMI_SIZE $PMI_FD $SLURM_MPI_TYPE")
    assert sorted(out.splitlines()) == ["0 0 2 3 pmi2", "1 1 2 3 pmi2"]
    # without --mpi there is no PMI server and no PMI variables
    out = cluster.out("srun", "-n1", "sh", "-c", "echo [$PMI_FD$SLURM_MPI_TYPE]")
    assert out == "[]\n"


def test_a_task_sending_junk_loses_only_its_pmi_connection(cluster):
    junk = textwrap.dedent("""
        import os
        fd = int(os.environ["PMI_FD"])
        try:
            os.write(fd, b"x" * 20000)  # no newline: over every bound
            print("closed" if os.read(fd, 10) == b"" else "answered")
        except ConnectionResetError:  # closed with our bytes unread
            print("closed")
    """)
    out = cluster.out("srun", "--mpi=pmi2", "-n1", "python3", "-c", junk)
    assert out == "closed\n"
    cluster.wait_for_log("malformed or oversized PMI command", daemon="slurmd-n1")
    # the node still runs steps
    assert cluster.out("srun", "--mpi=pmi2", "-n1", "true") == ""


def test_pmi1_abort_ends_the_whole_step(cluster):
    # rank 3 (alone on n2) aborts; the ranks on n1 would sleep for minutes
    prog = ("import os, time\n"
            "if os.environ['PMI_RANK'] == '3':\n"
            "    os.write(int(os.environ['PMI_FD']), b'cmd=abort exitcode=5\\n')\n"
            "time.sleep(120)\n")
    t0 = time.monotonic()
    r = cluster.run("srun", "--mpi=pmi2", "-N2", "-n4", "python3", "-c", prog, timeout=90,
                    check=False)
    assert r.returncode != 0 and time.monotonic() - t0 < 60, r.stderr
    assert "n2: task 3 called MPI abort (exit code 5)" in r.stderr, r.stderr


def test_mpi_list_and_bad_types(cluster):
    out = cluster.out("srun", "--mpi=list")
    assert out in ("MPI plugin types are...\n\tnone\n\tpmi2\n",
                   "MPI plugin types are...\n\tnone\n\tpmi2\n\tpmix\n"
                   "specific pmix plugin versions available: pmix_v4\n")
    r = cluster.run("srun", "--mpi=foo", "true", check=False)
    assert r.returncode == 1
    assert r.stderr.splitlines()[-1] == (
        "srun: error: Invalid MPI type 'foo', --mpi=list for acceptable types")
    if not has_pmix(cluster):  # a build without libpmix says so
        r = cluster.run("srun", "--mpi=pmix", "true", check=False)
        assert r.returncode == 1 and "mpi/pmix" in r.stderr
