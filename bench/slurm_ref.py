"""slurm_ref.py - the same private, reference-shaped cluster as
benchlib.start_reference(), run by Slurm 22.05 from Debian's packages
(slurm-wlm: /usr/sbin/slurmctld, slurmd; slurm-client: /usr/bin/sbatch
and the other commands) instead of our build, so that a benchmark runs
the same workload against both in one run.

The cluster is the integration harness's Cluster.like_reference() (its
own munged, free ports, a temporary directory, every process stopped by
pid) with two settings changed, because a private cluster has no
slurmdbd: AccountingStorageType=accounting_storage/none (Slurm then has
no sacct; jobcomp/filetxt still records every job's end) and no
AccountingStorageTRES. Our build keeps its embedded store in the same
benchmark, which is work Slurm does not do here: ratios err against us.
"""

import re
from pathlib import Path

SLURM_BIN = Path("/usr/bin")
SLURM_SBIN = Path("/usr/sbin")

OVERRIDES = {"AccountingStorageType": "accounting_storage/none"}
DROP = ("AccountingStorageHost", "AccountingStoragePort", "AccountingStorageTRES")


def installed():
    """Why Slurm cannot run here, or None when it can."""
    for p in (SLURM_SBIN / "slurmctld", SLURM_SBIN / "slurmd", SLURM_SBIN / "slurmstepd",
              SLURM_BIN / "sbatch", SLURM_BIN / "squeue"):
        if not p.exists():
            return (f"no {p}: install Debian's slurm-wlm and slurm-client "
                    "(apt-get install slurm-wlm slurm-client)")
    return None


def cluster(h, name, nodes=None, settings=None):
    """A Cluster of module h (tests/integration/cluster.py) configured like
    the reference, or with nodes (names: one partition of them all, as
    the harness makes it) and settings, running Debian's Slurm; not
    started."""
    why = installed()
    if why:
        raise SystemExit(why)
    if nodes is None:
        c = h.Cluster.like_reference(name=name, overrides=OVERRIDES)
    else:
        c = h.Cluster(nodes=nodes, name=name, settings={**(settings or {}), **OVERRIDES})
    c.conf_text = "".join(line + "\n" for line in c.conf_text.splitlines()
                          if not line.startswith(DROP))
    c.bin_dir, c.sbin_dir = SLURM_BIN, SLURM_SBIN
    c.is_slurm = True
    return c


def jobcomp_states(c):
    """{job id: JobState} from the cluster's jobcomp/filetxt log (Slurm's
    record of every ended job when it has no accounting)."""
    m = re.search(r"(?m)^JobCompLoc=(\S+)", c.conf_text)
    states = {}
    if not m or not Path(m.group(1)).exists():
        return states
    for line in Path(m.group(1)).read_text(errors="replace").splitlines():
        job = re.search(r"\bJobId=(\d+)\b", line)
        state = re.search(r"\bJobState=(\S+)", line)
        if job and state:
            states[int(job.group(1))] = state.group(1)
    return states
