"""workload.py - the jobs of a chaos run, submitted while daemons die.

A plan (made from the run's seeded RNG, so a seed repeats it) spreads N
submissions over the run, of these kinds:

  batch      sbatch --wrap "sleep 1-8", sometimes "; exit 3" (FAILED); this
             and the next two kinds go to a random node (-w) 40% of the time
  norequeue  the same with --no-requeue (a lost one ends NODE_FAIL)
  array      sbatch -a 1-6%2: six tasks, two at a time
  steps      a batch job of one or two nodes running srun steps
  salloc     salloc -N1 srun sleep, a client run with Popen and a deadline
  timeout    sleep 90 under a one-minute limit (TIMEOUT); only where the
             run leaves it time to end

Every job gets a unique name (chaos-<seq>-<kind>), so a job id that the
controller hands out twice (a submission it forgot) shows as a job whose
name is not the one submitted. Every id printed is recorded: sbatch
--parsable's stdout, salloc's "Granted job allocation N" on stderr.
"""

import re
import subprocess
import threading
import time
from dataclasses import dataclass, field

from chaos_config import NODES

ARRAY_TASKS = 6
SALLOC_DEADLINE = 150  # s from its start: pending, running, and a few outages
TIMEOUT_JOB_SECONDS = 90  # under a 1 minute limit
# how often each kind is planned (timeout jobs are placed apart)
WEIGHTS = {"batch": 35, "norequeue": 10, "array": 15, "steps": 22, "salloc": 18}


@dataclass
class Submission:
    seq: int
    kind: str
    at: float  # s after the start of the run it is planned for
    args: list  # command and its arguments
    limit_s: int  # time limit in seconds
    job_id: int = None
    tasks: int = 1  # jobs behind the id: ARRAY_TASKS for an array
    error: str = ""  # why no id was printed
    client: subprocess.Popen = None  # salloc
    deadline: float = 0.0  # monotonic; salloc
    client_status: str = ""  # salloc: exit status, or "killed at its deadline"
    planned: str = "COMPLETED"  # how it ends when no daemon dies under it

    @property
    def name(self):
        return f"chaos-{self.seq}-{self.kind}"


def job_count(seconds):
    """300 jobs for the 900 s run, in proportion for others (at least 12)."""
    return max(12, round(300 * seconds / 900))


def plan(rng, seconds, workdir):
    """The submissions of a run of `seconds`, in time order."""
    n = job_count(seconds)
    kinds = list(WEIGHTS)
    weights = [WEIGHTS[k] for k in kinds]
    when = [(rng.uniform(0, seconds * 0.95), rng.choices(kinds, weights)[0]) for _ in range(n)]
    # one job that runs into its time limit at the start; in longer runs
    # one more every 5 minutes, none too late to end before the checks
    when += [(float(t), "timeout") for t in [0, *range(300, int(seconds) - 120, 300)]]
    when.sort()
    return [_make(rng, seq, kind, at, workdir) for seq, (at, kind) in enumerate(when, 1)]


def _make(rng, seq, kind, at, wd):
    name = f"chaos-{seq}-{kind}"
    sb = ["sbatch", "--parsable", "-J", name, "-D", str(wd), "-o", f"{wd}/%x-%j.out"]
    sleep = rng.randint(1, 8)
    # the scheduler packs jobs on the first nodes: some go elsewhere
    where = ["-w", rng.choice(NODES)] if rng.random() < 0.4 else []
    if kind in ("batch", "norequeue"):
        fails = rng.random() < 0.15
        script = f"sleep {sleep}" + ("; exit 3" if fails else "")
        extra = ["--no-requeue"] if kind == "norequeue" else []
        return Submission(seq, kind, at, sb + ["-t", "1", *where, *extra, "--wrap", script], 60,
                          planned="FAILED" if fails else "COMPLETED")
    if kind == "array":
        return Submission(seq, kind, at, sb + ["-a", f"1-{ARRAY_TASKS}%2", "-t", "1",
                                               "-o", f"{wd}/%x-%A_%a.out",
                                               "--wrap", f"sleep {rng.randint(1, 4)}"],
                          60, tasks=ARRAY_TASKS)
    if kind == "steps":
        nodes = rng.choice((1, 2))
        script = (f"srun -n{nodes} sleep {rng.randint(1, 4)} && srun -n1 hostname "
                  f"&& srun -n{nodes} true")
        return Submission(seq, kind, at, sb + ["-N", str(nodes), "-n", str(nodes), "-t", "2",
                                               "--wrap", script], 120)
    if kind == "salloc":
        return Submission(seq, kind, at, ["salloc", "-J", name, "-N1", "-t", "1", *where,
                                          "srun", "sleep", str(sleep)], 60)
    if kind == "timeout":
        return Submission(seq, kind, at, sb + ["-t", "1", "--wrap",
                                               f"sleep {TIMEOUT_JOB_SECONDS}"], 60,
                          planned="TIMEOUT")
    raise ValueError(kind)


@dataclass
class Workload:
    cluster: object
    subs: list
    log: object  # callable(str)
    started: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, stop):
        """Submit each at its time (late ones at once); poll the salloc
        clients meanwhile. Returns when every submission is made, or stop
        is set."""
        self.started = time.monotonic()
        for s in self.subs:
            while not stop.is_set() and time.monotonic() < self.started + s.at:
                self.poll_clients()
                stop.wait(0.2)
            if stop.is_set():
                return
            self.submit(s)

    def submit(self, s):
        if s.kind == "salloc":
            s.client = self.cluster.popen(*s.args)
            s.deadline = time.monotonic() + SALLOC_DEADLINE
            return
        try:
            r = self.cluster.run(*s.args, check=False, timeout=60)
        except subprocess.TimeoutExpired:
            s.error = "sbatch did not return in 60 s"
            self.log(f"submit {s.name}: {s.error}")
            return
        m = re.fullmatch(r"(\d+)(;\S+)?\n", r.stdout)
        if r.returncode == 0 and m:
            s.job_id = int(m.group(1))
            self.log(f"submit {s.name}: job {s.job_id}")
        else:
            s.error = f"sbatch exited {r.returncode}: {r.stderr.strip()[-200:]}"
            self.log(f"submit {s.name}: {s.error}")

    def poll_clients(self, final=False):
        """Reap the salloc clients that ended; kill those past their
        deadline (final: wait for each until its deadline first)."""
        for s in self.subs:
            p = s.client
            if p is None or s.client_status:
                continue
            if final:
                try:
                    p.wait(timeout=max(0.0, s.deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
            if p.poll() is None and time.monotonic() < s.deadline:
                continue
            if p.poll() is None:
                p.kill()
                s.client_status = f"killed at its {SALLOC_DEADLINE} s deadline"
            try:
                _, err = p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                err = ""
            if not s.client_status:
                s.client_status = f"exit {p.returncode}"
            m = re.search(r"Granted job allocation (\d+)", err or "")
            if m:
                s.job_id = int(m.group(1))
            else:
                s.error = f"salloc printed no job id ({s.client_status}): {err.strip()[-200:]}"
            self.log(f"salloc {s.name}: job {s.job_id} {s.client_status}")

    # ----- what was submitted -------------------------------------------------

    def with_ids(self):
        return [s for s in self.subs if s.job_id is not None]

    def hung_clients(self):
        return [s for s in self.subs if s.client_status.startswith("killed")]
