"""munge failures say what happened: a credential made
with another munge key is logged by the controller as a bad credential and
answered with SLURM_PROTOCOL_AUTHENTICATION_ERROR (1007), while a stopped
munged on the receiving side is logged as munged being unreachable, naming
its socket, never as an invalid credential; the reply that then cannot be
signed is logged with its type and peer instead of vanishing, and a command
run without munged says the authentication agent is unreachable.

Frames are built as in test_protocol_abuse.py.
"""

import os
import subprocess

from cluster import MUNGE, MUNGED, wait_for
from test_protocol_abuse import (REQUEST_PING, SLURM_PROTOCOL_AUTHENTICATION_ERROR, digest,
                                 exchange, frame, header, rc_of, signed_frame)

CLUSTER_KWARGS = dict(nodes=["n1"], settings={"MessageTimeout": 3})

AUTH_NET_ERROR_TEXT = "Failed to connect to authentication agent"  # ESLURM_AUTH_NET_ERROR 6002


def start_other_munged(cluster):
    """A second munged with a key of its own; returns (Popen, socket)."""
    d = cluster.dir / "munge-other"
    d.mkdir(mode=0o755, exist_ok=True)
    key = d / "munge.key"
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(os.urandom(1024))
    sock = str(d / "munge.socket")
    p = subprocess.Popen([MUNGED, "--foreground", "--force", f"--socket={sock}",
                          f"--key-file={key}", f"--pid-file={d / 'munged.pid'}",
                          f"--log-file={d / 'munged.log'}", f"--seed-file={d / 'munged.seed'}"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)

    def works():
        assert p.poll() is None, f"the second munged exited with {p.returncode}"
        return subprocess.run([MUNGE, "-n", "-S", sock], capture_output=True).returncode == 0
    wait_for(works, timeout=10, what="the second munged to answer")
    return p, sock


def log_since(cluster, mark, daemon="slurmctld"):
    text = ""
    for f in sorted((cluster.dir / "log").glob(f"{daemon}.*")):
        with open(f, "rb") as fh:
            fh.seek(mark.get(f.name, 0))
            text += fh.read().decode(errors="replace")
    return text


def test_a_credential_from_another_munge_key_is_a_bad_credential(cluster):
    other, sock = start_other_munged(cluster)
    try:
        hdr = header(REQUEST_PING, b"")
        cred = subprocess.run([MUNGE, "-S", sock], input=digest(hdr, b""), capture_output=True,
                              check=True).stdout.strip()
    finally:
        other.terminate()
        other.wait(timeout=10)
    mark = cluster.log_mark()
    reply = exchange(cluster, frame(hdr, cred, b""))
    assert reply is not None and rc_of(reply) == SLURM_PROTOCOL_AUTHENTICATION_ERROR
    line = cluster.wait_for_log(r"REQUEST_PING refused: invalid credential", since=mark,
                                containing="127.0.0.1")
    assert "munged unreachable" not in line
    assert cluster.ping_up()


def test_a_stopped_munged_is_logged_as_munged_not_as_a_bad_credential(cluster):
    data = signed_frame(cluster, REQUEST_PING)  # made while munged runs
    cluster._stop_procs(["munged"])
    try:
        mark = cluster.log_mark()
        # the refusal is never signed (an unauthenticated peer costs no
        # munge_encode): an unsigned rc of ESLURM_AUTH_NET_ERROR
        reply = exchange(cluster, data)
        assert reply is None or rc_of(reply) == 6002, reply
        line = cluster.wait_for_log(r"REQUEST_PING refused: cannot check the credential: "
                                    r"munged unreachable", since=mark,
                                    containing=cluster.munge_socket)
        assert "127.0.0.1" in line and "invalid" not in line
        assert "invalid credential" not in log_since(cluster, mark)
        # a command cannot sign its request and says why
        r = cluster.run("sinfo", check=False, timeout=30)
        assert r.returncode != 0
        assert AUTH_NET_ERROR_TEXT in r.stderr, r.stderr
        assert cluster.procs["slurmctld"].poll() is None, "slurmctld died"
    finally:
        cluster.start_munged()
    assert cluster.ping_up()
    assert rc_of(exchange(cluster, signed_frame(cluster, REQUEST_PING))) == 0
