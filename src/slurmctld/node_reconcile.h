/* node_reconcile.h - a node's list of what it runs (registration, ping
 * reply) against what the controller believes runs there:
 *  - a batch job whose node has neither its slurmstepd nor its completion
 *    ends as on a lost node (requeued, else NODE_FAIL); one already told
 *    to stop (COMPLETING) ends now, as if killed there;
 *  - a step the node no longer has ends there (killed);
 *  - a job or step the node runs that the controller does not know, or
 *    knows as ended or elsewhere, is killed on that node;
 *  - a job COMPLETING whose stepd is still there is sent its kill again
 *    (one lost to a slurmd restart); after UnkillableStepTimeout it drains
 *    the node ("Kill task failed") and ends.
 * Calls down into job_end and step; node_ping.c calls it.
 */
#pragma once
#include <stdint.h>
#include <time.h>

struct ctld;
struct node;
struct node_step_ref;

/* asked: when the node was asked (what started after that may be missing
 * from its answer). What was too young to judge sets n->recheck_time:
 * node_ping_rechecks() asks the node again then. */
void node_reconcile(struct ctld *c, struct node *n, const struct node_step_ref *steps,
		    uint32_t count, time_t asked);
