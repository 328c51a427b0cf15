/* health.h - the node's health check (slurm.conf HealthCheckProgram=),
 * run by slurmd as its own user (root) when it starts and whenever the
 * controller sends REQUEST_HEALTH_CHECK (every HealthCheckInterval, to
 * the nodes HealthCheckNodeState names). The program does what it finds
 * needed itself (LBNL NHC drains the node with scontrol); slurmd only
 * logs a failure. One run at a time; a run past HEALTH_TIMEOUT_S is
 * killed with its whole session; its output is read and dropped past
 * HEALTH_OUTPUT_KEEP bytes (the start of it is logged on a failure).
 */
#pragma once

struct slurmd;
struct rpc_req;

#define HEALTH_TIMEOUT_S   60	/* as Slurm's slurmd */
#define HEALTH_OUTPUT_KEEP 1024 /* bytes of output kept for the log */

/* Starts the first run (when a program is configured). */
int slurmd_health_init(struct slurmd *d);
/* Kills a run in progress. */
void slurmd_health_fini(struct slurmd *d);
/* From SIGCHLD: the run that ended. */
void slurmd_health_reap(struct slurmd *d);
/* REQUEST_HEALTH_CHECK: a run starts (unless one runs); rc 0 at once. */
int slurmd_req_health_check(struct slurmd *d, struct rpc_req *req);
