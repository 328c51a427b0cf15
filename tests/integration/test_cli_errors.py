"""The commands without a controller, their --help/--usage/-V, and the
scontrol verbs that need no controller at all.

The module's cluster is written but only munged runs: slurmctld's port in
slurm.conf is closed, as when the controller is down.
"""

import pytest

from cluster import BUILD_DIR, Cluster

CONNECT_FAILURE = "Unable to contact slurm controller (connect failure)"
VERSION = "slurm 22.05.8\n"

# Every command we ship; a later issue adds its command here.
CLIS = ["sinfo", "scontrol"]


@pytest.fixture(scope="module")
def no_controller():
    """A cluster config whose controller is not running (munged is)."""
    c = Cluster(nodes=["n1", "n2", "n3"], name="no-ctld",
                settings={"MessageTimeout": 2})
    c.start_munged()
    yield c
    c.stop()
    c.cleanup()


def cli(name):
    assert (BUILD_DIR / name).exists(), f"{name} is not built"
    return name


@pytest.mark.parametrize("args, stderr", [
    (["sinfo"], f"slurm_load_partitions: {CONNECT_FAILURE}\n"),
    (["scontrol", "show", "node"], f"slurm_load_node error: {CONNECT_FAILURE}\n"),
    (["scontrol", "show", "partition"], f"slurm_load_partitions error: {CONNECT_FAILURE}\n"),
], ids=["sinfo", "scontrol-show-node", "scontrol-show-partition"])
def test_commands_say_they_cannot_contact_the_controller(no_controller, args, stderr):
    r = no_controller.run(*args, check=False, timeout=120)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == stderr


@pytest.mark.parametrize("name", CLIS)
@pytest.mark.parametrize("option", ["--help", "--usage"])
def test_help_and_usage_print_to_stdout_and_exit_0(no_controller, name, option):
    r = no_controller.run(cli(name), option, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() != ""
    assert r.stderr == ""


@pytest.mark.parametrize("name", CLIS)
@pytest.mark.parametrize("option", ["-V", "--version"])
def test_version_prints_slurm_22_05_8(no_controller, name, option):
    r = no_controller.run(cli(name), option, check=False)
    assert (r.returncode, r.stdout, r.stderr) == (0, VERSION, "")


def test_scontrol_show_hostnames_expands_a_hostlist(no_controller):
    r = no_controller.run("scontrol", "show", "hostnames", "n[1-3]", check=False)
    assert (r.returncode, r.stdout, r.stderr) == (0, "n1\nn2\nn3\n", "")


def test_scontrol_show_hostlist_compresses_names(no_controller):
    r = no_controller.run("scontrol", "show", "hostlist", "n1,n2,n3", check=False)
    assert (r.returncode, r.stdout, r.stderr) == (0, "n[1-3]\n", "")
