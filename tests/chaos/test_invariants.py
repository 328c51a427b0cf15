"""The chaos run's checker on made-up records (no cluster, a second): a
checker that cannot fail would make every chaos run pass."""

import invariants as inv
from monkey import Monitor, seconds_of
from workload import ARRAY_TASKS, Submission

T0 = "2026-01-01T10:00:00"


def sub(seq, job_id, kind="batch"):
    return Submission(seq, kind, 0.0, [], 60, job_id=job_id,
                      tasks=ARRAY_TASKS if kind == "array" else 1)


def rec(job_id, name, state="COMPLETED", exit_code="0:0", start=T0, end="2026-01-01T10:00:05",
        **extra):
    r = {"JobId": str(job_id), "JobName": name, "JobState": state, "ExitCode": exit_code,
         "StartTime": start, "EndTime": end, "Restarts": "0"}
    r.update({k: str(v) for k, v in extra.items()})
    return r


def acct(raw, label, name, state="COMPLETED", exit_code="0:0", end="2026-01-01T10:00:05"):
    return {"JobIDRaw": str(raw), "JobID": label, "JobName": name, "State": state,
            "Start": T0, "End": end, "ExitCode": exit_code}


def test_a_job_in_neither_view_is_lost_and_a_pending_one_is_not_final():
    subs = [sub(1, 10), sub(2, 11), sub(3, 12)]
    jobs = {10: rec(10, "chaos-1-batch"), 11: rec(11, "chaos-2-batch", state="PENDING")}
    row = inv.check_ends(subs, inv.resolve(subs, jobs, {}))
    assert row.checked == 3
    assert set(row.offenders) == {"11", "12"}
    assert "neither" in row.offenders["12"]


def test_sacct_alone_is_enough_and_its_cancelled_by_uid_is_final():
    subs = [sub(1, 10)]
    rows = {10: acct(10, "10", "chaos-1-batch", state="CANCELLED by 0")}
    resolved = inv.resolve(subs, {}, rows)
    assert resolved[0].final
    assert not inv.check_ends(subs, resolved).offenders


def test_an_id_handed_out_twice_shows_as_another_name_or_a_duplicate():
    subs = [sub(1, 10), sub(2, 10), sub(3, 11)]
    jobs = {10: rec(10, "chaos-2-batch"), 11: rec(11, "chaos-9-batch")}
    row = inv.check_ends(subs, inv.resolve(subs, jobs, {}))
    assert "printed 2 times" in row.offenders["10"] or "named" in row.offenders["10"]
    assert "named 'chaos-9-batch'" in row.offenders["11"]


def test_each_array_task_is_a_job_and_the_pending_rest_is_not_final():
    s = sub(1, 20, "array")
    jobs = {20: rec(20, s.name, state="PENDING", ArrayJobId=20, ArrayTaskId="5-6%2")}
    for k in range(1, 5):
        jobs[20 + k] = rec(20 + k, s.name, ArrayJobId=20, ArrayTaskId=k)
    resolved = inv.resolve([s], jobs, {})
    assert [j.label for j in resolved] == [f"20_{k}" for k in range(1, 7)]
    row = inv.check_ends([s], resolved)
    assert set(row.offenders) == {"20_5", "20_6"}
    # a task only sacct still has
    del jobs[21]
    resolved = inv.resolve([s], jobs, {21: acct(21, "20_1", s.name)})
    assert resolved[0].final and resolved[0].raw == 21


def test_accounting_must_agree_on_state_exit_code_and_end():
    s = sub(1, 10)

    def mismatch(r, a):
        return inv._acct_mismatch(inv.Job("10", s, 10, r, a))
    name = s.name
    assert mismatch(rec(10, name), acct(10, "10", name)) == ""
    assert mismatch(rec(10, name), None) == "no accounting row"
    assert "state" in mismatch(rec(10, name), acct(10, "10", name, state="FAILED"))
    assert "exit code" in mismatch(rec(10, name, "FAILED", "3:0"),
                                   acct(10, "10", name, "FAILED", "0:0"))
    assert "end" in mismatch(rec(10, name), acct(10, "10", name, end="2026-01-01T10:00:08"))
    assert mismatch(rec(10, name), acct(10, "10", name, end="2026-01-01T10:00:07")) == ""
    # Slurm's own split: the row of a job the controller ended says 0:0
    assert mismatch(rec(10, name, "TIMEOUT", "0:15"), acct(10, "10", name, "TIMEOUT")) == ""
    assert mismatch(rec(10, name, "CANCELLED", "0:15"),
                    acct(10, "10", name, "CANCELLED by 0")) == ""


def test_a_final_job_that_ran_past_its_limit_is_caught():
    s = sub(1, 10)
    ok = rec(10, s.name, "TIMEOUT", start=T0, end="2026-01-01T10:01:10")
    late = rec(10, s.name, "TIMEOUT", start=T0, end="2026-01-01T10:01:20")
    mon = Monitor(cluster=None, grace=15)
    assert not inv.check_time_limits(inv.resolve([s], {10: ok}, {}), mon, 15).offenders
    assert inv.check_time_limits(inv.resolve([s], {10: late}, {}), mon, 15).offenders
    mon.over_limit[33] = "RUNNING 1:30 under a limit of 1:00"
    assert "33" in inv.check_time_limits([], mon, 15).offenders


def test_completing_counts_from_the_end_of_the_chaos():
    mon = Monitor(cluster=None, grace=15)
    mon.completing = {5: [[100.0, 150.0]], 6: [[100.0, 200.0]]}
    assert mon.completing_since(5, 140.0) == 10.0
    row = inv.check_completing([], mon, since=140.0, limit=40)
    assert set(row.offenders) == {"6"} and row.checked == 2


def test_slurm_durations():
    assert seconds_of("0:05") == 5
    assert seconds_of("1:00") == 60
    assert seconds_of("00:01:00") == 60
    assert seconds_of("1-00:00:01") == 86401
    assert seconds_of("5") == 300
    assert seconds_of("UNLIMITED") is None


def test_the_table_lists_offenders_under_their_row():
    rows = [inv.Row("(1) lost", 3, {"12": "gone"}), inv.Row("(2) limits", 3)]
    text = inv.table(rows, known={1: "bug"})
    assert "| (1) lost | 3 | 1 (known bug) |" in text
    assert "| (2) limits | 3 | 0 |" in text
    assert "(1) offenders:\n  12: gone" in text


def test_a_process_seen_long_enough_after_its_job_is_a_stray():
    mon = Monitor(cluster=None, grace=15)
    t = 100.0
    for _ in range(5):  # every 2 s: job 7 RUNNING, job 8 over, job 9 pending again
        # job 10 runs again since 1000; pid 5 is of its first run
        mon._strays({1: (7, "sleep 5", 990.0), 2: (8, "sleep 90", 990.0),
                     3: (9, "sleep 9", 990.0), 5: (10, "sleep 90", 990.0),
                     6: (10, "sleep 90", 1000.0)},
                    {7: ("RUNNING", 990.0), 9: ("PENDING", None), 10: ("RUNNING", 1000.0)}, t)
        t += 2
    mon._strays({4: (8, "sleep 1", 1000.0)}, {}, t)  # seen once: an end in progress
    row = inv.check_strays(mon)
    assert row.checked == 4
    assert set(row.offenders) == {"8", "9", "10"}
    assert "pid 2 `sleep 90` alive for 8 s while the job was ended" == row.offenders["8"]
    assert "PENDING" in row.offenders["9"]
    assert row.offenders["10"].startswith("pid 5 ")
