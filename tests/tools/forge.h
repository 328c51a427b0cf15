/* forge.h - what the attack tools (launch_forge, pmi_forge) share: a
 * one-task step of the user's own job created as srun creates it, the
 * launch srun would send its node, and a listener for the stepd's I/O
 * connection. Every call dies with "<forge_tool>: what: error" on failure.
 */
#pragma once
#include <stdint.h>

#include "common/conf.h"
#include "common/msg.h"

extern const char *forge_tool; /* the program's name, for forge_die */

_Noreturn void forge_die(const char *what, int r);

/* REQUEST_JOB_STEP_CREATE of one overlapping task of job_id on node. */
struct step_create_resp *forge_step_create(const struct sl_conf *conf, uint32_t job_id,
					   const char *node);

/* The launch srun sends the step's only node (srun_step.c fill_launch);
 * it points into r, argv, env and gtid, which must outlive it. */
void forge_fill_launch(struct launch_tasks_msg *m, const struct step_create_resp *r, uint32_t *gtid,
		       char **argv, int argc, char **env, uint32_t env_count, uint16_t io_port);

/* REQUEST_LAUNCH_TASKS to node's slurmd: 0 or its -code. */
int forge_send_launch(const struct sl_conf *conf, const char *node,
		      const struct launch_tasks_msg *m);

/* A loopback listener on a free port for the stepd's I/O connection. */
int forge_io_listen(int *ret_fd, uint16_t *ret_port);

/* Wait (up to 2 minutes) for the file gate to exist; NULL: no wait. */
void forge_wait_gate(const char *gate);
