"""monkey.py - what a chaos run does to the daemons, and what it sees.

Chaos: every 2-6 s (from the run's seeded RNG) SIGKILL one daemon at
random: slurmctld, one slurmd (three times in four one whose node runs
a step), or one slurmstepd (found by its command line,
Cluster.stepd_pids()); after a pause of 0-3 s the slurmctld or
slurmd killed is started again (a stepd is not: its slurmd and the
controller must sort out its job). Before each kill, a daemon that
exited without being killed is recorded as a crash (Cluster.problems,
as the integration fixtures count them) and started again, so that one
crash does not end the run.

Monitor: every 2 s, squeue's running and completing jobs, to catch a job
running past its time limit, and how long each job stays COMPLETING; and
the processes of the cluster's jobs (SLURM_CONF and SLURM_JOB_ID in their
environment), to catch one that outlives its job.
"""

import os
import signal
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class Chaos:
    cluster: object
    rng: object
    log: object  # callable(str)
    kills: Counter = field(default_factory=Counter)
    crashes: list = field(default_factory=list)
    down: set = field(default_factory=set)  # daemons killed, not yet started again

    def run(self, stop):
        """Until stop is set: wait, kill, pause, restart."""
        while not stop.wait(self.rng.uniform(2, 6)):
            self.reap_crashed()
            target = self.pick()
            self.kill(target)
            # the pause runs out even when stop comes: what was killed is
            # started again here, as in any other turn
            time.sleep(self.rng.uniform(0, 3))
            self.restart(target)

    def pick(self):
        stepds = self.cluster.stepd_pids()
        kind = self.rng.choice(["slurmctld", "slurmd", "slurmstepd"] if stepds
                               else ["slurmctld", "slurmd"])
        if kind == "slurmctld":
            return ("slurmctld", None)
        if kind == "slurmd":
            # mostly a node that runs something: a kill there is a test
            busy = sorted({_stepd_what(p).partition("_")[0] for p in stepds}
                          & set(self.cluster.nodes))
            nodes = busy if busy and self.rng.random() < 0.75 else self.cluster.nodes
            return ("slurmd", self.rng.choice(nodes))
        return ("slurmstepd", self.rng.choice(sorted(stepds)))

    def kill(self, target):
        kind, which = target
        c = self.cluster
        if kind == "slurmctld":
            pid = c.procs["slurmctld"].pid if "slurmctld" in c.procs else None
            c.kill_slurmctld(signal.SIGKILL)
            self.down.add("slurmctld")
        elif kind == "slurmd":
            p = c.procs.get(f"slurmd-{which}")
            pid = p.pid if p else None
            c.kill_slurmd(which, signal.SIGKILL)
            self.down.add(f"slurmd-{which}")
        else:
            pid = which
            which = _stepd_what(pid)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                self.log(f"slurmstepd {pid} had already gone")
                return
        self.kills[kind] += 1
        self.log(f"SIGKILL {kind}{' ' + str(which) if which else ''} (pid {pid})")

    def restart(self, target):
        kind, which = target
        if kind == "slurmctld":
            self.cluster.start_slurmctld(wait=False)
            self.down.discard("slurmctld")
            self.log("started slurmctld")
        elif kind == "slurmd":
            self.cluster.start_slurmd(which)
            self.down.discard(f"slurmd-{which}")
            self.log(f"started slurmd {which}")

    def reap_crashed(self):
        """Daemons that exited although nobody killed them: recorded as
        Cluster.problems (the harness's crash list) and started again."""
        c = self.cluster
        for name, p in list(c.procs.items()):
            if p.poll() is None:
                continue
            del c.procs[name]
            what = f"{name} (pid {p.pid}) exited on its own with status {p.returncode}"
            c.problems.append(what)
            self.crashes.append(what)
            self.log(f"CRASH: {what}; starting it again")
            if name == "slurmctld":
                c.start_slurmctld(wait=False)
            elif name == "munged":
                c.start_munged()
            else:
                c.start_slurmd(name.removeprefix("slurmd-"))

    def restore(self):
        """After the run: every daemon up again, the controller answering."""
        self.reap_crashed()
        c = self.cluster
        if "slurmctld" not in c.procs:
            c.start_slurmctld(wait=False)
        for n in c.nodes:
            if f"slurmd-{n}" not in c.procs:
                c.start_slurmd(n)
        self.down.clear()
        c.wait_ctld_up(timeout=60)


def _stepd_what(pid):
    """The step a stepd serves ("n1_12.4294967291": node_job.step), from
    the spool socket it listens on (its fds, matched in /proc/net/unix)."""
    try:
        inodes = {os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1] for fd in os.listdir(f"/proc/{pid}/fd")
                  if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:[")}
        with open("/proc/net/unix") as f:
            for line in f.read().splitlines()[1:]:
                cols = line.split()
                if len(cols) >= 8 and cols[6] in inodes:
                    return os.path.basename(cols[7])
    except OSError:
        pass
    return "(step unknown)"


def seconds_of(text):
    """'1:02', '1:02:03', '1-02:03:04', '00:01:00' -> seconds; None for
    UNLIMITED, INVALID, N/A and the like."""
    days = 0
    if "-" in text:
        d, _, text = text.partition("-")
        if not d.isdigit():
            return None
        days = int(d)
    parts = text.split(":")
    if not all(p.isdigit() for p in parts) or not 1 <= len(parts) <= 3:
        return None
    s = 0
    for p in parts:
        s = s * 60 + int(p)
    if len(parts) == 1:  # minutes only
        s *= 60
    return days * 86400 + s


STRAY_AFTER = 6  # s a job's process may be seen after its job (KillWait and more)


@dataclass
class Stray:
    pid: int
    job_id: int
    cmd: str
    first: float
    last: float = 0.0
    state: str = ""  # the job's, as squeue showed it ("ended": not listed)


def _environ(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        return dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)


def _ppid(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _epoch(text):
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp()
    except ValueError:
        return None


def _boot_time():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("btime "):
                return int(line.split()[1])
    return 0


BOOT_TIME = _boot_time()
TICKS = os.sysconf("SC_CLK_TCK")


def _started(pid):
    """When process pid started, as epoch seconds."""
    with open(f"/proc/{pid}/stat") as f:
        return BOOT_TIME + int(f.read().rsplit(")", 1)[1].split()[19]) / TICKS


def job_processes(cluster, client_pids):
    """{pid: (job id, command, start)} of the processes that run for a job of this
    cluster (SLURM_CONF is ours, SLURM_JOB_ID set), but for the salloc
    clients and what they started (their srun runs for as long as they do)."""
    conf = str(cluster.conf_path).encode()
    clients = set(client_pids)
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            env = _environ(pid)
            if env.get(b"SLURM_CONF") != conf or b"SLURM_JOB_ID" not in env:
                continue
            up, p = 0, pid
            while p > 1 and up < 6 and p not in clients:
                p, up = _ppid(p), up + 1
            if p in clients:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            found[pid] = (int(env[b"SLURM_JOB_ID"]), cmd[:80], _started(pid))
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return found


@dataclass
class Monitor:
    """squeue every `every` s: jobs seen RUNNING past their limit + grace,
    each job's stretches of COMPLETING (first and last sight), and job
    processes whose job is over (strays)."""

    cluster: object
    grace: int
    every: float = 2.0
    samples: int = 0
    over_limit: dict = field(default_factory=dict)  # job id -> "run time/limit"
    running_seen: set = field(default_factory=set)
    completing: dict = field(default_factory=dict)  # job id -> [[first, last], ...]
    clients: object = None  # callable: pids of the salloc clients (not job processes)
    job_procs_seen: set = field(default_factory=set)  # job ids
    suspects: dict = field(default_factory=dict)  # pid -> Stray, seen in every sample since
    strays: dict = field(default_factory=dict)  # pid -> Stray, seen long enough
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, stop):
        while not stop.wait(self.every):
            self.sample()

    def sample(self):
        r = self.cluster.run("squeue", "-h", "-o", "%A|%T|%M|%l|%S", check=False, timeout=30)
        if r.returncode != 0:
            return  # the controller is down: nothing to see
        now = time.monotonic()
        procs = job_processes(self.cluster, self.clients() if self.clients else ())
        with self.lock:
            self.samples += 1
            active = {}  # job id -> (state, start as epoch or None)
            for line in r.stdout.splitlines():
                f = line.split("|")
                if len(f) != 5 or not f[0].isdigit():
                    continue
                jid, state, used, limit = int(f[0]), f[1], seconds_of(f[2]), seconds_of(f[3])
                active[jid] = (state, _epoch(f[4]))
                if state == "RUNNING":
                    self.running_seen.add(jid)
                    if used is not None and limit is not None and used > limit + self.grace:
                        self.over_limit[jid] = f"RUNNING {f[2]} under a limit of {f[3]}"
                elif state == "COMPLETING":
                    spans = self.completing.setdefault(jid, [])
                    if spans and now - spans[-1][1] <= 3 * self.every:
                        spans[-1][1] = now
                    else:
                        spans.append([now, now])
            self._strays(procs, active, now)

    def _strays(self, procs, active, now):
        """A process of a job that squeue shows neither RUNNING nor
        COMPLETING, or that is older than the job's StartTime (a process of
        an earlier run of a requeued job), in every sample for STRAY_AFTER
        s: it outlived its job (a start or an end between squeue and the
        /proc scan lasts one sample)."""
        suspects = {}
        for pid, (jid, cmd, born) in procs.items():
            self.job_procs_seen.add(jid)
            state, start = active.get(jid, ("ended", None))
            if state in ("RUNNING", "COMPLETING"):
                if start is None or born >= start - 2:
                    continue
                state = f"{state} again (requeued; the process is of an earlier run)"
            st = self.suspects.get(pid) or Stray(pid, jid, cmd, now)
            st.last, st.state = now, state
            suspects[pid] = st
            if st.last - st.first >= STRAY_AFTER:
                self.strays[pid] = st
        self.suspects = suspects

    def completing_since(self, jid, t0):
        """The longest time job jid was seen COMPLETING after monotonic t0
        (a stretch that began before t0 counts from t0)."""
        with self.lock:
            spans = self.completing.get(jid, [])
            return max((last - max(first, t0) for first, last in spans if last >= t0),
                       default=0.0)

    def longest_completing(self):
        with self.lock:
            return max(((last - first, jid) for jid, spans in self.completing.items()
                        for first, last in spans), default=(0.0, None))
