/* launch.h - slurmd's side of job steps: start a slurmstepd for
 * REQUEST_BATCH_JOB_LAUNCH or REQUEST_LAUNCH_TASKS, and relay
 * REQUEST_SIGNAL_TASKS / REQUEST_TERMINATE_JOB / REQUEST_KILL_TIMELIMIT to
 * the stepd of one step, or of every step of the job (SL_ALL_STEPS),
 * through their unix sockets (protocol in common/stepd_proto.h).
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
/* REQUEST_LAUNCH_TASKS (from srun, any user): ESLURM_USER_ID_MISSING when
 * the sender is neither the launch's uid nor root/SlurmUser,
 * ESLURM_INVALID_NODE_NAME when it is for another node, the credential's
 * error; else as the batch launch (rc 0 once the stepd connected to srun
 * and opened the files). */
int slurmd_req_launch_tasks(struct slurmd *d, struct rpc_req *req);
/* REQUEST_SIGNAL_TASKS / REQUEST_TERMINATE_JOB / REQUEST_KILL_TIMELIMIT:
 * the stepd's rc (SL_ALL_STEPS: 0 when at least one stepd took it), or
 * ESLURM_INVALID_JOB_ID when no stepd of that job (step) runs here. */
int slurmd_req_signal_job(struct slurmd *d, struct rpc_req *req);
/* sstat: one step's live usage from its stepd (REQUEST_JOB_STEP_STAT). */
int slurmd_req_step_stat(struct slurmd *d, struct rpc_req *req);
