#!/usr/bin/env python3
"""Capture seed corpora for the fuzz targets from real traffic: a
one-node loopback cluster (tests/integration/cluster.py, as root) runs
sbatch, srun, squeue, scontrol and scancel while strace records every
write of the daemons and commands; the bytes are cut into the inputs
each target takes and written to tests/fuzz/corpus/<target>/<sha1>.

  frame        each RPC frame a command or daemon sent (u32 length + frame)
  unpack       its type's table index byte + its body (fuzz_unpack's form)
  stepd_proto  slurmd's launch frames to the stepd (a first byte 0) and
               the control requests on the stepd's socket (first byte 1)
  io_stream    the bytes srun sent to the stepds (first byte 0) and the
               stepds to srun (first byte 1)
  journal      the controller's job_journal after the run (first byte 0)
  sbatch_script the scripts submitted

Usage: sudo tests/fuzz/capture_seeds.py  (needs a build in ./build and strace).
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "integration"))
from cluster import Cluster, submit, wait_state  # noqa: E402

CORPUS = REPO / "tests" / "fuzz" / "corpus"
LINE = re.compile(r'^(\d+) +(write|sendto|sendmsg|writev|read|recvfrom)\((\d+)<(.*?)>, (.*)\) += (\d+)')
HEX = re.compile(r'\\x([0-9a-f]{2})')


def save(target, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def transfers(trace):
    """(pid, fd description, is_read, bytes) of each traced read or write."""
    for line in Path(trace).read_text(errors="replace").splitlines():
        m = LINE.match(line)
        if not m:
            continue
        strs = re.findall(r'"((?:\\x[0-9a-f]{2})*)"', m.group(5))
        data = b"".join(bytes(int(h, 16) for h in HEX.findall(s)) for s in strs)
        if data:
            desc = HEX.sub(lambda x: chr(int(x.group(1), 16)), m.group(4))  # pipe:[..], paths
            yield int(m.group(1)), desc, m.group(2) in ("read", "recvfrom"), data


def table_types():
    """Message type numbers in msg_table.c's order."""
    src = REPO / "src" / "common"
    values = dict(re.findall(r"^\s*([A-Z_0-9]+) = (\d+),", (src / "msg_types.h").read_text(), re.M))
    names = re.findall(r"^\s*MSG\(([A-Z_0-9]+),", (src / "msg_table.c").read_text(), re.M)
    return [int(values[n]) for n in names]


def save_unpack(f):
    """fuzz_unpack's form of an RPC frame: the index of its type in the
    message table, then the body (the bytes after the credential)."""
    types = table_types()
    mtype = int.from_bytes(f[8:10], "big")
    body_len = int.from_bytes(f[10:14], "big")
    if mtype in types and 18 + body_len <= len(f):
        save("unpack", bytes([types.index(mtype)]) + f[len(f) - body_len:])


def frames(stream):
    """Cut u32-length-prefixed frames out of a byte stream."""
    out, off = [], 0
    while len(stream) - off >= 4:
        n = int.from_bytes(stream[off:off + 4], "big")
        if n > len(stream) - off - 4:
            break
        out.append(stream[off:off + 4 + n])
        off += 4 + n
    return out


def main():
    c = Cluster(nodes=("n1",), name="seeds")
    c.start()
    trace = tempfile.mktemp(prefix="sl-seeds-", suffix=".trace")
    pids = [str(p.pid) for n, p in c.procs.items() if n.startswith("slurm")]
    tracer = subprocess.Popen(["strace", "-f", "-qq", "-xx", "-yy", "-s", "1000000",
                               "-e", "trace=write,sendto,sendmsg,writev,read,recvfrom", "-o", trace]
                              + [a for p in pids for a in ("-p", p)])
    work = tempfile.mkdtemp(prefix="sl-seeds-work-", dir="/tmp")
    os.chmod(work, 0o777)
    scripts = [
        "#!/bin/bash\n#SBATCH -J seed --mem=100 -t 1:00\n#SBATCH --array=0-3%2\necho hi\n",
        "#!/bin/sh\n#SBATCH --output=out-%j-%a.txt -e 'err %x.txt'\n#SBATCH -N1 \\\n"
        "# comment\nsrun -l hostname\n",
    ]
    try:
        for i, s in enumerate(scripts):
            p = Path(work) / f"s{i}.sh"
            p.write_text(s)
            save("sbatch_script", s.encode())
            job_id = submit(c, "-D", work, str(p))
            wait_state(c, job_id, ("COMPLETED", "FAILED"), timeout=30)
        c.run("srun", "-l", "-n2", "sh", "-c", "cat; echo out; echo err >&2",
              input="stdin line\n", timeout=30)
        c.run("squeue")
        c.run("scontrol", "show", "job")
        job_id = submit(c, "-D", work, "--wrap", "sleep 30")
        wait_state(c, job_id, "RUNNING")
        c.run("scancel", str(job_id))
        wait_state(c, job_id, ("CANCELLED", "COMPLETED"))
    finally:
        tracer.terminate()
        tracer.wait()
        journal = (c.dir / "state" / "job_journal").read_bytes()
        c.stop()
        c.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    save("journal", b"\x00" + journal)
    streams = {}
    for pid, desc, is_read, data in transfers(trace):
        streams.setdefault((pid, desc, is_read), bytearray()).extend(data)
    rpc_ports = {c.ctld_port, *c.node_ports.values()}
    for (pid, desc, is_read), data in streams.items():
        data = bytes(data)
        if desc.startswith("TCP:"):
            ports = {int(x) for x in re.findall(r":(\d+)(?:->|\]|$)", desc)}
            if ports & rpc_ports:
                for f in frames(data):
                    save("frame", f)
                    save_unpack(f)
            elif is_read:  # the stepd reading srun's stdin and signals
                save("io_stream", b"\x00" + data[:1 << 18])
            else:  # the stepd's output frames to srun, with and without -l
                save("io_stream", b"\x01" + data[:1 << 18])
                save("io_stream", b"\x03" + data[:1 << 18])
        elif is_read:
            continue
        elif desc.startswith("pipe:") or desc.startswith("UNIX"):
            for f in frames(data):
                if len(f) > 8 and f[4:6] == (9728).to_bytes(2, "big"):
                    save("stepd_proto", (b"\x00" if desc.startswith("pipe:") else b"\x01") + f)
    if os.environ.get("SEEDS_KEEP_TRACE"):
        print(f"trace kept in {trace}")
    else:
        os.unlink(trace)
    print(f"seeds written under {CORPUS}")


if __name__ == "__main__":
    main()
