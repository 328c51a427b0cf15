/* job_sched.c - see job_sched.h.
 *
 * Node usage lives in struct node (cpus_used, mem_used, gpus_used); each
 * placement copies it into a struct sel_node array, so select.c stays a
 * pure function. A job that waits for Resources blocks the lower-priority
 * jobs of its partition (reason Priority) until backfill can prove they
 * would not delay it.
 */
#include "job_sched.h"
#include "assoc_limits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/gres_detect.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld.h"
#include "durable.h"
#include "job.h"
#include "job_alloc.h"
#include "job_array.h"
#include "job_depend_check.h"
#include "job_launch.h"
#include "job_prio.h"
#include "job_res.h"
#include "job_submit_check.h"
#include "mail.h"
#include "node.h"
#include "part.h"
#include "part_access.h"

static bool node_is_usable(const struct node *n)
{
	uint32_t base = n->state & NODE_STATE_BASE;

	if (n->state & (NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND))
		return false;
	return n->is_registered
	       && (base == NODE_STATE_IDLE || base == NODE_STATE_MIXED
		   || base == NODE_STATE_ALLOCATED);
}

/* Node array for select: only p's nodes are usable; idle = usage cleared. */
static struct sel_node *sel_nodes_new(const struct ctld *c, const struct part *p, bool idle)
{
	struct sel_node *s = calloc(c->node_count + 1, sizeof(*s));

	if (!s)
		return NULL;
	for (uint32_t i = 0; i < c->node_count; i++) {
		const struct node *n = &c->nodes[i];
		const struct conf_node *cfg = n->cfg;

		s[i] = (struct sel_node){
			.sockets = cfg->sockets,
			.cores_per_socket = cfg->cores_per_socket,
			.threads_per_core = cfg->threads_per_core,
			.cpus = cfg->cpus,
			.real_memory = cfg->real_memory,
			.gpus = (uint16_t)gres_count(cfg->gres, "gpu"),
		};
		if (!idle) {
			s[i].cpus_used = n->cpus_used;
			s[i].mem_used = n->mem_used;
			s[i].gpus_used = n->gpus_used;
			s[i].is_exclusive_used = n->is_exclusive_used;
		}
	}
	for (uint32_t i = 0; i < p->node_count; i++) {
		const struct node *n = &c->nodes[p->node_idx[i]];

		s[p->node_idx[i]].is_usable = idle || node_is_usable(n);
	}
	return s;
}

static void sel_req_of(const struct job *job, struct sel_req *r, bool *req, bool *exc)
{
	const struct job_desc *d = job->desc;

	*r = (struct sel_req){
		.min_nodes = job->min_nodes,
		/* no maximum given: as many nodes as the tasks need */
		.max_nodes = job->max_nodes ? job->max_nodes
					    : (job->num_tasks > job->min_nodes ? job->num_tasks
									      : job->min_nodes),
		.num_tasks = job->num_tasks,
		.cpus_per_task = job->cpus_per_task,
		.ntasks_per_node = d && d->ntasks_per_node != NO_VAL16 ? d->ntasks_per_node : 0,
		.mem_per_node = job->mem_per_node,
		.mem_per_cpu = job->mem_per_cpu,
		.gpus_per_node = job->gpus_per_node,
		.gpus_total = job->gpus_total,
		.is_exclusive = d && (d->flags & JOB_DESC_EXCLUSIVE),
		.is_required = req,
		.is_excluded = exc,
	};
}

/* -w / -x as per-node flags; -EINVAL when a name is not a node. */
static int node_flags(struct ctld *c, const char *expr, bool *flags)
{
	struct hostlist *hl = NULL;
	int r = 0;

	if (!expr)
		return 0;
	if (hostlist_new(expr, &hl) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	for (size_t i = 0; i < hostlist_count(hl) && r == 0; i++) {
		struct node *n = node_find(c, hostlist_nth(hl, i));

		if (!n)
			r = -ESLURM_INVALID_NODE_NAME;
		else
			flags[n - c->nodes] = true;
	}
	hostlist_free(hl);
	return r;
}

/* Place job on p: 0 with *ret, -EAGAIN (busy), -ENOSPC (never), or a
 * Slurm code for bad -w/-x names. A full-node memory request (0) asks for
 * every node's whole memory, as Slurm does with --mem=0. */
/* ExclusiveUser=YES: a job of such a partition gets no node that runs
 * another user's job, and a node that runs a job of such a partition
 * takes no other user's job (whatever its partition). */
static void exclude_other_users(const struct ctld *c, const struct job *job, const struct part *p,
				bool *exc)
{
	bool is_excl = p->cfg->exclusive_user, is_any = is_excl;

	for (uint32_t i = 0; i < c->part_count && !is_any; i++)
		is_any = c->parts[i].cfg->exclusive_user;
	for (uint32_t i = 0; is_any && i < c->job_count; i++) {
		const struct job *o = c->jobs[i];
		const struct part *op;

		if (o == job || o->uid == job->uid || !job_is_running(o))
			continue;
		op = is_excl ? NULL : part_find(c, o->partition);
		if (!is_excl && !(op && op->cfg->exclusive_user))
			continue;
		for (uint32_t k = 0; k < o->alloc.count; k++)
			exc[o->alloc.nodes[k].node] = true;
	}
}

static int job_place(struct ctld *c, const struct job *job, const struct part *p, bool idle,
		     struct sel_result *ret)
{
	_cleanup_free_ bool *req = calloc(c->node_count + 1, sizeof(bool));
	_cleanup_free_ bool *exc = calloc(c->node_count + 1, sizeof(bool));
	_cleanup_free_ struct sel_node *nodes = sel_nodes_new(c, p, idle);
	struct sel_req r;
	int rc;

	if (!req || !exc || !nodes)
		return -ENOMEM;
	rc = node_flags(c, job->desc ? job->desc->req_nodes : NULL, req);
	if (rc == 0)
		rc = node_flags(c, job->desc ? job->desc->exc_nodes : NULL, exc);
	if (rc < 0)
		return rc;
	if (!idle)
		exclude_other_users(c, job, p, exc);
	sel_req_of(job, &r, job->desc && job->desc->req_nodes ? req : NULL, exc);
	if (!r.mem_per_node && !r.mem_per_cpu)
		r.is_whole_memory = true;
	return select_place(nodes, c->node_count, &r, ret);
}

int job_sched_check_feasible(struct ctld *c, const struct job *job, const struct part *p)
{
	const struct job_desc *d = job->desc;
	uint32_t have = p->node_count ? p->node_count : 1;
	struct job one = *job;
	struct sel_result res = { 0 };
	int r;

	/* Could it ever run here if every node were idle? More nodes than the
	 * partition has is accepted (it waits with PartitionConfig, as Slurm
	 * does), so the node count is capped at what the partition has. */
	one.min_nodes = job->min_nodes < have ? job->min_nodes : have;
	one.max_nodes = job->max_nodes && job->max_nodes < have ? job->max_nodes : 0;
	if (one.max_nodes && one.max_nodes < one.min_nodes)
		one.max_nodes = one.min_nodes;
	if (!d || d->num_tasks == NO_VAL || !d->num_tasks)
		one.num_tasks = one.min_nodes * (job->num_tasks / job->min_nodes);
	r = job_place(c, &one, p, true, &res);
	sel_result_done(&res);
	if (r == -ENOSPC || r == -EINVAL)
		return -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	return r < 0 && r != -EAGAIN ? r : 0;
}

static char *alloc_hostlist(const struct ctld *c, const struct sel_result *res)
{
	struct hostlist *hl = NULL;
	char *s;

	if (hostlist_new(NULL, &hl) < 0)
		return NULL;
	for (uint32_t i = 0; i < res->count; i++)
		hostlist_push_host(hl, node_name(&c->nodes[res->nodes[i].node]));
	s = hostlist_ranged_string(hl);
	hostlist_free(hl);
	return s;
}

static void job_start(struct ctld *c, struct job *job, struct sel_result *res, time_t now)
{
	job->alloc = *res;
	*res = (struct sel_result){ 0 };
	job->nodes = alloc_hostlist(c, &job->alloc);
	job->batch_host = strdup(node_name(&c->nodes[job->alloc.nodes[0].node]));
	job->state = JOB_RUNNING;
	job->reason = WAIT_NO_REASON;
	job->start_time = now;
	job->end_time = job->time_limit == INFINITE ? 0 : now + (time_t)job->time_limit * 60;
	job_res_charge(c, job);
	job_changed(c, job);
	info("sched: Allocate JobId=%u NodeList=%s #CPUs=%u Partition=%s", job->job_id,
	     job->nodes, job->alloc.total_cpus, job->partition);
	mail_job(c, job, MAIL_JOB_BEGIN);
	if (job_is_interactive(job))
		job_alloc_grant(c, job); /* salloc/srun get it, nothing to launch */
	else
		job_launch(c, job);
}

/* Why a job cannot even be tried now; WAIT_NO_REASON when it can. */
static enum job_state_reason job_blocker(const struct job *job, const struct part *p, time_t now)
{
	struct part_request req;

	if (job->priority == 0)
		return job->is_user_hold ? WAIT_HELD_USER : WAIT_HELD;
	if (job->eligible_time > now)
		return WAIT_TIME;
	if (!p)
		return WAIT_PART_CONFIG;
	if (p->cfg->state_up != PART_STATE_UP)
		return p->cfg->state_up == PART_STATE_INACTIVE ? WAIT_PART_INACTIVE : WAIT_PART_DOWN;
	/* over the partition's MaxNodes, MaxTime, MaxCPUsPerNode or MaxMem*
	 * (accepted when EnforcePartLimits=NO): it waits, as in Slurm */
	job_part_request(job, &req);
	if (part_limits_check(p->cfg, p->node_count, &req) < 0)
		return WAIT_PART_CONFIG;
	return WAIT_NO_REASON;
}

/* -w names a node that is down, drained or not responding: Slurm's
 * ReqNodeNotAvail, with the nodes in the reason text. */
static bool job_req_nodes_down(struct ctld *c, struct job *job)
{
	struct hostlist *hl = NULL, *bad = NULL;
	bool is_down = false;

	if (!job->desc || !job->desc->req_nodes || hostlist_new(job->desc->req_nodes, &hl) < 0)
		return false;
	if (hostlist_new(NULL, &bad) < 0) {
		hostlist_free(hl);
		return false;
	}
	for (size_t i = 0; i < hostlist_count(hl); i++) {
		struct node *n = node_find(c, hostlist_nth(hl, i));

		if (n && !node_is_usable(n)) {
			hostlist_push_host(bad, node_name(n));
			is_down = true;
		}
	}
	free(job->state_desc);
	job->state_desc = NULL;
	if (is_down) {
		char *list = hostlist_ranged_string(bad);

		if (list && asprintf(&job->state_desc, "ReqNodeNotAvail, UnavailableNodes:%s", list) < 0)
			job->state_desc = NULL;
		free(list);
	}
	hostlist_free(bad);
	hostlist_free(hl);
	return is_down;
}

void job_sched_pass(struct ctld *c)
{
	_cleanup_free_ struct job **pending = calloc(c->job_count + 1, sizeof(*pending));
	_cleanup_free_ bool *blocked = calloc(c->part_count + 1, sizeof(bool));
	time_t now = time(NULL);
	uint32_t n = 0;

	if (!pending || !blocked || c->is_shutting_down)
		return;
	for (uint32_t i = 0; i < c->job_count; i++)
		if (job_is_pending(c->jobs[i]))
			pending[n++] = c->jobs[i];
	qsort(pending, n, sizeof(*pending), job_prio_cmp);
	for (uint32_t i = 0; i < n; i++) {
		struct job *job = pending[i];
		const struct part *p = part_find(c, job->partition);
		enum job_state_reason why = job_blocker(job, p, now);
		struct sel_result res = { 0 };
		int r;

		if (why == WAIT_NO_REASON)
			why = assoc_limits_blocker(c, job); /* AccountingStorageEnforce=limits */

		job->last_sched_eval = now;
		if (!durable_job_is_saved(c, job)) {
			/* its submission is not on disk yet: the pass is asked for
			 * again after the commit; nothing behind it goes first */
			blocked[p - c->parts] = true;
			continue;
		}
		if (why == WAIT_NO_REASON)
			why = job_depend_check_now(c, job, now);
		if (job->state_desc && why != WAIT_NO_REASON) {
			free(job->state_desc); /* only ReqNodeNotAvail sets it, and it is stale */
			job->state_desc = NULL;
		}
		if (why == WAIT_NO_REASON && job_req_nodes_down(c, job))
			why = WAIT_NODE_NOT_AVAIL;
		if (why == WAIT_NO_REASON && blocked[p - c->parts])
			why = WAIT_PRIORITY;
		if (why == WAIT_NO_REASON && job_is_array_meta(job) && job->array_throttle
		    && job_array_running(c, job) >= job->array_throttle)
			why = WAIT_ARRAY_TASK_LIMIT;
		if (why != WAIT_NO_REASON) {
			job->reason = why;
			continue;
		}
		r = job_place(c, job, p, false, &res);
		if (r == 0 && job_is_array_meta(job)) {
			struct job *task = job_array_split(c, job);

			if (!task) {
				sel_result_done(&res);
				continue;
			}
			job_start(c, task, &res, now);
			if (task != job) {
				job_changed(c, job);
				i--; /* the meta record may start another task now */
			}
			continue;
		}
		if (r == 0) {
			job_start(c, job, &res, now);
			continue;
		}
		sel_result_done(&res);
		job->reason = r == -EAGAIN || r == -ENOSPC ? WAIT_RESOURCES : WAIT_BAD_CONSTRAINTS;
		blocked[p - c->parts] = true;
	}
	c->job_last_update = now;
}

static void sched_ev_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	job_sched_pass(arg);
}

int job_sched_init(struct ctld *c)
{
	c->sched_ev = event_new(c->base, -1, 0, sched_ev_cb, c);
	return c->sched_ev ? 0 : -ENOMEM;
}

void job_sched_fini(struct ctld *c)
{
	if (c->sched_ev)
		event_free(c->sched_ev);
	c->sched_ev = NULL;
}

int job_sched_will_run(struct ctld *c, const struct job *job, char **ret_nodes, uint32_t *ret_cpus)
{
	const struct part *p = part_find(c, job->partition);
	struct sel_result res = { 0 };
	int r;

	*ret_nodes = NULL;
	*ret_cpus = 0;
	if (!p)
		return -ESLURM_INVALID_PARTITION_NAME;
	r = job_place(c, job, p, false, &res);
	if (r == -EAGAIN) /* busy now: where it would go on an idle cluster */
		r = job_place(c, job, p, true, &res);
	if (r < 0)
		return r == -ENOSPC ? -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE : r;
	*ret_nodes = alloc_hostlist(c, &res);
	*ret_cpus = res.total_cpus;
	sel_result_done(&res);
	return 0;
}
