/* node_ping.c - see node_ping.h. Replies come back on the loop through
 * rpc_async; a node with a ping in flight is not pinged again.
 *
 * A round is spread over its interval: a timer ticks every 100 ms to 1 s
 * (about interval / node count) and each tick pings the nodes whose turn
 * has come (node_ping_slice), so at 1,000 nodes munged and the loop see a
 * few pings every tick, not 1,000 signings at once. The first round after
 * start takes NODE_PING_FIRST_ROUND_MS, so nodes register quickly.
 */
#include "node_ping.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld.h"
#include "job_end.h"
#include "node.h"
#include "node_reconcile.h"
#include "node_state.h"

/* Where the spread ping round stands. */
struct node_ping {
	struct event *timer;
	uint32_t tick;	     /* ticks done in the current round */
	bool is_first_round; /* the quick round right after start */
};

struct ping_arg {
	struct ctld *c;
	char name[SL_NAME_MAX]; /* by name: a reconfigure may move the record */
	time_t asked;
};

static unsigned ping_interval(const struct ctld *c)
{
	unsigned t = c->conf->slurmd_timeout ? c->conf->slurmd_timeout / 3 : 100;

	return t ? t : 1;
}

static void ping_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	struct ping_arg *a = arg;
	struct ctld *c = a->c;
	struct node *n = node_find(c, a->name);
	time_t now = time(NULL), asked = a->asked;

	free(a);
	if (!n)
		return;
	n->is_ping_in_flight = false;
	if (c->is_shutting_down)
		return;
	if (rc < 0) {
		debug("ping of node %s failed: %d", node_name(n), rc);
		if (node_no_response(c, n, now)) {
			node_state_save(c);
			job_end_node_down(c, (uint32_t)(n - c->nodes));
		}
		return;
	}
	if (type == RESPONSE_PING_SLURMD) {
		const struct ping_slurmd_msg *p = msg;

		node_responded(c, n, p->cpu_load, p->free_mem, now);
		node_reconcile(c, n, p->steps, p->step_count, asked);
	} else if (type == MESSAGE_NODE_REGISTRATION_STATUS) {
		node_ping_registered(c, msg, asked);
	} else {
		node_responded(c, n, n->cpu_load, n->free_mem, now);
	}
}

int node_ping_registered(struct ctld *c, const struct node_reg_msg *m, time_t asked)
{
	struct node *n = m->node_name ? node_find(c, m->node_name) : NULL;

	if (!n) {
		error("Node registration from unknown node %s", m->node_name ? m->node_name : "?");
		return -ESLURM_INVALID_NODE_NAME;
	}
	if (node_register(c, n, m, time(NULL)))
		node_state_save(c);
	node_reconcile(c, n, m->steps, m->step_count, asked);
	return 0;
}

static void ping_node(struct ctld *c, struct node *n)
{
	struct empty_msg m = { 0 };
	struct ping_arg *a;
	uint16_t type = n->is_registered ? REQUEST_PING : REQUEST_NODE_REGISTRATION_STATUS;

	a = calloc(1, sizeof(*a));
	if (!a)
		return;
	a->c = c;
	a->asked = time(NULL);
	snprintf(a->name, sizeof(a->name), "%s", node_name(n));
	if (ctld_send_node(c, n, type, &m, ping_done_cb, a) < 0) {
		free(a);
		if (node_no_response(c, n, time(NULL))) {
			node_state_save(c);
			job_end_node_down(c, (uint32_t)(n - c->nodes));
		}
		return;
	}
	n->is_ping_in_flight = true;
}

void node_ping_slice(uint32_t node_count, uint32_t ticks, uint32_t tick, uint32_t *ret_first,
		     uint32_t *ret_end)
{
	/* node i is due at tick floor(i * ticks / node_count): the first node
	 * due at or after tick t is ceil(t * node_count / ticks) */
	if (ticks == 0 || tick >= ticks) {
		*ret_first = *ret_end = node_count;
		return;
	}
	*ret_first = (uint32_t)(((uint64_t)tick * node_count + ticks - 1) / ticks);
	*ret_end = (uint32_t)(((uint64_t)(tick + 1) * node_count + ticks - 1) / ticks);
}

unsigned node_ping_tick_ms(unsigned round_ms, uint32_t node_count)
{
	unsigned t = node_count ? round_ms / node_count : round_ms;

	if (t < NODE_PING_TICK_MIN_MS)
		t = NODE_PING_TICK_MIN_MS;
	if (t > NODE_PING_TICK_MAX_MS)
		t = NODE_PING_TICK_MAX_MS;
	return t < round_ms ? t : (round_ms ? round_ms : 1);
}

/* One tick of the round: ping the nodes whose turn has come, in config
 * order. A reconfigure that changes the node count or the interval only
 * shifts the turns of the round in progress. */
static void ping_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	struct node_ping *p = c->ping;
	unsigned round_ms = p->is_first_round ? NODE_PING_FIRST_ROUND_MS : ping_interval(c) * 1000u;
	unsigned tick_ms = node_ping_tick_ms(round_ms, c->node_count);
	uint32_t ticks = round_ms / tick_ms, first, end;
	struct timeval tv = {.tv_sec = tick_ms / 1000, .tv_usec = (tick_ms % 1000) * 1000};

	(void)fd;
	(void)what;
	node_ping_slice(c->node_count, ticks, p->tick, &first, &end);
	for (uint32_t i = first; i < end && !c->is_shutting_down; i++) {
		struct node *n = &c->nodes[i];

		if ((n->state & NODE_STATE_BASE) == NODE_STATE_FUTURE || n->is_ping_in_flight)
			continue;
		ping_node(c, n);
	}
	if (++p->tick >= ticks) {
		p->tick = 0;
		p->is_first_round = false;
	}
	evtimer_add(p->timer, &tv);
}

int node_ping_start(struct ctld *c)
{
	struct timeval now = { 0 };
	struct node_ping *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	c->ping = p; /* node_ping_stop frees what a failed start left */
	p->timer = evtimer_new(c->base, ping_timer_cb, c);
	if (!p->timer)
		return -1;
	p->is_first_round = true;
	return evtimer_add(p->timer, &now);
}

void node_ping_stop(struct ctld *c)
{
	if (!c->ping)
		return;
	if (c->ping->timer)
		event_free(c->ping->timer);
	free(c->ping);
	c->ping = NULL;
}

void node_ping_rechecks(struct ctld *c, time_t now)
{
	for (uint32_t i = 0; i < c->node_count && !c->is_shutting_down; i++) {
		struct node *n = &c->nodes[i];

		if (!n->recheck_time || now < n->recheck_time || n->is_ping_in_flight
		    || !n->is_registered)
			continue;
		n->recheck_time = 0;
		ping_node(c, n);
	}
}
