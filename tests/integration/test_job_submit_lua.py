"""JobSubmitPlugins=lua: job_submit.lua beside slurm.conf sees every
submission and update, with the rules sites write: defaults for what a
job leaves out (account, comment), the partition chosen by GPU count, a
refusal with a message for the user, slurm_job_modify refusing a change.
A script that fails or runs away refuses the job, not the controller;
the script is loaded again when it changes and at scontrol reconfigure,
and a broken one leaves the old in place (at start it stops slurmctld).
"""

import re

import pytest

from cluster import Cluster, job, submit, wait_for

SCRIPT = """\
-- the kinds of rules sites write
function slurm_job_submit(job_desc, part_list, submit_uid)
  if job_desc.name == "spin" then while true do end end
  if job_desc.name == "boom" then error("boom") end
  if job_desc.name == "forbidden" then return slurm.ERROR end
  if job_desc.time_limit == slurm.NO_VAL then
    slurm.log_user("Jobs need a time limit (--time).")
    slurm.log_user("See the site's documentation.")
    return slurm.ESLURM_MISSING_TIME_LIMIT
  end
  if job_desc.comment == "notice" then slurm.log_user("a note for you") end
  if job_desc.account == nil then job_desc.account = "lua-default" end
  if job_desc.comment == nil then
    job_desc.comment = "@VERSION@ for " .. job_desc.user_name
  end
  local gpus = 0
  if job_desc.tres_per_node then
    gpus = tonumber(string.match(job_desc.tres_per_node, "gpu[%w:]*:(%d+)")) or 1
  end
  if job_desc.partition == nil then
    job_desc.partition = gpus > 0 and "gpu" or "cpu"
  end
  if part_list[job_desc.partition] == nil then
    slurm.log_user("no partition %s here", job_desc.partition)
    return slurm.ESLURM_INVALID_PARTITION_NAME
  end
  return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  if job_desc.time_limit ~= slurm.NO_VAL and job_desc.time_limit > 60 then
    slurm.log_user("an hour at most")
    return slurm.ESLURM_INVALID_TIME_LIMIT
  end
  if job_desc.name == "rename-me" then job_desc.name = "renamed-" .. job_rec.job_id end
  return slurm.SUCCESS
end
"""


def script(version):
    return SCRIPT.replace("@VERSION@", version)


def make_cluster():
    c = Cluster(nodes=("n1", "n2", "g1 Gres=gpu:4"),
                partitions=["cpu Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP",
                            "gpu Nodes=g1 MaxTime=INFINITE State=UP"],
                gres=("NodeName=g1 Name=gpu File=@RUN_DIR@/dev/nvidia[0-3]",),
                settings={"JobSubmitPlugins": "lua"}, name="jobsubmitlua")
    (c.dir / "job_submit.lua").write_text(script("v1"))
    return c


def partition(cluster, job_id):
    return cluster.out("squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%P").strip()


def install(cluster, text):
    """A new job_submit.lua, replaced whole (as an editor's rename does)."""
    tmp = cluster.dir / "job_submit.lua.new"
    tmp.write_text(text)
    tmp.rename(cluster.dir / "job_submit.lua")


@pytest.fixture
def v1(cluster):
    """The module's script again after a test that changed it."""
    yield
    install(cluster, script("v1"))
    cluster.run("scontrol", "reconfigure")


def test_scontrol_show_config_names_the_plugin(cluster):
    out = cluster.out("scontrol", "show", "config")
    assert re.search(r"^JobSubmitPlugins\s+= lua$", out, re.M), out


def test_a_job_without_a_time_limit_is_refused_with_the_scripts_message(cluster):
    r = cluster.run("sbatch", "--wrap", "true", check=False)
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "",
        "sbatch: error: Jobs need a time limit (--time).\n"
        "sbatch: error: See the site's documentation.\n"
        "sbatch: error: Batch job submission failed: Time limit specification required, "
        "but not provided\n")


def test_test_only_passes_the_script_too(cluster):
    r = cluster.run("sbatch", "--test-only", "--wrap", "true", check=False)
    assert (r.returncode, r.stderr) == (
        1, "allocation failure: Time limit specification required, but not provided\n"), r
    r = cluster.run("sbatch", "--test-only", "-t", "5", "--gres=gpu:1", "--wrap", "true")
    assert " in partition gpu\n" in r.stderr, r.stderr


def test_what_a_job_leaves_out_is_filled_in(cluster, cancel_after):
    j = submit(cluster, "-t", "5", "-H", "-o", "/dev/null", "--wrap", "true")
    cancel_after.append(j)
    rec = job(cluster, j)
    assert (rec["Account"], partition(cluster, j)) == ("lua-default", "cpu"), rec
    assert rec["Comment"].startswith("v1 for "), rec
    # what the user gave stays
    k = submit(cluster, "-t", "5", "-H", "-A", "mine", "--comment", "own", "-o", "/dev/null",
               "--wrap", "true")
    cancel_after.append(k)
    rec = job(cluster, k)
    assert (rec["Account"], rec["Comment"]) == ("mine", "own"), rec


def test_a_gpu_job_goes_to_the_gpu_partition_and_runs_there(cluster, cancel_after):
    j = submit(cluster, "-t", "5", "--gres=gpu:2", "-o", "/dev/null", "--wrap", "true")
    cancel_after.append(j)
    assert partition(cluster, j) == "gpu"
    wait_for(lambda: job(cluster, j)["JobState"] == "COMPLETED", timeout=30,
             what=f"job {j} to complete")
    assert job(cluster, j)["NodeList"] == "g1"


def test_an_allocation_passes_the_script_too(cluster):
    r = cluster.run("salloc", "true", check=False)
    assert r.returncode == 1, r
    assert "salloc: error: Jobs need a time limit (--time).\n" in r.stderr, r.stderr
    r = cluster.run("srun", "-t", "1", "--gres=gpu:1", "printenv", "SLURM_JOB_PARTITION")
    assert r.stdout == "gpu\n", r


def test_what_log_user_says_on_success_reaches_every_client(cluster):
    r = cluster.run("sbatch", "-t", "1", "--comment", "notice", "-o", "/dev/null", "--wrap",
                    "true")
    assert "sbatch: a note for you\n" in r.stderr, r.stderr
    for cmd in ("salloc", "srun"):
        r = cluster.run(cmd, "-t", "1", "--comment", "notice", "true")
        assert f"{cmd}: a note for you\n" in r.stderr, (cmd, r.stderr)


def test_slurm_error_refuses_with_slurms_unspecified_error(cluster):
    r = cluster.run("sbatch", "-t", "5", "-J", "forbidden", "--wrap", "true", check=False)
    assert (r.returncode, r.stderr) == (
        1, "sbatch: error: Batch job submission failed: Unspecified error\n")


def test_a_runtime_error_refuses_the_job_and_tells_why(cluster):
    mark = cluster.log_mark()
    r = cluster.run("sbatch", "-t", "5", "-J", "boom", "--wrap", "true", check=False)
    assert (r.returncode, r.stderr) == (
        1, "sbatch: error: job_submit.lua:4: boom\n"
           "sbatch: error: Batch job submission failed: Unspecified error\n")
    cluster.wait_for_log(r"error: job_submit/lua: job_submit.lua:4: boom", since=mark)


def test_a_runaway_script_is_stopped_and_the_controller_goes_on(cluster):
    r = cluster.run("sbatch", "-t", "5", "-J", "spin", "--wrap", "true", check=False)
    assert r.returncode == 1
    assert "ran over its time budget of 1000 ms" in r.stderr, r.stderr
    assert cluster.ping_up()


def test_modify_refuses_a_longer_time_limit_and_renames(cluster, cancel_after):
    j = submit(cluster, "-t", "5", "-H", "-o", "/dev/null", "--wrap", "true")
    cancel_after.append(j)
    mark = cluster.log_mark()
    r = cluster.run("scontrol", "update", f"JobId={j}", "TimeLimit=120", check=False)
    assert r.returncode == 1, r
    assert "Requested time limit is invalid" in r.stderr, r.stderr
    assert job(cluster, j)["TimeLimit"] == "00:05:00"
    # 22.05 logs what log_user said in slurm_job_modify; the reply has no text
    cluster.wait_for_log(r"Message discarded: \(\"an hour at most\"\)", since=mark)
    cluster.run("scontrol", "update", f"JobId={j}", "TimeLimit=30")
    assert job(cluster, j)["TimeLimit"] == "00:30:00"
    cluster.run("scontrol", "update", f"JobId={j}", "Name=rename-me")
    assert job(cluster, j)["JobName"] == f"renamed-{j}"
    cluster.run("scontrol", "release", str(j))  # a release is an update too


def test_a_changed_script_is_loaded_without_reconfigure(cluster, v1, cancel_after):
    mark = cluster.log_mark()
    install(cluster, script("v2"))
    j = submit(cluster, "-t", "5", "-H", "-o", "/dev/null", "--wrap", "true")
    cancel_after.append(j)
    assert job(cluster, j)["Comment"].startswith("v2 for "), job(cluster, j)
    cluster.wait_for_log(r"job_submit/lua: .*job_submit.lua changed: loaded again", since=mark)


def test_reconfigure_loads_a_new_script_and_a_broken_one_keeps_the_old(cluster, v1,
                                                                      cancel_after):
    install(cluster, script("v3"))
    mark = cluster.log_mark()
    cluster.run("scontrol", "reconfigure")
    cluster.wait_for_log(r"job_submit/lua: loaded .*job_submit.lua", since=mark)
    j = submit(cluster, "-t", "5", "-H", "-o", "/dev/null", "--wrap", "true")
    cancel_after.append(j)
    assert job(cluster, j)["Comment"].startswith("v3 for "), job(cluster, j)

    install(cluster, "function slurm_job_submit(\n")
    mark = cluster.log_mark()
    r = cluster.run("scontrol", "reconfigure", check=False)
    assert (r.returncode, r.stderr) == (0, ""), r
    cluster.wait_for_log(r"job_submit.lua:2: .*the script loaded before stays", since=mark)
    k = submit(cluster, "-t", "5", "-H", "-o", "/dev/null", "--wrap", "true")
    cancel_after.append(k)
    assert job(cluster, k)["Comment"].startswith("v3 for "), job(cluster, k)


def test_a_broken_script_at_start_stops_slurmctld(cluster, v1):
    """As Slurm's fatal error when its plugin does not load: the reason is
    in the log (and the slurmds keep running)."""
    install(cluster, "return 1 +\n")
    mark = cluster.log_mark()
    cluster.kill_slurmctld(sig=15)
    cluster.start_slurmctld_with(wait=False)
    exited = cluster.wait_exited(["slurmctld"], timeout=20)
    assert exited["slurmctld"] not in (0, None), exited  # None: still running
    cluster.wait_for_log(r"error: job_submit/lua: .*unexpected symbol near <eof>", since=mark,
                         containing=str(cluster.dir / "job_submit.lua"))
    install(cluster, script("v1"))
    cluster.start_slurmctld()
    cluster.wait_all_idle()
