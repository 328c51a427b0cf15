/* node_ping.h - is each node alive? The ping timer: every SlurmdTimeout/3
 * seconds ask each node for a ping (or, while it has not registered since
 * we started, for its registration); no answer for SlurmdTimeout sets it
 * DOWN and its jobs end. Registrations, asked for or not, land here too.
 */
#pragma once
#include <time.h>

struct ctld;
struct node_reg_msg;

int node_ping_start(struct ctld *c);  /* first round right away */
/* From the timer: ping now each node whose reconciliation waits for a
 * launch grace that has ended (node->recheck_time). */
void node_ping_rechecks(struct ctld *c, time_t now);
void node_ping_stop(struct ctld *c);
/* A registration arrived (MESSAGE_NODE_REGISTRATION_STATUS, or the answer
 * to our request sent at `asked`): applied to the node, its state saved
 * when it changed, what it runs reconciled (node_reconcile.h).
 * 0 or ESLURM_INVALID_NODE_NAME. */
int node_ping_registered(struct ctld *c, const struct node_reg_msg *m, time_t asked);
