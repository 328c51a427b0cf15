"""chaos_config.py - the chaos run's cluster: four nodes of 8 CPUs,
timeouts short enough that a lost node or job is noticed within the run,
and a MinJobAge long enough that every finished job is still in the
controller when the run is checked."""

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
}
