"""Replies nobody reads cost the controller a bounded amount of memory
(src/common/rpc_server.c, conn_limit.c; docs/security.md, "Connections
and replies").

A normal user opens 250 connections, each asking for one non-streamed page
of the job listing (REQUEST_JOB_INFO without JOB_SHOW_STREAM: about 2 MiB
here, 120 held jobs with every string field at its cap), and reads none of
them. Each connection's request counts against the user until its reply
has been written, and the bytes written but not yet taken by the sockets
count against a budget per user (64 MiB) and one for all users: over it,
the connection whose reply has waited longest is closed. So:

* the controller's RSS grows by less than RSS_GROWTH_MAX (the unread
  replies would hold about 500 MiB);
* the closes are logged with the peer, the uid and the unread bytes;
* a streamed listing the same user stopped reading before (its first
  page waiting longest) is among the closed, and the controller frees
  what it kept for it;
* `scontrol ping` and `squeue`, by root and by the same user, still answer
  within a deadline while the connections are held.

Run: SL_BUILD_DIR=$PWD/build /usr/bin/python3 -m pytest -q -s tests/integration/test_security_replies.py
"""

import os
import pwd
import selectors
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from cluster import BUILD_DIR, TIMEOUT_SCALE, memory_bound, submit

MESSAGE_TIMEOUT = 30  # the unread replies outlive the measure
CLUSTER_KWARGS = {"nodes": ["n1"], "settings": {"MessageTimeout": str(MESSAGE_TIMEOUT),
                                               "SlurmctldDebug": "debug"}}  # page lines
N_JOBS = 120          # at about 18 kB a record: a page of about 2 MiB
COMMENT_LEN = 1024    # JOB_STR_MAX
NAME_LEN = 255        # SL_NAME_MAX on the wire
PATH_LEN = 4000       # under JOB_PATH_MAX
STREAM_STALL_S = 8    # the stalled streamed reader wakes after the hog's replies
HOG_CONNS = 250       # under the per-user cap of 256 requests being served
RSS_GROWTH_MAX = 160 << 20  # the per-user budget is 64 MiB; the rest is margin
COMMAND_LIMIT_S = 3.0       # what ping and squeue may take while the replies wait


@pytest.fixture(scope="module")
def big_jobs(cluster, test_user):
    """N_JOBS held jobs of test_user, every string field at its cap."""
    d = cluster.dir / "replies"  # the cluster's directory is world-readable
    d.mkdir(exist_ok=True)
    os.chmod(d, 0o777)
    deep = d
    while len(str(deep)) < PATH_LEN - 250:  # a work dir of about PATH_LEN
        deep = deep / ("d" * 200)
        deep.mkdir(exist_ok=True)
        os.chmod(deep, 0o777)
    script = d / "big.sh"
    script.write_text(f"#!/bin/sh\n#SBATCH --comment={'c' * COMMENT_LEN}\nsleep 300\n")
    os.chmod(script, 0o644)
    args = ["-H", "--chdir", str(deep), "-J", "n" * NAME_LEN, "-A", "a" * NAME_LEN,
            "--mail-user", "m" * NAME_LEN, "-i", "/tmp/" + "i" * (PATH_LEN - 5),
            "-o", "/tmp/" + "o" * (PATH_LEN - 5), "-e", "/tmp/" + "e" * (PATH_LEN - 5),
            str(script)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        ids = list(pool.map(lambda _: submit(cluster, *args, user=test_user.pw_name),
                            range(N_JOBS)))
    return sorted(ids)


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) << 10
    raise AssertionError(f"no VmRSS for pid {pid}")


def start_as(cluster, user, *argv):
    """build/argv as user, stdout and stderr piped."""
    pw = pwd.getpwnam(user)

    def preexec():
        os.setgroups([])
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
    p = subprocess.Popen([str(BUILD_DIR / argv[0]), *argv[1:]], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=cluster.env(), cwd="/", preexec_fn=preexec)
    cluster.clients.append(p)  # killed by pid at the cluster's stop if still running
    return p


def read_line(p, prefix, timeout):
    """The value after prefix on the next line of p's stdout."""
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout * TIMEOUT_SCALE
    while time.monotonic() < deadline:
        if not sel.select(timeout=0.5):
            continue
        line = p.stdout.readline()
        if line.startswith(prefix):
            return int(line.split()[1])
        if not line:
            break
    p.kill()
    _, err = p.communicate(timeout=10)
    pytest.fail(f"reply_hog never said {prefix!r}: exit {p.returncode}, stderr {err[-2000:]}")


def timed(cluster, *args, user=None):
    t = time.monotonic()
    r = cluster.run(*args, user=user, check=False, timeout=30)
    elapsed = time.monotonic() - t
    assert r.returncode == 0, r.stdout + r.stderr
    return elapsed, r.stdout


def test_unread_replies_leave_rss_bounded_and_commands_fast(cluster, big_jobs, test_user):
    pid = cluster.procs["slurmctld"].pid
    user = test_user.pw_name
    assert timed(cluster, "squeue", "-h", "-o", "%i")[1].split() == [str(i) for i in big_jobs]
    before = rss(pid)
    mark = cluster.log_mark()
    # a streamed listing whose first page waits, unread, from before the hog
    stalled = start_as(cluster, user, "stream_reader", "stall",
                       str(int(STREAM_STALL_S * TIMEOUT_SCALE)))
    cluster.wait_for_log(r"REQUEST_JOB_INFO uid=%d: a page of \d+ jobs, more after JobId=\d+ "
                         r"\(streamed\)" % test_user.pw_uid, since=mark)
    hog = start_as(cluster, user, "reply_hog", str(HOG_CONNS))
    assert read_line(hog, "sent", 60) == HOG_CONNS
    peak = before
    answered = None
    sel = selectors.DefaultSelector()
    sel.register(hog.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + 60 * TIMEOUT_SCALE
    while answered is None and time.monotonic() < deadline:
        peak = max(peak, rss(pid))
        if sel.select(timeout=0.05):
            line = hog.stdout.readline()
            if line.startswith("answered"):
                answered = int(line.split()[1])
    assert answered == HOG_CONNS, answered
    timings = {}
    for name, args, who in (("ping", ("scontrol", "ping"), None),
                            ("squeue", ("squeue", "-h", "-o", "%i"), None),
                            ("ping as user", ("scontrol", "ping"), user),
                            ("squeue as user", ("squeue", "-h", "-o", "%i"), user)):
        elapsed, out = timed(cluster, *args, user=who)
        peak = max(peak, rss(pid))
        timings[name] = round(elapsed, 3)
        if args[0] == "squeue":
            assert out.split() == [str(i) for i in big_jobs]
    peak = max(peak, rss(pid))
    print(f"\nRSS before {before >> 20} MiB, peak {peak >> 20} MiB, "
          f"growth {(peak - before) >> 20} MiB; timings {timings}")
    assert hog.poll() is None  # the connections were held all along
    assert peak - before < memory_bound(RSS_GROWTH_MAX), \
        f"RSS grew by {(peak - before) >> 20} MiB"
    assert all(t < COMMAND_LIMIT_S * TIMEOUT_SCALE for t in timings.values()), timings
    cluster.wait_for_log(r"closed, uid=%d: \d+ reply bytes unread" % test_user.pw_uid,
                         since=mark)
    # the stalled reader was closed midway: its first page (under 1 MB, the
    # hog's pages are 2 MB) waited longest
    cluster.wait_for_log(r"closed, uid=%d: \d{1,6} reply bytes unread" % test_user.pw_uid,
                         since=mark)
    out, err = stalled.communicate(timeout=(STREAM_STALL_S + 30) * TIMEOUT_SCALE)
    got = dict(kv.split("=") for kv in out.split())
    assert stalled.returncode == 0 and got["eof"] == "1", out + err
    hog.kill()
    hog.communicate(timeout=10)
    # the controller let go of the stream (and of everything else)
    assert cluster.ping_up()
    assert timed(cluster, "squeue", "-h", "-o", "%i", user=user)[1].split() == \
        [str(i) for i in big_jobs]
