"""No client stalls the controller. 70 held jobs with a 1 MB comment
each (70 MB of job records, more than MaxMessageSize) are refused at
submit since job records are capped
(comment 1024 bytes, test_security_rules.py). Listings can still outgrow
one reply: here 560 held jobs of a normal user with every string field
at its cap (about 18 kB each, 10 MB together, past a page of 8 MiB) must
not break squeue or scontrol for anyone: job replies come in pages
(docs/protocol.md) and a query for one job returns that job alone. While such listings are served the controller still
answers pings promptly; sacct with a host list of a hundred million names
is refused at once instead of being expanded. Once cancelled, the jobs
leave memory after MinJobAge, also across a controller restart.
"""

import json
import os
import re
import socket
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from cluster import BUILD_DIR, TIMEOUT_SCALE, recv_exact, submit, wait_for

MIN_JOB_AGE = 8
CLUSTER_KWARGS = {"name": "stall",
                  "settings": {"MinJobAge": str(MIN_JOB_AGE), "SlurmctldDebug": "debug"}}
N_JOBS = 560
COMMENT_LEN = 1024  # JOB_STR_MAX
NAME_LEN = 255      # name, account, mail user: SL_NAME_MAX on the wire
PATH_LEN = 4000     # under JOB_PATH_MAX: work dir, -i, -o, -e
PAGE_BYTES = 8 << 20


@pytest.fixture(scope="module")
def workdir(cluster):
    d = cluster.dir / "stall"  # the cluster's directory is world-readable
    d.mkdir(exist_ok=True)
    os.chmod(d, 0o777)
    return d


@pytest.fixture(scope="module")
def big_jobs(cluster, workdir, test_user):
    """The ids of N_JOBS held jobs of test_user, every string field squeue
    and scontrol show at its cap, submitted a few at a time."""
    deep = workdir
    while len(str(deep)) < PATH_LEN - 250:  # a work dir of about PATH_LEN
        deep = deep / ("d" * 200)
        deep.mkdir(exist_ok=True)
        os.chmod(deep, 0o777)
    def path(letter):
        return "/tmp/" + letter * (PATH_LEN - 5)
    script = workdir / "big.sh"
    script.write_text(f"#!/bin/sh\n#SBATCH --comment={'c' * COMMENT_LEN}\nsleep 300\n")
    os.chmod(script, 0o644)
    args = ["-H", "--chdir", str(deep), "-J", "n" * NAME_LEN, "-A", "a" * NAME_LEN,
            "--mail-user", "m" * NAME_LEN, "-i", path("i"), "-o", path("o"),
            "-e", path("e"), str(script)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        ids = list(pool.map(lambda _: submit(cluster, *args, user=test_user.pw_name),
                            range(N_JOBS)))
    return sorted(ids)


def test_a_1mb_comment_is_refused_at_submit(cluster, workdir, test_user):
    script = workdir / "huge.sh"
    script.write_text(f"#!/bin/sh\n#SBATCH --comment={'c' * 1_000_000}\ntrue\n")
    os.chmod(script, 0o644)
    r = cluster.run("sbatch", "-H", "--chdir", str(workdir), str(script),
                    user=test_user.pw_name, check=False)
    assert r.returncode != 0 and r.stdout == ""
    assert ("Batch job submission failed: Pathname of a file, directory or other parameter "
            "too long") in r.stderr, r.stderr


def comment_len(show_job):
    m = re.search(r"\bComment=(c*)", show_job)
    return len(m.group(1)) if m else None


def squeue_ids(cluster, *args, user=None):
    r = cluster.run("squeue", "-h", "-o", "%i", *args, user=user, check=False, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    return [int(x) for x in r.stdout.split()]


@pytest.mark.slow
def test_squeue_lists_every_big_job_for_root_and_the_owner(cluster, big_jobs, test_user):
    mark = cluster.log_mark()
    assert squeue_ids(cluster) == big_jobs
    # it took more than one reply: the controller cut a page
    cluster.wait_for_log(r"REQUEST_JOB_INFO uid=0: a page of \d+ jobs", since=mark)
    assert squeue_ids(cluster, user=test_user.pw_name) == big_jobs
    # the records come whole (scontrol prints the comment in full)
    out = cluster.out("scontrol", "show", "job", str(big_jobs[-1]), timeout=120)
    assert comment_len(out) == COMMENT_LEN


@pytest.mark.slow
def test_show_job_returns_that_job_alone(cluster, big_jobs, test_user):
    for user in (None, test_user.pw_name):
        out = cluster.out("scontrol", "show", "job", str(big_jobs[10]), user=user, timeout=120)
        assert out.count("JobId=") == 1, out[:300]
        assert out.startswith(f"JobId={big_jobs[10]} ")
        assert comment_len(out) == COMMENT_LEN
    # and every job, each once, in order
    out = cluster.out("scontrol", "-o", "show", "job", timeout=120)
    ids = [int(line.split()[0].removeprefix("JobId=")) for line in out.splitlines()]
    assert ids == big_jobs


@pytest.mark.slow
def test_json_listing_streams_every_big_job_in_order(cluster, big_jobs, test_user):
    # squeue --json writes each page as it comes (job_fetch_each_as)
    mark = cluster.log_mark()
    for user in (None, test_user.pw_name):
        r = cluster.run("squeue", "--json", user=user, timeout=120)
        assert r.stderr == ""
        jobs = json.loads(r.stdout)["jobs"]
        assert [j["job_id"] for j in jobs] == big_jobs
        assert all(len(j["comment"]) == COMMENT_LEN for j in jobs)
    cluster.wait_for_log(r"REQUEST_JOB_INFO uid=\d+: a page of \d+ jobs, more after JobId=\d+ "
                         r"\(streamed\)", since=mark)


def stream_reader(cluster, *args):
    r = subprocess.run([str(BUILD_DIR / "stream_reader"), *args], env=cluster.env(),
                       cwd=cluster.dir, capture_output=True, text=True,
                       timeout=120 * TIMEOUT_SCALE)
    assert r.returncode == 0, r.stderr
    return dict(kv.split("=") for kv in r.stdout.split())


def test_a_client_without_streams_still_gets_pages(cluster, big_jobs):
    # a command of before streaming (one request a page, after_job_id):
    # the 10 MB listing in two pages of at most 8 MiB
    mark = cluster.log_mark()
    got = stream_reader(cluster, "paged")
    assert got == {"pages": "2", "jobs": str(N_JOBS), "last": str(big_jobs[-1])}, got
    cluster.wait_for_log(r"REQUEST_JOB_INFO uid=0: a page of \d+ jobs, more after JobId=\d+$",
                         since=mark)


def test_a_reader_gone_mid_stream_costs_nothing(cluster, big_jobs):
    for _ in range(3):
        got = stream_reader(cluster, "gone")
        assert got["frames"] == "1" and got["last_more"] == "1", got
    # the controller dropped those streams and serves the next listing whole
    assert cluster.ping_up()
    assert squeue_ids(cluster) == big_jobs


def test_a_stalled_reader_is_closed_after_message_timeout(cluster, big_jobs):
    """A reader that stops taking pages holds one page of the controller's
    memory, no more; others are served meanwhile, and after MessageTimeout
    (10 s here) the controller closes it, before the last page."""
    mark = cluster.log_mark()
    reader = subprocess.Popen([str(BUILD_DIR / "stream_reader"), "stall", "14"],
                              env=cluster.env(), cwd=cluster.dir, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert squeue_ids(cluster) == big_jobs
        assert cluster.ping_up()
        assert reader.poll() is None  # served while the stalled stream waits
        out, err = reader.communicate(timeout=120 * TIMEOUT_SCALE)
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()
    assert reader.returncode == 0, err
    got = dict(kv.split("=") for kv in out.split())
    assert got["eof"] == "1" and got["last_more"] == "1", got
    assert int(got["bytes"]) < PAGE_BYTES, got  # far from the 10 MB listing
    cluster.wait_for_log(r"reply not taken within MessageTimeout, closing", since=mark)
    assert cluster.ping_up()


def cutting_proxy(cluster, frames):
    """A port that relays one connection to the controller and cuts it
    after the first `frames` reply frames (the controller failing in the
    middle of a streamed listing); returns (conf path using it, thread)."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    ls.settimeout(60 * TIMEOUT_SCALE)
    conf = cluster.dir / "slurm-proxy.conf"
    conf.write_text(re.sub(r"(?m)^SlurmctldPort=\d+$", f"SlurmctldPort={ls.getsockname()[1]}",
                           cluster.conf_path.read_text()))

    def frame(sock):
        head = recv_exact(sock, 4)
        body = head and recv_exact(sock, int.from_bytes(head, "big"))
        if body is None:
            raise EOFError
        return head + body

    def relay():
        with ls:
            client, _ = ls.accept()
        with client, socket.create_connection(("127.0.0.1", cluster.ctld_port)) as up:
            up.sendall(frame(client))
            for _ in range(frames):
                client.sendall(frame(up))

    t = threading.Thread(target=relay, daemon=True)
    t.start()
    return conf, t


def test_a_listing_cut_midway_leaves_an_unfinished_document(cluster, big_jobs):
    """squeue --json writes pages as they come: when the controller goes
    away after two pages the document stops unfinished, the error is on
    stderr and the exit status is 1 (docs/json.md), never a short listing
    that parses."""
    conf, relay = cutting_proxy(cluster, 2)
    r = cluster.run("squeue", "--json", check=False, env={"SLURM_CONF": str(conf)}, timeout=120)
    relay.join(timeout=10)
    assert r.returncode == 1, r.stderr
    assert "slurm_load_jobs error: " in r.stderr, r.stderr
    assert r.stdout.startswith("{\n") and f'"job_id": {big_jobs[0]},' in r.stdout
    with pytest.raises(json.JSONDecodeError):
        json.loads(r.stdout)
    # the text view gathers every page first: it prints nothing
    conf, relay = cutting_proxy(cluster, 2)
    r = cluster.run("squeue", check=False, env={"SLURM_CONF": str(conf)}, timeout=120)
    relay.join(timeout=10)
    assert r.returncode == 1 and r.stdout == "", r.stdout[:200]
    assert "slurm_load_jobs error: " in r.stderr, r.stderr


def test_ping_stays_fast_while_big_listings_are_served(cluster, big_jobs, workdir):
    listers = []
    for i, argv in enumerate([("squeue", "-o", "%i %k")] * 3 + [("scontrol", "show", "job")]):
        with open(workdir / f"lister{i}.out", "w") as out:  # megabytes each: not a pipe
            listers.append(subprocess.Popen([str(BUILD_DIR / argv[0]), *argv[1:]],
                                            stdout=out, stderr=subprocess.PIPE, text=True,
                                            env=cluster.env(), cwd=cluster.dir))
    slowest = 0.0
    try:
        deadline = time.monotonic() + 120 * TIMEOUT_SCALE
        while any(p.poll() is None for p in listers) and time.monotonic() < deadline:
            t = time.monotonic()
            r = cluster.run("scontrol", "ping", check=False, timeout=30)
            slowest = max(slowest, time.monotonic() - t)
            assert r.returncode == 0 and " is UP" in r.stdout, r.stdout + r.stderr
        for i, p in enumerate(listers):
            _, err = p.communicate(timeout=10 * TIMEOUT_SCALE)
            assert p.returncode == 0, err
            text = (workdir / f"lister{i}.out").read_text()
            assert text.count("\n") >= N_JOBS if i < 3 else len(text) > PAGE_BYTES
    finally:
        for p in listers:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert slowest < 2.0 * TIMEOUT_SCALE, f"a ping took {slowest:.2f} s"


def test_sacct_with_a_huge_node_list_is_refused_quickly(cluster, big_jobs, test_user):
    t = time.monotonic()
    r = cluster.run("sacct", "-a", "-N", "n[1-100000000]", user=test_user.pw_name, check=False)
    took = time.monotonic() - t
    assert r.returncode != 0
    assert "Argument list too long" in r.stderr, r.stderr
    assert took < 5 * TIMEOUT_SCALE
    r = cluster.run("sacct", "-N", "n[1-", user=test_user.pw_name, check=False)
    assert r.returncode != 0 and "Invalid node name specified" in r.stderr, r.stderr
    # a real list still works, and the controller is fine
    r = cluster.run("sacct", "-a", "-X", "-n", "-N", "n[1-4]", "-o", "JobID",
                    user=test_user.pw_name)
    assert r.stderr == ""
    assert cluster.ping_up()
    assert "refused: node list over 65536 hosts" in cluster.log_text()


def test_cancelled_big_jobs_are_purged_after_min_job_age_across_a_restart(
        cluster, big_jobs, test_user):
    # scancel -u loads the job list first: it must cope with more than a page
    cluster.run("scancel", "-u", test_user.pw_name, user=test_user.pw_name, timeout=120)
    def states():
        out = cluster.out("squeue", "-h", "-t", "all", "-o", "%T", timeout=120)
        return out.split()

    # the first jobs cancelled may leave (MinJobAge) before squeue sees the
    # last one cancelled: every job still listed is cancelled, none pending
    wait_for(lambda: set(states()) <= {"CANCELLED"}, timeout=60,
             what="every big job cancelled")
    # a restart before MinJobAge passed: the jobs come back from the state
    # files and still leave once they are old enough
    cluster.restart_slurmctld()
    wait_for(lambda: squeue_ids(cluster, "-t", "all") == [], timeout=MIN_JOB_AGE + 60,
             interval=1, what="the cancelled jobs purged")
    # the purge reaches the disk (a purge record follows the jobs' records
    # in the journal): a restart does not bring megabytes of ended jobs back
    cluster.restart_slurmctld()
    assert squeue_ids(cluster, "-t", "all") == []
    r = cluster.run("scontrol", "show", "job", str(big_jobs[0]), check=False)
    assert r.returncode != 0 and "Invalid job id specified" in r.stderr
    # their accounting rows were written (what the purge waited for)
    out = cluster.out("sacct", "-a", "-X", "-n", "-o", "JobID,State", "-j",
                      ",".join(map(str, big_jobs)), timeout=120)
    assert len(out.splitlines()) == N_JOBS
    assert all("CANCELLED" in line for line in out.splitlines())
