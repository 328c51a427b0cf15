"""Options that change where or how a job runs are acted on or refused,
never ignored (sbatch, salloc, srun):

* --tmp, --mincpus, --sockets-per-node, --cores-per-socket and -B choose
  nodes (and --mincpus the cpus per node);
* --priority (operators), --uid/--gid (root), --nodefile are acted on;
* --ntasks-per-core=1, --mem-bind=none and --use-min-nodes are what
  placement does anyway; other values of the first two are refused;
* --contiguous, --overcommit, --switches, --deadline, --reboot,
  --container and the rest (srun's --bcast, -Z, --het-group,
  --resv-ports) are refused with an error naming them, on
  the command line and in #SBATCH lines, and sbatch --help lists them
  apart.

n1, n2: 1 socket x 4 cores, TmpDisk 0; n3: 2 sockets x 2 cores, TmpDisk
4096 MB.
"""

import pytest

from cluster import job, submit, wait_state

CLUSTER_KWARGS = dict(
    nodes=("n1", "n2", "n3 SocketsPerBoard=2 CoresPerSocket=2 TmpDisk=4096"),
)


def sleeper(cluster, *args, **kw):
    return submit(cluster, "-o", "/dev/null", *args, "--wrap", "sleep 300", **kw)


@pytest.mark.parametrize("args", [
    ("--tmp=2G",), ("--sockets-per-node=2",), ("--cores-per-socket=2", "-w", "n3"),
    ("-B", "2:2",), ("-B", "2",), ("--extra-node-info=2:*:*",),
])
def test_hardware_options_choose_nodes(cluster, cancel_after, args):
    j = sleeper(cluster, *args)
    cancel_after.append(j)
    assert wait_state(cluster, j, "RUNNING")["NodeList"] == "n3"


def test_tmp_shows_and_too_much_is_refused(cluster, cancel_after):
    j = sleeper(cluster, "--tmp=3000")
    cancel_after.append(j)
    rec = wait_state(cluster, j, "RUNNING")
    assert rec["MinTmpDiskNode"] == "3000M"
    r = cluster.run("sbatch", "--tmp=8G", "--wrap", "true", check=False)
    assert r.returncode == 1
    assert "Requested node configuration is not available" in r.stderr


def test_mincpus_gives_each_node_that_many(cluster, cancel_after):
    j = sleeper(cluster, "-w", "n1", "--mincpus=3")
    cancel_after.append(j)
    rec = wait_state(cluster, j, "RUNNING")
    assert rec["NumCPUs"] == "3" and rec["MinCPUsNode"] == "3"
    # one cpu is left on n1: a --mincpus=2 job goes elsewhere
    k = sleeper(cluster, "-x", "n3", "--mincpus=2")
    cancel_after.append(k)
    assert wait_state(cluster, k, "RUNNING")["NodeList"] == "n2"


def test_threads_of_B_are_refused(cluster):
    r = cluster.run("sbatch", "-B", "1:1:2", "--wrap", "true", check=False)
    assert r.returncode == 255
    assert "-B's threads per core (--threads-per-core) is not supported" in r.stderr


REFUSED = [
    ("--contiguous",), ("--overcommit",), ("-O",), ("--spread-job",), ("--switches=1",),
    ("--core-spec=1",), ("--thread-spec=1",), ("--threads-per-core=1",),
    ("--cpu-freq=high",), ("--gpu-freq=high",), ("--deadline=now+1hour",),
    ("--batch=a100",), ("--ntasks-per-core=2",), ("--mem-bind=local",),
    ("--reboot",), ("--container=/srv/bundle",), ("--context=unconfined_u",),
]


@pytest.mark.parametrize("opt", REFUSED, ids=lambda o: o[0])
def test_refused_options_name_themselves(cluster, opt):
    name = opt[0].split("=")[0]
    if name == "-O":
        name = "--overcommit"
    r = cluster.run("sbatch", *opt, "--wrap", "true", check=False)
    assert (r.returncode, r.stdout) == (255, ""), opt
    assert r.stderr.startswith(f"sbatch: error: {name}"), r.stderr
    assert "is not supported by this cluster" in r.stderr


def test_refused_in_script_and_for_salloc_and_srun(cluster, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\n#SBATCH --contiguous\ntrue\n")
    r = cluster.run("sbatch", str(script), check=False)
    assert r.returncode == 255 and "--contiguous is not supported" in r.stderr
    r = cluster.run("srun", "--overcommit", "true", check=False)
    assert r.returncode == 255 and "srun: error: --overcommit is not supported" in r.stderr
    r = cluster.run("salloc", "--contiguous", "true", check=False)
    assert r.returncode == 255 and "salloc: error: --contiguous is not supported" in r.stderr


@pytest.mark.parametrize("opt, name", [
    (("--bcast=/tmp/x",), "--bcast"), (("-Z", "-w", "n1"), "-Z/--no-allocate"),
    (("--het-group=0",), "--het-group"),
    (("--resv-ports",), "--resv-ports"),
], ids=lambda o: o if isinstance(o, str) else o[0])
def test_srun_refuses_what_it_cannot_honour(cluster, opt, name):
    r = cluster.run("srun", *opt, "true", check=False)
    assert (r.returncode, r.stdout) == (255, ""), opt
    assert r.stderr.startswith(f"srun: error: {name}"), r.stderr
    assert "is not supported by this cluster" in r.stderr


def test_what_placement_does_anyway_is_accepted(cluster):
    for opt in ("--ntasks-per-core=1", "--mem-bind=none", "--use-min-nodes"):
        r = cluster.run("srun", opt, "true", check=False)
        assert (r.returncode, r.stderr) == (0, ""), opt


def test_help_lists_refused_options_apart(cluster):
    out = cluster.out("sbatch", "--help")
    refused = out.index("Refused with an error")
    ignored = out.index("Accepted for compatibility, not acted on (")
    help_ = out.index("Help options:")
    assert refused < ignored < help_
    section = out[refused:ignored]
    for name in ("--contiguous", "--overcommit", "--deadline", "--switches"):
        assert name in section, name
    for name in ("--tmp", "--mincpus", "--priority", "--uid", "--nodefile"):
        assert out.index("--" + name.lstrip("-")) < refused, name
    assert "--contiguous" not in out[ignored:]


def test_priority_for_operators_only(cluster, cancel_after, test_user):
    j = sleeper(cluster, "--priority=5000", "--begin=now+1hour")
    cancel_after.append(j)
    assert job(cluster, j)["Priority"] == "5000"
    r = cluster.run("sbatch", "--priority=5000", "--wrap", "true", user=test_user.pw_name,
                    check=False)
    assert r.returncode == 1
    assert r.stderr == "sbatch: error: Batch job submission failed: Access/permission denied\n"
    r = cluster.run("sbatch", "--priority=x", "--wrap", "true", check=False)
    assert (r.returncode, r.stderr) == (255, "sbatch: error: Invalid --priority specification\n")


def test_priority_survives_a_restart(cluster, cancel_after):
    j = sleeper(cluster, "--priority=4242", "--begin=now+1hour")
    cancel_after.append(j)
    cluster.restart_slurmctld()
    assert job(cluster, j)["Priority"] == "4242"


def test_uid_for_root_only(cluster, cancel_after, test_user):
    j = sleeper(cluster, f"--uid={test_user.pw_name}", "--begin=now+1hour")
    cancel_after.append(j)
    rec = job(cluster, j)
    assert rec["UserId"] == f"{test_user.pw_name}({test_user.pw_uid})"
    assert rec["GroupId"].endswith(f"({test_user.pw_gid})")
    r = cluster.run("sbatch", "--uid=root", "--wrap", "true", user=test_user.pw_name,
                    check=False)
    assert (r.returncode, r.stderr) == (255, "sbatch: error: --uid only permitted by root user\n")
    r = cluster.run("sbatch", "--gid=0", "--wrap", "true", user=test_user.pw_name, check=False)
    assert (r.returncode, r.stderr) == (255, "sbatch: error: --gid only permitted by root user\n")
    r = cluster.run("sbatch", "--uid=no-such-user-x", "--wrap", "true", check=False)
    assert (r.returncode, r.stderr) == (255, "sbatch: error: Invalid --uid specification\n")


def test_nodefile_names_the_nodes(cluster, cancel_after, tmp_path):
    f = tmp_path / "hosts"
    f.write_text("n2\n")
    f.chmod(0o644)
    j = sleeper(cluster, "--nodefile", str(f))
    cancel_after.append(j)
    rec = wait_state(cluster, j, "RUNNING")
    assert rec["NodeList"] == "n2" and rec["ReqNodeList"] == "n2"
    r = cluster.run("sbatch", "--nodefile", str(tmp_path / "missing"), "--wrap", "true",
                    check=False)
    assert r.returncode == 255 and "Invalid --nodefile node file" in r.stderr
