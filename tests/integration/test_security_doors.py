"""Doors root leaves open to what a user controls.

* A job submitted to slurmrestd without current_working_directory runs in
  the user's home with umask 0077, never in /tmp where slurm-<id>.out is a
  predictable name another user can create first or read.
* SLURM_CPUS_PER_TASK in srun's environment (the user's word) does not
  drive the root stepd's binding loop: a value of four billion launches
  at once, and the task is bound to the CPUs the controller granted.
* A request path with %0A cannot forge a slurmrestd log line; refused
  requests are logged at most 100 lines a second.
* A connection whose request a worker is serving is never closed by the
  connection cap, however many idle connections arrive meanwhile.
* The JWT key must be owned by root or SlurmUser and have 32 bytes.
"""

import http.client
import os
import re
import signal
import socket
import subprocess
import threading
import time
import uuid

import pytest

from cluster import BUILD_DIR, TIMEOUT_SCALE, Cluster, wait_for, wait_state
from test_slurmrestd import API, UnixConn, _answer, tcp, token, unix

CLUSTER_KWARGS = {
    "nodes": ("n1",),
    "name": "sec-doors",
    "settings": {"AuthAltTypes": "auth/jwt",
                 "AuthAltParameters": "jwt_key=@RUN_DIR@/jwt.key",
                 "TaskPlugin": "task/affinity"},
}


def log_since(cluster, mark, daemon="slurmrestd"):
    """What the daemon logged after log_mark() gave mark."""
    text = ""
    for f in sorted((cluster.dir / "log").glob(f"{daemon}.*")):
        with open(f, "rb") as fh:
            fh.seek(mark.get(f.name, 0))
            text += fh.read().decode(errors="replace")
    return text


@pytest.fixture(scope="module")
def user_token(restd, test_user):
    return token(restd, user=test_user.pw_name)


# ----- slurmrestd: a job without a directory ----------------------------------


def test_job_without_a_directory_runs_in_the_home_not_tmp(restd, test_user, user_token):
    body = {"script": "#!/bin/sh\ntrue\n", "job": {"name": "nocwd"}}
    status, doc = tcp(restd, "POST", f"{API}/job/submit", body, user=test_user.pw_name,
                      token=user_token)
    assert status == 200, doc
    job_id = doc["job_id"]
    tmp_out = f"/tmp/slurm-{job_id}.out"
    try:
        # the test user has no home directory here: the job may fail, but
        # never with its output in /tmp
        rec = wait_state(restd, job_id, ("COMPLETED", "FAILED"))
        assert rec["WorkDir"] == test_user.pw_dir
        assert rec["StdOut"] == f"{test_user.pw_dir}/slurm-{job_id}.out"
        assert not os.path.exists(tmp_out)
    finally:
        if os.path.exists(tmp_out) and os.stat(tmp_out).st_uid == test_user.pw_uid:
            os.unlink(tmp_out)


def test_job_without_a_directory_gets_umask_0077(restd):
    """Root has a home: the job runs there and its output is 0600."""
    name = f"doors-{uuid.uuid4().hex[:12]}.out"
    body = {"script": "#!/bin/sh\npwd\numask\n", "job": {"name": "nocwd-root",
                                                         "standard_output": name}}
    status, doc = unix(restd, "POST", f"{API}/job/submit", body)
    assert status == 200, doc
    home = os.path.expanduser("~root")
    out = os.path.join(home, name)
    try:
        rec = wait_state(restd, doc["job_id"], "COMPLETED")
        assert rec["WorkDir"] == home
        with open(out) as f:
            assert f.read() == f"{home}\n0077\n"
        assert os.stat(out).st_mode & 0o777 == 0o600
    finally:
        for p in (out, os.path.join("/tmp", name)):
            if os.path.exists(p):
                os.unlink(p)


def test_a_given_umask_is_kept(restd, test_user, workdir):
    body = {"script": "#!/bin/sh\numask\n",
            "job": {"name": "umask", "current_working_directory": str(workdir),
                    "standard_output": f"{workdir}/umask.out",
                    "environment": {"PATH": "/bin:/usr/bin", "SLURM_UMASK": "0027"}}}
    status, doc = unix(restd, "POST", f"{API}/job/submit", body, as_user=test_user)
    assert status == 200, doc
    wait_state(restd, doc["job_id"], "COMPLETED")
    assert (workdir / "umask.out").read_text() == "0027\n"


# ----- slurmstepd: SLURM_CPUS_PER_TASK is the user's word ----------------------


@pytest.mark.parametrize("value", ["4000000000", "2"])
def test_cpus_per_task_from_the_environment_is_not_believed(restd, test_user, value):
    t0 = time.monotonic()
    r = restd.run("srun", "-n1", "--cpu-bind=cores", "grep", "Cpus_allowed_list",
                  "/proc/self/status", user=test_user.pw_name, check=False, timeout=30,
                  env={"SLURM_CPUS_PER_TASK": value})
    took = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    assert took < 15 * TIMEOUT_SCALE, f"srun took {took:.1f} s"
    # one task granted one CPU: bound to one CPU, not to the value's count
    m = re.search(r"Cpus_allowed_list:\s*(\S+)", r.stdout)
    assert m and re.fullmatch(r"\d+", m.group(1)), r.stdout
    restd.wait_node_state("n1", "idle", timeout=20)


# ----- slurmrestd: the log and the connection cap ------------------------------


def test_a_newline_in_the_path_does_not_forge_a_log_line(restd):
    mark = restd.log_mark("slurmrestd")
    forged = "[2026-01-01T00:00:00.000] error: FORGED-LINE-by-a-client"
    path = f"{API}/jobs%0A" + forged.replace(" ", "%20")
    status, _ = tcp(restd, "GET", path)  # no token: refused and logged
    assert status == 401
    restd.wait_for_log(r"authentication refused", daemon="slurmrestd", since=mark)
    text = log_since(restd, mark)
    assert not re.search(r"^\[2026-01-01T00:00:00\.000\] error: FORGED", text, re.M), text
    assert "jobs\\x0a[2026-01-01T00:00:00.000] error: FORGED-LINE" in text, text


def test_refused_requests_are_logged_at_most_100_a_second(restd):
    mark = restd.log_mark("slurmrestd")
    c = http.client.HTTPConnection("127.0.0.1", restd.restd_port, timeout=30 * TIMEOUT_SCALE)
    t0 = time.monotonic()
    try:
        for i in range(1000):
            c.request("GET", f"{API}/ping?flood={i}")
            assert _answer(c.getresponse())[0] == 401
    finally:
        c.close()
    took = time.monotonic() - t0

    def summed_up():
        tcp(restd, "GET", f"{API}/ping")  # a line in a later second sums up
        return re.search(r"\d+ more request log lines were not logged \(at most 100 a second\)",
                         log_since(restd, mark))
    wait_for(summed_up, timeout=10, what="the summary of the lines not logged")
    logged = len(re.findall(r"authentication refused", log_since(restd, mark)))
    assert logged <= 100 * (int(took) + 3), (logged, took)
    assert logged < 1000


def _established_to(port):
    """Connections to 127.0.0.1:port the kernel has set up (accepted or not)."""
    n = 0
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state == "01" and int(local.split(":")[1], 16) == port:
                n += 1
    return n


def test_a_request_being_served_is_not_closed_by_the_cap(restd):
    """slurmctld is stopped, so a listing waits in a worker; 300 idle
    connections pass the cap of 256 meanwhile: the idle ones are closed,
    the one being served gets its answer once the controller resumes."""
    ctld = restd.procs["slurmctld"]
    before = _established_to(restd.ctld_port)
    result = {}

    def slow_listing():
        c = UnixConn(restd.restd_socket, timeout=60)
        try:
            c.request("GET", f"{API}/jobs")
            result["answer"] = _answer(c.getresponse())
        except (OSError, http.client.HTTPException) as e:
            result["error"] = repr(e)
        finally:
            c.close()

    socks = []
    os.kill(ctld.pid, signal.SIGSTOP)
    try:
        t = threading.Thread(target=slow_listing)
        t.start()
        # the worker has connected to the stopped controller: being served
        wait_for(lambda: _established_to(restd.ctld_port) > before, timeout=10,
                 what="slurmrestd's worker to call the controller")
        for _ in range(300):
            socks.append(socket.create_connection(("127.0.0.1", restd.restd_port)))
        # the cap has closed idle ones: the first of them reads EOF
        socks[0].settimeout(10 * TIMEOUT_SCALE)
        assert socks[0].recv(1) == b""
    finally:
        os.kill(ctld.pid, signal.SIGCONT)
        for s in socks:
            s.close()
    t.join(60 * TIMEOUT_SCALE)
    assert "answer" in result, result
    assert result["answer"][0] == 200, result


# ----- the JWT key -------------------------------------------------------------


def _restd_with_key(restd, key):
    conf = restd.dir / f"slurm-{key.name}.conf"
    conf.write_text(restd.conf_text.replace(f"jwt_key={restd.dir}/jwt.key", f"jwt_key={key}"))
    return subprocess.run([str(BUILD_DIR / "slurmrestd"), "-f", str(conf), "127.0.0.1:1"],
                          capture_output=True, text=True, timeout=30 * TIMEOUT_SCALE,
                          env=restd.env())


def test_a_jwt_key_owned_by_a_user_is_refused(restd, test_user):
    key = restd.dir / "jwt-user.key"
    key.write_bytes(os.urandom(32))
    os.chmod(key, 0o600)
    os.chown(key, test_user.pw_uid, test_user.pw_gid)
    p = _restd_with_key(restd, key)
    assert p.returncode == 1
    assert f"is owned by uid {test_user.pw_uid}: it must be owned by root or SlurmUser" \
        in p.stderr, p.stderr


def test_a_short_jwt_key_is_refused(restd):
    key = restd.dir / "jwt-short.key"
    key.write_bytes(os.urandom(10))
    os.chmod(key, 0o600)
    p = _restd_with_key(restd, key)
    assert p.returncode == 1
    assert "is 10 bytes: it must have at least 32" in p.stderr, p.stderr


def test_scontrol_token_is_disabled_by_a_short_key(fresh_cluster):
    def make():
        c = Cluster(nodes=("n1",), name="doors-key", settings={
            "AuthAltTypes": "auth/jwt", "AuthAltParameters": "jwt_key=@RUN_DIR@/jwt.key"})
        key = c.dir / "jwt.key"  # written before the cluster's own 32 bytes would be
        key.write_bytes(os.urandom(10))
        os.chmod(key, 0o600)
        return c
    c = fresh_cluster(make=make)
    c.wait_for_log(r"auth/jwt: jwt key \S+ is 10 bytes: it must have at least 32 .*: "
                   r"scontrol token is disabled")
    r = c.run("scontrol", "token", check=False)
    assert r.returncode != 0
    assert "SLURM_JWT=" not in r.stdout
