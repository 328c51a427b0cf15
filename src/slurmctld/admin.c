/* admin.c - reconfigure and shutdown; see admin.h.
 *
 * Reconfigure: the new slurm.conf is parsed and checked against the live
 * jobs before anything changes. A node that a running job holds, or a
 * partition with a pending or running job, may not disappear: such a
 * reconfigure is refused and the running configuration kept (Slurm 22.05
 * would end those jobs NODE_FAIL). Otherwise the node table is rebuilt
 * and every node index a job or step stores is remapped, since removing
 * or reordering nodes renumbers them.
 */
#include "admin.h"

#include "auth_token.h"

#include <errno.h>
#include <stdlib.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_gpu.h"
#include "job_submit_lua.h"
#include "license.h"
#include "node.h"
#include "node_state.h"
#include "part_admin.h"
#include "resv.h"
#include "part.h"
#include "step_rec.h"
#include "user_db.h"

/* A shutdown in progress. */
struct admin {
	struct event *shutdown_timer; /* leaves the loop at the latest then */
	uint32_t shutdown_pending;    /* slurmd shutdown replies still awaited */
};

int admin_init(struct ctld *c)
{
	c->admin = calloc(1, sizeof(*c->admin));
	return c->admin ? 0 : -ENOMEM;
}

void admin_fini(struct ctld *c)
{
	if (!c->admin)
		return;
	if (c->admin->shutdown_timer)
		event_free(c->admin->shutdown_timer);
	free(c->admin);
	c->admin = NULL;
}

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

static bool conf_has_node(const struct sl_conf *conf, const char *name)
{
	for (uint32_t i = 0; i < conf->node_count; i++)
		if (streq(conf->nodes[i].name, name))
			return true;
	return false;
}

static bool conf_has_part(const struct sl_conf *conf, const char *name)
{
	for (uint32_t i = 0; i < conf->part_count; i++)
		if (streq(conf->parts[i].name, name))
			return true;
	return false;
}

int admin_reconfig_check(const struct ctld *c, const struct sl_conf *conf)
{
	for (uint32_t i = 0; i < c->job_count; i++) {
		const struct job *job = c->jobs[i];

		if (job_is_finished(job) && !job_is_running(job)) /* running: completing */
			continue;
		if (job->partition && !conf_has_part(conf, job->partition)) {
			error("reconfigure refused: partition %s has %s job %u; slurm.conf not "
			      "applied (let its jobs end or cancel them first)",
			      job->partition, job_is_pending(job) ? "pending" : "running",
			      job->job_id);
			return -ESLURM_PARTITION_IN_USE;
		}
		for (uint32_t k = 0; job_is_running(job) && k < job->alloc.count; k++) {
			const char *name = node_name(&c->nodes[job->alloc.nodes[k].node]);

			if (conf_has_node(conf, name))
				continue;
			error(
			    "reconfigure refused: node %s has running job %u; slurm.conf not "
			    "applied (drain the node and let its jobs end, or cancel them, first)",
			    name, job->job_id);
			return -ESLURM_NODES_BUSY;
		}
	}
	return 0;
}

static int alloc_cmp(const void *x, const void *y)
{
	const struct sel_alloc *a = x, *b = y;

	return a->node < b->node ? -1 : a->node > b->node;
}

/* map[old index] = new index or NO_VAL. */
static uint32_t remap(const uint32_t *map, uint32_t old_count, uint32_t index)
{
	return index < old_count ? map[index] : NO_VAL;
}

/* A step's nodes by the new numbers, and each one's place in the job's
 * re-sorted allocation (NO_VAL outside it: a finished step of an earlier
 * run). A finished step on a node that is gone keeps no node records
 * (nodes_str still names them), as after a restart (job_state.c). */
static void remap_step(struct step *s, const struct sel_result *a, const uint32_t *map,
		       uint32_t old_count)
{
	for (uint32_t i = 0; i < s->node_count; i++) {
		struct step_node_rec *n = &s->nodes[i];

		n->node = remap(map, old_count, n->node);
		if (n->node == NO_VAL) { /* refused for running steps by the check */
			free(s->nodes);
			s->nodes = NULL;
			s->node_count = 0;
			return;
		}
		n->job_node = NO_VAL;
		for (uint32_t k = 0; k < a->count && n->job_node == NO_VAL; k++)
			if (a->nodes[k].node == n->node)
				n->job_node = k;
	}
}

/* After the node table was rebuilt: no index of the old table may remain.
 * A finished job drops what it held on a node that is gone (its NodeList
 * text still names it); the check refused that for running ones. */
static void remap_jobs(struct ctld *c, const uint32_t *map, uint32_t old_count)
{
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];
		struct sel_result *a = &job->alloc;
		uint32_t kept = 0;

		for (uint32_t k = 0; k < a->count; k++) {
			a->nodes[k].node = remap(map, old_count, a->nodes[k].node);
			if (a->nodes[k].node != NO_VAL)
				a->nodes[kept++] = a->nodes[k];
		}
		a->count = kept;
		if (a->count > 1) /* a pending job has none (nodes NULL) */
			qsort(a->nodes, a->count, sizeof(*a->nodes), alloc_cmp); /* node order */
		for (uint32_t k = 0; k < job->step_count; k++)
			remap_step(&job->steps[k], a, map, old_count);
		kept = 0; /* a node that is gone owes no Epilog */
		for (uint32_t k = 0; k < job->epilog_count; k++) {
			uint32_t n = remap(map, old_count, job->epilog_nodes[k]);

			if (n != NO_VAL)
				job->epilog_nodes[kept++] = n;
		}
		job->epilog_count = kept;
		if (!kept && job->epilog_nodes) {
			free(job->epilog_nodes);
			job->epilog_nodes = NULL;
			job->state &= ~JOB_COMPLETING;
		}
	}
}

int admin_reconfigure(struct ctld *c)
{
	struct sl_conf *old = c->conf, *conf = NULL;
	struct sl_error err = { { 0 } };
	uint32_t old_count = c->node_count;
	_cleanup_free_ uint32_t *map = NULL;
	int r;

	r = conf_load(c->conf_path, &conf, &err);
	if (r < 0) {
		error("reconfigure: %s", err.text);
		return r;
	}
	r = admin_reconfig_check(c, conf);
	if (r == 0) /* JobSubmitPlugins=lua: job_submit.lua loaded again */
		r = job_submit_lua_reconfigure(c, conf);
	if (r < 0) {
		conf_free(conf);
		return r;
	}
	c->conf = conf;
	r = node_table_rebuild(c, &map);
	if (r == 0)
		job_gpu_types_build(c); /* the nodes' GPU types, from their Gres= */
	if (r < 0) {
		c->conf = old; /* node records still point at the old conf */
		conf_free(conf);
		return r;
	}
	remap_jobs(c, map, old_count);
	if (resv_table_resolve(c) < 0) /* node indexes may have changed */
		error("reconfigure: reservations' nodes not resolved: out of memory");
	c->job_info_epoch++; /* JobRequeue, node names: every record again */
	r = part_table_build(c);
	if (r == 0 && c->part_edit_count) { /* slurm.conf's partitions again, as Slurm */
		info("reconfigure: %u partition edits of scontrol dropped", c->part_edit_count);
		part_admin_forget(c);
		node_state_save(c);
	}
	if (r == 0)
		r = license_table_build(c); /* the totals may change */
	for (uint32_t i = 0; r == 0 && i < c->job_count; i++)
		if (job_is_running(c->jobs[i])) /* what they hold, counted again */
			license_job_apply(c, c->jobs[i], false);
	log_set_level(conf->slurmctld_debug);
	conf_free(old);
	auth_token_reload(c);
	if (c->users) { /* groups may have changed: asked of NSS again */
		user_db_flush(c->users);
		user_db_set_ttl(c->users, user_db_ttl(conf));
	}
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
	struct admin *a = c->admin;

	(void)rc;
	(void)type;
	(void)msg;
	if (a && a->shutdown_pending > 0 && --a->shutdown_pending == 0)
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
	struct admin *a = c->admin;

	if (c->is_shutting_down)
		return;
	c->is_shutting_down = true;
	info("Terminate signal or shutdown request received");
	if (!a) { /* before admin_init: nothing to wait with */
		admin_exit_loop(c);
		return;
	}
	for (uint32_t i = 0; also_slurmds && i < c->node_count; i++) {
		struct node *n = &c->nodes[i];

		if (!n->is_registered)
			continue;
		if (ctld_send_node(c, n, REQUEST_SHUTDOWN, &m, shutdown_reply_cb, c) == 0)
			a->shutdown_pending++;
	}
	/* with nothing to wait for, still give the loop a moment to write the
	 * reply to whoever asked */
	a->shutdown_timer = evtimer_new(c->base, shutdown_timeout_cb, c);
	if (!a->shutdown_timer) {
		admin_exit_loop(c);
		return;
	}
	evtimer_add(a->shutdown_timer, a->shutdown_pending ? &tv : &soon);
}
