"""cluster.py - a private cluster on loopback for the integration tests.

A Cluster owns one temporary directory (mode 0755, so that a non-root test
user can reach the munge socket and read the config) holding slurm.conf,
gres.conf, munge/ (its own key, socket, log, seed), state/, spool/, log/,
pid/ and dev/nvidia0..3 (plain files standing in for GPUs). start() runs
munged, then `slurmctld -D`, then one `slurmd -D -N <node>` per node, all on
free 127.0.0.1 ports, and polls with deadlines (never sleeps to synchronise)
until the controller answers and every node is idle. stop() signals exactly
the processes it started (SIGTERM, SIGKILL after a deadline) and reports
daemons that crashed or ignored SIGTERM.

The config comes from parameters (nodes, partitions, settings) or from a
template using the placeholders of etc/local/slurm.conf.in: @RUN_DIR@,
@MUNGE_SOCKET@, @SLURM_USER@, @SLURMCTLD_PORT@, @SLURMD_PORT@, @PORT_<node>@.
Cluster.like_reference() builds the reference cluster of
tests/reference/slurm.conf with its paths and ports rewritten.

Binaries come from $SL_BUILD_DIR or <repo>/build; the tests never call
real Slurm (only bench/slurm_ref.py points bin_dir and sbin_dir at it). $SL_TIMEOUT_SCALE multiplies every deadline (e.g. 3 for ASan builds).
"""

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("SL_BUILD_DIR") or REPO / "build").resolve()
# What Slurm 22.05 printed (the files the tests compare with, kept in the
# repository so a clone is self-contained).
REFERENCE_DIR = Path(os.environ.get("SL_REFERENCE_DIR") or REPO / "tests" / "reference").resolve()
TIMEOUT_SCALE = float(os.environ.get("SL_TIMEOUT_SCALE", "1"))


def _is_sanitized():
    try:
        return b"__asan_init" in (BUILD_DIR / "slurmctld").read_bytes()
    except OSError:
        return False


# The build under test runs under AddressSanitizer (make asan-integration).
SANITIZED = _is_sanitized()


def memory_bound(nbytes):
    """A bound on a daemon's memory, for the build under test: under ASan
    its redzones and shadow about double a heap, and its quarantine keeps
    up to 256 MiB of freed memory resident (quarantine_size_mb)."""
    return 2 * nbytes + (256 << 20) if SANITIZED else nbytes

MUNGED = shutil.which("munged") or "/usr/sbin/munged"
MUNGE = shutil.which("munge") or "/usr/bin/munge"

DAEMONS = ("slurmctld", "slurmd")
STOP_TIMEOUT = 5  # seconds between SIGTERM and SIGKILL

DEFAULT_NODE = ("CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=4 ThreadsPerCore=1 "
                "RealMemory=4000")

# Settings of a generated slurm.conf, in the order written. Cluster(settings=)
# overrides a value, adds a key, or removes one with None.
DEFAULT_SETTINGS = {
    "ClusterName": "test",
    "SlurmctldHost": "localhost(127.0.0.1)",
    "SlurmctldPort": "@SLURMCTLD_PORT@",
    "SlurmdPort": "@SLURMD_PORT@",
    "SlurmUser": "@SLURM_USER@",
    "SlurmdUser": "@SLURM_USER@",
    "AuthType": "auth/munge",
    "AuthInfo": "socket=@MUNGE_SOCKET@",
    "CredType": "cred/munge",
    "StateSaveLocation": "@RUN_DIR@/state",
    "SlurmdSpoolDir": "@RUN_DIR@/spool/%n",
    "SlurmctldPidFile": "@RUN_DIR@/pid/slurmctld.pid",
    "SlurmdPidFile": "@RUN_DIR@/pid/slurmd-%n.pid",
    "SlurmctldLogFile": "@RUN_DIR@/log/slurmctld.log",
    "SlurmdLogFile": "@RUN_DIR@/log/slurmd-%n.log",
    "SlurmctldDebug": "info",
    "SlurmdDebug": "info",
    "ProctrackType": "proctrack/linuxproc",
    "TaskPlugin": "task/none",
    "MpiDefault": "none",
    "ReturnToService": "2",
    "SwitchType": "switch/none",
    "SchedulerType": "sched/backfill",
    "SelectType": "select/cons_tres",
    "SelectTypeParameters": "CR_Core_Memory",
    "PriorityType": "priority/basic",
    "DefMemPerCPU": "100",
    "MinJobAge": "300",
    "SlurmctldTimeout": "30",
    "SlurmdTimeout": "60",
    "InactiveLimit": "0",
    "KillWait": "2",
    "MessageTimeout": "10",
    "GresTypes": "gpu",
    "SlurmdParameters": "config_overrides",
}

# Environment variables that change what our commands do; never inherited.
# slurmctld compares every job record it keeps for squeue with a fresh
# one and logs a difference, which stop() reports (benchmarks turn it off)
CHECK_KEPT_JOB_RECORDS = True

_ENV_PREFIXES = ("SLURM_", "SBATCH_", "SALLOC_", "SRUN_", "SQUEUE_", "SINFO_", "SACCT_",
                 "SCONTROL_")


class ClusterError(AssertionError):
    """The cluster could not be started or misbehaved; the text carries logs."""


class DaemonDied(ClusterError):
    """A daemon we started exited while we waited for it."""


class CommandFailed(AssertionError):
    """run(..., check=True) got a non-zero exit status."""


# Ports for the daemons come from below the kernel's ephemeral range
# (ip_local_port_range, 32768 and up here), so no outgoing connection of a
# client can take one between our choice and the daemon's bind. Test
# processes running side by side (pytest-xdist workers, two developers'
# runs) claim each port in a shared directory first: a claim is a file
# named after the port holding the claimer's pid, and counts while that
# process lives.
PORT_RANGE = (12000, 32000)
_PORT_CLAIMS = Path(tempfile.gettempdir()) / f"sl-port-claims-{os.getuid()}"
_port_cursor = None


def _claim_port(port):
    path = _PORT_CLAIMS / str(port)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            try:
                owner = int(path.read_text() or "0")
            except (OSError, ValueError):
                owner = 0
            if owner == os.getpid() or (owner and not pid_gone(owner)):
                return False
            try:
                path.unlink()  # its claimer is gone
            except FileNotFoundError:
                pass
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return True
    return False


def _bindable(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(n):
    """n distinct TCP ports, free on 127.0.0.1 and claimed by this process."""
    global _port_cursor
    lo, hi = PORT_RANGE
    span = hi - lo
    if _port_cursor is None:
        _PORT_CLAIMS.mkdir(mode=0o755, exist_ok=True)
        _port_cursor = (os.getpid() * 7919 + time.monotonic_ns()) % span
    ports = []
    for _ in range(span):
        port = lo + _port_cursor
        _port_cursor = (_port_cursor + 1) % span
        if _bindable(port) and _claim_port(port):
            ports.append(port)
            if len(ports) == n:
                return ports
    raise ClusterError(f"no {n} free ports in {lo}-{hi}")


def _split_top(expr, sep=","):
    """Split on sep outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in expr:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p for p in parts if p]


def expand_hostlist(expr):
    """'n[1-3],g[01-02]' -> ['n1', 'n2', 'n3', 'g01', 'g02'] (config order)."""
    names = []
    for item in _split_top(expr):
        m = re.match(r"^([^\[]*)\[([^\]]+)\](.*)$", item)
        if not m:
            names.append(item)
            continue
        prefix, ranges, rest = m.groups()
        for r in ranges.split(","):
            lo, _, hi = r.partition("-")
            hi = hi or lo
            width = len(lo) if lo.startswith("0") else 0
            for i in range(int(lo), int(hi) + 1):
                for tail in expand_hostlist(rest) if rest else [""]:
                    names.append(f"{prefix}{i:0{width}d}{tail}")
    return names


def _is_zombie(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def kill_tree(pid, sig=signal.SIGKILL):
    """sig to pid and to its descendants (as /proc lists its children)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(x) for x in f.read().split()]
    except OSError:
        children = []
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
    for child in children:
        kill_tree(child, sig)


def wait_gone(pids, timeout=20):
    """Wait until none of pids runs (zombies count as gone)."""
    wait_for(lambda: not any(os.path.exists(f"/proc/{p}") and not _is_zombie(p) for p in pids),
             timeout=timeout, what=f"processes {pids} to be gone")


def recv_exact(sock, n):
    """n bytes from sock, or None when the peer closed first."""
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


@contextlib.contextmanager
def marker(path):
    """The file path exists for the block (a test's script acts on it),
    and is gone after it whatever happened."""
    path.touch()
    try:
        yield path
    finally:
        path.unlink()


def wait_for(predicate, timeout=30, interval=0.1, what=None):
    """Poll predicate until it returns a true value, which is returned.

    Exceptions from the predicate count as "not yet" (commands fail while a
    daemon restarts), except DaemonDied, which ends the wait at once. On
    timeout raises TimeoutError naming what was awaited and the last value.
    """
    deadline = time.monotonic() + timeout * TIMEOUT_SCALE
    last, last_exc = None, None
    while True:
        try:
            last = predicate()
            last_exc = None
            if last:
                return last
        except DaemonDied:
            raise
        except Exception as e:  # noqa: BLE001 - see docstring
            last_exc = e
        if time.monotonic() >= deadline:
            msg = f"timed out after {timeout * TIMEOUT_SCALE:g}s waiting for {what or predicate}"
            msg += f"; last value: {last!r}"
            if last_exc is not None:
                msg += f"; last error: {last_exc}"
            raise TimeoutError(msg)
        time.sleep(interval)


_KEY_RE = re.compile(r"(?:^|(?<=\s))([A-Za-z][A-Za-z0-9_]*)=")


def parse_record(text):
    """scontrol's 'Key=Value Key=Value' lines -> dict. A value runs up to the
    next ' Key=' on its line, so 'Reason=a b [root@t]' and 'OS=Linux 6.1 #1'
    keep their spaces and 'CfgTRES=cpu=4,mem=1M' its inner '='."""
    rec = {}
    for line in text.splitlines():
        keys = list(_KEY_RE.finditer(line))
        for i, m in enumerate(keys):
            end = keys[i + 1].start() if i + 1 < len(keys) else len(line)
            rec[m.group(1)] = line[m.end():end].strip()
    return rec


def _tail(path, lines):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    text = data.decode(errors="replace").splitlines()
    return "\n".join(text[-lines:])


class Cluster:
    """A private cluster. Typical use (see conftest.py for the fixtures):

        c = Cluster(nodes=["n1", "n2"], settings={"SlurmdTimeout": 6})
        c.start()
        print(c.run("sinfo").stdout)
        c.stop()
    """

    def __init__(self, nodes=("n1", "n2", "n3", "n4"), partitions=None, settings=None,
                 node_defaults=DEFAULT_NODE, gres=(), conf_template=None, gres_template=None,
                 name="cluster", fake_gpus=4, tmp_root=None):
        """nodes: names, or "name Attr=Value ..." for extra node attributes
        (e.g. "g1 Gres=gpu:4"); partitions: "name Nodes=... Attr=..." strings
        (default: one Default partition "debug" with every node); settings:
        overrides of DEFAULT_SETTINGS; gres: gres.conf lines. conf_template /
        gres_template: whole files with placeholders instead of parameters.
        tmp_root: the directory the cluster's own goes in (default: the
        system's temporary directory)."""
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", name)[:24]  # goes into paths in slurm.conf
        self.dir = Path(tempfile.mkdtemp(prefix=f"sl-{name}-", dir=tmp_root))
        os.chmod(self.dir, 0o755)
        self.name = name
        self.fake_gpus = fake_gpus
        self.procs = {}          # name -> Popen of what runs now
        self.clients = []        # popen(): srun/salloc started by tests
        self.problems = []       # daemons that died on their own, found by stop()
        self.failed = False      # set by conftest when a test using us failed
        self.started = False
        # where commands (run, popen) and daemons come from; bench/ points
        # them at Debian's Slurm to run the same workload against it
        self.bin_dir = self.sbin_dir = BUILD_DIR
        if conf_template is None:
            conf_template = self._generate(nodes, partitions, settings or {}, node_defaults)
            if gres_template is None:
                gres_template = "".join(line + "\n" for line in gres)
        self._conf_template = conf_template
        self._gres_template = gres_template or ""
        self._substitute()

    # ----- configuration -------------------------------------------------

    @staticmethod
    def _generate(nodes, partitions, settings, node_defaults):
        conf = dict(DEFAULT_SETTINGS)
        lower = {k.lower(): k for k in conf}
        for key, value in settings.items():
            key = lower.get(key.lower(), key)
            if value is None:
                conf.pop(key, None)
            else:
                conf[key] = str(value)
        lines = ["# generated by tests/integration/cluster.py"]
        lines += [f"{k}={v}" for k, v in conf.items()]
        names = [n.split()[0] for n in nodes]
        lines.append(f"NodeName=DEFAULT {node_defaults} State=UNKNOWN")
        for spec in nodes:
            name, _, extra = spec.partition(" ")
            lines.append(f"NodeName={name} NodeHostname=localhost NodeAddr=127.0.0.1 "
                         f"Port=@PORT_{name}@ {extra}".rstrip())
        if partitions is None:
            partitions = [f"debug Nodes={','.join(names)} Default=YES MaxTime=INFINITE State=UP"]
        lines += [f"PartitionName={p}" for p in partitions]
        return "\n".join(lines) + "\n"

    def _substitute(self):
        t = self._conf_template
        node_ports = sorted(set(re.findall(r"@PORT_([^@\s]+)@", t)))
        ports = free_ports(2 + len(node_ports))
        self.ctld_port, self.slurmd_port = ports[0], ports[1]
        self.munge_socket = str(self.dir / "munge" / "munge.socket")
        if len(self.munge_socket) >= 108:
            raise ClusterError(f"munge socket path too long for AF_UNIX: {self.munge_socket}")
        subst = {
            "@RUN_DIR@": str(self.dir),
            "@MUNGE_SOCKET@": self.munge_socket,
            "@SLURM_USER@": pwd.getpwuid(os.getuid()).pw_name,
            "@SLURMCTLD_PORT@": str(self.ctld_port),
            "@SLURMD_PORT@": str(self.slurmd_port),
        }
        subst.update({f"@PORT_{n}@": str(p) for n, p in zip(node_ports, ports[2:])})

        def fill(text):
            for k, v in subst.items():
                text = text.replace(k, v)
            left = re.findall(r"@[A-Z_]+[^@\s]*@", text)
            if left:
                raise ClusterError(f"unknown placeholders in template: {sorted(set(left))}")
            return text

        self.conf_text = fill(self._conf_template)
        self.gres_text = fill(self._gres_template)
        self.conf_path = self.dir / "slurm.conf"
        self.nodes, self.node_ports = self._nodes_of(self.conf_text, self.slurmd_port)

    @staticmethod
    def _nodes_of(conf_text, slurmd_port):
        """Node names in config order and their slurmd ports."""
        names, ports = [], {}
        for line in conf_text.splitlines():
            m = re.match(r"\s*NodeName=(\S+)(.*)", line, re.I)
            if not m or m.group(1).upper() == "DEFAULT":
                continue
            p = re.search(r"(?:^|\s)Port=(\d+)", m.group(2))
            for n in expand_hostlist(m.group(1)):
                names.append(n)
                ports[n] = int(p.group(1)) if p else slurmd_port
        return names, ports

    @classmethod
    def like_reference(cls, name="reference", overrides=None):
        """A cluster configured exactly like tests/reference/slurm.conf and
        gres.conf, with /var/lib/slurm moved into our directory, free ports,
        our munge socket (AuthInfo) and without its Include line.
        overrides: {key: value} replacing the file's `key=` lines."""
        lines = []
        for line in (REFERENCE_DIR / "slurm.conf").read_text().splitlines():
            if re.match(r"\s*Include\s", line, re.I):
                continue
            key = line.split("=", 1)[0]
            if overrides and key in overrides:
                line = f"{key}={overrides[key]}"
            line = line.replace("/var/lib/slurm", "@RUN_DIR@")
            line = re.sub(r"^SlurmctldPort=\d+$", "SlurmctldPort=@SLURMCTLD_PORT@", line)
            line = re.sub(r"^SlurmdPort=\d+$", "SlurmdPort=@SLURMD_PORT@", line)
            m = re.match(r"NodeName=(\S+)", line)
            if m and m.group(1) != "DEFAULT":
                line = re.sub(r"(?<=\s)Port=\d+", f"Port=@PORT_{m.group(1)}@", line)
            lines.append(line)
            if line.startswith("AuthType="):
                lines.append("AuthInfo=socket=@MUNGE_SOCKET@")
        gres = (REFERENCE_DIR / "gres.conf").read_text().replace("/var/lib/slurm", "@RUN_DIR@")
        return cls(conf_template="\n".join(lines) + "\n", gres_template=gres, name=name)

    def write_config(self):
        """Write slurm.conf, gres.conf, the directories, fake GPUs and the
        munge key. Called by start(); idempotent."""
        for d in ("munge", "state", "spool", "log", "pid", "dev"):
            (self.dir / d).mkdir(exist_ok=True)
        os.chmod(self.dir / "munge", 0o755)
        # the directories the config names (a template may use others)
        for key, value in re.findall(r"(?im)^\s*(\w+)=(\S+)", self.conf_text):
            key = key.lower()
            if key in ("statesavelocation", "slurmdspooldir"):
                dirs = [value]
            elif key.endswith(("pidfile", "logfile")) or key == "jobcomploc":
                dirs = [os.path.dirname(value)]
            else:
                continue
            for d in dirs:
                for n in self.nodes if "%n" in d else [None]:
                    if d.startswith(str(self.dir)):
                        Path(d.replace("%n", n) if n else d).mkdir(parents=True, exist_ok=True)
        for i in range(self.fake_gpus):
            (self.dir / "dev" / f"nvidia{i}").touch()
        self.conf_path.write_text(self.conf_text)
        (self.dir / "gres.conf").write_text(self.gres_text)
        self._write_jwt_key()
        key = self.dir / "munge" / "munge.key"
        if not key.exists():
            fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(os.urandom(1024))

    def _write_jwt_key(self):
        """The key of AuthAltParameters=jwt_key=PATH when the config names
        one inside the cluster's directory: 32 random bytes, mode 0600."""
        m = re.search(r"(?im)^\s*AuthAltParameters=\S*jwt_key=([^,\s]+)", self.conf_text)
        if not m or not m.group(1).startswith(str(self.dir)) or os.path.exists(m.group(1)):
            return
        fd = os.open(m.group(1), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(32))

    # ----- processes ------------------------------------------------------

    def env(self, extra=None):
        e = {k: v for k, v in os.environ.items() if not k.startswith(_ENV_PREFIXES)}
        e["SLURM_CONF"] = str(self.conf_path)
        if CHECK_KEPT_JOB_RECORDS:
            e["SL_CHECK_JOB_INFO_CACHE"] = "1"
        # jobs that call srun/squeue by name get ours, never /usr/bin's
        e["PATH"] = f"{self.bin_dir}:{e.get('PATH', '/usr/bin:/bin')}"
        if extra:
            e.update(extra)
        return e

    def _spawn(self, name, argv):
        with open(self.dir / "log" / f"{name}.out", "ab") as out:
            p = subprocess.Popen([str(a) for a in argv], stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=subprocess.STDOUT, env=self.env(), cwd=self.dir,
                                 start_new_session=True)
        self.procs[name] = p
        return p

    def _check_alive(self, *names):
        for name in names or list(self.procs):
            p = self.procs.get(name)
            if p is not None and p.poll() is not None:
                del self.procs[name]
                self.problems.append(f"{name} (pid {p.pid}) exited with status {p.returncode}")
                raise DaemonDied(f"{name} exited with status {p.returncode}\n"
                                 + self.log_tails())

    def _stop_procs(self, names, sig=signal.SIGTERM, timeout=STOP_TIMEOUT, expected=False):
        """Signal names at once, wait for all with one deadline, SIGKILL the
        rest. Unless expected, a status other than 0 or death by sig is
        recorded in self.problems."""
        procs = {n: self.procs.pop(n) for n in names if n in self.procs}
        for name, p in procs.items():
            if p.poll() is not None:
                self.problems.append(f"{name} (pid {p.pid}) had exited on its own "
                                     f"with status {p.returncode}")
                continue
            try:
                p.send_signal(sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout * TIMEOUT_SCALE
        for name, p in procs.items():
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                self.problems.append(f"{name} (pid {p.pid}) ignored {sig.name} for "
                                     f"{timeout * TIMEOUT_SCALE:g}s; killed")
                continue
            if not expected and p.returncode not in (0, -sig):
                self.problems.append(f"{name} (pid {p.pid}) exited with status "
                                     f"{p.returncode} after {sig.name}")

    def start_munged(self):
        self.write_config()
        m = self.dir / "munge"
        self._spawn("munged", [MUNGED, "--foreground", "--force", f"--socket={self.munge_socket}",
                               f"--key-file={m / 'munge.key'}", f"--pid-file={m / 'munged.pid'}",
                               f"--log-file={m / 'munged.log'}", f"--seed-file={m / 'munged.seed'}"])

        def munge_works():
            self._check_alive("munged")
            return subprocess.run([MUNGE, "-n", "-S", self.munge_socket],
                                  capture_output=True).returncode == 0
        wait_for(munge_works, timeout=10, what="munged to answer")

    def start_slurmctld(self, wait=True):
        self._spawn("slurmctld", [self.sbin_dir / "slurmctld", "-D", "-f", self.conf_path])
        if wait:
            self.wait_ctld_up()

    def start_slurmd(self, name):
        if name not in self.nodes:
            raise ValueError(f"{name} is not a node of this cluster ({self.nodes})")
        self._spawn(f"slurmd-{name}", [self.sbin_dir / "slurmd", "-D", "-N", name, "-f",
                                       self.conf_path])

    def kill_slurmd(self, name, sig=signal.SIGKILL):
        """Signal node name's slurmd by pid and wait until it is gone."""
        self._stop_procs([f"slurmd-{name}"], sig=sig, expected=True)

    def kill_slurmctld(self, sig=signal.SIGKILL):
        self._stop_procs(["slurmctld"], sig=sig, expected=True)

    def restart_slurmctld(self, sig=signal.SIGTERM):
        """Stop slurmctld (it must exit cleanly on SIGTERM), start it again
        and wait until it answers ping. State must come back from
        StateSaveLocation."""
        self._stop_procs(["slurmctld"], sig=sig, expected=(sig != signal.SIGTERM))
        self.start_slurmctld()

    def start_slurmrestd(self, *args):
        """slurmrestd on a free 127.0.0.1 port and the unix socket
        <dir>/restd.sock (args: extra options, e.g. "-a", "rest_auth/jwt");
        sets restd_port and restd_socket and waits until both accept. It is
        stopped by pid with everything else."""
        self.restd_port = free_ports(1)[0]
        self.restd_socket = str(self.dir / "restd.sock")
        self._spawn("slurmrestd", [BUILD_DIR / "slurmrestd", "-f", self.conf_path, *args,
                                   f"127.0.0.1:{self.restd_port}", f"unix:{self.restd_socket}"])

        def listening():
            self._check_alive("slurmrestd")
            if not os.path.exists(self.restd_socket):
                return False
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.restd_port)) == 0
        wait_for(listening, timeout=10, what="slurmrestd to listen")
        return self

    def start(self, wait_idle=True):
        """munged, slurmctld, every slurmd; then wait until all nodes are idle.
        On failure everything is stopped and the error carries the logs. A
        daemon that found its port taken (by a process outside the claims
        of free_ports) makes it start again on other ports, twice at most."""
        for attempt in range(3):
            try:
                self.start_munged()
                self.start_slurmctld()
                for n in self.nodes:
                    self.start_slurmd(n)
                if wait_idle:
                    self.wait_all_idle()
                self.started = True
                return self
            except Exception as e:
                self.stop()
                if attempt < 2 and self._port_was_taken():
                    self.problems.clear()
                    self._substitute()
                    continue
                self.failed = True
                raise ClusterError(f"cluster in {self.dir} did not start: {e}\n"
                                   f"{self.log_tails()}") from e
        return self

    def _port_was_taken(self):
        """A daemon could not listen; its logs move aside for the retry."""
        taken = False
        for f in (self.dir / "log").glob("*"):
            try:
                text = f.read_text(errors="replace")
            except OSError:
                continue
            if re.search(r"cannot listen on port \d+: Address already in use", text):
                taken = True
        if taken:
            old = self.dir / "log.port-taken"
            shutil.rmtree(old, ignore_errors=True)
            (self.dir / "log").rename(old)
            (self.dir / "log").mkdir()
        return taken

    def stop(self):
        """Stop everything we started, slurmds first and munged last.
        Returns the list of problems (daemons that crashed or ignored
        SIGTERM) seen during the cluster's life."""
        self.stop_clients()
        self._stop_procs([n for n in self.procs if n.startswith("slurmd-")])
        self.stop_stepds()
        self._stop_procs(["slurmctld"])
        self._stop_procs(list(self.procs))  # munged and anything else
        self._check_kept_job_records()
        return self.problems

    def _check_kept_job_records(self):
        """A job record slurmctld kept for squeue that differs from a fresh
        one (SL_CHECK_JOB_INFO_CACHE) is a change it missed."""
        for f in (self.dir / "log").glob("slurmctld*"):
            try:
                text = f.read_text(errors="replace")
            except OSError:
                continue
            for line in text.splitlines():
                if "kept record differs" in line:
                    self.problems.append(f"{f.name}: {line.strip()}")

    def stepd_pids(self):
        """slurmstepds of this cluster: started by our slurmds, detached from
        them by design (they outlive a slurmd restart), so found by their
        command line, which names our binary and our slurm.conf."""
        exe, conf = str(self.sbin_dir / "slurmstepd"), str(self.conf_path)
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            args = [a.decode(errors="replace") for a in argv]
            if args and args[0] == exe and conf in args:
                pids.append(int(entry))
        return pids

    def stop_stepds(self, timeout=STOP_TIMEOUT):
        """SIGTERM every stepd of this cluster (each kills its job), SIGKILL
        those still there after the deadline."""
        pids = self.stepd_pids()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        while pids and time.monotonic() < deadline:
            pids = [p for p in pids if os.path.exists(f"/proc/{p}") and not _is_zombie(p)]
            time.sleep(0.05)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def cleanup(self):
        self._unmount_leftovers()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _unmount_leftovers(self):
        unmount_under(self.dir)

    # ----- commands ---------------------------------------------------------

    def run(self, cmd, *args, user=None, check=True, timeout=60, input=None, env=None):
        """Run build/<cmd> args with SLURM_CONF set; returns CompletedProcess
        (text). user: a name or uid to run as (needs root). check: raise
        CommandFailed on a non-zero status."""
        argv = [str(self.bin_dir / cmd)] + [str(a) for a in args]
        e = self.env(env)
        preexec = None
        if user is not None:
            pw = pwd.getpwnam(user) if isinstance(user, str) else pwd.getpwuid(user)
            e.update(HOME=pw.pw_dir, USER=pw.pw_name, LOGNAME=pw.pw_name)

            def preexec():
                os.setgroups([])
                os.setgid(pw.pw_gid)
                os.setuid(pw.pw_uid)
        r = subprocess.run(argv, input=input, capture_output=True, text=True, errors="replace",
                           env=e, cwd=self.dir, preexec_fn=preexec,
                           timeout=timeout * TIMEOUT_SCALE)
        if check and r.returncode != 0:
            raise CommandFailed(f"{' '.join(argv[:1] + [repr(a) for a in argv[1:]])} exited "
                                f"{r.returncode}\n--- stdout\n{r.stdout}--- stderr\n{r.stderr}")
        return r

    def out(self, cmd, *args, **kw):
        """stdout of a command that must succeed."""
        return self.run(cmd, *args, **kw).stdout

    def popen(self, cmd, *args, env=None, stdin=subprocess.DEVNULL, **kw):
        """Start build/<cmd> args in the background (srun, salloc) with
        pipes for stdout/stderr (text); it is killed by pid at stop() if
        it is still running."""
        argv = [str(self.bin_dir / cmd)] + [str(a) for a in args]
        p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, errors="replace", env=self.env(env), cwd=self.dir, **kw)
        self.clients.append(p)
        return p

    def stop_clients(self):
        for p in self.clients:
            if p.poll() is None:
                p.kill()
            try:
                p.communicate(timeout=STOP_TIMEOUT)
            except (subprocess.TimeoutExpired, ValueError, OSError):
                pass
        self.clients = []

    def ping_up(self):
        r = self.run("scontrol", "ping", check=False, timeout=30)
        return r.returncode == 0 and " is UP" in r.stdout

    def node_states(self):
        """{node: compact state as sinfo %t prints it, e.g. 'idle', 'idle*', 'drain'}."""
        states = {}
        for line in self.out("sinfo", "-h", "-N", "-o", "%N %t").splitlines():
            name, _, state = line.strip().partition(" ")
            states[name] = state.strip()
        return states

    def node_state(self, name):
        return self.node_states().get(name)

    def show_node(self, name):
        """scontrol show node <name> as a dict (see parse_record)."""
        return parse_record(self.out("scontrol", "show", "node", name))

    # ----- waiting ------------------------------------------------------------

    def wait_ctld_up(self, timeout=30):
        def up():
            self._check_alive("slurmctld")
            return self.ping_up()
        wait_for(up, timeout=timeout, interval=0.2, what="slurmctld to answer scontrol ping")

    def wait_all_idle(self, timeout=30):
        def idle():
            self._check_alive()
            states = self.out("sinfo", "-h", "-o", "%t").split()
            return states and all(s == "idle" for s in states)
        wait_for(idle, timeout=timeout, interval=0.2, what="sinfo -h -o %t to show only idle")

    def wait_node_state(self, name, states, timeout=30):
        """Wait until node name's sinfo %t is one of states (a str or a
        collection); returns it."""
        wanted = {states} if isinstance(states, str) else set(states)

        def reached():
            s = self.node_state(name)
            return s if s in wanted else None
        return wait_for(reached, timeout=timeout, interval=0.1,
                        what=f"node {name} to be {' or '.join(sorted(wanted))}")

    # ----- logs -----------------------------------------------------------------

    def log_text(self, daemon="slurmctld"):
        """What a daemon wrote: its log file and its stdout/stderr."""
        text = ""
        for f in (self.dir / "log" / f"{daemon}.log", self.dir / "log" / f"{daemon}.out"):
            try:
                text += f.read_bytes().decode(errors="replace")
            except OSError:
                pass
        return text

    def log_mark(self, daemon="slurmctld"):
        """A position to pass to wait_for_log(since=) to look only at newer lines."""
        return {f.name: f.stat().st_size for f in (self.dir / "log").glob(f"{daemon}.*")}

    def wait_for_log(self, pattern, daemon="slurmctld", since=None, timeout=10, containing=None):
        """Wait until a line matching regex pattern (and containing the
        string containing, if given) appears in the daemon's log after
        since (from log_mark()); returns the line."""
        rx = re.compile(pattern)
        since = since or {}

        def found():
            for f in sorted((self.dir / "log").glob(f"{daemon}.*")):
                with open(f, "rb") as fh:
                    fh.seek(since.get(f.name, 0))
                    for line in fh.read().decode(errors="replace").splitlines():
                        if rx.search(line) and (containing is None or containing in line):
                            return line
            return None
        what = f"/{pattern}/" + (f" with {containing!r}" if containing else "")
        return wait_for(found, timeout=timeout, interval=0.1,
                        what=f"{what} in the {daemon} log")

    def log_tails(self, lines=60):
        parts = []
        files = sorted((self.dir / "log").glob("*")) + [self.dir / "munge" / "munged.log"]
        for f in files:
            t = _tail(f, lines)
            if t:
                parts.append(f"----- last {lines} lines of {f} -----\n{t}")
        return "\n".join(parts) if parts else f"(no daemon logs in {self.dir / 'log'})"

    # ----- daemons that stop on their own (test_daemon_lifecycle.py) ---------

    def start_slurmctld_with(self, *flags, wait=True):
        """Like start_slurmctld(), with extra slurmctld flags (e.g. "-c",
        "-i") before -f. wait=False returns the Popen at once (for a start
        that is expected to fail; see wait_exited)."""
        p = self._spawn("slurmctld", [self.sbin_dir / "slurmctld", "-D", *flags, "-f",
                                      self.conf_path])
        if wait:
            self.wait_ctld_up()
        return p

    def wait_exited(self, names, timeout=30):
        """Wait, with one deadline, until the daemons names (e.g.
        "slurmctld", "slurmd-n1") have exited on their own. Returns {name:
        exit status, or None for one still running}; those that exited are
        forgotten (stop() will not count them as crashed), the others are
        left for stop()."""
        deadline = time.monotonic() + timeout * TIMEOUT_SCALE
        status = {}
        for name in names:
            p = self.procs[name]
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                status[name] = None
                continue
            del self.procs[name]
            status[name] = p.returncode
        return status


# ----- jobs (shared by the job test modules) --------------------------------


def unmount_under(path):
    """Mounts a stopped slurmd left below path (job_container/tmpfs's
    BasePath and the namespaces of jobs killed with it), the deepest
    first, lazily: nothing of a test outlives it."""
    prefix = str(path) + "/"
    try:
        with open("/proc/self/mountinfo") as f:
            points = [line.split()[4] for line in f]
    except OSError:
        return
    for p in sorted((p for p in points if p.startswith(prefix)), key=len, reverse=True):
        subprocess.run(["umount", "-l", p], capture_output=True)


def pid_gone(pid):
    """True once no process has this pid (os.kill(pid, 0) finds none)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def submit(cluster, *args, **kw):
    """Run sbatch; return the job id from "Submitted batch job N"."""
    r = cluster.run("sbatch", *args, **kw)
    m = re.fullmatch(r"Submitted batch job (\d+)\n", r.stdout)
    assert m, r.stdout
    return int(m.group(1))


def cancel_and_wait(cluster, job_ids, timeout=30):
    """scancel the jobs and wait until none is pending, running or completing
    (a test's clean-up, so the next test finds the nodes free)."""
    if not job_ids:
        return
    cluster.run("scancel", *map(str, job_ids), check=False)
    for j in job_ids:
        wait_for(lambda: job(cluster, j)["JobState"] not in ("PENDING", "RUNNING", "COMPLETING"),
                 timeout=timeout, what=f"job {j} to end")


def job(cluster, job_id):
    """scontrol show job as a dict."""
    return parse_record(cluster.out("scontrol", "show", "job", str(job_id)))


def node(cluster, name):
    """scontrol show node as a dict."""
    return parse_record(cluster.out("scontrol", "show", "node", name))


# Base job states the controller waits on itself (scontrol wait_job
# state=...); a flag shown as the state (COMPLETING, REQUEUED...) is polled.
WAITABLE_STATES = {"PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED",
                   "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
                   "OUT_OF_MEMORY"}


def wait_state(cluster, job_id, states, timeout=30):
    """Wait until the job's JobState is one of states; return its record.

    One scontrol wait_job holds until the controller sees the job get
    there, end elsewhere (it never will) or the timeout pass; the record
    is then read once. No polling: states are base states the controller
    can wait on (WAITABLE_STATES).
    """
    states = {states} if isinstance(states, str) else set(states)
    if not states <= WAITABLE_STATES:
        raise ValueError(f"wait_state: {sorted(states - WAITABLE_STATES)} cannot be waited on")
    target = str(job_id)
    if "_" in target:  # an array task: its own id once it has one, else the array's
        target = job(cluster, job_id)["JobId"]
    cluster.run("scontrol", "wait_job", target, "state=" + ",".join(sorted(states)),
                f"timeout={max(1, int(timeout * TIMEOUT_SCALE))}", check=False,
                timeout=timeout * TIMEOUT_SCALE + 30)
    rec = job(cluster, job_id)
    if rec["JobState"] not in states:
        raise TimeoutError(f"job {job_id} is {rec['JobState']}, not in {sorted(states)} "
                           f"(waited up to {timeout * TIMEOUT_SCALE:g}s): {rec}")
    return rec
