"""Advanced reservations on a real cluster (n1..n3, one partition):

* scontrol create/show/update/delete reservation and sinfo -T print what
  Slurm 22.05 prints (texts compared with captures of the reference);
* a MAINT reservation marks its nodes maint; other jobs stay off its nodes
  for its window (ReqNodeNotAvail texts), its own jobs run only there and
  only then (Reservation), and end with it;
* users not listed are refused; a reservation in use cannot be deleted;
* backfill plans jobs around reservation windows (squeue --start), also
  a job kept off an active reservation's nodes: it starts at its end;
* reservations survive a controller restart;
* FLEX: its jobs start before it, use nodes outside it and outlive it;
* deleting a reservation holds its pending jobs (RESV_DEL_HOLD, priority
  0, "Reservation NAME was deleted"), or with NO_HOLD_JOBS_AFTER lets them
  run anywhere; both survive a restart;
* sacct -o Reservation,ReservationId gives the name and its ResvID.
"""

import re
from datetime import datetime

import pytest

from cluster import job, submit, wait_for, wait_state

CLUSTER_KWARGS = dict(nodes=("n1", "n2", "n3"),
                      settings={"SchedulerParameters": "bf_interval=1,bf_resolution=1"})

TS = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def scontrol(cluster, *args, **kw):
    return cluster.run("scontrol", *args, check=False, **kw)


def create(cluster, *words):
    r = scontrol(cluster, "create", "reservation", *words)
    assert r.returncode == 0, r.stderr
    m = re.fullmatch(r"Reservation created: (\S+)\n", r.stdout)
    assert m, r.stdout
    return m.group(1)


def resv(cluster, name):
    out = cluster.out("scontrol", "-o", "show", "reservation", name)
    return dict(w.split("=", 1) for w in out.split() if "=" in w)


def sleeper(cluster, *args, **kw):
    return submit(cluster, "-o", "/dev/null", *args, "--wrap", "sleep 300", **kw)


@pytest.fixture
def clean(cluster):
    """No reservation is left behind."""
    yield
    out = cluster.out("scontrol", "-o", "show", "reservation")
    for name in re.findall(r"^ReservationName=(\S+)", out, re.M):
        scontrol(cluster, "delete", f"ReservationName={name}")


def test_show_and_sinfo_formats(cluster, clean):
    assert cluster.out("scontrol", "show", "reservation") == "No reservations in the system\n"
    assert cluster.out("sinfo", "-T") == "No reservations in the system\n"
    assert create(cluster, "ReservationName=maint", "StartTime=now", "Duration=60",
                  "Nodes=n1", "Users=root", "Flags=MAINT,IGNORE_JOBS") == "maint"
    assert create(cluster, "StartTime=now+1hour", "Duration=2:00:00", "NodeCnt=2",
                  "Users=root", "Flags=DAILY") == "root_2"  # Slurm counts every create
    out = cluster.out("scontrol", "show", "reservation", "maint")
    assert re.fullmatch(
        rf"ReservationName=maint StartTime={TS} EndTime={TS} Duration=01:00:00\n"
        r"   Nodes=n1 NodeCnt=1 CoreCnt=4 Features=\(null\) PartitionName=\(null\) "
        r"Flags=MAINT,IGNORE_JOBS,SPEC_NODES\n"
        r"   TRES=cpu=4\n"
        r"   Users=root Groups=\(null\) Accounts=\(null\) Licenses=\(null\) State=ACTIVE "
        r"BurstBuffer=\(null\) Watts=n/a\n"
        r"   MaxStartDelay=\(null\)\n\n", out), out
    r = resv(cluster, "root_2")  # maint has ended on n1 when it starts
    assert (r["Nodes"], r["PartitionName"], r["Flags"], r["State"], r["Duration"]) == (
        "n[1-2]", "debug", "DAILY", "INACTIVE", "02:00:00")
    lines = cluster.out("sinfo", "-T").splitlines()
    assert lines[0] == ("RESV_NAME     STATE           START_TIME             END_TIME     "
                        "DURATION  NODELIST")
    assert re.fullmatch(rf"maint        ACTIVE  {TS}  {TS}     01:00:00  n1", lines[1]), lines
    assert re.fullmatch(rf"root_2     INACTIVE  {TS}  {TS}     02:00:00  n\[1-2\]", lines[2])
    wait_for(lambda: cluster.node_state("n1") == "maint", timeout=10, what="n1 in maint")


def test_create_errors(cluster, clean):
    create(cluster, "ReservationName=o1", "StartTime=now", "Duration=60", "Nodes=n3",
           "Users=root")
    cases = [
        (["ReservationName=y", "Duration=60", "Nodes=n1", "Users=root"],
         "scontrol: error: A start time must be given.  No reservation created.\n"),
        (["ReservationName=y", "StartTime=now", "Nodes=n1", "Users=root"],
         "scontrol: error: An end time or duration must be given.  No reservation created.\n"),
        (["ReservationName=y", "StartTime=now", "Duration=60", "Users=root"],
         "scontrol: error: CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be "
         "specified.  No reservation created.\n"),
        (["ReservationName=y", "StartTime=now", "Duration=60", "Nodes=n2"],
         "scontrol: error: Either Users/Groups and/or Accounts must be specified.  No "
         "reservation created.\n"),
        (["ReservationName=o2", "StartTime=now", "Duration=60", "Nodes=n3", "Users=root"],
         "Error creating the reservation: Requested reservation overlaps with another "
         "reservation\n"),
        (["ReservationName=o1", "StartTime=now+3hours", "Duration=60", "Nodes=n3",
          "Users=root"], "Error creating the reservation: Duplicate reservation name\n"),
        (["ReservationName=u1", "StartTime=now", "Duration=60", "Nodes=n9", "Users=root"],
         "Error creating the reservation: Invalid node name specified\n"),
        (["ReservationName=u4", "StartTime=now", "Duration=60", "Nodes=n2", "Users=root",
          "PartitionName=nope"], "Error creating the reservation: Invalid partition name "
                                 "specified\n"),
    ]
    for words, err in cases:
        r = scontrol(cluster, "create", "reservation", *words)
        assert (r.returncode, r.stderr) == (1, err), words
    create(cluster, "ReservationName=o3", "StartTime=now", "Duration=60", "Nodes=n3",
           "Users=root", "Flags=OVERLAP")


def test_other_jobs_stay_off_and_own_jobs_run_there(cluster, clean, cancel_after):
    create(cluster, "ReservationName=r1", "StartTime=now", "Duration=60", "Nodes=n1",
           "Users=root")
    a = sleeper(cluster, "-w", "n1", "-t", "10")
    cancel_after.append(a)
    wait_for(lambda: job(cluster, a)["Reason"].startswith("ReqNodeNotAvail"), timeout=20)
    assert cluster.out("squeue", "-h", "-j", str(a), "-o", "%r") == (
        "ReqNodeNotAvail, May be reserved for other job\n")
    b = sleeper(cluster, "--reservation=r1", "-t", "10")
    cancel_after.append(b)
    rec = wait_state(cluster, b, "RUNNING")
    assert rec["NodeList"] == "n1"
    assert rec["Reservation"] == "r1"
    assert cluster.out("squeue", "-h", "-j", str(b), "-o", "%v") == "r1\n"
    # others run elsewhere
    c = sleeper(cluster, "-N2", "-t", "10")
    cancel_after.append(c)
    assert wait_state(cluster, c, "RUNNING")["NodeList"] == "n[2-3]"
    r = scontrol(cluster, "delete", "ReservationName=r1")
    assert (r.returncode, r.stderr) == (1, "delete_reservation ReservationName=r1: Requested "
                                           "reservation is in use\n")


def test_future_maint_window_holds_long_jobs(cluster, clean, cancel_after):
    create(cluster, "ReservationName=mw", "StartTime=now+30minutes", "Duration=60",
           "Nodes=ALL", "Users=root", "Flags=MAINT")
    assert resv(cluster, "mw")["Flags"] == "MAINT,SPEC_NODES,ALL_NODES"
    long_ = sleeper(cluster, "-t", "60")
    cancel_after.append(long_)
    wait_for(lambda: job(cluster, long_)["Reason"].startswith("ReqNodeNotAvail"), timeout=20,
             what="the long job to wait for the window")
    assert cluster.out("squeue", "-h", "-j", str(long_), "-o", "%r") == (
        "ReqNodeNotAvail, Reserved for maintenance\n")
    # backfill plans it after the window: squeue --start says when
    end = resv(cluster, "mw")["EndTime"]
    wait_for(lambda: job(cluster, long_)["StartTime"] not in ("Unknown", "None"), timeout=20,
             what="backfill to plan the long job")
    assert job(cluster, long_)["StartTime"] >= end
    start_col = cluster.out("squeue", "--start", "-h", "-j", str(long_), "-o", "%S").strip()
    assert start_col >= end, start_col
    short = sleeper(cluster, "-t", "20")  # ends before the window
    cancel_after.append(short)
    wait_state(cluster, short, "RUNNING")
    # a job of the reservation waits for its start
    mine = sleeper(cluster, "--reservation=mw", "-t", "10")
    cancel_after.append(mine)
    wait_for(lambda: job(cluster, mine)["Reason"] == "Reservation", timeout=20)


def test_users_not_listed_are_refused(cluster, test_user, clean):
    create(cluster, "ReservationName=rootonly", "StartTime=now", "Duration=60", "Nodes=n2",
           "Users=root")
    r = cluster.run("sbatch", "--reservation=rootonly", "--wrap", "true",
                    user=test_user.pw_name, check=False)
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: Access denied to "
                        "requested reservation\n")
    r = cluster.run("sbatch", "--reservation=nope", "--wrap", "true", check=False)
    assert r.stderr == ("sbatch: error: Batch job submission failed: Requested reservation "
                        "is invalid\n")
    r = scontrol(cluster, "create", "reservation", "ReservationName=x", "StartTime=now",
                 "Duration=5", "Nodes=n3", "Users=root", user=test_user.pw_name)
    assert r.returncode == 1 and "Invalid user id" in r.stderr


def test_update_and_restart(cluster, clean):
    create(cluster, "ReservationName=up", "StartTime=now+1hour", "Duration=60", "Nodes=n2",
           "Users=root")
    r = scontrol(cluster, "update", "ReservationName=up", "Duration=120", "Flags+=OVERLAP")
    assert (r.returncode, r.stdout, r.stderr) == (0, "Reservation updated.\n", "")
    r = scontrol(cluster, "update", "ReservationName=nope", "Duration=5")
    assert (r.returncode, r.stderr) == (
        1, "Error updating the reservation: Requested reservation is invalid\n"
           "slurm_update error: Requested reservation is invalid\n")
    before = resv(cluster, "up")
    assert (before["Duration"], before["Flags"]) == ("02:00:00", "OVERLAP,SPEC_NODES")
    cluster.restart_slurmctld()
    assert resv(cluster, "up") == before
    r = scontrol(cluster, "delete", "ReservationName=up")
    assert (r.returncode, r.stderr) == (0, "")
    r = scontrol(cluster, "show", "reservation", "up")
    assert (r.returncode, r.stdout) == (1, "Reservation up not found\n")


def test_jobs_end_with_their_reservation(cluster, clean):
    create(cluster, "ReservationName=short", "StartTime=now", "Duration=1", "Nodes=n3",
           "Users=root")
    resv_end = datetime.strptime(resv(cluster, "short")["EndTime"], "%Y-%m-%dT%H:%M:%S")
    j = sleeper(cluster, "--reservation=short")
    rec = wait_state(cluster, j, "RUNNING")
    assert rec["TimeLimit"] == "UNLIMITED"  # the partition's: only the reservation ends it
    rec = wait_state(cluster, j, ("TIMEOUT", "CANCELLED", "COMPLETED"), timeout=120)
    assert rec["JobState"] == "TIMEOUT"
    ended = datetime.strptime(rec["EndTime"], "%Y-%m-%dT%H:%M:%S")
    assert 0 <= (ended - resv_end).total_seconds() <= 5, (ended, resv_end)
    wait_for(lambda: scontrol(cluster, "show", "reservation", "short").returncode == 1,
             timeout=30, what="the reservation to end")


def sacct_resv(cluster, job_id):
    return cluster.out("sacct", "-X", "-n", "-P", "-j", str(job_id), "-o",
                       "JobID,Reservation,ReservationId").strip()


def test_jobs_kept_off_an_active_reservation_start_at_its_end(cluster, clean, cancel_after):
    create(cluster, "ReservationName=blk", "StartTime=now", "Duration=30", "Nodes=n[1-2]",
           "Users=root")
    end = resv(cluster, "blk")["EndTime"]
    wide = sleeper(cluster, "-N3", "-t", "10")
    cancel_after.append(wide)
    wait_for(lambda: job(cluster, wide)["Reason"].startswith("ReqNodeNotAvail")
             or job(cluster, wide)["Reason"] == "Nodes_required_for_job_are_DOWN,_DRAINED_or_"
                                                "reserved_for_jobs_in_higher_priority_partitions",
             timeout=20, what="the wide job to wait for the reserved nodes")
    wait_for(lambda: job(cluster, wide)["StartTime"] not in ("Unknown", "None"), timeout=20,
             what="backfill to plan the wide job")
    rec = job(cluster, wide)
    assert rec["StartTime"] >= end, (rec["StartTime"], end)
    assert rec["SchedNodeList"] == "n[1-3]"
    start_col = cluster.out("squeue", "--start", "-h", "-j", str(wide), "-o", "%S").strip()
    assert start_col >= end, start_col


def test_flex_jobs_start_early_outside_it_and_outlive_it(cluster, clean, cancel_after):
    create(cluster, "ReservationName=fx", "StartTime=now", "Duration=1", "Nodes=n1",
           "Users=root", "Flags=FLEX")
    create(cluster, "ReservationName=soon", "StartTime=now+1hour", "Duration=60", "Nodes=n3",
           "Users=root", "Flags=FLEX")
    assert resv(cluster, "fx")["Flags"] == "FLEX,SPEC_NODES"
    fx_end = resv(cluster, "fx")["EndTime"]
    # on its node and one outside it, for longer than it lasts
    wide = sleeper(cluster, "--reservation=fx", "-N2", "-t", "10")
    cancel_after.append(wide)
    rec = wait_state(cluster, wide, "RUNNING")
    assert rec["NodeList"] == "n[1-2]"
    assert rec["EndTime"] > fx_end, (rec["EndTime"], fx_end)
    # before its reservation starts (kept off fx's node, as other jobs are)
    early = sleeper(cluster, "--reservation=soon", "-t", "5")
    cancel_after.append(early)
    assert wait_state(cluster, early, "RUNNING")["NodeList"] != "n1"
    # fx ends; its job runs on
    wait_for(lambda: scontrol(cluster, "show", "reservation", "fx").returncode == 1,
             timeout=90, what="fx to end")
    assert job(cluster, wide)["JobState"] == "RUNNING"
    wait_for(lambda: re.fullmatch(rf"{wide}\|fx\|\d+", sacct_resv(cluster, wide)), timeout=20,
             what="the accounting row")


def test_a_deleted_reservations_pending_jobs_are_held_or_let_go(cluster, clean, cancel_after):
    create(cluster, "ReservationName=h", "StartTime=now+1hour", "Duration=60", "Nodes=n1",
           "Users=root")
    create(cluster, "ReservationName=nh", "StartTime=now+1hour", "Duration=60", "Nodes=n2",
           "Users=root", "Flags=NO_HOLD_JOBS_AFTER")
    assert resv(cluster, "nh")["Flags"] == "SPEC_NODES,NO_HOLD_JOBS_AFTER_END"
    held = sleeper(cluster, "--reservation=h", "-t", "5")
    freed = sleeper(cluster, "--reservation=nh", "-t", "5")
    cancel_after.extend([held, freed])
    for j in (held, freed):
        wait_for(lambda: job(cluster, j)["Reason"] == "Reservation", timeout=20)
    # the ids the jobs' rows carry while they wait
    wait_for(lambda: re.fullmatch(rf"{held}\|h\|\d+", sacct_resv(cluster, held)), timeout=20,
             what="the pending job's accounting row")
    for name in ("h", "nh"):
        r = scontrol(cluster, "delete", f"ReservationName={name}")
        assert (r.returncode, r.stderr) == (0, "")

    def held_as_slurm_does():
        rec = job(cluster, held)
        assert (rec["JobState"], rec["Reason"], rec["Priority"], rec.get("Reservation")) == (
            "RESV_DEL_HOLD", "Reservation_h_was_deleted", "0", None), rec
        assert cluster.out("squeue", "-h", "-j", str(held), "-o", "%T|%t|%r|%Q") == (
            "RESV_DEL_HOLD|RD|Reservation h was deleted|0\n")

    held_as_slurm_does()
    rec = wait_state(cluster, freed, "RUNNING")  # anywhere, as any job
    assert "Reservation" not in rec
    cluster.restart_slurmctld()
    held_as_slurm_does()
    assert job(cluster, freed)["JobState"] == "RUNNING"
    wait_for(lambda: sacct_resv(cluster, held) == f"{held}||", timeout=20,
             what="the held job's row without its reservation")
    # an admin's release makes it a job like any other
    cluster.run("scontrol", "release", str(held))
    rec = wait_state(cluster, held, "RUNNING")
    assert "Reservation" not in rec
