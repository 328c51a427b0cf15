"""A thousand `slurmd -N` on this host: every node registers and is idle,
none flagged not responding, and 2,000 trivial jobs run across them.

Under ASan (SL_TIMEOUT_SCALE > 1) each daemon costs several times the
memory and CPU, so the cluster is 200 nodes and 400 jobs there: the same
paths (registrations arriving at once, a partition of many nodes, the
scheduler spreading jobs), on what the CI machine can hold beside the
other modules."""

import pytest

from cluster import TIMEOUT_SCALE, Cluster

pytestmark = pytest.mark.slow

NODES = 1000 if TIMEOUT_SCALE == 1 else 200
JOBS = 2 * NODES


def make_cluster():
    # a host this loaded answers late: no node may be flagged meanwhile
    return Cluster(nodes=[f"n{i}" for i in range(1, NODES + 1)], name="many",
                   settings={"SlurmdTimeout": 300})


def test_every_node_registers_and_the_jobs_run(cluster):
    c = cluster
    assert c.out("sinfo", "-h", "-o", "%t %D") == f"idle {NODES}\n"
    ids = []
    for _ in range(JOBS):
        ids.append(c.out("sbatch", "--parsable", "-o", "/dev/null", "--wrap", "true").strip())
    for i in range(0, JOBS, 1000):  # one wait names at most 1,000 jobs
        r = c.run("scontrol", "wait_job", ",".join(ids[i:i + 1000]), "state=COMPLETED", "all",
                  f"timeout={int(300 * TIMEOUT_SCALE)}", timeout=330 * TIMEOUT_SCALE,
                  check=False)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    # nothing was marked along the way
    assert c.out("sinfo", "-h", "-o", "%t %D") == f"idle {NODES}\n"
