/* admin.c - reconfigure and shutdown; see admin.h. */
#include "admin.h"

#include <errno.h>
#include <stdlib.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/msg.h"
#include "ctld.h"
#include "node.h"
#include "node_state.h"
#include "part.h"

static void reconfig_reply_cb(void *arg, int rc, uint16_t type, void *msg)
{
	(void)arg;
	(void)type;
	(void)msg;
	if (rc < 0)
		debug("a slurmd did not take the reconfigure request: %d", rc);
}

/* Ask every registered slurmd to re-read slurm.conf too, as Slurm does. */
static void reconfig_slurmds(struct ctld *c)
{
	struct empty_msg m = { 0 };

	for (uint32_t i = 0; i < c->node_count; i++) {
		struct node *n = &c->nodes[i];

		if (n->is_registered)
			ctld_send_node(c, n, REQUEST_RECONFIGURE, &m, reconfig_reply_cb, NULL);
	}
}

int admin_reconfigure(struct ctld *c)
{
	struct sl_conf *old = c->conf, *conf = NULL;
	struct sl_error err = { { 0 } };
	int r;

	r = conf_load(c->conf_path, &conf, &err);
	if (r < 0) {
		error("reconfigure: %s", err.text);
		return r;
	}
	c->conf = conf;
	r = node_table_rebuild(c);
	if (r < 0) {
		c->conf = old; /* node records still point at the old conf */
		conf_free(conf);
		return r;
	}
	r = part_table_build(c);
	log_set_level(conf->slurmctld_debug);
	conf_free(old);
	info("Reconfigured from %s: %u nodes, %u partitions", c->conf_path, c->node_count,
	     c->part_count);
	if (r == 0)
		reconfig_slurmds(c);
	return r;
}

static void admin_exit_loop(struct ctld *c)
{
	node_state_save(c);
	event_base_loopexit(c->base, NULL);
}

static void shutdown_reply_cb(void *arg, int rc, uint16_t type, void *msg)
{
	struct ctld *c = arg;

	(void)rc;
	(void)type;
	(void)msg;
	if (c->shutdown_pending > 0 && --c->shutdown_pending == 0)
		admin_exit_loop(c);
}

static void shutdown_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	admin_exit_loop(arg);
}

void admin_shutdown(struct ctld *c, bool also_slurmds)
{
	struct shutdown_msg m = { .options = 0 };
	struct timeval tv = { .tv_sec = c->conf->message_timeout };
	struct timeval soon = { .tv_usec = 100000 };

	if (c->is_shutting_down)
		return;
	c->is_shutting_down = true;
	info("Terminate signal or shutdown request received");
	for (uint32_t i = 0; also_slurmds && i < c->node_count; i++) {
		struct node *n = &c->nodes[i];

		if (!n->is_registered)
			continue;
		if (ctld_send_node(c, n, REQUEST_SHUTDOWN, &m, shutdown_reply_cb, c) == 0)
			c->shutdown_pending++;
	}
	/* with nothing to wait for, still give the loop a moment to write the
	 * reply to whoever asked */
	c->shutdown_timer = evtimer_new(c->base, shutdown_timeout_cb, c);
	if (!c->shutdown_timer) {
		admin_exit_loop(c);
		return;
	}
	evtimer_add(c->shutdown_timer, c->shutdown_pending ? &tv : &soon);
}
