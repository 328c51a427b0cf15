"""Raw bytes at slurmctld's port: every malformed, unauthenticated or
tampered frame is refused, logged with the peer's address, and the
controller keeps serving (docs/protocol.md): a frame of impossible size or
garbage is closed without a reply; a wrong protocol version or a bad
credential gets RESPONSE_SLURM_RC 1005 / 1007.

Frame (docs/protocol.md), all big-endian:
    u32 frame_len (covers everything after it)
    u16 protocol_version | u16 flags | u16 msg_type | u32 body_len   (the 10 header bytes)
    str munge credential: u32 length including the NUL (0 = none), bytes, NUL
    body
The credential's payload binds the message: it is the SHA-256 digest (32 raw
bytes) of the 10 header bytes followed by the body. Valid credentials are
made with the munge CLI on the cluster's own munged. The first tests check
that a correctly built frame is accepted, so a failure of the tampering
tests cannot come from a wrong frame layout.
"""

import hashlib
import socket
import struct
import subprocess

import pytest

from cluster import MUNGE, recv_exact, wait_for

MESSAGE_TIMEOUT = 3
CLUSTER_KWARGS = dict(nodes=["n1"], settings={"MessageTimeout": MESSAGE_TIMEOUT},
                      partitions=["debug Nodes=n1 Default=YES MaxTime=INFINITE State=UP",
                                  "other Nodes=n1 MaxTime=INFINITE State=UP"])

PROTOCOL_VERSION = 0x2600  # 22.05 (38 << 8)
REQUEST_PING = 1008
REQUEST_NODE_INFO = 2007
RESPONSE_NODE_INFO = 2008
RESPONSE_SLURM_RC = 8001
MAX_MESSAGE_SIZE = 64 << 20
SLURM_PROTOCOL_VERSION_ERROR = 1005
SLURM_PROTOCOL_AUTHENTICATION_ERROR = 1007

# What the controller's log must say for each kind of refusal (case-insensitive).
LOG_FRAME_SIZE = r"(?i)frame of \d+ bytes refused"
LOG_VERSION = r"(?i)protocol version"
LOG_AUTH = r"(?i)(auth|credential|munge)"
LOG_REPLAY = r"(?i)replay"
LOG_TIMEOUT = r"(?i)(timeout|timed out)"

# ---- building and reading frames --------------------------------------------


def pack_str(data):
    if data is None:
        return struct.pack(">I", 0)
    return struct.pack(">I", len(data) + 1) + data + b"\0"


def header(msg_type, body, version=PROTOCOL_VERSION, flags=0):
    return struct.pack(">HHHI", version, flags, msg_type, len(body))


def digest(hdr, body):
    return hashlib.sha256(hdr + body).digest()


def credential(cluster, payload):
    """A munge credential (bytes, without NUL) whose payload is payload."""
    r = subprocess.run([MUNGE, "-S", cluster.munge_socket], input=payload, capture_output=True,
                       check=True)
    return r.stdout.strip()


def frame(hdr, cred, body):
    rest = hdr + pack_str(cred) + body
    return struct.pack(">I", len(rest)) + rest


def signed_frame(cluster, msg_type, body=b"", version=PROTOCOL_VERSION):
    hdr = header(msg_type, body, version)
    return frame(hdr, credential(cluster, digest(hdr, body)), body)


def node_info_body(last_update=0, show_flags=0, node_name=None):
    """REQUEST_NODE_INFO: time last_update (i64), u16 show_flags, str node_name."""
    return struct.pack(">qH", last_update, show_flags) + pack_str(node_name)


def exchange(cluster, data, timeout=15, port=None):
    """Send data on a new connection (to the controller, or to port) and
    read one reply frame. Returns None when the peer closed the connection
    without replying, else (msg_type, body). Fails if the connection just
    stays open."""
    with socket.create_connection(("127.0.0.1", port or cluster.ctld_port), timeout=5) as s:
        s.settimeout(timeout)
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            return None
        try:
            head = recv_exact(s, 4)
            if head is None:
                return None
            (length,) = struct.unpack(">I", head)
            assert 14 <= length <= 1 << 20, f"reply frame length {length}"
            rest = recv_exact(s, length)
        except ConnectionResetError:
            return None
        except socket.timeout:
            pytest.fail(f"no reply and no close within {timeout}s")
    assert rest is not None, "reply frame cut short"
    _version, _flags, msg_type, body_len = struct.unpack(">HHHI", rest[:10])
    (cred_len,) = struct.unpack(">I", rest[10:14])
    body = rest[14 + cred_len:]
    assert len(body) == body_len, (len(body), body_len)
    return msg_type, body


def rc_of(reply):
    msg_type, body = reply
    assert msg_type == RESPONSE_SLURM_RC, f"reply type {msg_type}"
    return struct.unpack(">I", body[:4])[0]


def assert_refused(cluster, reply, log_pattern, mark, rc=None):
    """rc None: closed without a reply; else a RESPONSE_SLURM_RC with rc.
    Then the refusal is in the log and the controller still answers."""
    if rc is None:
        assert reply is None, f"expected the connection closed without a reply, got {reply}"
    else:
        assert reply is not None, f"expected RESPONSE_SLURM_RC {rc}, the connection was closed"
        assert rc_of(reply) == rc
    # the refusal is logged with the peer's address
    cluster.wait_for_log(log_pattern, since=mark, containing="127.0.0.1")
    assert cluster.procs["slurmctld"].poll() is None, "slurmctld died"
    assert cluster.ping_up(), "slurmctld stopped answering ping"


# ---- a correctly built frame is accepted (checks the helpers above) --------


def test_a_signed_ping_frame_gets_rc_0(cluster):
    reply = exchange(cluster, signed_frame(cluster, REQUEST_PING))
    assert reply is not None, ("a correctly signed REQUEST_PING was refused: the frame layout "
                               "or credential binding differs from this file's docstring")
    assert rc_of(reply) == 0


def test_a_signed_node_info_frame_gets_the_nodes(cluster):
    reply = exchange(cluster, signed_frame(cluster, REQUEST_NODE_INFO, node_info_body()))
    assert reply is not None and reply[0] == RESPONSE_NODE_INFO, reply


# ---- malformed frames --------------------------------------------------------


@pytest.mark.parametrize("data", [
    pytest.param(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", id="http-request"),
    pytest.param(struct.pack(">I", 0xFFFFFFFF) + bytes(64), id="length-0xFFFFFFFF"),
    pytest.param(struct.pack(">I", MAX_MESSAGE_SIZE + 1) + bytes(64), id="length-over-max"),
    pytest.param(struct.pack(">I", 0), id="length-0"),
    pytest.param(struct.pack(">I", 3) + b"abc", id="shorter-than-a-header"),
])
def test_a_frame_of_impossible_size_is_refused(cluster, data):
    mark = cluster.log_mark()
    assert_refused(cluster, exchange(cluster, data), LOG_FRAME_SIZE, mark)


def test_a_frame_with_another_protocol_version_is_refused(cluster):
    mark = cluster.log_mark()
    reply = exchange(cluster, signed_frame(cluster, REQUEST_PING, version=0x2500))
    assert_refused(cluster, reply, LOG_VERSION, mark, rc=SLURM_PROTOCOL_VERSION_ERROR)


def test_random_bytes_in_a_well_sized_frame_are_refused(cluster):
    mark = cluster.log_mark()
    junk = bytes((i * 37 + 11) % 256 for i in range(200))
    reply = exchange(cluster, struct.pack(">I", len(junk)) + junk)
    # its first two bytes make a wrong protocol version: closed as garbage or
    # answered as a version mismatch, both are fine
    if reply is not None:
        assert rc_of(reply) == SLURM_PROTOCOL_VERSION_ERROR
    cluster.wait_for_log(r"(?i)(protocol version|refused)", since=mark, containing="127.0.0.1")
    assert cluster.ping_up()


# ---- authentication -----------------------------------------------------------


def test_a_frame_without_a_credential_is_refused(cluster):
    mark = cluster.log_mark()
    hdr = header(REQUEST_PING, b"")
    assert_refused(cluster, exchange(cluster, frame(hdr, None, b"")), LOG_AUTH, mark,
                   rc=SLURM_PROTOCOL_AUTHENTICATION_ERROR)


def test_a_frame_with_a_garbage_credential_is_refused(cluster):
    mark = cluster.log_mark()
    hdr = header(REQUEST_PING, b"")
    reply = exchange(cluster, frame(hdr, b"MUNGE:not-a-credential:", b""))
    assert_refused(cluster, reply, LOG_AUTH, mark, rc=SLURM_PROTOCOL_AUTHENTICATION_ERROR)


def test_a_replayed_credential_is_refused(cluster):
    data = signed_frame(cluster, REQUEST_PING)
    first = exchange(cluster, data)
    assert first is not None and rc_of(first) == 0
    mark = cluster.log_mark()
    assert_refused(cluster, exchange(cluster, data), LOG_REPLAY, mark,
                   rc=SLURM_PROTOCOL_AUTHENTICATION_ERROR)


def test_a_body_altered_after_signing_is_refused(cluster):
    signed_body = node_info_body(last_update=0)
    hdr = header(REQUEST_NODE_INFO, signed_body)
    cred = credential(cluster, digest(hdr, signed_body))
    altered = node_info_body(last_update=1)  # same length, one bit differs
    mark = cluster.log_mark()
    reply = exchange(cluster, frame(hdr, cred, altered))
    assert reply is None or reply[0] != RESPONSE_NODE_INFO, "the altered request was served"
    assert_refused(cluster, reply, LOG_AUTH, mark, rc=SLURM_PROTOCOL_AUTHENTICATION_ERROR)


def test_a_header_altered_after_signing_is_refused(cluster):
    body = node_info_body()
    signed_hdr = header(REQUEST_NODE_INFO, body)
    cred = credential(cluster, digest(signed_hdr, body))
    # the same credential on another message type with the same body length
    altered_hdr = header(REQUEST_PING, body)
    mark = cluster.log_mark()
    reply = exchange(cluster, frame(altered_hdr, cred, body))
    assert_refused(cluster, reply, LOG_AUTH, mark, rc=SLURM_PROTOCOL_AUTHENTICATION_ERROR)


# ---- large frames: the credential is checked before the body is buffered ----

PREAUTH_LIMIT = 64 << 10  # src/common/limits.h SL_FRAME_PREAUTH


def test_a_large_frame_with_a_bad_credential_is_refused_before_its_body(cluster):
    body_len = 8 << 20
    hdr = struct.pack(">HHHI", PROTOCOL_VERSION, 0, REQUEST_PING, body_len)
    rest_len = len(hdr) + len(pack_str(b"MUNGE:garbage:")) + body_len
    head = struct.pack(">I", rest_len) + hdr + pack_str(b"MUNGE:garbage:")
    mark = cluster.log_mark()
    # only the head is sent: the refusal must come without the 8 MiB body
    reply = exchange(cluster, head, timeout=MESSAGE_TIMEOUT - 1)
    assert_refused(cluster, reply, LOG_AUTH, mark, rc=SLURM_PROTOCOL_AUTHENTICATION_ERROR)


def test_a_large_signed_frame_is_still_served(cluster):
    # a node name bigger than the pre-auth limit: authenticated early, then
    # the digest is checked against the whole frame, and it is answered
    name = b"x" * (PREAUTH_LIMIT + 100)
    body = node_info_body(node_name=name)
    reply = exchange(cluster, signed_frame(cluster, REQUEST_NODE_INFO, body))
    assert reply is not None and reply[0] == RESPONSE_NODE_INFO


def test_a_large_frame_whose_body_differs_from_its_credential_is_refused(cluster):
    name = b"y" * (PREAUTH_LIMIT + 100)
    signed_body = node_info_body(node_name=name)
    hdr = header(REQUEST_NODE_INFO, signed_body)
    cred = credential(cluster, digest(hdr, signed_body))
    altered = node_info_body(last_update=1, node_name=name)
    mark = cluster.log_mark()
    reply = exchange(cluster, frame(hdr, cred, altered))
    assert_refused(cluster, reply, LOG_AUTH, mark, rc=SLURM_PROTOCOL_AUTHENTICATION_ERROR)


# ---- stalled peers -------------------------------------------------------------


def test_a_peer_that_stalls_mid_frame_is_disconnected_after_message_timeout(cluster):
    mark = cluster.log_mark()
    partial = struct.pack(">I", 100) + header(REQUEST_PING, b"")[:4]
    reply = exchange(cluster, partial, timeout=MESSAGE_TIMEOUT + 15)
    assert_refused(cluster, reply, LOG_TIMEOUT, mark)


# ---- slurmd: a task launch needs the controller's step credential ---------


REQUEST_LAUNCH_TASKS = 6001
ESLURMD_INVALID_JOB_CREDENTIAL = 4004


def launch_tasks_body(step_cred, node="n1", job_id=4242, step_id=0, uid=0):
    """REQUEST_LAUNCH_TASKS (launch_tasks_msg in src/common/msg_step.h)."""
    u32 = lambda v: struct.pack(">I", v)  # noqa: E731
    strv = lambda items: u32(len(items)) + b"".join(pack_str(i) for i in items)  # noqa: E731
    return (u32(job_id) + u32(step_id) + u32(uid) + u32(0) + pack_str(b"root")
            + pack_str(step_cred) + pack_str(node.encode()) + strv([b"/bin/true"])
            + strv([b"PATH=/usr/bin:/bin"]) + pack_str(b"/tmp") + pack_str(node.encode())
            + u32(1) + u32(0) + u32(1) + u32(1) + u32(0)
            + u32(1) + u32(0) + u32(1) + u32(1)  # task map: one block (0,1,1)
            + u32(1) + struct.pack(">Q", 0)
            + pack_str(None) + pack_str(b"127.0.0.1") + struct.pack(">H", 9)
            + pack_str(b"key") + pack_str(None) + pack_str(None) + pack_str(None)
            + struct.pack(">HH", 0, 0) + u32(0xffffffff)
            + pack_str(None) + pack_str(None))  # no --task-prolog, --task-epilog


@pytest.mark.parametrize("kind", ["garbage", "wrong digest"])
def test_a_task_launch_without_the_controllers_credential_is_refused(cluster, kind):
    step_cred = (b"MUNGE:garbage:" if kind == "garbage"
                 else credential(cluster, hashlib.sha256(b"4242.0:0:n9").digest()))
    mark = cluster.log_mark("slurmd-n1")
    reply = exchange(cluster, signed_frame(cluster, REQUEST_LAUNCH_TASKS,
                                           launch_tasks_body(step_cred)),
                     port=cluster.node_ports["n1"])
    assert reply is not None and rc_of(reply) == ESLURMD_INVALID_JOB_CREDENTIAL
    cluster.wait_for_log(r"credential refused", daemon="slurmd-n1", since=mark)
    assert not cluster.stepd_pids()
    assert cluster.procs["slurmd-n1"].poll() is None, "slurmd died"


REQUEST_JOB_INFO = 2003
RESPONSE_JOB_INFO = 2004


def job_info_body(uids=(), bases=0, flags=0, parts=None):
    """REQUEST_JOB_INFO: time last_update, u16 show_flags, str job_ids,
    u32 after_job_id, then ours: u32 count and the uids to list, u32
    state_bases (bit 1 << base state), u32 state_flags and str
    partitions."""
    return (struct.pack(">qH", 0, 0) + pack_str(None) + struct.pack(">I", 0)
            + struct.pack(f">I{len(uids)}I", len(uids), *uids)
            + struct.pack(">II", bases, flags)
            + pack_str(parts.encode() if parts is not None else None))


def listed(cluster, **kwargs):
    """How many records the controller packs for this listing."""
    reply = exchange(cluster, signed_frame(cluster, REQUEST_JOB_INFO, job_info_body(**kwargs)))
    assert reply is not None and reply[0] == RESPONSE_JOB_INFO, reply
    return struct.unpack(">I", reply[1][13:17])[0]  # after time, u32, u8


def test_a_listing_for_some_users_carries_only_their_jobs(cluster, test_user):
    """squeue -u: the controller packs only those users' jobs (the page
    says how many records it carries), and squeue shows exactly them."""
    mine = [cluster.run("sbatch", "-H", "--parsable", "-o", "/dev/null", "--wrap", "true",
                        user=test_user.pw_name).stdout.strip() for _ in range(2)]
    root = cluster.run("sbatch", "-H", "--parsable", "-o", "/dev/null", "--wrap",
                       "true").stdout.strip()
    try:
        def count(uids):
            reply = exchange(cluster, signed_frame(cluster, REQUEST_JOB_INFO,
                                                   job_info_body(uids)))
            assert reply is not None and reply[0] == RESPONSE_JOB_INFO, reply
            return struct.unpack(">I", reply[1][13:17])[0]  # after time, u32, u8

        assert count([test_user.pw_uid]) == 2
        assert count([0]) == 1
        assert count([0, test_user.pw_uid]) == 3
        assert count([]) == 3
        assert count([4294967295]) == 0

        def shown(*args):
            return cluster.run("squeue", "-h", "-o", "%i", *args).stdout.split()

        assert sorted(shown("-u", test_user.pw_name)) == sorted(mine)
        assert shown("-u", "root") == [root]
        assert sorted(shown("-u", f"root,{test_user.pw_name}")) == sorted(mine + [root])
        assert shown("--me") == [root]
        r = cluster.run("squeue", "-h", "-u", "no_such_user_here", check=False)
        assert r.stdout == "" and "Invalid user: no_such_user_here" in r.stderr
    finally:
        cluster.run("scancel", *mine, root)


def test_a_listing_for_some_states_carries_only_those_jobs(cluster):
    """squeue -t, and squeue without it (the active jobs): the controller
    packs only the jobs in those states, and squeue shows exactly what it
    showed when it got every job and filtered them itself. One -j id
    still finds a finished job (it is not an unknown id)."""
    held = cluster.run("sbatch", "-H", "--parsable", "-o", "/dev/null", "--wrap",
                       "true").stdout.strip()
    done = cluster.run("sbatch", "--parsable", "-o", "/dev/null", "--wrap",
                       "true").stdout.strip()
    wait_for(lambda: "COMPLETED" in cluster.out("scontrol", "show", "job", done),
             what=f"job {done} to complete")
    running = cluster.run("sbatch", "--parsable", "-o", "/dev/null", "--wrap",
                          "sleep 300").stdout.strip()
    wait_for(lambda: "JobState=RUNNING" in cluster.out("scontrol", "show", "job", running),
             what=f"job {running} to run")
    try:
        def count(bases=0, flags=0):
            return listed(cluster, bases=bases, flags=flags)

        everyone = count()
        assert everyone >= 3
        assert count(bases=1 << 0) == 1  # pending: the held job
        assert count(bases=1 << 1) == 1  # running
        finished = sum(1 << b for b in range(3, 12))  # COMPLETE .. OOM
        assert count(bases=finished) == everyone - 2  # every other one
        assert 1 <= count(bases=1 << 3) <= everyone - 2  # complete: at least done
        assert count(bases=1 << 0 | 1 << 1) == 2

        def shown(*args):
            return cluster.run("squeue", "-h", "-o", "%i", *args).stdout.split()

        assert sorted(shown()) == sorted([held, running])
        assert shown("-t", "R") == [running]
        assert shown("-t", "PD") == [held]
        assert done in shown("-t", "CD")
        assert shown("-j", done, "-t", "CD") == [done]
        r = cluster.run("squeue", "-h", "-o", "%i", "-j", done, check=False)
        assert (r.returncode, r.stdout, r.stderr) == (0, "", "")  # known, not shown
    finally:
        cluster.run("scancel", held, running)
        wait_for(lambda: cluster.out("sinfo", "-h", "-N", "-p", "debug", "-o", "%t") == "idle\n",
                 what="n1 to be idle again")


def test_a_listing_for_some_partitions_carries_only_their_jobs(cluster):
    """squeue -p: the controller packs only the jobs in one of those
    partitions, and squeue shows exactly them."""
    def held(*args):
        return cluster.run("sbatch", "-H", "--parsable", "-o", "/dev/null", *args, "--wrap",
                           "true").stdout.strip()

    def pending(parts=None):  # the module's other tests leave finished jobs
        return listed(cluster, bases=1 << 0, parts=parts)

    debug, other = held(), held("-p", "other")
    try:
        assert pending() == 2
        assert pending("other") == 1
        assert pending("debug") == 1
        assert pending("nosuch,debug") == 1
        assert pending("debug,other") == 2
        assert pending("nosuch,oth,,debu") == 0
        assert pending("") == 0
        # the list is matched against every job: a longer one is refused
        reply = exchange(cluster, signed_frame(cluster, REQUEST_JOB_INFO, job_info_body(
            bases=1, parts="x," * 2049)))
        assert reply is not None and reply[0] == RESPONSE_SLURM_RC, reply
        assert rc_of(reply) == 2000  # ESLURM_INVALID_PARTITION_NAME

        def shown(*args):
            return cluster.run("squeue", "-h", "-o", "%i", *args).stdout.split()

        assert shown("-p", "other") == [other]
        assert shown("-p", "debug") == [debug]
        assert sorted(shown("-p", "other,debug")) == sorted([debug, other])
        assert shown("-p", "nosuch") == []
        assert shown("-p", "x," * 2049 + "other") == [other]  # filtered by squeue alone
        assert shown("-p", "other", "-j", debug) == []
    finally:
        cluster.run("scancel", debug, other)


def test_the_controller_still_serves_after_all_of_this(cluster):
    r = cluster.run("sinfo", "-h", "-N", "-p", "debug", "-o", "%N %t")
    assert r.stdout == "n1 idle\n"
