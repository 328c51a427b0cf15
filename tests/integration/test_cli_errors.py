"""The commands without a controller, their --help/--usage/-V, and the
scontrol verbs that need no controller at all.

The module's cluster is written but only munged runs: slurmctld's port in
slurm.conf is closed, as when the controller is down.
"""

import re

import pytest

from cluster import BUILD_DIR, REPO, Cluster

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


# ----- --help ----------------------------------------------------------------
#
# Every shipped command and daemon prints its help on stdout, nothing on
# stderr, and exits 0; the help names the command and the options it
# accepts, and every option it names is one the command accepts.

SRC = REPO / "src"

# The long-option tables each command parses with: (file, table opening).
OPTION_TABLES = {
    "sbatch": ("cli/job_opt_table.c", "job_opt_table[] = {"),
    "salloc": ("cli/salloc.c", "salloc_opts[] = {"),
    "srun": ("cli/srun_opt.c", "srun_opts_tab[] = {"),
    "sinfo": ("cli/sinfo.c", "sinfo_longopts[] = {"),
    "squeue": ("cli/squeue.c", "squeue_longopts[] = {"),
    "scancel": ("cli/scancel.c", "lopts[] = {"),
    "scontrol": ("cli/scontrol.c", "longopts[] = {"),
    "sacct": ("cli/sacct.c", "lopts[] = {"),
    "seff": ("cli/seff.c", "longopts[] = {"),
}

# Options each of the other commands' help must name (Slurm 22.05's main ones).
KEY_OPTIONS = {
    "sinfo": ["all", "dead", "exact", "format", "Format", "long", "Node", "nodes", "noheader",
              "partition", "list-reasons", "summarize", "states", "version"],
    "squeue": ["account", "all", "format", "Format", "job", "long", "name", "noheader",
               "partition", "states", "sort", "start", "user", "version"],
    "scancel": ["account", "batch", "full", "name", "partition", "signal", "state", "user",
                "nodelist", "version"],
    "scontrol": ["all", "details", "oneliner", "quiet", "verbose", "version"],
    "sacct": ["allusers", "accounts", "brief", "format", "jobs", "starttime", "endtime",
              "state", "parsable2", "user", "noheader", "helpformat"],
    "seff": ["help", "version", "user", "starttime", "endtime"],
}

# Each command's help starts with a line that names it.
HELP_FIRST_LINE = {
    "sbatch": "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]",
    "salloc": "Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)]] [command(0) [args(0)...]]",
    "srun": "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] "
            "executable(N) [args(N)...]",
    "sinfo": "Usage: sinfo [OPTIONS]",
    "squeue": "Usage: squeue [OPTIONS]",
    "scancel": "Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]",
    "scontrol": "scontrol [<OPTION>] [<COMMAND>]",
    "sacct": "Usage: sacct [OPTIONS]",
    "seff": "Usage: seff [Options] <Jobid>",
}

# The commands whose --usage prints a short synopsis (seff has none, as in Slurm).
USAGE_CLIS = ["sinfo", "scontrol", "sbatch", "squeue", "scancel", "srun", "salloc", "sacct"]

IGNORED_HEAD = "\nAccepted for compatibility, not acted on ("

# srun's and salloc's own ids that are parsed and dropped.
IGNORED_OWN_IDS = {"SR_IGNORED", "SA_IGNORED"}


def table_rows(name):
    """The rows of name's option table: [(long name, id or '', parser or '')]."""
    path, opening = OPTION_TABLES[name]
    text = (SRC / path).read_text()
    body = text[text.index(opening):]
    body = body[:body.index("};")]
    rows = []
    for m in re.finditer(r'\{\s*"([\w-]+)",([^{}]*)\}', body):
        fields = [f.strip() for f in m.group(2).split(",")]
        ident = next((f for f in fields if re.fullmatch(r"(JOPT|SR|SA)_\w+", f)), "")
        rows.append((m.group(1), ident, fields[-1]))
    assert rows, f"no option rows found in {path}"
    return rows


def named_options(text):
    """The long options a help text names (--name)."""
    return set(re.findall(r"(?<![\w-])--([A-Za-z][\w-]*)", text))


def accepts(names, opt):
    """getopt_long's rule: an exact name or an unambiguous prefix of one."""
    return opt in names or len([n for n in names if n.startswith(opt)]) == 1


def ignored_in(name):
    """The long options name accepts and does not act on."""
    no_parser = {ident for _, ident, parse in table_rows("sbatch") if parse == "NULL"}
    return {opt for opt, ident, parse in table_rows(name)
            if ident in IGNORED_OWN_IDS or ident in no_parser or parse == "NULL"}


def help_of(no_controller, name, option="--help"):
    r = no_controller.run(cli(name), option, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert r.stdout.strip() != ""
    return r.stdout


@pytest.mark.parametrize("name", list(OPTION_TABLES))
def test_help_prints_to_stdout_names_the_command_and_exits_0(no_controller, name):
    out = help_of(no_controller, name)
    assert out.splitlines()[0] == HELP_FIRST_LINE[name]


@pytest.mark.parametrize("name", USAGE_CLIS)
def test_usage_prints_to_stdout_names_the_command_and_exits_0(no_controller, name):
    out = help_of(no_controller, name, "--usage")
    assert name in out.splitlines()[0]


@pytest.mark.parametrize("name", list(OPTION_TABLES))
def test_help_names_only_options_the_command_accepts(no_controller, name):
    accepted = {opt for opt, _, _ in table_rows(name)}
    named = named_options(help_of(no_controller, name))
    assert named, f"{name} --help names no option"
    assert {o for o in named if not accepts(accepted, o)} == set()


@pytest.mark.parametrize("name", ["sbatch", "salloc", "srun"])
def test_job_command_help_names_every_option_of_its_table(no_controller, name):
    named = named_options(help_of(no_controller, name))
    assert {opt for opt, _, _ in table_rows(name)} - named == set()


@pytest.mark.parametrize("name", ["sbatch", "salloc", "srun"])
def test_job_command_help_lists_ignored_options_apart(no_controller, name):
    out = help_of(no_controller, name)
    assert IGNORED_HEAD in out
    working, ignored = out.split(IGNORED_HEAD)
    ignored = ignored.split("\nHelp options:\n")[0]
    should_ignore = ignored_in(name)
    assert should_ignore, f"{name} has no ignored option?"
    assert should_ignore & named_options(working) == set()
    assert should_ignore - named_options(ignored) == set()
    for acted_on in ("time", "partition", "job-name", "nodes", "ntasks"):
        assert re.search(rf"--{acted_on}\b", working), acted_on


@pytest.mark.parametrize("name", list(KEY_OPTIONS))
def test_help_names_the_main_options(no_controller, name):
    named = named_options(help_of(no_controller, name))
    assert set(KEY_OPTIONS[name]) - named == set()


@pytest.mark.parametrize("name, own", [
    ("slurmctld", ["-c", "-i"]),
    ("slurmd", ["-C", "-N node_name"]),
    ("slurmstepd", ["-N node_name"]),
])
def test_daemon_help_prints_its_flags_and_exits_0(no_controller, name, own):
    out = help_of(no_controller, name, "-h")
    assert out.splitlines()[0] == f"Usage: {name} [OPTIONS]"
    for flag in own + ["-D", "-f", "-h", "-L logfile", "-v", "-V"]:
        assert re.search(rf"^  {re.escape(flag)}\s", out, re.M), flag


@pytest.mark.parametrize("name", ["slurmctld", "slurmd", "slurmstepd"])
def test_daemon_bad_flag_prints_usage_to_stderr_and_exits_1(no_controller, name):
    r = no_controller.run(cli(name), "-Z", check=False)
    assert r.returncode == 1
    assert r.stdout == ""
    assert f"Usage: {name} [OPTIONS]\n" in r.stderr


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


@pytest.mark.parametrize("args,lines", [
    (["--cpu-bind=foo"], ['srun: error: unrecognized --cpu-bind argument "foo"',
                          "srun: fatal: Failed to parse --cpu-bind= values."]),
    (["--cpu-bind=verbose,ldoms"], ['srun: error: unrecognized --cpu-bind argument "ldoms"',
                                    "srun: fatal: Failed to parse --cpu-bind= values."]),
    (["-m", "foo"], ["srun: error: Invalid --distribution specification"]),
    (["-m", "plane=0"], ["srun: error: Invalid --distribution specification"]),
    (["--hint=foo"], ['srun: error: unrecognized --hint argument "foo", see --hint=help']),
])
def test_srun_binding_options_are_checked_before_anything(no_controller, args, lines):
    r = no_controller.run("srun", *args, "true", check=False)
    assert r.returncode == 1 and r.stderr.splitlines() == lines, r.stderr
