"""srun --pty and salloc's interactive step, driven through a real
pseudo-terminal from the test (python3's pty module), as a user at a
terminal would: task 0 gets a terminal on its node, its size follows the
client's (SIGWINCH), Ctrl-C interrupts the remote foreground job, and the
exit code comes back.
"""

import os
import pty
import select
import signal
import struct
import subprocess
import time

import fcntl
import termios

from cluster import BUILD_DIR, TIMEOUT_SCALE, Cluster

BASH = ["bash", "--norc", "--noprofile", "-i"]


def make_cluster():
    return Cluster(nodes=("n1", "n2"), name="pty",
                   settings={"LaunchParameters": "use_interactive_step"})


class Terminal:
    """A command on a pseudo-terminal of ours, rows x cols."""

    def __init__(self, cluster, argv, rows=30, cols=90):
        env = cluster.env({"PS1": "$ ", "TERM": "dumb", "SHELL": "/bin/bash"})
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: exec at once, nothing else
            try:
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.resize(rows, cols, signal_it=False)
        self.seen = b""

    def resize(self, rows, cols, signal_it=True):
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        if signal_it:
            os.kill(self.pid, signal.SIGWINCH)

    def send(self, data):
        os.write(self.fd, data if isinstance(data, bytes) else data.encode())

    def expect(self, marker, timeout=20):
        """Read until marker (bytes or str) shows up; returns what came."""
        marker = marker.encode() if isinstance(marker, str) else marker
        deadline = time.monotonic() + timeout * TIMEOUT_SCALE
        while marker not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"no {marker!r} within {timeout}s; got {self.seen[-2000:]!r}"
            r, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if not r:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                data = b""
            assert data, f"EOF before {marker!r}; got {self.seen[-2000:]!r}"
            self.seen += data
        head, _, self.seen = self.seen.partition(marker)
        return (head + marker).decode(errors="replace")

    def run(self, line, marker):
        """A command line whose output ends with a marker line."""
        self.send(f"{line}; echo {marker}-$((6*7))\n")
        return self.expect(f"{marker}-42")

    def kill(self):
        """End it if it still runs (a failed test)."""
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass

    def wait(self, timeout=30):
        deadline = time.monotonic() + timeout * TIMEOUT_SCALE
        while time.monotonic() < deadline:
            try:
                r, _, _ = select.select([self.fd], [], [], 0.2)
                if r:
                    self.seen += os.read(self.fd, 4096)
            except OSError:
                pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        raise AssertionError(f"still running after {timeout}s: {self.seen[-2000:]!r}")


def test_srun_pty_bash(cluster):
    t = Terminal(cluster, [str(BUILD_DIR / "srun"), "-w", "n2", "--pty"] + BASH)
    try:
        out = t.run("tty; echo node=$SLURMD_NODENAME", "T")
        assert "/dev/pts/" in out and "node=n2" in out, out
        assert "30 90" in t.run("stty size", "S1")
        t.resize(40, 100)
        wait_for_size = time.monotonic() + 10 * TIMEOUT_SCALE
        while "40 100" not in t.run("stty size", "S2"):  # SIGWINCH travels to the node
            assert time.monotonic() < wait_for_size, "the size never followed"
        # Ctrl-C reaches the remote foreground job, not srun
        t.send("sleep 60\n")
        time.sleep(0.5)
        t.send(b"\x03")
        assert "int=130" in t.run("echo int=$?", "C")
        t.send("exit 3\n")
        assert t.wait() == 3
    finally:
        t.kill()


def test_srun_pty_without_a_local_terminal(cluster):
    # the remote terminal does not need ours: stdin a pipe, tty still a device
    r = cluster.run("srun", "--pty", "tty")
    assert r.stdout.startswith("/dev/pts/"), r.stdout
    r = cluster.run("srun", "--pty", "sh", "-c", "exit 5", check=False)
    assert r.returncode == 5


def test_salloc_opens_its_shell_on_the_first_node(cluster):
    t = Terminal(cluster, [str(BUILD_DIR / "salloc"), "-N2"])
    try:
        out = t.run("echo node=$SLURMD_NODENAME job=$SLURM_JOB_ID; tty", "A")
        assert "node=n1" in out and "/dev/pts/" in out, out
        # the interactive step holds no CPUs: a step of the job runs beside it
        assert "n1" in t.run("srun -n1 -w n1 printenv SLURMD_NODENAME", "B")
        t.send("exit 4\n")
        assert t.wait() == 4
        assert "Relinquishing job allocation" in t.seen.decode(errors="replace")
    finally:
        t.kill()


def test_salloc_without_the_parameter_runs_the_shell_here(fresh_cluster):
    c = fresh_cluster(nodes=("n1",), name="pty-local")
    t = Terminal(c, [str(BUILD_DIR / "salloc"), "-N1"])
    try:
        out = t.run("echo node=[$SLURMD_NODENAME] job=$SLURM_JOB_ID", "L")
        assert "node=[]" in out, out
        t.send("exit 0\n")
        assert t.wait() == 0
    finally:
        t.kill()


def test_pty_option_goes_to_the_launch(cluster):
    # every task but 0 keeps its pipes; task 0 alone has the terminal
    r = subprocess.run([str(BUILD_DIR / "srun"), "-N2", "-n2", "--pty",
                        "sh", "-c", "tty || echo no-tty"], env=cluster.env(),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("/dev/pts/"), r.stdout + r.stderr
