"""The chaos run (issue 11): a mixed workload on a 4-node cluster while
daemons are SIGKILLed at random, then the invariants of invariants.py.

    make chaos                      # CHAOS_SECONDS=900: the long run, 300 jobs
    make chaos CHAOS_SECONDS=60     # what CI runs (with CHAOS_CI=1)
    CHAOS_SEED=N make chaos ...     # the plan and the kills of an earlier run

The seed is printed at the start. The table goes to stdout (-s, which
`make chaos` passes), to <cluster dir>/chaos-report.md (the directory is
kept when the run fails) and to $CHAOS_REPORT if set; the chaos events,
with their times, to <cluster dir>/chaos-events.log.

CHAOS_CI=1 turns violations of the rows in KNOWN_CI_FLAKES (known daemon
bugs, each with its reason) into an xfail; the long run never does.
"""

import os
import random
import threading
import time
from pathlib import Path

import pytest

import invariants as inv
import workload as wl
from chaos_config import SETTINGS
from monkey import Chaos, Monitor

LIMIT_GRACE = 15  # s past a time limit that a job may still be seen RUNNING
# s after the chaos stops that a job may still be COMPLETING
COMPLETING_LIMIT = SETTINGS["UnkillableStepTimeout"] + SETTINGS["SlurmdTimeout"] \
    + 2 * SETTINGS["MessageTimeout"]
FINAL_TIMEOUT = 240  # s after the chaos for every job to end
NODES_TIMEOUT = 60
ACCT_TIMEOUT = 30

# row index (0 is invariant (1)) -> the known daemon bug that makes it flaky
# in the 60 s CI run; only applied with CHAOS_CI=1
KNOWN_CI_FLAKES = {}


class Thread(threading.Thread):
    """A thread whose exception is raised again by join()."""

    def __init__(self, name, fn, *args):
        super().__init__(name=name, daemon=True)
        self.fn, self.args, self.exc = fn, args, None

    def run(self):
        try:
            self.fn(*self.args)
        except BaseException as e:  # noqa: BLE001 - handed to join()
            self.exc = e

    def join(self, timeout=None):
        super().join(timeout)
        if self.exc is not None:
            raise self.exc


class EventLog:
    def __init__(self, path):
        self.f = open(path, "w", buffering=1)
        self.t0 = time.monotonic()
        self.lock = threading.Lock()

    def __call__(self, msg, echo=False):
        line = f"{time.monotonic() - self.t0:7.1f}s {msg}"
        with self.lock:
            self.f.write(line + "\n")
        if echo:
            print(line, flush=True)


@pytest.mark.chaos
def test_chaos_run(chaos_cluster):
    c = chaos_cluster
    seconds = float(os.environ.get("CHAOS_SECONDS", "900"))
    ci = os.environ.get("CHAOS_CI") == "1"
    seed = int(os.environ.get("CHAOS_SEED") or random.SystemRandom().randrange(2**31))
    print(f"\nchaos run: CHAOS_SEED={seed} CHAOS_SECONDS={seconds:g}{' (CI)' if ci else ''}, "
          f"cluster {c.dir}", flush=True)
    wd = c.dir / "work"
    wd.mkdir()
    wd.chmod(0o777)
    log = EventLog(c.dir / "chaos-events.log")
    subs = wl.plan(random.Random(seed), seconds, wd)
    work = wl.Workload(c, subs, log)
    chaos = Chaos(c, random.Random(seed + 1), lambda m: log(m, echo=True))
    monitor = Monitor(c, LIMIT_GRACE)

    stop_chaos, stop_work, stop_monitor = threading.Event(), threading.Event(), threading.Event()
    threads = [Thread("workload", work.run, stop_work), Thread("chaos", chaos.run, stop_chaos),
               Thread("monitor", monitor.run, stop_monitor)]
    for t in threads:
        t.start()
    stop_work.wait(seconds)  # the run
    stop_chaos.set()
    threads[1].join()
    stop_work.set()
    threads[0].join()
    chaos_end = time.monotonic()
    log(f"chaos stopped after {sum(chaos.kills.values())} kills: {dict(chaos.kills)}", echo=True)
    chaos.restore()
    work.poll_clients(final=True)
    resolved = inv.wait_final(c, work.with_ids(), FINAL_TIMEOUT)
    log(f"all final: {all(j.final for j in resolved)}", echo=True)

    rows = [inv.check_ends(work.with_ids(), resolved)]
    rows.append(inv.check_time_limits(resolved, monitor, LIMIT_GRACE))
    node_row, nodes = inv.check_nodes(c, NODES_TIMEOUT)
    stop_monitor.set()
    threads[2].join()
    rows.append(inv.check_completing(resolved, monitor, chaos_end, COMPLETING_LIMIT))
    rows.append(node_row)
    rows.append(inv.check_accounting(c, work.with_ids(), ACCT_TIMEOUT))
    leftovers = inv.spool_leftovers(c, resolved)
    problems = list(c.stop())  # SIGTERM must still stop every daemon
    rows.append(inv.check_daemons(c, problems))
    rows.append(inv.check_clients(work))

    known = KNOWN_CI_FLAKES if ci else {}
    longest, longest_id = monitor.longest_completing()
    drained = {n: r for n, (s, r) in nodes.items() if s != "idle"}
    report = "\n".join([
        f"chaos run: CHAOS_SEED={seed}, {seconds:g} s, {len(subs)} submissions; kills: "
        + ", ".join(f"{k} {v}" for k, v in sorted(chaos.kills.items()))
        + f"; crashes: {len(chaos.crashes)}",
        inv.summary(resolved, subs),
        f"monitor: {monitor.samples} samples; longest COMPLETING seen: {longest:.0f} s "
        f"(job {longest_id}); nodes not idle at the end: {drained or 'none'}",
        f"spool entries of ended jobs left at the end: {len(leftovers)} "
        f"{' '.join(leftovers[:20])}",
        "",
        inv.table(rows, known),
    ]) + "\n"
    (c.dir / "chaos-report.md").write_text(report)
    if os.environ.get("CHAOS_REPORT"):
        Path(os.environ["CHAOS_REPORT"]).write_text(report)
    print("\n" + report, flush=True)

    failed = {i: r for i, r in enumerate(rows) if r.offenders}
    if failed:
        c.failed = True  # keep the directory, even for an xfail
    unknown = [r.title for i, r in failed.items() if i not in known]
    assert not unknown, f"invariants violated (see the table above): {unknown}"
    if failed:
        pytest.xfail("; ".join(known[i] for i in failed))
