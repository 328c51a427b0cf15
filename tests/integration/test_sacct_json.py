"""sacct --json / --yaml: Slurm 22.05's dbv0.0.38 document of the rows the
text view shows. Completed, failed, cancelled, multi-step and array jobs;
every document fits the schema of the tables that write it
(tests/tools/db_schema_dump); fields agree with `sacct -P`; -X drops the
steps; filters apply; YAML reads back as the same tree; a job name with
quotes, a slash and a newline stays valid.
"""

import json
import os
import re

import pytest
import yaml

from cluster import Cluster, submit, wait_for, wait_state
from schema_check import check, db_schemas

FINAL = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL")
WEIRD = 'we"ird/na\nme\\'


def make_cluster():
    return Cluster(nodes=("n1", "n2"), name="sacct_json")


@pytest.fixture(scope="module")
def jobs(cluster, tmp_path_factory):
    d = tmp_path_factory.mktemp("sacct_json")
    os.chmod(d, 0o777)

    def sb(name, *args):
        return submit(cluster, "-D", d, "-J", name, "-o", "/dev/null", *args)

    j = {"ok": sb("ok_steps", "-N2", "--wrap", "srun -N2 true"),
         "fail": sb("fail_job", "--wrap", "exit 3"),
         "cancel": sb("cancel_job", "--wrap", "sleep 300"),
         "array": sb("array_job", "--array=1-2", "--wrap", "true"),
         "weird": sb(WEIRD, "--wrap", "true"),
         "held": sb("held_job", "-H", "--wrap", "true")}
    wait_state(cluster, j["cancel"], "RUNNING")
    cluster.run("scancel", str(j["cancel"]))
    for name in ("ok", "fail", "cancel", "weird"):
        wait_state(cluster, j[name], FINAL, timeout=60)
    for task in (1, 2):
        wait_state(cluster, f"{j['array']}_{task}", FINAL, timeout=60)
    # every job's row and its steps' rows are in the store
    ids = ",".join(str(v) for v in j.values())
    wait_for(lambda: len(sacct_rows(cluster, "-j", ids)) >= 14, timeout=30,
             what="the store to hold every row")
    return j


def sacct_rows(cluster, *args):
    out = cluster.out("sacct", "-P", "-n", "-o", "JobID,State,ExitCode,Elapsed,NNodes,User",
                      *args)
    return [line.split("|") for line in out.splitlines()]


def doc(cluster, *args, kind="--json"):
    r = cluster.run("sacct", kind, *args)
    return json.loads(r.stdout) if kind == "--json" else yaml.safe_load(r.stdout)


def ids(jobs):
    return ",".join(str(v) for v in jobs.values())


def by_id(d):
    return {j["job_id"]: j for j in d["jobs"]}


def secs(text):
    days, _, rest = text.rpartition("-")
    h, m, s = (int(p) for p in rest.split(":"))
    return int(days or 0) * 86400 + h * 3600 + m * 60 + s


def exit_str(ec):
    return f"{ec['return_code']}:{ec.get('signal', {}).get('signal_id', 0)}"


def test_meta_and_schema(cluster, jobs):
    d = doc(cluster, "-j", ids(jobs))
    assert d["meta"]["plugin"] == {"type": "openapi/dbv0.0.38",
                                   "name": "Slurm OpenAPI DB v0.0.38"}
    assert d["meta"]["Slurm"]["version"] == {"major": 22, "micro": 8, "minor": 5}
    assert d["errors"] == []
    schemas = db_schemas()
    assert check(d, schemas["dbv0.0.38_job_info"]) == []
    for j in d["jobs"]:
        assert check(j, schemas["dbv0.0.38_job"]) == []
        for s in j["steps"]:
            assert check(s, schemas["dbv0.0.38_job_step"]) == []
    # the checker does catch a wrong type
    bad = dict(d["jobs"][0], job_id="12")
    assert check(bad, schemas["dbv0.0.38_job"]) != []


def test_fields_match_the_text_view(cluster, jobs):
    d = doc(cluster, "-j", ids(jobs))
    text = {row[0]: row[1:] for row in sacct_rows(cluster, "-j", ids(jobs))}
    seen = 0
    for j in d["jobs"]:
        task = j["array"]["task_id"]
        jid = f"{j['array']['job_id']}_{task}" if task is not None else str(j["job_id"])
        state, ec, elapsed, nnodes, user = text[jid]
        assert state.split(" by ")[0] == j["state"]["current"], jid
        assert ec == exit_str(j["exit_code"]), jid
        assert secs(elapsed) == j["time"]["elapsed"], jid
        assert int(nnodes) == j["allocation_nodes"], jid
        assert user == j["user"], jid
        seen += 1
        for s in j["steps"]:
            sid = jid + s["step"]["id"][len(str(j["job_id"])):]
            state, ec, elapsed, nnodes, _ = text[sid]
            assert state.split(" by ")[0] == s["state"], sid
            assert ec == exit_str(s["exit_code"]), sid
            assert secs(elapsed) == s["time"]["elapsed"], sid
            assert int(nnodes) == s["nodes"]["count"], sid
            seen += 1
    assert seen == len(text)


def test_completed_multi_step(cluster, jobs):
    j = by_id(doc(cluster, "-j", str(jobs["ok"])))[jobs["ok"]]
    assert j["state"] == {"current": "COMPLETED", "reason": "None"}
    assert j["exit_code"] == {"status": "SUCCESS", "return_code": 0}
    assert j["name"] == "ok_steps"
    assert j["cluster"] == "test" and j["association"]["cluster"] == "test"
    assert [s["step"]["id"] for s in j["steps"]] == [f"{jobs['ok']}.batch", f"{jobs['ok']}.0"]
    step0 = j["steps"][1]
    assert step0["step"]["name"] == "true" and step0["step"]["job_id"] == jobs["ok"]
    assert step0["nodes"]["list"] == ["n1", "n2"] and step0["nodes"]["range"] == "n[1-2]"
    assert step0["tasks"]["count"] == 2
    alloc = {t["type"]: t for t in j["tres"]["allocated"]}
    assert alloc["node"]["count"] == 2 and alloc["node"]["id"] == 4
    assert alloc["cpu"]["id"] == 1 and alloc["mem"]["name"] is None


def test_failed_and_cancelled(cluster, jobs):
    d = by_id(doc(cluster, "-j", f"{jobs['fail']},{jobs['cancel']}"))
    f = d[jobs["fail"]]
    assert f["state"]["current"] == "FAILED"
    assert f["exit_code"] == {"status": "FAILED", "return_code": 3}
    assert f["steps"][0]["exit_code"]["return_code"] == 3
    c = d[jobs["cancel"]]
    assert c["state"]["current"] == "CANCELLED"
    assert c["kill_request_user"] == cluster.out("sacct", "-j", str(jobs["cancel"]), "-X",
                                                 "-n", "-P", "-o", "User").strip() \
        or re.fullmatch(r"\w+", c["kill_request_user"])
    batch = c["steps"][0]
    assert batch["exit_code"]["status"] == "SIGNALED"
    assert batch["exit_code"]["signal"]["signal_id"] == 15


def test_array(cluster, jobs):
    d = doc(cluster, "-j", str(jobs["array"]))
    tasks = sorted((j["array"]["job_id"], j["array"]["task_id"]) for j in d["jobs"])
    assert tasks == [(jobs["array"], 1), (jobs["array"], 2)]
    assert all(j["state"]["current"] == "COMPLETED" for j in d["jobs"])


def test_allocations_drop_steps(cluster, jobs):
    d = doc(cluster, "-X", "-j", ids(jobs))
    assert d["jobs"] and all(j["steps"] == [] for j in d["jobs"])
    assert len(d["jobs"]) == len(sacct_rows(cluster, "-X", "-j", ids(jobs)))


def text_job_ids(cluster, *args):
    out = cluster.out("sacct", "-X", "-P", "-n", "-o", "JobIDRaw", *args)
    return [int(line) for line in out.splitlines()]


@pytest.mark.parametrize("args, want", [
    (("-s", "F", "-S", "2020-01-01", "-E", "now"), ["fail"]),
    (("-S", "2020-01-01", "--name=cancel_job,fail_job"), ["fail", "cancel"]),
    (("-S", "2020-01-01", "-N", "n2", "-s", "CD", "-E", "now"), None),
    (("-S", "2020-01-01", "-u", "root"), None),
    (("-S", "2020-01-01", "-A", "nosuchaccount"), []),
])
def test_filters_as_the_text(cluster, jobs, args, want):
    got = [j["job_id"] for j in doc(cluster, "-a", *args)["jobs"]]
    assert got == text_job_ids(cluster, "-a", *args)
    if want is not None:
        assert got == [jobs[w] for w in want]


def test_job_and_step_selection(cluster, jobs):
    # one step of a job: that job, with that step only
    d = doc(cluster, "-j", f"{jobs['ok']}.0")
    assert [s["step"]["id"] for j in d["jobs"] for s in j["steps"]] == [f"{jobs['ok']}.0"]
    d = doc(cluster, "-j", f"{jobs['array']}_2")
    assert [(j["array"]["job_id"], j["array"]["task_id"]) for j in d["jobs"]] \
        == [(jobs["array"], 2)]
    d = doc(cluster, "-j", "999999")
    assert d["jobs"] == [] and d["errors"] == []


def test_yaml_is_the_same_tree(cluster, jobs):
    args = ("-j", ids(jobs))
    j, y = doc(cluster, *args), doc(cluster, *args, kind="--yaml")
    assert j["meta"].pop("command")[1:] == ["--json", *args]
    assert y["meta"].pop("command")[1:] == ["--yaml", *args]
    assert y == j


def test_weird_name(cluster, jobs):
    out = cluster.out("sacct", "--json", "-j", str(jobs["weird"]))
    assert "\\/" in out
    assert json.loads(out)["jobs"][0]["name"] == WEIRD
    y = doc(cluster, "-j", str(jobs["weird"]), kind="--yaml")
    assert y["jobs"][0]["name"] == WEIRD


# dbv0.0.38's members (Slurm 22.05's spec and output), every one written
JOB_MEMBERS = {
    "account", "comment", "allocation_nodes", "array", "association", "cluster",
    "constraints", "container", "derived_exit_code", "time", "exit_code", "flags", "group",
    "het", "job_id", "name", "mcs", "nodes", "partition", "priority", "qos", "required",
    "kill_request_user", "reservation", "state", "steps", "tres", "user", "wckey",
    "working_directory"}
STEP_MEMBERS = {"nodes", "tres", "time", "exit_code", "tasks", "pid", "CPU",
                "kill_request_user", "state", "statistics", "step", "task"}
TIME_MEMBERS = {"elapsed", "eligible", "end", "start", "submission", "suspended", "system",
                "limit", "total", "user"}


def test_members_are_slurms(cluster, jobs):
    j = by_id(doc(cluster, "-j", str(jobs["ok"])))[jobs["ok"]]
    assert set(j) == JOB_MEMBERS
    assert set(j["time"]) == TIME_MEMBERS
    assert set(j["comment"]) == {"administrator", "job", "system"}
    assert set(j["array"]) == {"job_id", "limits", "task", "task_id"}
    assert set(j["association"]) == {"account", "cluster", "partition", "user"}
    assert set(j["tres"]) == {"allocated", "requested"}
    assert all(set(t) == {"type", "name", "id", "count"} for t in j["tres"]["allocated"])
    for s in j["steps"]:
        assert set(s) == STEP_MEMBERS
        assert set(s["time"]) == TIME_MEMBERS - {"eligible", "submission", "limit"}
        assert set(s["tres"]) == {"requested", "consumed", "allocated"}
        assert set(s["tres"]["requested"]) == {"max", "min", "average", "total"}
        assert set(s["step"]) == {"job_id", "het", "id", "name"}


def test_pending_job(cluster, jobs):
    j = by_id(doc(cluster, "-j", str(jobs["held"])))[jobs["held"]]
    assert j["state"]["current"] == "PENDING"
    assert j["nodes"] == "None assigned"
    assert j["exit_code"]["status"] == "PENDING"
    assert j["time"]["start"] == 0 and j["time"]["elapsed"] == 0
    assert j["steps"] == []
    assert check(j, db_schemas()["dbv0.0.38_job"]) == []
