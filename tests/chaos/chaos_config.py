"""chaos_config.py - the chaos run's cluster: four nodes of 8 CPUs,
timeouts short enough that a lost node or job is noticed within the run,
a MinJobAge long enough that every finished job is still in the
controller when the run is checked, and a Prolog and an Epilog on every
node (their waits must survive the faults too)."""

NODES = ["n1", "n2", "n3", "n4"]
NODE_DEFAULTS = ("CPUs=8 Boards=1 SocketsPerBoard=1 CoresPerSocket=8 ThreadsPerCore=1 "
                 "RealMemory=8000")
SETTINGS = {
    "MinJobAge": 7200,
    "SlurmdTimeout": 10,
    "MessageTimeout": 5,
    "BatchStartTimeout": 3,
    "UnkillableStepTimeout": 20,
    "ReturnToService": 2,
    "KillWait": 2,
    "Prolog": "@RUN_DIR@/pe/prolog",
    "Epilog": "@RUN_DIR@/pe/epilog",
}

# What the Prolog and Epilog run: a mark of each run, on the node's spool.
NODE_SCRIPT = """#!/bin/sh
echo "$SLURM_SCRIPT_CONTEXT $SLURM_JOB_ID" >> "$(dirname "$0")/runs.$SLURMD_NODENAME"
"""
