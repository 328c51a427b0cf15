/* admin.h - controller-wide operations: reconfigure and shutdown. */
#pragma once
#include <stdbool.h>

struct ctld;
struct sl_conf;

/* c->admin: what a shutdown waits with; before anything can ask for one
 * (signals, requests). */
int admin_init(struct ctld *c);
void admin_fini(struct ctld *c); /* NULL-safe */

/* Re-read slurm.conf; a file that does not parse leaves everything as it
 * was and returns the error (logged with file:line). So does a file that
 * removes a node a running job holds (-ESLURM_NODES_BUSY) or a partition
 * with a pending or running job (-ESLURM_PARTITION_IN_USE), logged with
 * the node or partition and the job. Otherwise nodes are matched by name,
 * and the node indexes jobs and steps store follow their new places. */
int admin_reconfigure(struct ctld *c);
/* The live-job check of admin_reconfigure() for a parsed conf: 0 or the
 * refusal (logged). Changes nothing. */
int admin_reconfig_check(const struct ctld *c, const struct sl_conf *conf);
/* Save state and leave the loop; with also_slurmds, first ask every
 * registered slurmd to shut down (waiting at most MessageTimeout). */
void admin_shutdown(struct ctld *c, bool also_slurmds);
