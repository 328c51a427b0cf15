/* node_ping.h - is each node alive? The ping timer: every SlurmdTimeout/3
 * seconds ask each node for a ping (or, while it has not registered since
 * we started, for its registration); no answer for SlurmdTimeout sets it
 * DOWN and its jobs end. Each round is spread over its interval, node by
 * node in config order. Registrations, asked for or not, land here too.
 */
#pragma once
#include <stdint.h>
#include <time.h>

struct ctld;
struct node_reg_msg;

int node_ping_start(struct ctld *c); /* first round now, spread over 1 s */
/* From the timer: ping now each node whose reconciliation waits for a
 * launch grace that has ended (node->recheck_time). */
void node_ping_rechecks(struct ctld *c, time_t now);
void node_ping_stop(struct ctld *c);
/* A registration arrived (MESSAGE_NODE_REGISTRATION_STATUS, or the answer
 * to our request sent at `asked`): applied to the node, its state saved
 * when it changed, what it runs reconciled (node_reconcile.h).
 * 0 or ESLURM_INVALID_NODE_NAME. */
int node_ping_registered(struct ctld *c, const struct node_reg_msg *m, time_t asked);

/* ---- exposed for unit testing only ---------------------------------- */

#define NODE_PING_FIRST_ROUND_MS 1000u /* the round right after start */
#define NODE_PING_TICK_MIN_MS	 100u
#define NODE_PING_TICK_MAX_MS	 1000u

/* The nodes due at tick (0-based) of a round of ticks ticks over node_count
 * nodes: [*ret_first, *ret_end), node i at tick i * ticks / node_count
 * (rounded down). Over a round each node is due exactly once, in order;
 * a tick past the round has none. */
void node_ping_slice(uint32_t node_count, uint32_t ticks, uint32_t tick, uint32_t *ret_first,
		     uint32_t *ret_end);
/* Tick length for a round of round_ms over node_count nodes: about one
 * node a tick, within NODE_PING_TICK_MIN_MS..MAX_MS and at most round_ms. */
unsigned node_ping_tick_ms(unsigned round_ms, uint32_t node_count);
