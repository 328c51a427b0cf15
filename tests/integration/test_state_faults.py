"""Disk and state faults of the controller.

* StateSaveLocation full: submissions and other state changes are refused
  with ESLURM_WRITING_TO_FILE, reads go on, a submission caught by the
  failing write is refused at once (its job cancelled, never run), and the
  controller recovers by itself once there is space ("StateSaveLocation
  writable again"). The state directory is a small tmpfs; where mounting
  one is not allowed (no CAP_SYS_ADMIN) that test is skipped, and
  tests/unit/test_durable.c covers the same with injected write failures.
* A journal whose last record was cut short by a crash starts, dropping
  that record with a log line naming the file and the offset; one damaged
  before its end does not start, with a message naming the file, -i and
  the jobs that would be lost;
  with -i it starts and the file is kept as job_journal.bad.<time>. The
  same for a corrupt node_state.
* scontrol reconfigure with a slurm.conf that removes a node a running job
  holds, or a partition with a pending job, is refused (the controller
  keeps its configuration and its jobs); once those jobs are gone the same
  file is taken (docs/differences.md).
"""

import errno
import os
import re
import signal
import struct
import subprocess

import pytest

from cluster import Cluster, submit, wait_for, wait_state

SETTINGS = {"MessageTimeout": 10}
HDR = 8  # journal record: u32 length, u32 CRC32C, payload


def journal_records(path):
    """[(offset, length of header + payload)] of the journal's records."""
    data = path.read_bytes()
    recs, off = [], 0
    while off + HDR <= len(data):
        (n,) = struct.unpack(">I", data[off:off + 4])
        if n == 0 or off + HDR + n > len(data):
            break
        recs.append((off, HDR + n))
        off += HDR + n
    assert off == len(data), f"{path}: {len(data) - off} bytes after the last record"
    return recs


def job_ids(c):
    return {int(x) for x in c.out("squeue", "-h", "-o", "%i").split()}


def start_fails(c, *flags):
    """Start slurmctld (with flags), expect it to exit non-zero; returns the
    log mark from before the start."""
    mark = c.log_mark()
    c.start_slurmctld_with(*flags, wait=False)
    status = c.wait_exited(["slurmctld"], timeout=10)["slurmctld"]
    assert status not in (0, None), f"slurmctld exit status {status} (None: still running)"
    return mark


# ----- journal: torn tail, corruption ------------------------------------------


def test_a_journal_cut_short_by_a_crash_drops_the_torn_record_and_starts(fresh_cluster):
    c = fresh_cluster(nodes=["n1"], settings=SETTINGS)
    journal = c.dir / "state" / "job_journal"
    ids = [submit(c, "-H", "--wrap", "true") for _ in range(3)]
    c.kill_slurmctld(signal.SIGKILL)
    last_off, last_len = journal_records(journal)[-1]
    size = journal.stat().st_size
    os.truncate(journal, size - 3)  # the last append: its CRC'd payload cut short

    mark = c.log_mark()
    c.start_slurmctld()
    line = c.wait_for_log(r"torn last record", since=mark)
    assert f"{journal}:" in line and f"at offset {last_off}:" in line, line
    assert f"of {last_len - 3} bytes" in line, line
    # the last record is the id counter written with the last job: all jobs are back
    assert set(ids) <= job_ids(c)
    new = submit(c, "-H", "--wrap", "true")
    assert new > max(ids)
    c.restart_slurmctld(signal.SIGKILL)
    assert set(ids + [new]) <= job_ids(c)


def test_a_journal_damaged_before_its_end_stops_the_start_until_i(fresh_cluster):
    c = fresh_cluster(nodes=["n1"], settings=SETTINGS)
    journal = c.dir / "state" / "job_journal"
    first = submit(c, "-H", "--wrap", "true")
    later = [submit(c, "-H", "--wrap", "true") for _ in range(2)]
    c.kill_slurmctld(signal.SIGKILL)
    recs = journal_records(journal)
    data = bytearray(journal.read_bytes())
    # a byte in the payload of the record after the first job's (type 1),
    # with the later jobs' records after it
    first_job = next(i for i, (off, _) in enumerate(recs) if data[off + HDR] == 1)
    off, _ = recs[first_job + 1]
    data[off + HDR + 1] ^= 0x40
    journal.write_bytes(bytes(data))

    mark = start_fails(c)
    line = c.wait_for_log(r"fatal: job journal", since=mark)
    assert f"{journal}: corrupt at offset {off}" in line, line
    assert "slurmctld will not start" in line and "with -i" in line, line
    # the admin is told which jobs a start with -i would lose
    assert later == [later[0], later[0] + 1], later
    lost = f"jobs lost (named by records past the damage): {later[0]}-{later[1]}"
    assert line.endswith(lost), line
    assert journal.read_bytes() == bytes(data)  # left as it was
    assert not list(journal.parent.glob("job_journal.bad.*"))

    c.start_slurmctld_with("-i")
    c.wait_for_log(r"job journal: -i: " + re.escape(lost), since=mark)
    line = c.wait_for_log(r"-i: the file is kept as", since=mark)
    kept = list(journal.parent.glob("job_journal.bad.*"))
    assert len(kept) == 1 and str(kept[0]) in line, (kept, line)
    assert kept[0].read_bytes() == bytes(data)  # set aside, never rewritten
    have = job_ids(c)
    assert first in have and not set(later) & have, have  # what preceded the damage
    # and it goes on: a new job gets an id past every one handed out before
    # (those of the unreadable part included), and the new log replays
    new = submit(c, "-H", "--wrap", "true")
    assert new > max(later), (new, later)
    c.restart_slurmctld(signal.SIGKILL)
    assert {first, new} <= job_ids(c)


def test_a_corrupt_node_state_stops_the_start_and_i_sets_it_aside(fresh_cluster):
    c = fresh_cluster(nodes=["n1", "n2"], settings=SETTINGS)
    state = c.dir / "state" / "node_state"
    r = c.run("scontrol", "update", "NodeName=n1", "State=DRAIN", "Reason=kept drain",
              check=False)
    assert r.returncode == 0, r.stderr
    c.kill_slurmctld(signal.SIGTERM)
    data = bytearray(state.read_bytes())
    data[len(data) // 2] ^= 0x01  # the SHA-256 trailer no longer matches
    state.write_bytes(bytes(data))

    mark = start_fails(c)
    line = c.wait_for_log(r"fatal: .*node_state cannot be read", since=mark)
    assert str(state) in line and "bad SHA-256" in line and "with -i" in line, line
    assert state.read_bytes() == bytes(data)

    c.start_slurmctld_with("-i")
    line = c.wait_for_log(r"node_state unreadable, ignored \(-i\)", since=mark)
    kept = list(state.parent.glob("node_state.bad.*"))
    assert len(kept) == 1 and str(kept[0]) in line, (kept, line)
    assert kept[0].read_bytes() == bytes(data)
    c.wait_all_idle()  # n1's drain was in the unreadable file
    assert "Reason" not in c.show_node("n1")


# ----- StateSaveLocation full --------------------------------------------------


@pytest.fixture
def mounts():
    """Mount points to unmount after the test (after its clusters stop:
    requested before fresh_cluster, so torn down after it)."""
    points = []
    yield points
    for p in reversed(points):
        subprocess.run(["umount", "-l", str(p)], check=False)


def tmpfs_cluster(mounts, size):
    """A one-node cluster whose StateSaveLocation is a tmpfs of size."""
    c = Cluster(nodes=["n1"], settings=SETTINGS, name="statefull")
    c.write_config()
    state = c.dir / "state"
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs",
                        str(state)], capture_output=True, text=True)
    if r.returncode != 0:
        c.cleanup()
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip()}); "
                    "tests/unit/test_durable.c injects the same failures")
    mounts.append(state)
    return c


def fill(path):
    """Write path until the file system is full."""
    chunk = b"x" * 65536
    with open(path, "wb", buffering=0) as f:
        while True:
            try:
                f.write(chunk)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                if len(chunk) == 1:
                    return
                chunk = chunk[:len(chunk) // 2]


def test_a_full_state_save_location_refuses_changes_and_recovers(mounts, fresh_cluster,
                                                                  tmp_path):
    c = fresh_cluster(make=lambda: tmpfs_cluster(mounts, "4m"))
    os.chmod(tmp_path, 0o777)
    before = submit(c, "-H", "-D", tmp_path, "--wrap", "true")
    filler = c.dir / "state" / "filler"
    fill(filler)

    # submissions go on until one's record does not fit: its commit fails,
    # and that sbatch is told so at once (not left waiting into a timeout,
    # after which it would submit again); its job is cancelled, never run
    mark = c.log_mark()
    refused = None
    printed = [before]
    for _ in range(50):
        r = c.run("sbatch", "--parsable", "-H", "-D", tmp_path, "--wrap", "true",
                  check=False, timeout=10)
        if r.returncode != 0:
            refused = r
            break
        printed.append(int(r.stdout))
    assert refused is not None, "the full file system never failed a journal write"
    assert refused.stdout == "", refused
    assert ("Batch job submission failed: I/O error writing script/environment to file"
            in refused.stderr), refused.stderr
    line = c.wait_for_log(r"StateSaveLocation .* cannot write the job journal", since=mark)
    assert "No space left on device; job submissions" in line, line
    line = c.wait_for_log(r"JobId=\d+: submission refused, its record could not be saved",
                          since=mark)
    lost = int(re.search(r"JobId=(\d+)", line)[1])
    assert lost not in printed

    # what would change saved state is refused at once, with Slurm's code
    r = c.run("sbatch", "-H", "-D", tmp_path, "--wrap", "true", check=False, timeout=5)
    assert r.returncode != 0 and r.stdout == "", r
    assert "I/O error writing script/environment to file" in r.stderr, r.stderr
    r = c.run("scancel", str(before), check=False, timeout=5)
    assert "I/O error writing script/environment to file" in r.stderr, r.stderr
    # reads go on
    assert set(printed) <= job_ids(c)
    assert c.run("sinfo", timeout=5).returncode == 0
    assert c.out("scontrol", "show", "job", str(before), timeout=5)

    filler.unlink()  # space is back: what was pending is written
    c.wait_for_log(r"StateSaveLocation \S+ writable again", since=mark, timeout=10)
    printed.append(submit(c, "-H", "-D", tmp_path, "--wrap", "true"))
    assert job_state(c, before) == "PENDING"  # the refused scancel changed nothing
    assert job_state(c, lost) == "CANCELLED"  # the refused submission never runs

    # nothing acknowledged was lost, nothing refused came back to run
    c.restart_slurmctld(signal.SIGKILL)
    assert set(printed) <= job_ids(c)
    assert lost not in job_ids(c) or job_state(c, lost) == "CANCELLED"


def log_since(c, mark):
    """The controller's log file written after mark (log_mark())."""
    f = c.dir / "log" / "slurmctld.log"
    with open(f, "rb") as fh:
        fh.seek(mark.get(f.name, 0))
        return fh.read().decode(errors="replace")


def node_names(c):
    return re.findall(r"^NodeName=(\S+)", c.out("scontrol", "show", "node"), re.M)


def job_state(c, job_id):
    return re.search(r"JobState=(\S+)", c.out("scontrol", "show", "job", str(job_id)))[1]


# ----- reconfigure against live jobs -------------------------------------------


def test_reconfigure_refuses_to_remove_a_busy_node_or_partition(fresh_cluster, tmp_path):
    c = fresh_cluster(nodes=["n1", "n2", "n3"], settings=SETTINGS,
                      partitions=["debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP",
                                  "extra Nodes=n3 MaxTime=INFINITE State=UP"])
    os.chmod(tmp_path, 0o777)
    run = submit(c, "-w", "n2", "-D", tmp_path, "--wrap", "sleep 300")
    wait_state(c, run, "RUNNING")
    pend = submit(c, "-p", "extra", "-H", "-D", tmp_path, "--wrap", "true")
    old_conf = c.conf_path.read_text()
    lines = [line for line in old_conf.splitlines()
             if not line.startswith(("NodeName=n2 ", "PartitionName=extra "))]
    c.conf_path.write_text("\n".join(lines).replace("Nodes=n1,n2", "Nodes=n1") + "\n")

    mark = c.log_mark()
    r = c.run("scontrol", "reconfigure", check=False)
    assert r.returncode != 0, r
    assert "slurm_reconfigure error: Requested nodes are busy" in r.stderr, r.stderr
    line = c.wait_for_log(r"reconfigure refused", since=mark)
    assert f"node n2 has running job {run}" in line, line
    # alive, and nothing changed
    assert c.run("scontrol", "ping").returncode == 0
    assert node_names(c) == ["n1", "n2", "n3"]
    assert job_state(c, run) == "RUNNING"

    c.run("scancel", str(run))
    wait_state(c, run, "CANCELLED")
    r = c.run("scontrol", "reconfigure", check=False)
    assert "slurm_reconfigure error: Partition is in use" in r.stderr, r.stderr
    c.wait_for_log(rf"partition extra has pending job {pend}", since=mark)
    assert job_state(c, pend) == "PENDING"
    assert "extra" in c.out("sinfo", "-h", "-o", "%P").split()

    c.run("scancel", str(pend))
    r = c.run("scontrol", "reconfigure", check=False)
    assert r.returncode == 0, r.stderr
    assert node_names(c) == ["n1", "n3"]
    assert c.out("sinfo", "-h", "-o", "%P").split() == ["debug*"]
    # the finished jobs are still shown, and the controller goes on
    assert job_state(c, run) == "CANCELLED" and job_state(c, pend) == "CANCELLED"
    j = submit(c, "-D", tmp_path, "--wrap", "true")
    wait_state(c, j, "COMPLETED")
