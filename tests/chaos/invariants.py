"""invariants.py - what must hold after a chaos run, and its table.

Read once the chaos has stopped and every daemon is up again, from
scontrol -o show job (every job: MinJobAge outlasts the run), sacct and
sinfo, and from what the Monitor saw during the run:

  (1) every job id printed by sbatch/salloc (each task of an array) ends in
      a final state, found in scontrol or else in sacct, under the name it
      was submitted with (an id handed out twice shows as another name),
      and no id was printed twice;
  (2) no job RUNNING past its time limit plus a grace: not seen so by the
      Monitor, and no final job with EndTime - StartTime over it;
  (3) no job COMPLETING for longer than UnkillableStepTimeout plus a grace
      after the chaos stopped;
  (4) every node idle, or drained with a reason;
  (5) every job's accounting row (sacct -X -P) has the state, exit code
      (but see ENDED_BY_CONTROLLER) and, within 2 s, the end time that
      scontrol shows;
  (6) no daemon died that the chaos did not kill (exits the harness saw,
      SIGTERM ignored at the stop, sanitizer or crash lines in the logs);
  (7) no salloc client hung past its deadline;
  (8) no process of a job runs on once its job is over (seen by the
      Monitor for STRAY_AFTER s while squeue shows the job neither
      RUNNING nor COMPLETING: ended, or pending again after a requeue).

Jobs may fail, time out, end NODE_FAIL or be requeued because of the
chaos: the invariants are about consistency and ends, not success.
"""

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from cluster import TIMEOUT_SCALE, parse_record
from monkey import STRAY_AFTER

FINAL_STATES = frozenset({"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                          "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"})
ACCT_FIELDS = "JobIDRaw,JobID,JobName,State,Start,End,ExitCode"
END_SLACK = 2  # s between scontrol's and sacct's end time
# Jobs the controller ends itself: their accounting row is written at that
# moment, before the script's status is known, so its ExitCode is 0:0 where
# scontrol later shows the signal that ended the script (0:15), as Slurm's
# (tests/reference/sacct_default.txt: TIMEOUT 0:0, CANCELLED+ 0:0).
ENDED_BY_CONTROLLER = frozenset({"TIMEOUT", "CANCELLED"})
CRASH_RX = re.compile(r"AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault|"
                      r"core dumped|Assertion .* failed|stack smashing|double free")


def epoch(text):
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp()
    except (TypeError, ValueError):
        return None


@dataclass
class Row:
    title: str
    checked: int = 0
    offenders: dict = field(default_factory=dict)  # job id or name -> what was seen


@dataclass
class Job:
    """One job behind a printed id (an array has one per task)."""
    label: str  # "123", or "120_3" for an array task
    sub: object  # workload.Submission
    raw: int = None  # its own job id, when known
    rec: dict = None  # scontrol's record
    acct: dict = None  # sacct's row

    @property
    def state(self):
        if self.rec is not None:
            return self.rec.get("JobState")
        if self.acct is not None:
            return self.acct["State"].split()[0]  # "CANCELLED by 0"
        return None

    @property
    def final(self):
        return self.state in FINAL_STATES

    @property
    def name(self):
        return (self.rec or {}).get("JobName") or (self.acct or {}).get("JobName")


# ----- reading the cluster ------------------------------------------------


def scontrol_jobs(cluster):
    """{job id: record} of every job the controller has."""
    out = cluster.out("scontrol", "-o", "show", "job", timeout=60)
    recs = (parse_record(line) for line in out.splitlines() if line.startswith("JobId="))
    return {int(r["JobId"]): r for r in recs}


def sacct_rows(cluster):
    """{JobIDRaw: row} of every job in accounting."""
    out = cluster.out("sacct", "-a", "-X", "-P", "-n", "-S", "2000-01-01",
                      "-o", ACCT_FIELDS, timeout=60)
    keys = ACCT_FIELDS.split(",")
    rows = {}
    for line in out.splitlines():
        f = line.split("|")
        if len(f) == len(keys) and f[0].isdigit():
            rows[int(f[0])] = dict(zip(keys, f))
    return rows


def resolve(subs, jobs, acct):
    """The Jobs behind the printed ids, from scontrol and sacct."""
    by_label = {r["JobID"]: raw for raw, r in acct.items()}
    tasks, rest = {}, {}  # (array id, task) -> job id; array id -> its pending tasks
    for raw, r in jobs.items():
        if r.get("ArrayTaskId", "").isdigit():
            tasks[(int(r["ArrayJobId"]), int(r["ArrayTaskId"]))] = raw
        elif "ArrayJobId" in r:
            rest[int(r["ArrayJobId"])] = raw  # "ArrayTaskId=5-6%2"
    out = []
    for s in subs:
        if s.tasks == 1:
            found = [(str(s.job_id), s.job_id if s.job_id in jobs else by_label.get(str(s.job_id)))]
        else:  # a task split off, else its accounting row, else the pending rest
            found = [(label, tasks.get((s.job_id, k)) or by_label.get(label) or rest.get(s.job_id))
                     for k in range(1, s.tasks + 1) for label in [f"{s.job_id}_{k}"]]
        out += [Job(label, s, raw, jobs.get(raw), acct.get(raw)) for label, raw in found]
    return out


def wait_final(cluster, subs, timeout):
    """Poll until every job behind the printed ids is final, or timeout.
    Returns the last resolution."""
    deadline = time.monotonic() + timeout * TIMEOUT_SCALE
    while True:
        try:
            jobs = scontrol_jobs(cluster)
            acct = sacct_rows(cluster)
        except Exception:  # noqa: BLE001 - a restart in progress: try again
            jobs = None
        if jobs is not None:
            resolved = resolve(subs, jobs, acct)
            if all(j.final for j in resolved) or time.monotonic() >= deadline:
                return resolved
        elif time.monotonic() >= deadline:
            raise TimeoutError("the controller did not answer scontrol/sacct at the end")
        time.sleep(1)


# ----- the invariants ----------------------------------------------------


def check_ends(subs, resolved):
    row = Row("(1) every printed job id ends in a final state (0 lost)")
    printed = Counter(s.job_id for s in subs)
    for jid, n in printed.items():
        if n > 1:
            names = [s.name for s in subs if s.job_id == jid]
            row.offenders[str(jid)] = f"printed {n} times, for {', '.join(names)}"
    for j in resolved:
        row.checked += 1
        if j.rec is None and j.acct is None:
            row.offenders[j.label] = f"{j.sub.name}: in neither scontrol nor sacct"
        elif not j.final:
            rec = j.rec or {}
            row.offenders[j.label] = (f"{j.sub.name}: {j.state} Reason={rec.get('Reason')} "
                                      f"Restarts={rec.get('Restarts')}")
        elif j.name != j.sub.name:
            row.offenders[j.label] = f"named {j.name!r}, submitted as {j.sub.name!r}"
    return row


def check_time_limits(resolved, monitor, grace):
    row = Row(f"(2) no job RUNNING past its time limit + {grace} s")
    seen = set(monitor.running_seen)
    for j in resolved:
        rec = j.rec
        if not j.final or rec is None:
            continue
        start, end = epoch(rec.get("StartTime")), epoch(rec.get("EndTime"))
        if start is None or end is None:
            continue
        seen.add(j.raw)
        limit = j.sub.limit_s
        if end - start > limit + grace:
            row.offenders[j.label] = (f"{rec['JobState']} after running {end - start:.0f} s "
                                      f"under a limit of {limit} s")
    for jid, what in monitor.over_limit.items():
        row.offenders.setdefault(str(jid), f"seen {what}")
    row.checked = len(seen)
    return row


def check_completing(resolved, monitor, since, limit):
    row = Row(f"(3) no job COMPLETING over UnkillableStepTimeout + grace ({limit} s) at the end")
    ids = set(monitor.completing)
    for j in resolved:
        if j.state == "COMPLETING":
            ids.add(j.raw)
            row.offenders[j.label] = "still COMPLETING when the run was checked"
    for jid in ids:
        took = monitor.completing_since(jid, since)
        if took > limit:
            row.offenders.setdefault(str(jid), f"COMPLETING for {took:.0f} s after the chaos")
    row.checked = len(ids)
    return row


def node_rows(cluster):
    out = cluster.out("sinfo", "-h", "-N", "-o", "%N|%t|%E")
    return {f[0]: (f[1], f[2]) for f in (line.split("|", 2) for line in out.splitlines())
            if len(f) == 3}


def _node_ok(state, reason):
    return state == "idle" or (state in ("drain", "drng", "drained") and reason not in ("", "none"))


def check_nodes(cluster, timeout):
    row = Row("(4) every node idle, or drained with a reason")
    deadline = time.monotonic() + timeout * TIMEOUT_SCALE
    nodes = {}
    while True:
        try:
            nodes = node_rows(cluster)
        except Exception:  # noqa: BLE001 - see wait_final
            nodes = {}
        bad = {n: v for n, v in nodes.items() if not _node_ok(*v)}
        if (nodes and not bad) or time.monotonic() >= deadline:
            break
        time.sleep(1)
    row.checked = len(cluster.nodes)
    for n in cluster.nodes:
        state, reason = nodes.get(n, ("missing from sinfo", ""))
        if not _node_ok(state, reason):
            row.offenders[n] = f"{state} (reason: {reason})"
    return row, nodes


def _acct_mismatch(j):
    rec, row = j.rec, j.acct
    if row is None:
        return "no accounting row"
    state = row["State"].split()[0]
    diffs = []
    if state != rec["JobState"]:
        diffs.append(f"state {rec['JobState']} vs {row['State']}")
    if row["ExitCode"] != rec.get("ExitCode") and not (
            rec["JobState"] in ENDED_BY_CONTROLLER and row["ExitCode"] == "0:0"):
        diffs.append(f"exit code {rec.get('ExitCode')} vs {row['ExitCode']}")
    e1, e2 = epoch(rec.get("EndTime")), epoch(row["End"])
    if e1 is None or e2 is None or abs(e1 - e2) > END_SLACK:
        diffs.append(f"end {rec.get('EndTime')} vs {row['End']}")
    return "; ".join(f"{d} (scontrol vs sacct)" for d in diffs)


def check_accounting(cluster, subs, timeout):
    """Rows are written by the controller's accounting thread a moment
    after the end: read both again until they agree or timeout."""
    row = Row(f"(5) sacct's state, exit code and end (within {END_SLACK} s) match scontrol's")
    deadline = time.monotonic() + timeout * TIMEOUT_SCALE
    while True:
        resolved = resolve(subs, scontrol_jobs(cluster), sacct_rows(cluster))
        judged = [j for j in resolved if j.rec is not None and j.final]
        bad = {j.label: m for j in judged if (m := _acct_mismatch(j))}
        if not bad or time.monotonic() >= deadline:
            break
        time.sleep(1)
    row.checked = len(judged)
    row.offenders = bad
    return row


def check_daemons(cluster, problems):
    row = Row("(6) no daemon died that the chaos did not kill")
    row.checked = len(cluster.nodes) + 2  # slurmds, slurmctld, munged
    for i, p in enumerate(problems, 1):
        row.offenders[f"#{i}"] = p
    for f in sorted((cluster.dir / "log").glob("*")):
        for line in f.read_bytes().decode(errors="replace").splitlines():
            if CRASH_RX.search(line):
                row.offenders.setdefault(f"{f.name}", line.strip()[:200])
    return row


def check_clients(workload):
    row = Row("(7) no salloc client hung past its deadline")
    clients = [s for s in workload.subs if s.client is not None]
    row.checked = len(clients)
    for s in workload.hung_clients():
        row.offenders[str(s.job_id or s.name)] = f"{s.name}: {s.client_status}"
    return row


def check_strays(monitor):
    row = Row(f"(8) no job process outlives its job (by {STRAY_AFTER} s)")
    row.checked = len(monitor.job_procs_seen)
    for st in sorted(monitor.strays.values(), key=lambda st: st.pid):
        what = (f"pid {st.pid} `{st.cmd}` alive for {st.last - st.first:.0f} s while the job "
                f"was {st.state}")
        key = str(st.job_id)
        row.offenders[key] = f"{row.offenders[key]}; {what}" if key in row.offenders else what
    return row


# ----- the table -------------------------------------------------------------


def table(rows, known=None):
    """Markdown: invariant, checked, violations; then the offenders.
    known: {invariant number (1 for the first row): reason} of rows that
    are expected to fail (xfail)."""
    known = known or {}
    lines = ["| invariant | checked | violations |", "|---|---:|---:|"]
    for i, r in enumerate(rows, 1):
        mark = " (known bug)" if i in known and r.offenders else ""
        lines.append(f"| {r.title} | {r.checked} | {len(r.offenders)}{mark} |")
    for r in rows:
        if r.offenders:
            lines.append("")
            lines.append(f"{r.title.split(')')[0]}) offenders:")
            lines += [f"  {k}: {v}" for k, v in sorted(r.offenders.items(), key=_natural)]
    return "\n".join(lines)


def _natural(item):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(item[0]))]


def spool_leftovers(cluster, resolved):
    """Sockets and .done files in the nodes' spools that belong to jobs
    that have ended (a stepd killed by the chaos leaves its socket)."""
    final = {j.raw for j in resolved if j.final}
    left = []
    for f in sorted((cluster.dir / "spool").glob("*/*")):
        m = re.fullmatch(r"[^_]+_(\d+)\.(\d+)(\.done)?", f.name)
        if m and int(m.group(1)) in final:
            left.append(f.name)
    return left


def summary(resolved, subs):
    """Counts: final states, requeued jobs, failed submissions; then, per
    kind, the jobs that did not end as planned (what the chaos cost)."""
    states = Counter(j.state or "?" for j in resolved)
    requeued = sum(1 for j in resolved if j.rec and j.rec.get("Restarts", "0") != "0")
    failed = [s for s in subs if s.job_id is None]
    text = ", ".join(f"{k} {v}" for k, v in sorted(states.items()))
    lines = [f"{len(resolved)} jobs behind {len([s for s in subs if s.job_id])} printed ids "
             f"({text}); {requeued} requeued at least once; {len(failed)} submissions "
             "printed no id"]
    kinds = sorted({j.sub.kind for j in resolved})
    for kind in kinds:
        jobs = [j for j in resolved if j.sub.kind == kind]
        off = [f"{j.label}={j.state}({(j.rec or j.acct or {}).get('ExitCode')})"
               for j in jobs if j.state != j.sub.planned]
        lines.append(f"  {kind}: {len(jobs)} jobs, {len(off)} not as planned"
                     + (f": {' '.join(off[:30])}{' ...' if len(off) > 30 else ''}" if off else ""))
    return "\n".join(lines)
