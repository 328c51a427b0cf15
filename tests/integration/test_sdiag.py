"""sdiag: Slurm's layout, job counters, RPC counts by message type and by
user, and -r (admins only, Slurm's refusal text otherwise)."""

import re

from cluster import submit, wait_for, wait_state

CLUSTER_KWARGS = {"name": "sdiag"}

HEAD = re.compile(
    r"\*{55}\n"
    r"sdiag output at \w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4} \(\d+\)\n"
    r"Data since      \w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4} \(\d+\)\n"
    r"\*{55}\n"
    r"Server thread count:  \d+\n"
    r"Agent queue size:     \d+\n"
    r"Agent count:          \d+\n"
    r"Agent thread count:   \d+\n"
    r"DBD Agent queue size: \d+\n"
    r"\n"
    r"Jobs submitted: (?P<submitted>\d+)\n"
    r"Jobs started:   (?P<started>\d+)\n"
    r"Jobs completed: (?P<completed>\d+)\n"
    r"Jobs canceled:  (?P<canceled>\d+)\n"
    r"Jobs failed:    (?P<failed>\d+)\n"
    r"\n"
    r"Job states ts:  \w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4} \(\d+\)\n"
    r"Jobs pending:   (?P<pending>\d+)\n"
    r"Jobs running:   (?P<running>\d+)\n"
    r"\n"
    r"Main schedule statistics \(microseconds\):\n"
    r"\tLast cycle:   \d+\n"
    r"\tMax cycle:    \d+\n"
    r"\tTotal cycles: \d+\n"
    r"(\tMean cycle:   \d+\n\tMean depth cycle:  \d+\n)?"
    r"(\tCycles per minute: \d+\n)?"
    r"\tLast queue length: \d+\n"
    r"\n"
    r"Backfilling stats\n"
    r"\tTotal backfilled jobs \(since last slurm start\): \d+\n"
    r"\tTotal backfilled jobs \(since last stats cycle start\): \d+\n"
    r"\tTotal backfilled heterogeneous job components: 0\n"
    r"\tTotal cycles: \d+\n"
    r"\tLast cycle when: (N/A|.* \(\d+\))\n"
    r"\tLast cycle: \d+\n"
    r"\tMax cycle:  \d+\n")

RPC_TYPE = re.compile(r"\t(?P<name>\S+) +\( *(?P<num>\d+)\) count:(?P<count>\d+) +"
                      r"ave_time:\d+ +total_time:\d+\n")
RPC_USER = re.compile(r"\t(?P<name>\S+) +\( *(?P<uid>\d+)\) count:(?P<count>\d+) +"
                      r"ave_time:\d+ +total_time:\d+\n")


def sdiag(cluster, *args, **kw):
    r = cluster.run("sdiag", *args, **kw)
    assert r.stderr == ""
    return r.stdout


def parse(text):
    m = HEAD.match(text)
    assert m, text
    types = text.split("Remote Procedure Call statistics by message type\n", 1)[1]
    types, users = types.split("\nRemote Procedure Call statistics by user\n", 1)
    users, pending = users.split("\nPending RPC statistics\n", 1)
    assert pending == "\tNo pending RPCs\n"
    return ({k: int(v) for k, v in m.groupdict().items()},
            {x["name"]: (int(x["num"]), int(x["count"])) for x in RPC_TYPE.finditer(types)},
            {int(x["uid"]): (x["name"], int(x["count"])) for x in RPC_USER.finditer(users)},
            types, users)


def test_the_layout_is_slurms_and_rows_line_up(cluster):
    out = sdiag(cluster)
    assert "\nLatency for 1000 calls to gettimeofday(): " in out
    _, types, _, text, _ = parse(out)
    for line in text.splitlines():
        # name padded to 40, number to 5, as Slurm prints them
        assert re.match(r"\t.{40}\( {0,4}\d+\) count:", line), line
    assert "REQUEST_STATS_INFO" not in types or types["REQUEST_STATS_INFO"][0] == 2035


def test_counts_jobs_and_rpcs_then_reset(cluster):
    sdiag(cluster, "-r")
    before, _, _, _, _ = parse(sdiag(cluster))
    assert before["submitted"] == before["started"] == before["completed"] == 0
    ids = [submit(cluster, "--wrap", "true") for _ in range(3)]
    held = submit(cluster, "-H", "--wrap", "true")
    cancel = submit(cluster, "-H", "--wrap", "true")
    cluster.run("scancel", str(cancel))
    for i in ids:
        wait_state(cluster, i, "COMPLETED")
    wait_state(cluster, cancel, "CANCELLED")
    counts, types, users, _, _ = parse(sdiag(cluster))
    assert counts["submitted"] == 5
    assert counts["started"] == 3
    assert counts["completed"] == 3
    assert counts["canceled"] == 1
    assert counts["failed"] == 0
    assert counts["pending"] == 1  # the held one
    assert types["REQUEST_SUBMIT_BATCH_JOB"] == (4003, 5)
    assert types["REQUEST_KILL_JOB"][1] == 1
    assert users[0][0] == "root" and users[0][1] >= 6
    # -r zeroes the counters and the RPC tables (only the sdiag call is left)
    assert sdiag(cluster, "-r") == "Reset scheduling statistics\n"
    counts, types, users, _, _ = parse(sdiag(cluster))
    assert counts["submitted"] == counts["started"] == counts["completed"] == 0
    assert counts["canceled"] == 0
    assert "REQUEST_SUBMIT_BATCH_JOB" not in types
    assert types == {"REQUEST_STATS_INFO": (2035, 1)}
    assert counts["pending"] == 1
    cluster.run("scancel", str(held))


def test_rpc_sorts(cluster):
    for opt in ("-i", "-t", "-T"):
        _, _, _, text, _ = parse(sdiag(cluster, opt))
        nums = [int(x["num"]) for x in RPC_TYPE.finditer(text)]
        if opt == "-i":
            assert nums == sorted(nums)
    _, _, _, text, _ = parse(sdiag(cluster))
    counts = [int(x["count"]) for x in RPC_TYPE.finditer(text)]
    assert counts == sorted(counts, reverse=True)


def test_a_user_sees_but_cannot_reset(cluster, test_user):
    out = sdiag(cluster, user=test_user.pw_name)
    _, _, users, _, _ = parse(out)
    r = cluster.run("sdiag", "-r", user=test_user.pw_name, check=False)
    assert r.returncode == 255
    assert r.stdout == ""
    assert r.stderr == "slurm_reset_statistics: Access/permission denied\n"
    _, _, users, _, _ = parse(sdiag(cluster))
    assert users[test_user.pw_uid] == (test_user.pw_name, 2)


def test_bad_option_and_other_cluster(cluster):
    r = cluster.run("sdiag", "--bogus", check=False)
    assert r.returncode == 1
    r = cluster.run("sdiag", "-M", "elsewhere", check=False)
    assert r.returncode == 1
    assert "elsewhere" in r.stderr



def test_a_restart_starts_the_counts_again(fresh_cluster):
    c = fresh_cluster(name="sdiag-restart")
    held = submit(c, "-H", "--wrap", "true")
    done = submit(c, "--wrap", "true")
    wait_state(c, done, "COMPLETED")
    c.restart_slurmctld()
    c.wait_ctld_up()
    counts, _, _, _, _ = parse(sdiag(c))
    assert counts["submitted"] == counts["started"] == counts["completed"] == 0
    assert counts["pending"] == 1
    # the replayed job is not "submitted" again, but its run counts
    c.run("scontrol", "release", str(held))
    wait_state(c, held, "COMPLETED")
    counts, _, _, _, _ = parse(sdiag(c))
    assert (counts["submitted"], counts["started"], counts["completed"]) == (0, 1, 1)
