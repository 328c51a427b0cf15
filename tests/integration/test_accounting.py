"""Accounting on a cluster configured like the reference: every job and
step gets a row in the controller's SQLite store; sacct prints them as Slurm
22.05 does (the default view byte for byte against sacct_default.txt), with
the CPU time and memory the stepds measured; seff turns them into
efficiencies; rows survive a kill -9 of the controller; PrivateData=jobs
hides other users' rows.
"""

import grp
import os
import re
import signal
import time

import pytest

from cluster import REFERENCE_DIR, Cluster, submit, wait_for, wait_state

make_cluster = Cluster.like_reference

FINAL = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL")


def reference_stdout(name):
    text = (REFERENCE_DIR / name).read_text()
    return text.split("--- stdout\n", 1)[1].split("--- stderr")[0]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("acct")
    os.chmod(d, 0o777)
    return d


@pytest.fixture(scope="module", autouse=True)
def ref_jobs(cluster, workdir):
    """The reference's five jobs (sacct_default.txt), in its order: a
    one-minute job that times out (submitted first, so that the minute
    passes while the other tests run), one failing with exit 3, one killed
    for memory, one completing, one cancelled."""
    def sb(name, *args):
        return submit(cluster, "-D", workdir, "-J", name, "-o", f"{name}-%j.out", *args)

    jobs = {"timeout_job": sb("timeout_job", "-t1", "--wrap", "sleep 300")}
    jobs["timeout_steps"] = sb("timeout_steps", "-t1", "--wrap", "srun sleep 300")
    jobs["fail_job"] = sb("fail_job", "--wrap", "exit 3")
    jobs["oom_job"] = sb("oom_job", "--mem=20M", "--wrap",
                         "python3 -c 'import time; b = b\"x\" * (200 << 20); time.sleep(10)'")
    jobs["ok_job"] = sb("ok_job", "--wrap", "sleep 1")
    jobs["cancel_job"] = sb("cancel_job", "--wrap", "sleep 300")
    wait_state(cluster, jobs["cancel_job"], "RUNNING")
    cluster.run("scancel", str(jobs["cancel_job"]))
    for name in ("fail_job", "oom_job", "ok_job", "cancel_job"):
        wait_state(cluster, jobs[name], FINAL, timeout=60)
    return jobs


def swap_id(line, ref_id, our_id):
    """A reference row with our job id in its 12-wide left-justified JobID."""
    jobid = line[:12].rstrip()
    return f"{our_id + jobid[len(ref_id):]:<12}" + line[12:]


@pytest.fixture(scope="module")
def step_jobs(cluster, workdir):
    """The same endings with an srun step (.0) inside each job."""
    def sb(name, *args):
        return submit(cluster, "-D", workdir, "-J", name, "-o", "/dev/null", *args)

    alloc = "import time; b = b'x' * (200 << 20); time.sleep(10)"
    jobs = {"ok": sb("ok_steps", "--wrap", "srun true"),
            "fail": sb("fail_steps", "--wrap", "srun true; exit 3"),
            "oom": sb("oom_steps", "--mem=20M", "--wrap", f'srun python3 -c "{alloc}"'),
            "cancel": sb("cancel_steps", "--wrap", "srun sleep 300")}
    wait_for(lambda: len(parsable(cluster, "-j", str(jobs["cancel"]), "-o", "JobID,State")) == 3,
             timeout=30, what="the cancel job's step to start")
    cluster.run("scancel", str(jobs["cancel"]))
    for jid in jobs.values():
        wait_state(cluster, jid, FINAL, timeout=60)
    return jobs


def sacct(cluster, *args, **kw):
    return cluster.run("sacct", *args, **kw)


def parsable(cluster, *args, **kw):
    """sacct -P rows as dicts (the header gives the keys)."""
    lines = sacct(cluster, "-P", *args, **kw).stdout.splitlines()
    keys = lines[0].split("|")
    rows = [dict(zip(keys, line.split("|"))) for line in lines[1:]]
    assert all(len(line.split("|")) == len(keys) for line in lines)
    return rows


def secs(text):
    """[D-][HH:]MM:SS[.mmm] -> seconds."""
    days, _, rest = text.rpartition("-")
    parts = [float(p) for p in rest.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0.0)
    return int(days or 0) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]


def kbytes(text):
    """sacct memory ("3044K", "2.50M", "1.20G") -> KiB."""
    m = re.fullmatch(r"([\d.]+)([KMGT]?)", text)
    assert m, text
    return float(m.group(1)) * {"": 1 / 1024, "K": 1, "M": 1024, "G": 1024 ** 2,
                                "T": 1024 ** 3}[m.group(2)]


def wait_rows(cluster, job_id, count, timeout=30):
    """Poll until sacct shows count rows for the job (the job and its steps)."""
    wait_for(lambda: len(parsable(cluster, "-j", str(job_id), "-o", "JobID")) >= count,
             timeout=timeout, what=f"{count} sacct rows for job {job_id}")


# ----- the reference's jobs ---------------------------------------------------


def test_rows_for_every_final_state(cluster, ref_jobs):
    j = ref_jobs
    ids = ",".join(str(j[n]) for n in ("ok_job", "fail_job", "cancel_job", "oom_job"))
    rows = parsable(cluster, "-j", ids, "--format=JobID,JobName,State,ExitCode")
    got = [(r["JobID"], r["JobName"], r["State"], r["ExitCode"]) for r in rows]
    assert got == [
        (f"{j['fail_job']}", "fail_job", "FAILED", "3:0"),
        (f"{j['fail_job']}.batch", "batch", "FAILED", "3:0"),
        # killed for memory: OUT_OF_MEMORY with Slurm's pseudo-signal 125 (SIG_OOM)
        (f"{j['oom_job']}", "oom_job", "OUT_OF_MEMORY", "0:125"),
        (f"{j['oom_job']}.batch", "batch", "OUT_OF_MEMORY", "0:125"),
        (f"{j['ok_job']}", "ok_job", "COMPLETED", "0:0"),
        (f"{j['ok_job']}.batch", "batch", "COMPLETED", "0:0"),
        (f"{j['cancel_job']}", "cancel_job", "CANCELLED by 0", "0:0"),
        (f"{j['cancel_job']}.batch", "batch", "CANCELLED", "0:15"),
    ]


def test_rows_of_jobs_with_a_step(cluster, step_jobs):
    j = step_jobs
    ids = ",".join(str(j[n]) for n in ("ok", "fail", "oom", "cancel"))
    for jid in j.values():
        wait_rows(cluster, jid, 3)
    rows = parsable(cluster, "-j", ids, "--format=JobID,JobName,State,ExitCode")
    got = {r["JobID"]: (r["JobName"], r["State"], r["ExitCode"]) for r in rows}
    assert got[str(j["ok"])] == ("ok_steps", "COMPLETED", "0:0")
    assert got[f"{j['ok']}.batch"] == ("batch", "COMPLETED", "0:0")
    assert got[f"{j['ok']}.0"] == ("true", "COMPLETED", "0:0")
    assert got[str(j["fail"])] == ("fail_steps", "FAILED", "3:0")
    assert got[f"{j['fail']}.batch"] == ("batch", "FAILED", "3:0")
    assert got[f"{j['fail']}.0"] == ("true", "COMPLETED", "0:0")
    assert got[f"{j['oom']}.0"] == ("python3", "OUT_OF_MEMORY", "0:125")
    assert got[str(j["oom"])][1] == "OUT_OF_MEMORY", rows
    assert got[str(j["cancel"])] == ("cancel_steps", "CANCELLED by 0", "0:0")
    assert got[f"{j['cancel']}.batch"][1] == "CANCELLED"
    assert got[f"{j['cancel']}.0"][:2] == ("sleep", "CANCELLED")


def test_every_field_prints(cluster, step_jobs, workdir):
    fields = ("JobID,JobIDRaw,JobName,Partition,Account,User,UID,Group,AllocCPUS,AllocNodes,"
              "AllocTRES,ReqCPUS,ReqMem,ReqTRES,NNodes,NodeList,State,ExitCode,DerivedExitCode,"
              "Elapsed,ElapsedRaw,Timelimit,Submit,Eligible,Start,End,TotalCPU,UserCPU,"
              "SystemCPU,CPUTime,CPUTimeRAW,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxVMSize,"
              "WorkDir,Comment,Reason")
    rows = parsable(cluster, "-j", str(step_jobs["ok"]), "-o", fields)
    job, batch, step = rows
    assert (job["User"], job["UID"], job["Group"], job["Account"]) == ("root", "0", "root",
                                                                       "root")
    assert (job["Partition"], job["NNodes"], job["AllocNodes"], job["ReqCPUS"]) == \
        ("cpu-queue", "1", "1", "1")
    assert job["ReqTRES"] == "billing=1,cpu=1,mem=100M,node=1"
    assert job["AllocTRES"] == "billing=1,cpu=1,mem=100M,node=1"
    assert job["Timelimit"] == "1-00:00:00" and job["Reason"] == "None"
    assert job["WorkDir"] == str(workdir)
    for when in ("Submit", "Eligible", "Start", "End"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", job[when]), (when, job)
    assert re.fullmatch(r"n[1-4]", job["NodeList"]) and step["NodeList"] == job["NodeList"]
    assert step["MaxRSSNode"] == step["NodeList"] and step["MaxRSSTask"] == "0"
    assert kbytes(step["MaxRSS"]) > 0 and kbytes(batch["MaxRSS"]) > 0
    assert step["AllocTRES"].startswith("cpu=1,")


def test_default_view_is_the_references(cluster, ref_jobs):
    """sacct -j with the default fields, byte for byte as sacct_default.txt
    once its job ids are ours (the OOM job ended FAILED there only because
    that setup had no cgroup memory controller: see the reference README)."""
    ref = reference_stdout("sacct_default.txt")
    ref_ids = {"timeout_job": 11198, "fail_job": 11199, "oom_job": 11200, "ok_job": 11201,
               "cancel_job": 11202}
    names = ("fail_job", "ok_job", "cancel_job")
    lines = ref.splitlines(keepends=True)
    expected = lines[:2] + [swap_id(line, str(ref_ids[name]), str(ref_jobs[name]))
                            for line in lines[2:] for name in names
                            if line.startswith(str(ref_ids[name]))]
    ids = ",".join(str(ref_jobs[n]) for n in names)
    r = sacct(cluster, "-j", ids)
    assert r.stdout == "".join(expected)
    assert r.stderr == ""


def test_oom_row_in_the_default_view(cluster, ref_jobs):
    out = sacct(cluster, "-j", str(ref_jobs["oom_job"])).stdout.splitlines()
    jid = str(ref_jobs["oom_job"])
    assert out[2:] == [
        f"{jid:<12}    oom_job  cpu-queue       root          1 OUT_OF_ME+    0:125 ",
        f"{jid + '.batch':<12}      batch                  root          1 OUT_OF_ME+    0:125 ",
    ]


def test_brief_and_derived_exit_code(cluster, ref_jobs):
    jid = str(ref_jobs["fail_job"])
    out = sacct(cluster, "-b", "-j", jid).stdout
    assert out == ("JobID             State ExitCode \n"
                   "------------ ---------- -------- \n"
                   f"{jid:<12}     FAILED      3:0 \n"
                   f"{jid + '.batch':<12}     FAILED      3:0 \n")
    out = sacct(cluster, "-j", jid, "--format=JobID,JobName,State,ExitCode,DerivedExitCode").stdout
    assert out.splitlines()[2:] == [
        f"{jid:<12}   fail_job     FAILED      3:0             0:0 ",
        f"{jid + '.batch':<12}      batch     FAILED      3:0                 ",
    ]


def test_reqmem_is_on_the_job_row_and_maxrss_on_the_step(cluster, ref_jobs):
    rows = parsable(cluster, "-j", str(ref_jobs["oom_job"]), "--format=JobID,ReqMem,MaxRSS")
    assert rows[0]["ReqMem"] == "20M" and rows[0]["MaxRSS"] == ""
    assert rows[1]["ReqMem"] == ""
    # the stepd saw it pass its 20 MB before killing it
    assert kbytes(rows[1]["MaxRSS"]) > 20 * 1024


def test_parsable_forms(cluster, ref_jobs):
    jid = str(ref_jobs["ok_job"])
    p = sacct(cluster, "-P", "-j", jid, "-o", "JobID,State,AllocCPUS").stdout
    assert p == f"JobID|State|AllocCPUS\n{jid}|COMPLETED|1\n{jid}.batch|COMPLETED|1\n"
    p = sacct(cluster, "-p", "-n", "-X", "-j", jid, "-o", "JobID,State").stdout
    assert p == f"{jid}|COMPLETED|\n"


def test_field_widths_and_cut(cluster, ref_jobs):
    jid = str(ref_jobs["ok_job"])
    out = sacct(cluster, "-X", "-n", "-j", jid, "-o", "JobName%3,State%15,JobID%-8").stdout
    assert out == f"ok+       COMPLETED {jid:<8} \n"


def test_time_window(cluster, ref_jobs):
    jid = str(ref_jobs["ok_job"])
    rows = parsable(cluster, "-X", "-j", jid, "-o", "JobID,Submit,Start,End,Elapsed,ElapsedRaw")
    rec = rows[0]
    start = time.mktime(time.strptime(rec["Start"], "%Y-%m-%dT%H:%M:%S"))
    end = time.mktime(time.strptime(rec["End"], "%Y-%m-%dT%H:%M:%S"))
    assert int(rec["ElapsedRaw"]) == end - start == secs(rec["Elapsed"])

    def listed(*args):
        return jid in [r["JobID"] for r in parsable(cluster, "-X", "-a", "-o", "JobID", *args)]

    fmt = "%Y-%m-%dT%H:%M:%S"
    before = time.strftime(fmt, time.localtime(start - 3600))
    after = time.strftime(fmt, time.localtime(end + 1))
    assert listed("-S", before)                      # ran after -S
    assert listed("-S", before, "-E", after)
    assert not listed("-S", after)                   # ended before -S
    assert not listed("-S", "2020-01-01", "-E", "2020-01-02")  # not eligible yet at -E
    assert listed("-S", "now-1hours")
    assert listed("-s", "CD", "-S", before, "-E", "now")     # completed inside the window
    assert not listed("-s", "F", "-S", before, "-E", "now")  # but it did not fail
    # with -s the window defaults to "now" and -E to -S (sacct(1), DEFAULT TIME WINDOW)
    assert not listed("-s", "CD")
    assert not listed("-s", "CD", "-S", before)


def test_repeated_options_and_bad_input(cluster, ref_jobs):
    ok, fail = ref_jobs["ok_job"], ref_jobs["fail_job"]
    rows = parsable(cluster, "-X", "-j", str(ok), "-j", str(fail), "-o", "JobID")
    assert [r["JobID"] for r in rows] == [str(fail), str(ok)]  # both -j, in id order
    rows = parsable(cluster, "-X", "-j", f"{ok},{fail}", "--name", "ok_job", "--name",
                    "fail_job", "-s", "CD", "-s", "F", "-S", "2020-01-01", "-E", "now",
                    "-o", "JobID")
    assert [r["JobID"] for r in rows] == [str(fail), str(ok)]
    r = sacct(cluster, "-S", "tomorrow", check=False)
    assert r.returncode == 1 and re.fullmatch(
        r"sacct: error: Start time \(\S+\) requested is after end time \(\S+\)\.\n", r.stderr)
    r = sacct(cluster, "-s", "XX", check=False)
    assert (r.returncode, r.stdout, r.stderr) == \
        (1, "", "sacct: fatal: unrecognized job state value 'XX'\n")
    r = sacct(cluster, "-o", "JobID,Bogus", check=False)
    assert (r.returncode, r.stderr) == (1, 'sacct: error: Invalid field requested: "Bogus"\n')
    r = sacct(cluster, "-j", "12x", check=False)
    assert r.returncode == 1 and "Bad job/step specified: 12x" in r.stderr
    assert sacct(cluster, "--usage").stdout == "Usage: sacct [options]\n\tUse --help for help\n"


def test_user_sees_own_jobs_and_all_with_a(cluster, ref_jobs, test_user, workdir):
    mine = submit(cluster, "-D", workdir, "-J", "users_job", "-o", "/dev/null", "--wrap", "true",
                  user=test_user.pw_name)
    wait_state(cluster, mine, FINAL)
    own = [r["JobID"] for r in parsable(cluster, "-X", "-o", "JobID,User", user=test_user.pw_name)]
    assert own == [str(mine)]
    everyone = [r["JobID"] for r in parsable(cluster, "-X", "-a", "-o", "JobID",
                                             user=test_user.pw_name)]
    assert str(ref_jobs["ok_job"]) in everyone and str(mine) in everyone
    rows = parsable(cluster, "-X", "-u", test_user.pw_name, "-o", "JobID,User,UID")
    assert [(r["JobID"], r["User"], r["UID"]) for r in rows] == \
        [(str(mine), test_user.pw_name, str(test_user.pw_uid))]


# ----- usage ------------------------------------------------------------------


def expand_nodes(expr):
    """'n[1-2,4],g1' -> {'n1', 'n2', 'n4', 'g1'} (enough for our node names)."""
    names = set()
    for prefix, ranges, single in re.findall(r"([a-z]+)\[([\d,-]+)\]|([a-z]+\d+)", expr):
        if single:
            names.add(single)
            continue
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            names.update(f"{prefix}{i}" for i in range(int(lo), int(hi or lo) + 1))
    return names


def test_node_group_qos_size_and_limit_filters(cluster, ref_jobs, step_jobs, test_user):
    """After test_user_sees_own_jobs_and_all_with_a: test_user has one job."""
    mine = [r["JobID"] for r in parsable(cluster, "-X", "-o", "JobID", user=test_user.pw_name)]
    assert len(mine) == 1
    base = ("-a", "-X", "-S", "2020-01-01", "-o", "JobID,NodeList,NNodes,AllocCPUS,Timelimit,Group")
    every = parsable(cluster, *base)
    assert len(every) >= 10

    def ids(*args):
        return [r["JobID"] for r in parsable(cluster, *base, *args)]

    def where(pred):
        return [r["JobID"] for r in every if pred(r)]

    group = grp.getgrgid(test_user.pw_gid).gr_name
    assert ids("-N", "n1") == where(lambda r: "n1" in expand_nodes(r["NodeList"]))
    assert ids("-N", "n[2-3],g1") == where(
        lambda r: expand_nodes(r["NodeList"]) & {"n2", "n3", "g1"})
    assert ids("-i", "1") == where(lambda r: r["NNodes"] == "1") != []
    assert ids("-i", "2-9") == where(lambda r: 2 <= int(r["NNodes"]) <= 9)
    assert ids("-I", "1-2") == where(lambda r: 1 <= int(r["AllocCPUS"]) <= 2) != []
    assert ids("-k", "1") == where(lambda r: r["Timelimit"] == "00:01:00") != []
    assert ids("-k", "1", "-K", "UNLIMITED") == where(lambda r: r["Timelimit"] != "") != []
    assert ids("-K", "1") == where(lambda r: True)  # -K alone is ignored, as Slurm's
    assert ids("-g", group) == where(lambda r: r["Group"] == group) == mine
    assert ids("-g", str(test_user.pw_gid), "-N", "n[1-4]") == mine
    assert ids("-q", "normal") == where(lambda r: True)
    assert ids("-q", "nosuchqos") == []
    for args, err in ((("-i", "2-"), 'Invalid numeric value "2-" for requested node range.'),
                      (("-I", "x"), 'Invalid numeric value "x" for requested cpu range.'),
                      (("-g", "nosuchgroup"), "Invalid group id: nosuchgroup"),
                      (("-k", "zz"), None)):
        r = sacct(cluster, *args, check=False)
        assert (r.returncode, r.stdout) == (1, ""), args
        assert r.stderr == (f"sacct: error: {err}\n" if err
                            else "sacct: fatal: Invalid time limit specification\n")


def test_truncate_and_verbose(cluster, ref_jobs):
    jid = str(ref_jobs["ok_job"])
    fmt = "%Y-%m-%dT%H:%M:%S"
    rec = parsable(cluster, "-X", "-j", jid, "-o", "Start,End,ElapsedRaw")[0]
    start = time.mktime(time.strptime(rec["Start"], fmt))
    cut = time.strftime(fmt, time.localtime(start + 1))
    args = ("-j", jid, "-S", cut, "-o", "JobID,Start,End,ElapsedRaw")
    whole = parsable(cluster, *args)
    assert whole[0]["Start"] == rec["Start"] and whole[0]["ElapsedRaw"] == rec["ElapsedRaw"]
    cut_rows = parsable(cluster, "-T", *args)
    assert [r["JobID"] for r in cut_rows] == [r["JobID"] for r in whole]
    assert cut_rows[0]["Start"] == cut and cut_rows[0]["End"] == rec["End"]
    assert int(cut_rows[0]["ElapsedRaw"]) == int(rec["ElapsedRaw"]) - 1
    r = sacct(cluster, "-v", "-X", "-j", jid, "-o", "JobID")
    assert re.fullmatch(r"sacct: Jobs Eligible in the time window from Epoch 0 to "
                        r"\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4}\n", r.stderr), r.stderr
    r = sacct(cluster, "-v", "-s", "CD,R", "-S", "2026-01-01", "-X", "-o", "JobID")
    assert r.stderr == ("sacct: Jobs COMPLETED,RUNNING in the time window from Thu Jan 01 "
                        "00:00:00 2026 to Thu Jan 01 00:00:01 2026\n"), r.stderr


def test_slurm_time_format(cluster, ref_jobs):
    """SLURM_TIME_FORMAT: a strftime format or "relative", in sacct, squeue
    and scontrol alike."""
    jid = str(ref_jobs["ok_job"])
    rec = parsable(cluster, "-X", "-j", jid, "-o", "Start,End")[0]
    start = time.mktime(time.strptime(rec["Start"], "%Y-%m-%dT%H:%M:%S"))
    rows = parsable(cluster, "-X", "-j", jid, "-o", "Start,End",
                    env={"SLURM_TIME_FORMAT": "%s"})
    assert int(rows[0]["Start"]) == start
    rows = parsable(cluster, "-X", "-j", jid, "-o", "Start", env={"SLURM_TIME_FORMAT": "relative"})
    today = time.localtime().tm_yday == time.localtime(start).tm_yday
    assert re.fullmatch(r"\d\d:\d\d:\d\d" if today else r"Ystday \d\d:\d\d",
                        rows[0]["Start"]), rows
    text = cluster.out("scontrol", "show", "job", jid, env={"SLURM_TIME_FORMAT": "%s"})
    assert f" StartTime={int(start)} " in text, text
    r = sacct(cluster, "-X", "-j", jid, "-o", "Start", "-n", "-P",
              env={"SLURM_TIME_FORMAT": "nopercent"})
    assert (r.stdout, r.stderr) == (rec["Start"] + "\n",
                                    "sacct: error: invalid SLURM_TIME_FORMAT = 'nopercent'\n")
    running = submit(cluster, "-J", "tf", "-o", "/dev/null", "--wrap", "sleep 30")
    try:
        wait_state(cluster, running, "RUNNING")
        out = cluster.out("squeue", "-h", "-j", str(running), "-o", "%S",
                          env={"SLURM_TIME_FORMAT": "%s"})
        assert abs(int(out) - time.time()) < 120, out
    finally:
        cluster.run("scancel", str(running))


def test_cpu_time_of_two_busy_cpus(cluster, workdir):
    own = workdir / "burn.times"
    burn = "timeout 3 sh -c 'while :; do :; done'"
    jid = submit(cluster, "-D", workdir, "-c2", "-J", "burn", "-o", "/dev/null",
                 "--wrap", f"{burn} & {burn} & wait; times > {own}")
    wait_state(cluster, jid, FINAL, timeout=30)
    rows = parsable(cluster, "-j", str(jid),
                    "-o", "JobID,State,TotalCPU,UserCPU,SystemCPU,AllocCPUS,Elapsed,CPUTimeRAW")
    job, batch = rows
    assert job["State"] == "COMPLETED" and job["AllocCPUS"] == "2"
    total = secs(batch["TotalCPU"])
    # what the job's shell counted itself (its own and its children's times)
    counted = sum(int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s",
                                                                own.read_text()))
    assert total == pytest.approx(counted, abs=0.2), (rows, own.read_text())
    # two busy loops for 3 s use at most 6 s of CPU; how much less depends
    # on what else the machine runs, so only the job's own count (above)
    # says what it should be
    assert 0 < total <= 7.0, rows
    assert abs(secs(batch["UserCPU"]) + secs(batch["SystemCPU"]) - total) < 0.01
    assert secs(job["TotalCPU"]) == pytest.approx(total, abs=0.01)
    assert int(job["CPUTimeRAW"]) == 2 * secs(job["Elapsed"])
    out = cluster.out("seff", str(jid))
    eff = float(re.search(r"CPU Efficiency: ([\d.]+)% of", out).group(1))
    corewall = int(job["CPUTimeRAW"])  # seff counts whole seconds of CPU
    assert eff == pytest.approx(100 * total / corewall, abs=100 / corewall + 1), out
    assert "Nodes: 1\nCores per node: 2\n" in out, out


def test_maxrss_of_a_job_holding_100_mb(cluster, workdir):
    # python's own pages are counted in, so it tops itself up to 100 MiB in all
    hold = ("import resource, time; "
            "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024; "
            "b = b'x' * ((100 << 20) - base); time.sleep(3)")
    jid = submit(cluster, "-D", workdir, "--mem=500M", "-J", "hold", "-o", "/dev/null",
                 "--wrap", f'exec python3 -c "{hold}"')
    wait_state(cluster, jid, FINAL, timeout=30)
    rows = parsable(cluster, "-j", str(jid), "-o", "JobID,State,MaxRSS,MaxRSSNode,MaxRSSTask,"
                    "AveRSS,MaxVMSize,ReqMem")
    batch = rows[1]
    assert rows[0]["State"] == "COMPLETED" and rows[0]["ReqMem"] == "500M"
    assert 0.9 * 102400 <= kbytes(batch["MaxRSS"]) <= 1.1 * 102400, rows
    assert batch["MaxRSSNode"] == "n1" and batch["MaxRSSTask"] == "0"
    assert kbytes(batch["AveRSS"]) == pytest.approx(kbytes(batch["MaxRSS"]), rel=0.02)
    assert kbytes(batch["MaxVMSize"]) >= kbytes(batch["MaxRSS"])
    out = cluster.out("seff", str(jid))
    used = re.search(r"Memory Utilized: ([\d.]+) MB", out)
    assert used and 90 <= float(used.group(1)) <= 110, out
    assert re.search(r"Memory Efficiency: [\d.]+% of 500\.00 MB", out), out


def test_srun_steps_have_rows(cluster, workdir):
    jid = submit(cluster, "-D", workdir, "-n2", "-J", "steps", "-o", "/dev/null", "--wrap",
                 "srun -n1 hostname; srun sh -c 'exit 5'; true")
    wait_state(cluster, jid, FINAL, timeout=30)
    rows = parsable(cluster, "-j", str(jid),
                    "-o", "JobID,JobName,State,ExitCode,DerivedExitCode,NTasks,AllocCPUS,NodeList")
    got = [(r["JobID"], r["JobName"], r["State"], r["ExitCode"], r["DerivedExitCode"])
           for r in rows]
    assert got == [
        (str(jid), "steps", "COMPLETED", "0:0", "5:0"),
        (f"{jid}.batch", "batch", "COMPLETED", "0:0", ""),
        (f"{jid}.0", "hostname", "COMPLETED", "0:0", ""),
        (f"{jid}.1", "sh", "FAILED", "5:0", ""),
    ]
    assert [r["NTasks"] for r in rows[2:]] == ["1", "2"]
    # one step only
    one = parsable(cluster, "-j", f"{jid}.1", "-o", "JobID,State")
    assert [r["JobID"] for r in one] == [f"{jid}.1"]


def test_srun_without_allocation_and_array(cluster, workdir):
    r = cluster.run("srun", "-J", "env", "true")
    assert r.returncode == 0
    jid = int(cluster.out("squeue", "-h", "-t", "all", "-n", "env", "-o", "%i").split()[-1])
    wait_rows(cluster, jid, 2)
    rows = parsable(cluster, "-j", str(jid), "-o", "JobID,JobName,State")
    assert [(r["JobID"], r["State"]) for r in rows] == [(str(jid), "COMPLETED"),
                                                        (f"{jid}.0", "COMPLETED")]
    arr = submit(cluster, "-D", workdir, "-a", "0-1", "-J", "envjob", "-o", "/dev/null",
                 "--wrap", "true")
    for t in (0, 1):
        wait_state(cluster, f"{arr}_{t}", FINAL)
    rows = parsable(cluster, "-X", "-j", str(arr), "-o", "JobID,JobIDRaw,JobName,State")
    assert [r["JobID"] for r in rows] == [f"{arr}_0", f"{arr}_1"]
    assert all(r["State"] == "COMPLETED" and r["JobName"] == "envjob" for r in rows)
    assert rows[1]["JobIDRaw"] == str(arr)  # the meta record ran the last task
    out = cluster.out("seff", f"{arr}_0")
    assert out.startswith(f"Job ID: {rows[0]['JobIDRaw']}\n") or f"{arr}_0" in out


def test_running_and_pending_rows(cluster, workdir):
    run = submit(cluster, "-D", workdir, "-J", "runner", "-o", "/dev/null", "--wrap", "sleep 30")
    pend = submit(cluster, "-D", workdir, "-J", "waiter", "-o", "/dev/null", "-H",
                  "--wrap", "true")
    wait_state(cluster, run, "RUNNING")
    try:
        wait_rows(cluster, run, 2)
        rows = parsable(cluster, "-j", f"{run},{pend}", "-o", "JobID,State,End")
        got = {r["JobID"]: (r["State"], r["End"]) for r in rows}
        assert got[str(run)] == ("RUNNING", "Unknown")
        assert got[f"{run}.batch"] == ("RUNNING", "Unknown")
        assert got[str(pend)] == ("PENDING", "Unknown")
    finally:
        cluster.run("scancel", str(run), str(pend))


# ----- seff ---------------------------------------------------------------------


def test_seff_report(cluster, ref_jobs):
    jid = ref_jobs["fail_job"]
    out = cluster.out("seff", str(jid))
    lines = out.splitlines()
    assert lines[:5] == [f"Job ID: {jid}", "Cluster: anchor", "User/Group: root/root",
                         "State: FAILED (exit code 3)", "Cores: 1"]
    assert re.fullmatch(r"CPU Utilized: \d\d:\d\d:\d\d", lines[5])
    assert re.fullmatch(r"CPU Efficiency: [\d.]+% of \d\d:\d\d:\d\d core-walltime", lines[6])
    assert re.fullmatch(r"Job Wall-clock time: \d\d:\d\d:\d\d", lines[7])
    assert lines[8].startswith("Memory Utilized: ")
    assert re.fullmatch(r"Memory Efficiency: [\d.]+% of 100\.00 MB", lines[9])
    r = cluster.run("seff", "999999", check=False)
    assert r.returncode != 0


def test_seff_user_summary(cluster, ref_jobs):
    out = cluster.out("seff", "-u", "root")
    assert str(ref_jobs["ok_job"]) in out and str(ref_jobs["fail_job"]) in out


def test_requeued_job_has_a_row_per_run(cluster, workdir):
    jid = submit(cluster, "-D", workdir, "-J", "again", "-o", "/dev/null", "--wrap", "sleep 60")
    try:
        wait_state(cluster, jid, "RUNNING")
        cluster.run("scontrol", "requeue", str(jid))
        wait_for(lambda: [r["State"] for r in parsable(cluster, "-D", "-X", "-j", str(jid),
                                                       "-o", "JobID,State")]
                 == ["REQUEUED", "RUNNING"], timeout=30, what="a REQUEUED row and a new run")
        rows = parsable(cluster, "-D", "-j", str(jid), "-o", "JobID,State,End")
        assert rows[0]["End"] != "Unknown"  # the first run ended at the requeue
        latest = parsable(cluster, "-X", "-j", str(jid), "-o", "JobID,State")
        assert [r["State"] for r in latest] == ["RUNNING"]  # without -D: the last run only
    finally:
        cluster.run("scancel", str(jid))


# ----- durability and privacy ---------------------------------------------------


def test_rows_survive_kill_9_right_after_jobs_end(fresh_cluster, tmp_path):
    c = fresh_cluster(nodes=("n1", "n2"))
    os.chmod(tmp_path, 0o777)
    ids = [submit(c, "-D", tmp_path, "-J", f"quick{i}", "-o", "/dev/null", "--wrap",
                  "srun true") for i in range(6)]
    for jid in ids:
        wait_state(c, jid, FINAL, timeout=30)
    c.kill_slurmctld(signal.SIGKILL)
    c.start_slurmctld()
    rows = parsable(c, "-j", ",".join(map(str, ids)), "-o", "JobID,State")
    got = {r["JobID"]: r["State"] for r in rows}
    for jid in ids:
        assert got.get(str(jid)) == "COMPLETED", rows
        assert got.get(f"{jid}.batch") == "COMPLETED", rows
        assert got.get(f"{jid}.0") == "COMPLETED", rows


def test_steps_on_disk_leave_the_job_record(fresh_cluster, tmp_path):
    """A job running sruns one after the other: each step whose row is
    written leaves the job's journal record (which stays the size of one
    step), yet sacct lists them all, with the highest exit, after a kill -9
    of the controller too."""
    c = fresh_cluster(nodes=("n1",))
    os.chmod(tmp_path, 0o777)
    gate = ("touch {d}/r{n}; while [ ! -e {d}/g{n} ]; do sleep 0.1; done")
    script = (f"srun sh -c 'exit 7'; {gate.format(d=tmp_path, n=1)}; "
              f"for i in $(seq 40); do srun true; done; {gate.format(d=tmp_path, n=2)}; "
              "srun true")
    jid = submit(c, "-D", tmp_path, "-J", "many", "-o", "/dev/null", "--wrap", script)
    journal = next(c.dir.rglob("job_journal"))
    sizes = []
    for n in (1, 2):
        wait_for((tmp_path / f"r{n}").exists, timeout=60, what=f"gate {n} reached")
        c.kill_slurmctld(signal.SIGKILL)
        c.start_slurmctld()  # the journal is rewritten: one record per job
        sizes.append(journal.stat().st_size)
        (tmp_path / f"g{n}").touch()
    assert sizes[1] - sizes[0] < 1000, sizes  # 40 steps more, not 40 step records more
    wait_state(c, jid, FINAL, timeout=60)
    rows = parsable(c, "-j", str(jid), "-o", "JobID,State,ExitCode,DerivedExitCode")
    got = {r["JobID"]: (r["State"], r["ExitCode"]) for r in rows}
    assert rows[0]["DerivedExitCode"] == "7:0", rows[0]
    assert got[str(jid)] == ("COMPLETED", "0:0")
    assert got[f"{jid}.0"] == ("FAILED", "7:0")
    assert [f"{jid}.{i}" for i in range(42)] == [r["JobID"] for r in rows[2:]], rows
    assert all(got[f"{jid}.{i}"] == ("COMPLETED", "0:0") for i in range(1, 42)), rows


def test_min_job_age_purges_finished_jobs_and_sacct_keeps_them(fresh_cluster, tmp_path):
    """MinJobAge drops a finished job from the controller (squeue and
    scontrol no longer know it); sacct still has it. That the purge waited
    for the row cannot be seen from outside (sacct's query is answered
    after the rows queued before it). MinJobAge=0 never purges."""
    os.chmod(tmp_path, 0o777)
    c = fresh_cluster(nodes=("n1",), settings={"MinJobAge": "1"})
    jid = submit(c, "-D", tmp_path, "-o", "/dev/null", "--wrap", "srun true")
    # purged a second after it ends, the job may be gone between two polls of
    # scontrol (slow under ASan): its end is awaited in sacct instead
    wait_for(lambda: [(r["JobID"], r["State"])
                      for r in parsable(c, "-X", "-j", str(jid), "-o", "JobID,State")]
             == [(str(jid), "COMPLETED")], timeout=30, what="the job COMPLETED in sacct")
    wait_for(lambda: c.run("scontrol", "show", "job", str(jid), check=False).returncode == 1,
             timeout=30, what="the job purged")
    assert c.out("squeue", "-h", "-j", str(jid), "--states=all", check=False) == ""
    rows = parsable(c, "-j", str(jid), "-o", "JobID,State")
    assert [(r["JobID"], r["State"]) for r in rows] == [
        (str(jid), "COMPLETED"), (f"{jid}.batch", "COMPLETED"), (f"{jid}.0", "COMPLETED")]
    c2 = fresh_cluster(nodes=("n1",), settings={"MinJobAge": "0"})
    jid = submit(c2, "-D", tmp_path, "-o", "/dev/null", "--wrap", "true")
    wait_state(c2, jid, "COMPLETED", timeout=30)
    time.sleep(3)  # longer than the 1 s job timer: a purge would have happened
    assert "JobState=COMPLETED" in c2.out("scontrol", "show", "job", str(jid))


def test_storage_location_and_none(fresh_cluster, tmp_path):
    db = tmp_path / "acct" / "jobs.db"
    db.parent.mkdir()
    c = fresh_cluster(nodes=("n1",), settings={"AccountingStorageLoc": str(db)})
    jid = submit(c, "-o", "/dev/null", "--wrap", "true")
    wait_state(c, jid, FINAL)
    assert [r["JobID"] for r in parsable(c, "-X", "-j", str(jid), "-o", "JobID")] == [str(jid)]
    assert db.exists() and db.stat().st_mode & 0o077 == 0  # private to the controller
    off = fresh_cluster(nodes=("n1",),
                        settings={"AccountingStorageType": "accounting_storage/none"})
    r = off.run("sacct", check=False)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "Slurm accounting storage is disabled\n")


def test_private_data_hides_other_users_jobs(fresh_cluster, tmp_path, test_user):
    c = fresh_cluster(nodes=("n1",), settings={"PrivateData": "jobs"})
    os.chmod(tmp_path, 0o777)
    roots = submit(c, "-D", tmp_path, "-o", "/dev/null", "--wrap", "true")
    theirs = submit(c, "-D", tmp_path, "-o", "/dev/null", "--wrap", "true",
                    user=test_user.pw_name)
    for jid in (roots, theirs):
        wait_state(c, jid, FINAL)
    seen = [r["JobID"] for r in parsable(c, "-X", "-a", "-o", "JobID", user=test_user.pw_name)]
    assert seen == [str(theirs)]
    seen = [r["JobID"] for r in parsable(c, "-X", "-j", str(roots), "-o", "JobID",
                                         user=test_user.pw_name)]
    assert seen == []
    seen = [r["JobID"] for r in parsable(c, "-X", "-o", "JobID")]  # root sees everyone
    assert seen == [str(roots), str(theirs)]
    # squeue and scontrol hide the other user's live jobs the same way
    held = submit(c, "-D", tmp_path, "-o", "/dev/null", "-H", "--wrap", "true")
    try:
        out = c.out("squeue", "-h", "-t", "all", "-o", "%i", user=test_user.pw_name)
        assert str(held) not in out.split() and str(theirs) in out.split()
        assert str(held) in c.out("squeue", "-h", "-o", "%i").split()
        r = c.run("scontrol", "show", "job", str(held), user=test_user.pw_name, check=False)
        assert r.returncode != 0 and f"JobId={held}" not in r.stdout
    finally:
        c.run("scancel", str(held))


# ----- last: the one-minute job has had its minute --------------------------------


def test_timeout_rows(cluster, ref_jobs):
    jid = ref_jobs["timeout_job"]
    wait_state(cluster, jid, "TIMEOUT", timeout=150)
    out = sacct(cluster, "-j", str(jid)).stdout.splitlines()
    ref = reference_stdout("sacct_default.txt").splitlines()
    assert out[2:] == [swap_id(line, "11198", str(jid)) for line in ref[2:]
                       if line.startswith("11198")]
    rows = parsable(cluster, "-j", str(jid), "-o", "JobID,State,ExitCode,Elapsed,Timelimit")
    assert secs(rows[0]["Elapsed"]) >= 60
    assert rows[0]["Timelimit"] == "00:01:00"
    jid = ref_jobs["timeout_steps"]
    wait_state(cluster, jid, "TIMEOUT", timeout=30)
    rows = parsable(cluster, "-j", str(jid), "-o", "JobID,JobName,State,ExitCode")
    got = [(r["JobID"], r["JobName"], r["State"]) for r in rows]
    assert got == [(str(jid), "timeout_steps", "TIMEOUT"), (f"{jid}.batch", "batch", "CANCELLED"),
                   (f"{jid}.0", "sleep", "CANCELLED")]
    assert rows[0]["ExitCode"] == "0:0"
