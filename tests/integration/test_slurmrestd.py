"""test_slurmrestd.py - slurmrestd: real HTTP requests on its TCP port
(auth/jwt, tokens from `scontrol token`) and its unix socket
(rest_auth/local), as root and as the unprivileged test user.

Every refused request is followed by a look at the queue: nothing changed.
"""

import base64
import hashlib
import hmac
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from cluster import BUILD_DIR, TIMEOUT_SCALE, free_ports, submit, wait_for, wait_state
from openapi_check import check

CLUSTER_KWARGS = {
    "nodes": ("n1", "n2"),
    "settings": {"AuthAltTypes": "auth/jwt",
                 "AuthAltParameters": "jwt_key=@RUN_DIR@/jwt.key"},
}

API = "/slurm/v0.0.38"

# Run as the test user: one HTTP request on the unix socket, printed back
# as JSON {"status": N, "body": "..."}.
UNIX_CLIENT = r"""
import http.client, json, socket, sys
class C(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sys.argv[1])
c = C("localhost", timeout=30)
body = sys.argv[4] if len(sys.argv) > 4 else None
c.request(sys.argv[2], sys.argv[3], body=body,
          headers={"Content-Type": "application/json"} if body else {})
r = c.getresponse()
print(json.dumps({"status": r.status, "body": r.read().decode()}))
"""


class UnixConn(http.client.HTTPConnection):
    def __init__(self, path, timeout=30):
        super().__init__("localhost", timeout=timeout * TIMEOUT_SCALE)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def _answer(r):
    raw = r.read().decode()
    try:
        doc = json.loads(raw) if raw else None
    except ValueError:
        doc = raw
    return r.status, doc


def tcp(cluster, method, path, body=None, user=None, token=None, headers=None):
    """(status, parsed body) of one request on the TCP port."""
    c = http.client.HTTPConnection("127.0.0.1", cluster.restd_port, timeout=30 * TIMEOUT_SCALE)
    h = dict(headers or {})
    if user is not None:
        h["X-SLURM-USER-NAME"] = user
    if token is not None:
        h["X-SLURM-USER-TOKEN"] = token
    if body is not None and not isinstance(body, (bytes, str)):
        body = json.dumps(body)
    if body is not None:
        h.setdefault("Content-Type", "application/json")
    try:
        c.request(method, path, body=body, headers=h)
        return _answer(c.getresponse())
    finally:
        c.close()


def unix(cluster, method, path, body=None, as_user=None):
    """(status, parsed body) of one request on the unix socket, as root or
    (as_user) from a process running as that user."""
    if body is not None and not isinstance(body, str):
        body = json.dumps(body)
    if as_user is None:
        c = UnixConn(cluster.restd_socket)
        try:
            c.request(method, path, body=body,
                      headers={"Content-Type": "application/json"} if body else {})
            return _answer(c.getresponse())
        finally:
            c.close()
    pw = as_user

    def drop():
        os.setgroups([])
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
    argv = [sys.executable, "-c", UNIX_CLIENT, cluster.restd_socket, method, path]
    if body is not None:
        argv.append(body)
    p = subprocess.run(argv, capture_output=True, text=True, preexec_fn=drop,
                       timeout=60 * TIMEOUT_SCALE)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    try:
        doc = json.loads(out["body"]) if out["body"] else None
    except ValueError:
        doc = out["body"]
    return out["status"], doc


def token(cluster, *args, user=None):
    r = cluster.run("scontrol", "token", *args, user=user)
    assert r.stdout.startswith("SLURM_JWT="), r.stdout
    return r.stdout.strip().split("=", 1)[1]


def errnos(doc):
    return [e["errno"] for e in doc["errors"]]


def queue(cluster):
    """What squeue shows: the state nothing must change after a refusal."""
    return cluster.out("squeue", "-h", "-o", "%i %u %j %T %l %p")


@pytest.fixture(scope="module")
def user_token(restd, test_user):
    return token(restd, user=test_user.pw_name)


def held_root_job(cluster, workdir, name="rootjob"):
    return submit(cluster, "-H", "-J", name, "-D", workdir, "-o", "/dev/null",
                  "--wrap", "sleep 100")


def submit_body(workdir, name, **job):
    j = {"name": name, "current_working_directory": str(workdir),
         "standard_output": f"{workdir}/{name}.out", "environment": {"PATH": "/bin:/usr/bin"}}
    j.update(job)
    return {"script": "#!/bin/sh\necho hello from $SLURM_JOB_ID as $(id -un)\n", "job": j}


# ----- ping, auth -----------------------------------------------------------


def test_ping_on_the_unix_socket_as_root(restd):
    status, doc = unix(restd, "GET", f"{API}/ping")
    assert status == 200, doc
    assert doc["errors"] == []
    assert doc["meta"]["plugin"]["type"] == "openapi/v0.0.38"
    assert doc["pings"][0]["ping"] == "UP"
    assert doc["pings"][0]["hostname"] == "localhost"


def test_ping_on_the_unix_socket_as_the_user(restd, test_user):
    status, doc = unix(restd, "GET", f"{API}/ping", as_user=test_user)
    assert status == 200, doc
    assert doc["pings"][0]["ping"] == "UP"


def test_ping_with_a_token(restd, test_user, user_token):
    status, doc = tcp(restd, "GET", f"{API}/ping", user=test_user.pw_name, token=user_token)
    assert status == 200, doc
    assert doc["pings"][0]["ping"] == "UP"
    # the name header may be left out: the token's user
    status, _ = tcp(restd, "GET", f"{API}/ping", token=user_token)
    assert status == 200


def test_token_is_hs256_with_slurms_claims(restd, test_user, user_token):
    head, claims, _ = user_token.split(".")
    pad = lambda s: s + "=" * (-len(s) % 4)  # noqa: E731
    assert json.loads(base64.urlsafe_b64decode(pad(head)))["alg"] == "HS256"
    c = json.loads(base64.urlsafe_b64decode(pad(claims)))
    assert c["sun"] == test_user.pw_name
    assert c["exp"] - c["iat"] == 1800  # Slurm's default lifespan


def test_tcp_without_a_token_is_401(restd):
    before = queue(restd)
    status, doc = tcp(restd, "GET", f"{API}/ping")
    assert status == 401
    assert doc["errors"][0]["error"] == "Authentication failure"
    assert queue(restd) == before


def forge(claims, key):
    enc = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()  # noqa: E731
    head = enc(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = enc(json.dumps(claims).encode())
    sig = hmac.new(key, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{enc(sig)}"


def test_forged_token_is_401(restd, test_user, workdir):
    now = int(time.time())
    fake = forge({"iat": now, "exp": now + 600, "sun": "root"}, b"not the key" * 3)
    before = queue(restd)
    status, doc = tcp(restd, "POST", f"{API}/job/submit", submit_body(workdir, "forged"),
                      user="root", token=fake)
    assert status == 401, doc
    assert queue(restd) == before
    restd.wait_for_log(r"authentication refused: token malformed or its signature",
                       daemon="slurmrestd")


def test_token_with_alg_none_is_401(restd):
    enc = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()  # noqa: E731
    now = int(time.time())
    tok = (enc(b'{"alg":"none","typ":"JWT"}') + "."
           + enc(json.dumps({"iat": now, "exp": now + 60, "sun": "root"}).encode()) + ".")
    status, _ = tcp(restd, "GET", f"{API}/ping", user="root", token=tok)
    assert status == 401


def test_the_real_key_is_accepted_by_a_forged_claim_only_with_the_key(restd):
    # the same forge with the real key works: the check is the signature
    key = (restd.dir / "jwt.key").read_bytes()
    now = int(time.time())
    tok = forge({"iat": now, "exp": now + 60, "sun": "root"}, key)
    status, _ = tcp(restd, "GET", f"{API}/ping", user="root", token=tok)
    assert status == 200


def test_expired_token_is_401(restd, test_user):
    tok = token(restd, "lifespan=1", user=test_user.pw_name)
    status, _ = tcp(restd, "GET", f"{API}/ping", user=test_user.pw_name, token=tok)
    assert status in (200, 401)  # a second boundary may already have passed
    wait_for(lambda: tcp(restd, "GET", f"{API}/ping", user=test_user.pw_name,
                         token=tok)[0] == 401, timeout=10, what="the token to expire")
    restd.wait_for_log(r"authentication refused: token expired", daemon="slurmrestd")


def test_token_for_a_user_that_does_not_exist_is_401(restd):
    tok = token(restd, "username=nosuchuser_rest")  # root may ask for any name
    status, doc = tcp(restd, "GET", f"{API}/ping", user="nosuchuser_rest", token=tok)
    assert status == 401, doc
    restd.wait_for_log(r"no such user nosuchuser_rest", daemon="slurmrestd")


def test_user_name_must_match_the_token(restd, test_user, user_token, workdir):
    before = queue(restd)
    status, _ = tcp(restd, "POST", f"{API}/job/submit", submit_body(workdir, "mismatch"),
                    user="root", token=user_token)
    assert status == 401
    assert queue(restd) == before
    restd.wait_for_log(r"does not match the token's user", daemon="slurmrestd")


def test_a_root_token_may_act_as_another_user(restd, test_user, workdir):
    """As Slurm: the token of root or SlurmUser may name another user in
    X-SLURM-USER-NAME; the request is then that user's."""
    root_tok = token(restd)
    status, doc = tcp(restd, "POST", f"{API}/job/submit", submit_body(workdir, "proxied"),
                      user=test_user.pw_name, token=root_tok)
    assert status == 200, doc
    rec = wait_state(restd, doc["job_id"], "COMPLETED")
    assert rec["UserId"].startswith(f"{test_user.pw_name}(")


def test_user_cannot_get_a_token_for_root(restd, test_user):
    r = restd.run("scontrol", "token", "username=root", user=test_user.pw_name, check=False)
    assert r.returncode == 1
    assert "SLURM_JWT" not in r.stdout
    assert "Invalid user id" in r.stderr
    restd.wait_for_log(r"Security violation, REQUEST_AUTH_TOKEN for user root")
    # for themself by name is fine
    assert token(restd, f"username={test_user.pw_name}", user=test_user.pw_name)


def test_disable_token_creation_leaves_tokens_to_admins(restd, test_user):
    conf = restd.conf_path.read_text()
    restd.conf_path.write_text(conf.replace("AuthAltParameters=jwt_key=",
                                            "AuthAltParameters=disable_token_creation,jwt_key="))
    try:
        restd.run("scontrol", "reconfigure")
        r = restd.run("scontrol", "token", user=test_user.pw_name, check=False)
        assert r.returncode == 1 and "Access/permission denied" in r.stderr, r.stderr
        assert token(restd, f"username={test_user.pw_name}")  # root still may
    finally:
        restd.conf_path.write_text(conf)
        restd.run("scontrol", "reconfigure")
    assert token(restd, user=test_user.pw_name)


def test_token_bad_arguments(restd):
    r = restd.run("scontrol", "token", "lifespan=abc", check=False)
    assert r.returncode == 1 and "Invalid lifespan" in r.stderr
    r = restd.run("scontrol", "token", "bogus=1", check=False)
    assert r.returncode == 1 and "Invalid parameter" in r.stderr


# ----- routing, bad input -----------------------------------------------------


def test_unknown_path_is_404_and_wrong_method_405(restd):
    status, doc = unix(restd, "GET", f"{API}/nope")
    assert status == 404 and doc["errors"]
    status, doc = unix(restd, "DELETE", f"{API}/ping")
    assert status == 405 and doc["errors"]
    status, _ = unix(restd, "PUT", f"{API}/job/submit", body="{}")
    assert status == 405


def test_malformed_json_is_refused(restd, test_user, user_token):
    before = queue(restd)
    status, doc = tcp(restd, "POST", f"{API}/job/submit", '{"script": "x", "job": {',
                      user=test_user.pw_name, token=user_token)
    assert status == 400, doc
    assert errnos(doc) == [9001]
    assert "Unable to parse JSON" in doc["errors"][0]["error"]
    assert queue(restd) == before


@pytest.mark.parametrize("body, words", [
    ({"script": "#!/bin/sh\ntrue\n", "job": {"name": "x", "bogus_field": 1}}, "bogus_field"),
    ({"script": "#!/bin/sh\ntrue\n", "job": {"tasks": "many"}}, "tasks"),
    ({"script": "#!/bin/sh\ntrue\n", "job": {"environment": 3}}, "environment"),
    ({"script": "#!/bin/sh\ntrue\n", "extra": 1, "job": {}}, "extra"),
    ({"job": {"name": "noscript"}}, "script"),
    ([1, 2], "object"),
])
def test_bad_job_descriptions_are_refused(restd, test_user, user_token, body, words):
    before = queue(restd)
    status, doc = tcp(restd, "POST", f"{API}/job/submit", body, user=test_user.pw_name,
                      token=user_token)
    assert status == 400, doc
    assert words in doc["errors"][0]["error"]
    assert queue(restd) == before


def test_ten_megabyte_body_is_413(restd, test_user, user_token):
    before = queue(restd)
    big = json.dumps({"script": "#!/bin/sh\n" + "#" * (10 << 20), "job": {"name": "big"}})
    try:
        status, _ = tcp(restd, "POST", f"{API}/job/submit", big, user=test_user.pw_name,
                        token=user_token)
    except (BrokenPipeError, ConnectionResetError):
        status = 413  # closed while we were still sending: never read, nothing done
    assert status == 413
    assert queue(restd) == before
    assert unix(restd, "GET", f"{API}/ping")[0] == 200


def test_a_stalled_client_does_not_stop_others(restd):
    s = socket.create_connection(("127.0.0.1", restd.restd_port))
    try:
        s.sendall(b"POST /slurm/v0.0.38/job/submit HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Length: 1000\r\n\r\n{\"script\":")
        t0 = time.monotonic()
        for _ in range(5):
            assert unix(restd, "GET", f"{API}/ping")[0] == 200
        assert time.monotonic() - t0 < 5 * TIMEOUT_SCALE
        # and the stalled one is dropped after the read timeout
        s.settimeout(30 * TIMEOUT_SCALE)
        rest = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            rest += chunk
        assert b"job_id" not in rest
    finally:
        s.close()


def test_a_trickling_request_is_cut_at_its_deadline(restd):
    """One byte a second keeps the per-read timeout away; the request's
    own deadline (20 s from its first byte) still closes it."""
    s = socket.create_connection(("127.0.0.1", restd.restd_port))
    mark = restd.log_mark("slurmrestd")
    try:
        s.sendall(b"GET /slurm/v0.0.38/ping HTTP/1.1\r\nX-Slow: ")
        s.settimeout(1)
        t0 = time.monotonic()
        closed = False
        while time.monotonic() - t0 < 40 * TIMEOUT_SCALE:
            try:
                s.sendall(b"a")
                if s.recv(4096) == b"":
                    closed = True
                    break
            except socket.timeout:
                assert unix(restd, "GET", f"{API}/ping")[0] == 200  # others are served
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed
        assert 15 <= time.monotonic() - t0
    finally:
        s.close()
    restd.wait_for_log(r"request was not complete within 20 s", daemon="slurmrestd",
                       since=mark)


def test_many_idle_connections_do_not_stop_others(restd):
    socks = []
    try:
        for _ in range(300):  # past RESTD_MAX_CONNS (256)
            socks.append(socket.create_connection(("127.0.0.1", restd.restd_port)))
        wait_for(lambda: unix(restd, "GET", f"{API}/ping")[0] == 200, timeout=20,
                 what="a ping past the idle connections")
    finally:
        for s in socks:
            s.close()
    wait_for(lambda: unix(restd, "GET", f"{API}/ping")[0] == 200, timeout=20,
             what="pings again")


def test_clients_that_leave_before_the_answer(restd):
    for _ in range(40):
        s = socket.socket(socket.AF_UNIX)
        s.connect(restd.restd_socket)
        s.sendall(b"GET /slurm/v0.0.38/ping HTTP/1.1\r\nHost: x\r\n\r\n")
        s.close()
    status, _ = unix(restd, "GET", f"{API}/ping")
    assert status == 200
    restd._check_alive("slurmrestd")


def test_keep_alive_serves_several_requests(restd):
    c = UnixConn(restd.restd_socket)
    try:
        for path in (f"{API}/ping", f"{API}/nope", f"{API}/ping"):
            c.request("GET", path)
            status, _ = _answer(c.getresponse())
            assert status == (404 if path.endswith("nope") else 200)
    finally:
        c.close()


# ----- submit, update, cancel -------------------------------------------------


def test_user_submits_with_a_token(restd, test_user, user_token, workdir):
    status, doc = tcp(restd, "POST", f"{API}/job/submit",
                      submit_body(workdir, "restjob", time_limit=5, nodes="1", tasks=1),
                      user=test_user.pw_name, token=user_token)
    assert status == 200, doc
    assert doc["errors"] == [] and doc["step_id"] == "batch"
    job_id = doc["job_id"]
    rec = wait_state(restd, job_id, "COMPLETED")
    assert rec["UserId"].startswith(f"{test_user.pw_name}(")
    assert rec["JobName"] == "restjob"
    assert rec["TimeLimit"] == "00:05:00"
    out = (workdir / "restjob.out").read_text()
    assert out == f"hello from {job_id} as {test_user.pw_name}\n"


def test_environment_as_an_array_and_on_the_unix_socket(restd, test_user, workdir):
    body = submit_body(workdir, "envarr", environment=["PATH=/bin:/usr/bin", "FOO=bar"])
    body["script"] = "#!/bin/sh\necho $FOO\n"
    status, doc = unix(restd, "POST", f"{API}/job/submit", body, as_user=test_user)
    assert status == 200, doc
    rec = wait_state(restd, doc["job_id"], "COMPLETED")
    assert rec["UserId"].startswith(f"{test_user.pw_name}(")
    assert (workdir / "envarr.out").read_text() == "bar\n"


def test_without_a_directory_the_job_runs_in_the_home(restd, test_user, user_token):
    body = {"script": "#!/bin/sh\npwd\n", "job": {"name": "nocwd",
                                                   "standard_output": "/dev/null"}}
    status, doc = tcp(restd, "POST", f"{API}/job/submit", body, user=test_user.pw_name,
                      token=user_token)
    assert status == 200, doc
    # the test user's home may not exist: then the job cannot chdir there
    rec = wait_state(restd, doc["job_id"], ("COMPLETED", "FAILED"))
    assert rec["WorkDir"] == test_user.pw_dir


def test_user_cannot_cancel_or_update_roots_job(restd, test_user, user_token, workdir):
    job_id = held_root_job(restd, workdir)
    before = queue(restd)
    status, doc = tcp(restd, "DELETE", f"{API}/job/{job_id}", user=test_user.pw_name,
                      token=user_token)
    assert status == 500, doc
    assert errnos(doc) == [2002]  # Access/permission denied
    status, doc = tcp(restd, "POST", f"{API}/job/{job_id}", {"job": {"time_limit": 1}},
                      user=test_user.pw_name, token=user_token)
    # what scontrol update gets from the controller: "Invalid user id"
    assert status == 500 and errnos(doc) == [2010], doc
    status, doc = unix(restd, "DELETE", f"{API}/job/{job_id}", as_user=test_user)
    assert status == 500 and errnos(doc) == [2002], doc
    assert queue(restd) == before
    # root, on the unix socket, may
    status, doc = unix(restd, "DELETE", f"{API}/job/{job_id}")
    assert status == 200, doc
    wait_state(restd, job_id, "CANCELLED")


def test_user_updates_holds_and_cancels_own_job(restd, test_user, user_token, workdir):
    body = submit_body(workdir, "upd", hold=True)
    status, doc = tcp(restd, "POST", f"{API}/job/submit", body, user=test_user.pw_name,
                      token=user_token)
    assert status == 200, doc
    job_id = doc["job_id"]
    status, doc = tcp(restd, "POST", f"{API}/job/{job_id}",
                      {"job": {"time_limit": 7, "name": "renamed"}},
                      user=test_user.pw_name, token=user_token)
    assert status == 200, doc
    rec = wait_state(restd, job_id, "PENDING")
    assert rec["JobName"] == "renamed" and rec["TimeLimit"] == "00:07:00"
    status, doc = tcp(restd, "POST", f"{API}/job/{job_id}", {"bogus": 1},
                      user=test_user.pw_name, token=user_token)
    assert status == 400 and "bogus" in doc["errors"][0]["error"]
    status, doc = tcp(restd, "DELETE", f"{API}/job/{job_id}?signal=KILL",
                      user=test_user.pw_name, token=user_token)
    assert status == 200, doc
    wait_state(restd, job_id, "CANCELLED")


def test_cancel_with_a_bad_signal_or_id(restd):
    status, doc = unix(restd, "DELETE", f"{API}/job/1?signal=NOPE")
    assert status == 422 and errnos(doc) == [9000], doc
    status, doc = unix(restd, "DELETE", f"{API}/job/abc")
    assert status == 500 and errnos(doc) == [2017], doc


# ----- the controller's side: the on-behalf mark ------------------------------


def test_on_behalf_mark_from_a_user_is_refused(restd, test_user, workdir):
    job_id = held_root_job(restd, workdir, name="markjob")
    before = queue(restd)
    r = restd.run("onbehalf_forge", job_id, 0, 0, user=test_user.pw_name)
    assert "rc=2002" in r.stdout, r.stdout
    restd.wait_for_log(rf"Security violation: request on behalf of uid=0 from "
                       rf"uid={test_user.pw_uid}")
    assert queue(restd) == before
    # root may (slurmrestd is root here), and then acts as the marked user
    r = restd.run("onbehalf_forge", job_id, test_user.pw_uid, test_user.pw_gid)
    assert "rc=2002" in r.stdout, r.stdout  # the user may not cancel root's job
    r = restd.run("onbehalf_forge", job_id, 0, 0)
    assert "rc=0" in r.stdout, r.stdout
    wait_state(restd, job_id, "CANCELLED")


# ----- configuration ----------------------------------------------------------


def test_world_readable_jwt_key_is_refused(restd):
    key = restd.dir / "jwt-open.key"
    key.write_bytes(os.urandom(32))
    os.chmod(key, 0o644)
    conf = restd.dir / "slurm-openkey.conf"
    conf.write_text(restd.conf_text.replace(f"jwt_key={restd.dir}/jwt.key", f"jwt_key={key}"))
    p = subprocess.run([str(BUILD_DIR / "slurmrestd"), "-f", str(conf), "127.0.0.1:1"],
                       capture_output=True, text=True, timeout=30 * TIMEOUT_SCALE,
                       env=restd.env())
    assert p.returncode == 1
    assert "accessible by group or others (mode 0644)" in p.stderr


# ----- listings (the --json documents) ----------------------------------------


def test_jobs_and_one_job(restd, test_user, workdir):
    job_id = held_root_job(restd, workdir, name="listed")
    status, doc = unix(restd, "GET", f"{API}/jobs")
    assert status == 200, doc
    assert doc["meta"]["plugin"]["type"] == "openapi/v0.0.38" and doc["errors"] == []
    assert job_id in [j["job_id"] for j in doc["jobs"]]
    status, doc = unix(restd, "GET", f"{API}/job/{job_id}", as_user=test_user)
    assert status == 200, doc
    assert [j["job_id"] for j in doc["jobs"]] == [job_id]
    assert doc["jobs"][0]["name"] == "listed" and doc["jobs"][0]["user_name"] == "root"
    status, doc = unix(restd, "GET", f"{API}/job/99999")
    assert status == 500 and errnos(doc) == [2017], doc
    unix(restd, "DELETE", f"{API}/job/{job_id}")


def test_nodes_partitions_diag(restd, test_user, user_token):
    status, doc = tcp(restd, "GET", f"{API}/nodes", user=test_user.pw_name, token=user_token)
    assert status == 200, doc
    assert sorted(n["name"] for n in doc["nodes"]) == ["n1", "n2"]
    status, doc = unix(restd, "GET", f"{API}/node/n2")
    assert status == 200 and [n["name"] for n in doc["nodes"]] == ["n2"], doc
    status, doc = unix(restd, "GET", f"{API}/node/nope")
    assert status == 500 and errnos(doc) == [2018], doc
    status, doc = unix(restd, "GET", f"{API}/partitions")
    assert status == 200 and [p["name"] for p in doc["partitions"]] == ["debug"], doc
    status, doc = unix(restd, "GET", f"{API}/partition/debug")
    assert status == 200 and [p["name"] for p in doc["partitions"]] == ["debug"], doc
    status, doc = unix(restd, "GET", f"{API}/partition/nope")
    assert status == 500 and errnos(doc) == [2000], doc
    status, doc = unix(restd, "GET", f"{API}/diag")
    assert status == 200 and "statistics" in doc, doc


def test_slurmdb_jobs(restd, test_user, user_token, workdir):
    status, doc = tcp(restd, "POST", f"{API}/job/submit", submit_body(workdir, "dbjob"),
                      user=test_user.pw_name, token=user_token)
    assert status == 200, doc
    job_id = doc["job_id"]
    wait_state(restd, job_id, "COMPLETED")

    def listed():
        status, doc = tcp(restd, "GET", f"/slurmdb/v0.0.38/jobs?users={test_user.pw_name}",
                          user=test_user.pw_name, token=user_token)
        assert status == 200, doc
        return job_id in [j["job_id"] for j in doc["jobs"]] and doc
    doc = wait_for(listed, timeout=20, what="the job in the accounting store")
    assert doc["meta"]["plugin"]["type"] == "openapi/dbv0.0.38"
    assert all(j["user"] == test_user.pw_name for j in doc["jobs"])
    status, doc = unix(restd, "GET", f"/slurmdb/v0.0.38/job/{job_id}")
    assert status == 200 and [j["job_id"] for j in doc["jobs"]] == [job_id], doc
    assert doc["jobs"][0]["name"] == "dbjob"
    status, doc = unix(restd, "GET", "/slurmdb/v0.0.38/jobs?job_name=dbjob&bogus=1")
    assert status == 422 and "bogus" in doc["errors"][0]["error"], doc
    status, doc = unix(restd, "GET", "/slurmdb/v0.0.38/jobs?users=nosuchuser_rest")
    assert status == 422, doc


def test_openapi_spec(restd):
    for path in ("/openapi/v3", "/openapi", "/openapi.json"):
        status, doc = unix(restd, "GET", path)
        assert status == 200, (path, doc)
        assert doc["openapi"].startswith("3.")
        for p in (f"{API}/job/submit", f"{API}/jobs", f"{API}/ping", "/slurmdb/v0.0.38/jobs"):
            assert p in doc["paths"], p
        assert "dbv0.0.38_job" in doc["components"]["schemas"]


def test_every_answer_is_valid_against_the_served_spec(restd, test_user, user_token, workdir):
    status, spec = unix(restd, "GET", "/openapi/v3")
    assert status == 200
    held = held_root_job(restd, workdir, name="specjob")
    status, sub = tcp(restd, "POST", f"{API}/job/submit", submit_body(workdir, "specsub"),
                      user=test_user.pw_name, token=user_token)
    assert status == 200, sub
    wait_state(restd, sub["job_id"], "COMPLETED")
    cases = [
        (f"{API}/ping", "v0.0.38_pings"),
        (f"{API}/diag", "v0.0.38_diag"),
        (f"{API}/jobs", "v0.0.38_jobs_response"),
        (f"{API}/job/{held}", "v0.0.38_jobs_response"),
        (f"{API}/nodes", "v0.0.38_nodes_response"),
        (f"{API}/node/n1", "v0.0.38_nodes_response"),
        (f"{API}/partitions", "v0.0.38_partitions_response"),
        (f"{API}/partition/debug", "v0.0.38_partitions_response"),
        ("/slurmdb/v0.0.38/jobs", "dbv0.0.38_job_info"),
        (f"/slurmdb/v0.0.38/job/{sub['job_id']}", "dbv0.0.38_job_info"),
        (f"{API}/job/99999", "v0.0.38_errors_response"),
    ]
    for path, schema in cases:
        status, doc = unix(restd, "GET", path)
        assert status in (200, 500), (path, doc)
        check(spec, doc, schema)
    check(spec, sub, "v0.0.38_job_submission_response")
    unix(restd, "DELETE", f"{API}/job/{held}")


def test_private_data_hides_other_users_jobs(fresh_cluster, test_user):
    c = fresh_cluster(nodes=("n1",), settings={
        "PrivateData": "jobs", "AuthAltTypes": "auth/jwt",
        "AuthAltParameters": "jwt_key=@RUN_DIR@/jwt.key"})
    c.start_slurmrestd()
    work = c.dir / "work"
    work.mkdir()
    os.chmod(work, 0o777)
    root_job = held_root_job(c, work)
    tok = token(c, user=test_user.pw_name)
    status, doc = tcp(c, "POST", f"{API}/job/submit", submit_body(work, "mine", hold=True),
                      user=test_user.pw_name, token=tok)
    assert status == 200, doc
    mine = doc["job_id"]
    status, doc = tcp(c, "GET", f"{API}/jobs", user=test_user.pw_name, token=tok)
    assert status == 200, doc
    assert [j["job_id"] for j in doc["jobs"]] == [mine]
    status, doc = unix(c, "GET", f"{API}/jobs")
    assert sorted(j["job_id"] for j in doc["jobs"]) == sorted([root_job, mine])
    status, doc = tcp(c, "GET", f"{API}/job/{root_job}", user=test_user.pw_name, token=tok)
    assert status != 200 or doc["jobs"] == [], doc


def test_auth_option_limits_the_methods(restd, test_user, user_token):
    """-a rest_auth/local: tokens are refused on TCP; -a rest_auth/jwt: the
    unix socket is refused."""
    for auth, tcp_ok, unix_ok in (("rest_auth/local", False, True), ("rest_auth/jwt", True, False)):
        port = free_ports(1)[0]
        sock = str(restd.dir / f"restd-{auth[10:]}.sock")
        p = subprocess.Popen([str(BUILD_DIR / "slurmrestd"), "-f", str(restd.conf_path), "-a",
                              auth, f"127.0.0.1:{port}", f"unix:{sock}"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=restd.env(), start_new_session=True)
        try:
            other = type("R", (), {"restd_port": port, "restd_socket": sock})

            def up():
                assert p.poll() is None
                with socket.socket() as s:
                    return os.path.exists(sock) and s.connect_ex(("127.0.0.1", port)) == 0
            wait_for(up, timeout=10, what=f"slurmrestd -a {auth}")
            status, _ = tcp(other, "GET", f"{API}/ping", user=test_user.pw_name,
                            token=user_token)
            assert (status == 200) == tcp_ok, (auth, status)
            status, _ = unix(other, "GET", f"{API}/ping", as_user=test_user)
            assert (status == 200) == unix_ok, (auth, status)
        finally:
            p.terminate()
            try:
                p.wait(timeout=10 * TIMEOUT_SCALE)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    assert unix(restd, "GET", f"{API}/ping")[0] == 200


def test_slurmrestd_stops_on_sigterm(restd):
    p = restd.procs["slurmrestd"]
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=10 * TIMEOUT_SCALE)
    del restd.procs["slurmrestd"]
    assert p.returncode == 0
    restd.start_slurmrestd()
    assert unix(restd, "GET", f"{API}/ping")[0] == 200
