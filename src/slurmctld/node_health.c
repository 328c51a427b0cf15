/* node_health.c - see node_health.h. */
#include "node_health.h"

#include <stdlib.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld.h"
#include "node.h"
#include "node_ping.h"

struct node_health {
	struct event *timer;
	uint32_t tick; /* CYCLE: ticks done in the current round */
};

bool node_health_wanted(uint16_t states, uint32_t node_state)
{
	uint32_t base = node_state & NODE_STATE_BASE;

	if ((node_state & NODE_STATE_NO_RESPOND) || base == NODE_STATE_DOWN
	    || base == NODE_STATE_FUTURE || base == NODE_STATE_UNKNOWN)
		return false;
	if (states & HC_STATE_ANY)
		return true;
	return ((states & HC_STATE_ALLOC) && base == NODE_STATE_ALLOCATED)
	       || ((states & HC_STATE_MIXED) && base == NODE_STATE_MIXED)
	       || ((states & HC_STATE_IDLE) && base == NODE_STATE_IDLE)
	       || ((states & HC_STATE_NONDRAINED_IDLE) && base == NODE_STATE_IDLE
		   && !(node_state & NODE_STATE_DRAIN));
}

static void health_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	(void)arg;
	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc < 0)
		debug("health check request not taken: %s", sl_strerror(rc));
}

static void health_ask(struct ctld *c, uint32_t first, uint32_t end)
{
	struct empty_msg m = {0};

	for (uint32_t i = first; i < end && i < c->node_count; i++) {
		const struct node *n = &c->nodes[i];

		if (n->is_registered && node_health_wanted(c->conf->health_check_state, n->state))
			(void)ctld_send_node(c, n, REQUEST_HEALTH_CHECK, &m, health_done_cb, NULL);
	}
}

static void health_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	struct node_health *h = c->health;
	const struct sl_conf *conf = c->conf;
	unsigned round_ms = conf->health_check_interval * 1000u, tick_ms = 1000;
	bool is_on = conf->health_check_program && conf->health_check_interval
		     && !(conf->health_check_state & HC_STATE_START_ONLY);
	struct timeval tv;

	(void)fd;
	(void)what;
	if (is_on && (conf->health_check_state & HC_STATE_CYCLE)) {
		uint32_t first, end, ticks;

		tick_ms = node_ping_tick_ms(round_ms, c->node_count);
		ticks = round_ms / tick_ms;
		node_ping_slice(c->node_count, ticks, h->tick, &first, &end);
		health_ask(c, first, end);
		if (++h->tick >= ticks)
			h->tick = 0;
	} else if (is_on) {
		if (h->tick)
			health_ask(c, 0, c->node_count);
		h->tick = 1; /* not at start: slurmd runs it then */
		tick_ms = round_ms;
	}
	tv = (struct timeval){.tv_sec = tick_ms / 1000, .tv_usec = (tick_ms % 1000) * 1000};
	evtimer_add(h->timer, &tv);
}

int node_health_start(struct ctld *c)
{
	struct timeval now = {0};
	struct node_health *h = calloc(1, sizeof(*h));

	if (!h)
		return -1;
	c->health = h;
	h->timer = evtimer_new(c->base, health_timer_cb, c);
	if (!h->timer)
		return -1;
	return evtimer_add(h->timer, &now);
}

void node_health_stop(struct ctld *c)
{
	if (!c->health)
		return;
	if (c->health->timer)
		event_free(c->health->timer);
	free(c->health);
	c->health = NULL;
}
