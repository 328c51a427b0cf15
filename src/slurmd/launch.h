/* launch.h - slurmd's side of job steps: start a slurmstepd for
 * REQUEST_BATCH_JOB_LAUNCH, and relay REQUEST_SIGNAL_TASKS /
 * REQUEST_TERMINATE_JOB / REQUEST_KILL_TIMELIMIT to the job's stepd
 * through its unix socket (protocol in slurmstepd/stepd_proto.h).
 *
 * Both handlers answer later (the rpc_req is kept): the launch once the
 * stepd said it started, a signal once the stepd acknowledged it. Neither
 * blocks the loop beyond writing the launch frame into the stepd's pipe.
 */
#pragma once

struct slurmd;
struct rpc_req;

/* Subsystem: spool dir and slurmstepd path (next to the slurmd binary). */
int slurmd_launch_init(struct slurmd *d);
/* Answers every request still waiting (with an error) and frees them. */
void slurmd_launch_fini(struct slurmd *d);

/* REQUEST_BATCH_JOB_LAUNCH: rc 0 once the stepd runs the script's setup
 * and confirmed; its error otherwise (e.g. ESLURMD_IO_ERROR when an
 * output file cannot be opened, ESLURMD_STEP_EXISTS for a duplicate). */
int slurmd_req_batch_launch(struct slurmd *d, struct rpc_req *req);
/* REQUEST_SIGNAL_TASKS / REQUEST_TERMINATE_JOB / REQUEST_KILL_TIMELIMIT:
 * the stepd's rc, or ESLURM_INVALID_JOB_ID when no stepd of that job runs
 * on this node. */
int slurmd_req_signal_job(struct slurmd *d, struct rpc_req *req);
