/* node_reboot.c - see node_reboot.h. */
#include "node_reboot.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld.h"
#include "node.h"
#include "node_state.h"

struct node_reboot {
	struct event *timer;
	bool is_wanted; /* a node may have a reboot to issue or to time out */
};

bool node_reboot_may_issue(const struct node *n)
{
	uint32_t base = n->state & NODE_STATE_BASE;

	if (!(n->state & NODE_STATE_REBOOT_REQUESTED) || (n->state & NODE_STATE_REBOOT_ISSUED))
		return false;
	if (!n->is_registered || (n->state & (NODE_STATE_NO_RESPOND | NODE_STATE_COMPLETING)))
		return false;
	if (n->cpus_used || n->cpus_shared || n->is_exclusive_used || n->epilogs)
		return false;
	return base == NODE_STATE_IDLE || base == NODE_STATE_DOWN;
}

static void reboot_sent_cb(void *arg, int rc, uint16_t type, void *msg)
{
	char *name = arg;

	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc < 0)
		error("Reboot of node %s not taken by its slurmd: %s", name, sl_strerror(rc));
	free(name);
}

static void reboot_issue(struct ctld *c, struct node *n, time_t now)
{
	struct reboot_msg m = {
	    .node_list = (char *)node_name(n),
	    .flags = n->is_reboot_asap ? REBOOT_FLAGS_ASAP : 0,
	    .next_state = n->reboot_next_state,
	};
	char *name = strdup(node_name(n));

	info("Issuing reboot request for nodes %s", node_name(n));
	n->state &= ~NODE_STATE_REBOOT_REQUESTED;
	n->state |= NODE_STATE_REBOOT_ISSUED;
	n->boot_req_time = now;
	n->reboot_old_instance = n->slurmd_instance;
	node_reason_append(n, "reboot issued", now);
	if (ctld_send_node(c, n, REQUEST_REBOOT_NODES, &m, reboot_sent_cb, name) < 0) {
		error("Reboot of node %s: cannot send the request", node_name(n));
		free(name);
	}
}

static void reboot_timed_out(struct ctld *c, struct node *n, time_t now)
{
	error("Node %s not back %u s after its reboot: setting DOWN", node_name(n),
	      c->conf->resume_timeout);
	n->state &= ~(NODE_STATE_REBOOT_ISSUED | NODE_STATE_REBOOT_REQUESTED);
	n->state = (n->state & NODE_STATE_FLAGS) | NODE_STATE_DOWN;
	if (n->is_reboot_asap)
		n->state &= ~NODE_STATE_DRAIN;
	n->is_down_no_respond = false;
	n->is_registered = false;
	node_reason_append(n, "reboot timed out", now);
	n->reboot_next_state = NO_VAL;
	n->is_reboot_asap = false;
}

bool node_reboot_pass(struct ctld *c, time_t now)
{
	time_t wait = c->conf->resume_timeout ? (time_t)c->conf->resume_timeout : 1;
	bool changed = false, wanted = false;

	for (uint32_t i = 0; i < c->node_count; i++) {
		struct node *n = &c->nodes[i];

		if (!(n->state & (NODE_STATE_REBOOT_REQUESTED | NODE_STATE_REBOOT_ISSUED)))
			continue;
		wanted = true;
		if (node_reboot_may_issue(n)) {
			reboot_issue(c, n, now);
			changed = true;
		} else if ((n->state & NODE_STATE_REBOOT_ISSUED)
			   && now >= n->boot_req_time + wait) {
			reboot_timed_out(c, n, now);
			changed = true;
		}
	}
	if (c->reboot)
		c->reboot->is_wanted = wanted;
	if (changed) {
		c->node_last_update = now;
		(void)node_state_save(c);
	}
	return changed;
}

static void reboot_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;

	(void)fd;
	(void)what;
	/* a registration may end a reboot at any time: look while one is on */
	if (c->reboot->is_wanted)
		node_reboot_pass(c, time(NULL));
}

/* Check every node of m first: the request applies to all or to none. */
static int reboot_nodes_of(struct ctld *c, const char *list, struct node ***ret, size_t *ret_n)
{
	struct hostlist *hl = NULL;
	struct node **v;
	size_t count;

	if (!list || !*list)
		return -ESLURM_INVALID_NODE_NAME;
	if (strcaseeq(list, "ALL")) {
		v = calloc(c->node_count + 1, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (uint32_t i = 0; i < c->node_count; i++)
			v[i] = &c->nodes[i];
		*ret = v;
		*ret_n = c->node_count;
		return 0;
	}
	if (hostlist_new(list, &hl) < 0) {
		error("%s: Bad node list in REBOOT_NODES request: \"%s\"", __func__, list);
		return -ESLURM_INVALID_NODE_NAME;
	}
	count = hostlist_count(hl);
	v = calloc(count + 1, sizeof(*v));
	if (!v) {
		hostlist_free(hl);
		return -ENOMEM;
	}
	for (size_t i = 0; i < count; i++) {
		v[i] = node_find(c, hostlist_nth(hl, i));
		if (!v[i]) {
			error("%s: Bad node list in REBOOT_NODES request: \"%s\"", __func__, list);
			free(v);
			hostlist_free(hl);
			return -ESLURM_INVALID_NODE_NAME;
		}
	}
	hostlist_free(hl);
	*ret = v;
	*ret_n = count;
	return 0;
}

static void reboot_mark(struct node *n, const struct reboot_msg *m, uid_t uid, time_t now)
{
	bool asap = m->flags & REBOOT_FLAGS_ASAP;

	if ((n->state & NODE_STATE_BASE) == NODE_STATE_FUTURE) {
		info("Skipping reboot of FUTURE node %s", node_name(n));
		return;
	}
	if (n->state & NODE_STATE_REBOOT_ISSUED) {
		info("Reboot of node %s already issued", node_name(n));
		return;
	}
	n->state |= NODE_STATE_REBOOT_REQUESTED;
	n->reboot_next_state = m->next_state;
	if (asap && !(n->state & NODE_STATE_DRAIN)) {
		n->state |= NODE_STATE_DRAIN;
		n->is_reboot_asap = true;
	}
	if (m->reason && *m->reason)
		node_set_reason(n, m->reason, uid, now);
	else if (asap)
		node_set_reason(n, "Reboot ASAP", uid, now);
	else if (!n->reason)
		node_set_reason(n, "reboot requested", uid, now);
}

int node_reboot_request(struct ctld *c, const struct reboot_msg *m, uid_t uid, time_t now)
{
	struct node **v = NULL;
	size_t count = 0;
	int r;

	if (!c->conf->reboot_program) {
		error("%s: RebootProgram is NULL", __func__);
		return -ESLURM_NOT_SUPPORTED;
	}
	if (m->next_state != NO_VAL && m->next_state != NODE_UPDATE_RESUME
	    && m->next_state != NODE_UPDATE_DOWN)
		return -ESLURM_INVALID_NODE_STATE;
	r = reboot_nodes_of(c, m->node_list, &v, &count);
	if (r < 0)
		return r;
	for (size_t i = 0; i < count; i++)
		reboot_mark(v[i], m, uid, now);
	free(v);
	info("reboot request queued for nodes %s", m->node_list);
	c->node_last_update = now;
	if (c->reboot) {
		c->reboot->is_wanted = true;
		event_active(c->reboot->timer, EV_TIMEOUT, 0); /* idle nodes go now */
	}
	return 0;
}

int node_reboot_start(struct ctld *c)
{
	struct node_reboot *rb = calloc(1, sizeof(*rb));
	struct timeval tv = {.tv_sec = 1};

	if (!rb)
		return -1;
	c->reboot = rb;
	rb->is_wanted = true; /* the node_state file may have brought some */
	rb->timer = event_new(c->base, -1, EV_PERSIST, reboot_timer_cb, c);
	if (!rb->timer)
		return -1;
	return evtimer_add(rb->timer, &tv);
}

void node_reboot_stop(struct ctld *c)
{
	if (!c->reboot)
		return;
	if (c->reboot->timer)
		event_free(c->reboot->timer);
	free(c->reboot);
	c->reboot = NULL;
}
