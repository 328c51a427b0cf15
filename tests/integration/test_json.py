"""--json and --yaml: squeue, sinfo, scontrol show job|node|
partition and sdiag print Slurm 22.05's v0.0.38 documents. Every document
is validated against the spec of tests/tools/openapi_dump, compared with
the text view, filtered as the text view filters, and its YAML reads back
to the same tree."""

import json
import os

import pytest
import yaml

from cluster import parse_record, submit, wait_for, wait_state
from openapi_check import check, load_spec

CLUSTER_KWARGS = dict(nodes=["n1", "n2", "n3", "n4"],
                      partitions=["debug Nodes=n1,n2,n3 Default=YES MaxTime=INFINITE State=UP",
                                  "other Nodes=n4 MaxTime=60 State=UP"])

# A job name with what JSON and YAML must escape.
ODD_NAME = 'say "hi"/there\nsecond line: yes'

# Members whose value may move between two commands (the scheduler runs).
VOLATILE = {"last_sched_evaluation", "priority", "cpu_load", "free_memory", "last_busy",
            "req_time", "command", "accrue_time", "eligible_time", "start_time", "end_time"}


@pytest.fixture(scope="module")
def spec():
    return load_spec()


@pytest.fixture(scope="module")
def jobs(cluster):
    """A running, a held, a pending (begin time) and an array job, n4 drained."""
    cluster.run("scontrol", "update", "NodeName=n4", "State=DRAIN", "Reason=json test")
    run = submit(cluster, "-N1", "-J", ODD_NAME, "--wrap", "sleep 300")
    held = submit(cluster, "-H", "-J", "held", "--wrap", "true")
    later = submit(cluster, "--begin=now+3600", "-J", "later", "--wrap", "true")
    array = submit(cluster, "--array=1-3%1", "-J", "arr", "--wrap", "sleep 300")
    wait_state(cluster, run, "RUNNING")
    wait_for(lambda: any(j["job_state"] == "RUNNING" and j["array_job_id"] == array
                         for j in squeue_doc(cluster)["jobs"]), what="an array task runs")
    return dict(run=run, held=held, later=later, array=array)


def doc(cluster, cmd, *args, kind="--json"):
    r = cluster.run(cmd, kind, *args)
    assert r.stderr == "", r.stderr
    return json.loads(r.stdout) if kind == "--json" else yaml.safe_load(r.stdout)


def squeue_doc(cluster, *args):
    return doc(cluster, "squeue", *args)


def by_id(d):
    return {j["job_id"]: j for j in d["jobs"]}


def strip(tree):
    """tree without VOLATILE members (and meta.command, which differs)."""
    if isinstance(tree, dict):
        return {k: strip(v) for k, v in tree.items() if k not in VOLATILE}
    if isinstance(tree, list):
        return [strip(v) for v in tree]
    return tree


def test_the_spec_names_slurms_schemas_and_paths(spec):
    schemas = spec["components"]["schemas"]
    for name in ("v0.0.38_job_response_properties", "v0.0.38_node", "v0.0.38_partition",
                 "v0.0.38_diag", "v0.0.38_jobs_response", "v0.0.38_nodes_response",
                 "v0.0.38_partitions_response", "v0.0.38_job_resources"):
        assert name in schemas, name
    for path in ("ping", "diag", "jobs", "job/{job_id}", "nodes", "node/{node_name}",
                 "partitions", "partition/{partition_name}", "job/submit"):
        assert f"/slurm/v0.0.38/{path}" in spec["paths"], path
    props = schemas["v0.0.38_job_response_properties"]["properties"]
    assert props["job_id"]["type"] == "integer"
    assert props["time_limit"].get("nullable") is True


def test_squeue_json_is_valid_and_matches_the_text_view(cluster, jobs, spec):
    d = squeue_doc(cluster)
    check(spec, d, "v0.0.38_jobs_response")
    assert d["errors"] == []
    assert d["meta"]["plugin"]["type"] == "openapi/v0.0.38"
    assert d["meta"]["command"][1:] == ["--json"]
    got = by_id(d)
    ids = ",".join(str(jobs[k]) for k in ("held", "later"))
    text = cluster.out("squeue", "-h", "-t", "all", "-j", ids, "-o", "%i|%T|%j|%u|%P")
    lines = [ln.split("|") for ln in text.splitlines()]
    assert len(lines) == 2
    for jid, state, name, user, part in lines:
        j = got[int(jid)]
        assert [j["job_state"], j["name"], j["user_name"], j["partition"]] == \
            [state, name, user, part]
    held = got[jobs["held"]]
    assert held["job_state"] == "PENDING" and held["state_reason"] == "JobHeldUser"
    assert held["priority"] == 0 and held["job_resources"] == {}
    assert got[jobs["later"]]["state_reason"] == "BeginTime"
    assert held["time_limit"] is None  # MaxTime=INFINITE
    assert got[jobs["run"]]["name"] == ODD_NAME


def test_a_running_job_carries_its_resources(cluster, jobs):
    j = by_id(squeue_doc(cluster, "-j", str(jobs["run"])))[jobs["run"]]
    rec = parse_record(cluster.out("scontrol", "show", "job", str(jobs["run"])))
    assert j["job_state"] == "RUNNING" == rec["JobState"]
    assert j["nodes"] == rec["NodeList"] == j["batch_host"]
    res = j["job_resources"]
    assert res["nodes"] == j["nodes"] and res["allocated_hosts"] == 1
    assert res["allocated_cores"] == int(rec["NumCPUs"])
    assert [n["nodename"] for n in res["allocated_nodes"]] == [j["nodes"]]
    assert res["allocated_nodes"][0]["cpus_used"] == int(rec["NumCPUs"])
    assert isinstance(j["start_time"], int) and j["start_time"] > 0
    assert j["array_task_id"] is None and j["array_job_id"] == 0


def test_array_records_stay_as_the_controller_sends_them(cluster, jobs):
    recs = [j for j in squeue_doc(cluster)["jobs"] if j["array_job_id"] == jobs["array"]]
    tasks = set()
    for j in recs:
        if j["array_task_string"]:
            a, _, b = j["array_task_string"].partition("%")[0].partition("-")
            tasks |= set(range(int(a), int(b or a) + 1))
        else:
            tasks.add(j["array_task_id"])
    text = cluster.out("squeue", "-h", "-r", "-j", str(jobs["array"]), "-o", "%i")
    assert {int(x.split("_")[1]) for x in text.split()} == tasks == {1, 2, 3}
    assert all(j["array_max_tasks"] == 1 for j in recs)


def test_squeue_filters_apply_as_in_the_text_view(cluster, jobs):
    def ids(*args):
        return set(by_id(squeue_doc(cluster, *args)))

    every = ids()
    assert {jobs["run"], jobs["held"], jobs["later"]} <= every
    assert ids("-j", str(jobs["held"])) == {jobs["held"]}
    # several ids: the streamed listing asks the controller for those only
    two = f"{jobs['held']},{jobs['later']}"
    assert ids("-j", two) == {jobs["held"], jobs["later"]}
    assert ids("-j", f"{two},999999") == {jobs["held"], jobs["later"]}
    assert ids("-t", "RUNNING") == {j["job_id"] for j in squeue_doc(cluster)["jobs"]
                                     if j["job_state"] == "RUNNING"}
    assert jobs["run"] in ids("-t", "R") and jobs["held"] not in ids("-t", "R")
    assert ids("-p", "other") == set()
    assert ids("-u", "root") == every == ids("--me")
    assert ids("-n", "held,later") == {jobs["held"], jobs["later"]}
    run_node = by_id(squeue_doc(cluster))[jobs["run"]]["nodes"]
    assert jobs["run"] in ids("-w", run_node)


def test_sinfo_json_matches_node_states(cluster, jobs, spec):
    d = doc(cluster, "sinfo")
    check(spec, d, "v0.0.38_nodes_response")
    check(spec, d, "v0.0.38_partitions_response")
    nodes = {n["name"]: n for n in d["nodes"]}
    assert sorted(nodes) == ["n1", "n2", "n3", "n4"]
    text = dict(ln.split() for ln in cluster.out("sinfo", "-N", "-h", "-o", "%N %T").splitlines())
    for name, n in nodes.items():
        if "DRAIN" in n["state_flags"]:
            assert text[name] in ("drained", "draining"), (name, text[name])
        else:
            assert text[name].rstrip("*~#") == n["state"], (name, text[name], n)
    n4 = nodes["n4"]
    assert n4["state"] == "idle" and n4["state_flags"] == ["DRAIN"]
    assert n4["reason"] == "json test" and n4["reason_set_by_user"] == "root"
    assert n4["partitions"] == ["other"]
    assert nodes[by_id(squeue_doc(cluster))[jobs["run"]]["nodes"]]["state"] in ("mixed",
                                                                               "allocated")
    assert nodes["n1"]["cpus"] == 4 and nodes["n1"]["real_memory"] == 4000
    parts = {p["name"]: p for p in d["partitions"]}
    assert parts["debug"]["nodes"] == "n1,n2,n3" or parts["debug"]["total_nodes"] == 3
    assert "default" in parts["debug"]["flags"] and parts["debug"]["max_time_limit"] is None
    assert parts["other"]["max_time_limit"] == 60 and parts["other"]["state"] == "UP"


def test_sinfo_filters(cluster, jobs):
    def names(*args):
        d = doc(cluster, "sinfo", *args)
        return sorted(n["name"] for n in d["nodes"]), sorted(p["name"] for p in d["partitions"])

    assert names("-p", "other") == (["n4"], ["other"])
    assert names("-n", "n1")[0] == ["n1"]
    assert names("-t", "drain")[0] == ["n4"]


def test_scontrol_show_json_matches_the_records(cluster, jobs, spec):
    jid = jobs["held"]
    d = doc(cluster, "scontrol", "show", "job", str(jid))
    check(spec, d, "v0.0.38_jobs_response")
    assert [j["job_id"] for j in d["jobs"]] == [jid]
    rec = parse_record(cluster.out("scontrol", "show", "job", str(jid)))
    j = d["jobs"][0]
    assert j["name"] == rec["JobName"] and j["job_state"] == rec["JobState"]
    assert j["partition"] == rec["Partition"].split()[0] and str(j["priority"]) == rec["Priority"]
    assert j["user_id"] == int(rec["UserId"].split("(")[1].rstrip(")"))
    assert j["current_working_directory"] == rec["WorkDir"]
    assert j["standard_output"] == rec["StdOut"]
    # --json after the words, as Slurm's tests write it
    r = cluster.run("scontrol", "show", "node", "n4", "--json")
    n = json.loads(r.stdout)
    check(spec, n, "v0.0.38_nodes_response")
    assert [x["name"] for x in n["nodes"]] == ["n4"]
    assert n["nodes"][0]["state_flags"] == ["DRAIN"]
    p = doc(cluster, "scontrol", "show", "partition", "debug")
    check(spec, p, "v0.0.38_partitions_response")
    prec = parse_record(cluster.out("scontrol", "show", "partition", "debug"))
    (part,) = p["partitions"]
    assert part["total_cpus"] == int(prec["TotalCPUs"])
    assert part["total_nodes"] == int(prec["TotalNodes"])
    assert len(doc(cluster, "scontrol", "show", "job")["jobs"]) >= 4
    assert len(doc(cluster, "scontrol", "show", "node")["nodes"]) == 4


def test_sdiag_json(cluster, jobs, spec):
    d = doc(cluster, "sdiag")
    check(spec, d, "v0.0.38_diag")
    text = cluster.out("sdiag")
    submitted = int(text.split("Jobs submitted: ")[1].split()[0])
    assert d["statistics"]["jobs_submitted"] == submitted >= 4


def test_yaml_reads_back_to_the_json_tree(cluster, jobs):
    for cmd, args in (("squeue", []), ("sinfo", []), ("scontrol", ["show", "job"]),
                      ("scontrol", ["show", "node"]), ("scontrol", ["show", "partition"]),
                      ("sdiag", [])):
        j = doc(cluster, cmd, *args)
        y = doc(cluster, cmd, *args, kind="--yaml")
        assert y["meta"]["command"][1:] == ["--yaml"] + args
        if cmd == "sdiag":  # counters move between the two calls: types only
            y, j = ({k: type(v) for k, v in x["statistics"].items()} for x in (y, j))
        assert strip(y) == strip(j), cmd
    y = doc(cluster, "squeue", "-j", str(jobs["run"]), kind="--yaml")
    assert y["jobs"][0]["name"] == ODD_NAME


@pytest.mark.parametrize("argv, rc, err", [
    (["scontrol", "--json", "show", "job", "999999"], 1,
     "slurm_load_jobs error: Invalid job id specified\n"),
    (["squeue", "--json", "-j", "999999"], 1,
     "slurm_load_jobs error: Invalid job id specified\n"),
    (["scontrol", "--json", "show", "node", "nx9"], 1, "Node nx9 not found\n"),
    (["scontrol", "--json", "show", "partition", "nope"], 1, "Partition nope not found\n"),
    (["scontrol", "--json", "show", "config"], 1,
     "--json and --yaml are only supported by show job, node and partition\n"),
    (["squeue", "--json", "-i", "5"], 1,
     "squeue: error: --json and --yaml can not be used with --iterate\n"),
    (["sinfo", "--yaml", "-i", "5"], 1,
     "sinfo: error: --json and --yaml can not be used with --iterate\n"),
    (["squeue", "--json", "-s"], 1,
     "squeue: error: --json and --yaml can not be used with --steps\n"),
    (["sinfo", "--json", "-t", "bogus"], 1, None),
])
def test_bad_combinations(cluster, argv, rc, err):
    r = cluster.run(*argv, check=False, timeout=10)
    assert r.returncode == rc, r
    if err is not None:
        assert r.stderr == err
    assert "Bad state string" in r.stderr if err is None else True
