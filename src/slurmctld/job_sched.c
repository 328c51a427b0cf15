/* job_sched.c - see job_sched.h.
 *
 * A job that waits for Resources blocks the lower-priority
 * jobs of its partition (reason Priority) until backfill can prove they
 * would not delay it.
 */
#include "job_sched.h"
#include "assoc_limits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
#include "job_place.h"
#include "job_preempt.h"
#include "job_res.h"
#include "job_script.h"
#include "job_submit_check.h"
#include "license.h"
#include "mail.h"
#include "node.h"
#include "part.h"
#include "part_access.h"
#include "resv.h"
#include "resv_mask.h"
#include "sched_snap.h"
#include "sched_stats.h"

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

static void job_start(struct ctld *c, struct job *job, struct sel_result *res, time_t now,
		      uint8_t by)
{
	const struct resv *resv;

	job->sched_by = by;
	job->preempted_for = 0;
	job->preempt_kill_at = 0;
	job->sched_start = 0;
	job->sched_after = 0;
	free(job->sched_nodes);
	job->sched_nodes = NULL;
	job->alloc = *res;
	*res = (struct sel_result){ 0 };
	job->nodes = job_place_hostlist(c, &job->alloc);
	job->batch_host = strdup(node_name(&c->nodes[job->alloc.nodes[0].node]));
	job->state = JOB_RUNNING;
	job->reason = WAIT_NO_REASON;
	job->start_time = now;
	job->end_time = job->time_limit == INFINITE ? 0 : now + (time_t)job->time_limit * 60;
	resv = resv_mask_job_resv(c, job);
	job->resv_id = resv ? resv->id : 0;
	if (resv && !(resv->flags & RESV_FLAG_FLEX)
	    && (!job->end_time || job->end_time > resv->end))
		job->end_time = resv->end; /* it ends with its reservation (ResvOverRun=0) */
	job_res_charge(c, job);
	job_changed(c, job);
	info("sched: Allocate JobId=%u NodeList=%s #CPUs=%u Partition=%s", job->job_id,
	     job->nodes, job->alloc.total_cpus, job->partition);
	mail_job(c, job, MAIL_JOB_BEGIN);
	if (job_script_has_prolog(c)) {
		job_script_prolog(c, job); /* launched or granted once it is done */
		job_changed(c, job);
	} else if (job_is_interactive(job))
		job_alloc_grant(c, job); /* salloc/srun get it, nothing to launch */
	else
		job_launch(c, job);
}

/* Why a job cannot even be tried now; WAIT_NO_REASON when it can. */
static enum job_state_reason job_blocker(const struct job *job, const struct part *p, time_t now)
{
	struct part_request req;

	if (job->state & JOB_RESV_DEL_HOLD) /* held when its reservation went */
		return WAIT_RESV_DELETED;
	if (job->priority == 0) /* a failed Prolog's hold keeps saying so */
		return job->is_user_hold			   ? WAIT_HELD_USER
		       : job->reason == WAIT_HELD_LAUNCH_FAILED ? WAIT_HELD_LAUNCH_FAILED
								 : WAIT_HELD;
	if (job->eligible_time > now)
		return WAIT_TIME;
	if (!p)
		return WAIT_PART_CONFIG;
	/* DRAIN takes no new job but runs those it has (its "schedule" bit) */
	if (!(p->cfg->state_up & PART_STATE_SCHED_BIT))
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

		if (n && !job_place_node_usable(n)) {
			hostlist_push_host(bad, node_name(n));
			is_down = true;
		}
	}
	free(job->state_desc);
	job->state_desc = NULL;
	job_info_touch(job);
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

struct job *job_sched_start(struct ctld *c, struct job *job, struct sel_result *res, time_t now,
			    uint8_t by)
{
	struct job *task = job;

	if (job_is_array_meta(job) && !(task = job_array_split(c, job))) {
		sel_result_done(res);
		return NULL;
	}
	job_start(c, task, res, now, by);
	if (task != job)
		job_changed(c, job);
	return task;
}

/* A job of a reservation waits for its start (a FLEX one need not), and
 * past its end until the tick lets it go (resv_tick). */
static bool job_resv_waits(const struct ctld *c, const struct job *job, time_t now)
{
	const struct resv *r;

	if (!job->desc || !job->desc->reservation || !*job->desc->reservation)
		return false;
	r = resv_mask_job_resv(c, job);
	return !r || now >= r->end || (now < r->start && !(r->flags & RESV_FLAG_FLEX));
}

/* Why a job that did not fit waits when reservations hold nodes it could
 * use now: Slurm's ReqNodeNotAvail texts (true: then it does not hold up
 * the jobs behind it, which may fit elsewhere); otherwise Resources. */
static bool job_no_fit_reason(struct ctld *c, struct job *job, const struct part *p, time_t now)
{
	const struct resv *own = resv_mask_job_resv(c, job);
	struct resv_mask_why why = {0};
	bool *exc = NULL;
	const char *desc = NULL;

	job->reason = WAIT_RESOURCES;
	if (job->state_desc) {
		free(job->state_desc);
		job->state_desc = NULL;
		job_info_touch(job);
	}
	if (!c->resv_count || (own && !(own->flags & RESV_FLAG_FLEX))
	    || resv_mask_exclude(c, job, now, &exc, &why) < 0 || !why.excluded
	    || !job_place_fits_without_resv(c, job, p)) {
		free(exc);
		return false;
	}
	free(exc);
	if (job->desc && job->desc->req_nodes)
		desc = "ReqNodeNotAvail, May be reserved for other job";
	else if (why.is_maint_ahead)
		desc = "ReqNodeNotAvail, Reserved for maintenance";
	else
		desc = "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher "
		       "priority partitions";
	job->reason = WAIT_NODE_NOT_AVAIL;
	job->state_desc = strdup(desc);
	job_info_touch(job);
	return true;
}

/* The gates of one job in the pass, in Slurm's order; WAIT_NO_REASON when
 * it may be placed. */
static enum job_state_reason job_gates(struct ctld *c, struct job *job, const struct part *p,
				       bool is_blocked, time_t now)
{
	enum job_state_reason why = job_blocker(job, p, now);

	if (why == WAIT_NO_REASON)
		why = job_depend_check_now(c, job, now);
	if (why == WAIT_NO_REASON)
		why = assoc_limits_blocker(c, job); /* AccountingStorageEnforce=limits */
	if (why == WAIT_NO_REASON && !license_job_fits(c, job))
		why = WAIT_LICENSES;
	if (why == WAIT_NO_REASON && job_resv_waits(c, job, now))
		why = WAIT_RESERVATION;
	if (job->state_desc && why != WAIT_NO_REASON && why != WAIT_RESV_DELETED) {
		free(job->state_desc); /* ReqNodeNotAvail's is stale */
		job->state_desc = NULL;
		job_info_touch(job);
	}
	if (why == WAIT_NO_REASON && job_req_nodes_down(c, job))
		why = WAIT_NODE_NOT_AVAIL;
	if (why == WAIT_NO_REASON && is_blocked)
		why = WAIT_PRIORITY;
	if (why == WAIT_NO_REASON && job_is_array_meta(job) && job->array_throttle
	    && job_array_running(c, job) >= job->array_throttle)
		why = WAIT_ARRAY_TASK_LIMIT;
	return why;
}

/* The pending jobs, the first *ret_n of them (at most limit) in the
 * scheduler's order; *ret_queue_len: how many are pending. */
static struct job **pending_sorted(struct ctld *c, uint32_t limit, uint32_t *ret_n,
				   uint32_t *ret_queue_len)
{
	struct job **pending = calloc(c->job_count + 1, sizeof(*pending));
	uint32_t n = 0;

	if (!pending)
		return NULL;
	for (uint32_t i = 0; i < c->job_count; i++)
		if (job_is_pending(c->jobs[i]))
			pending[n++] = c->jobs[i];
	*ret_queue_len = n;
	/* PriorityTier, then priority */
	*ret_n = (uint32_t)job_prio_sort_top(c, pending, n, limit);
	return pending;
}

/* SchedulerParameters=max_sched_time, else half of MessageTimeout, at
 * most 2 s (Slurm's default), in microseconds. */
static uint64_t max_sched_usec(const struct sl_conf *cf)
{
	uint64_t s = cf->sched_max_time;

	if (!s) {
		s = cf->message_timeout / 2;
		s = s < 1 ? 1 : s > 2 ? 2 : s;
	}
	return s * 1000000;
}

static uint64_t usec_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (uint64_t)((int64_t)(t1.tv_sec - t0->tv_sec) * 1000000
			  + (int64_t)(t1.tv_nsec - t0->tv_nsec) / 1000);
}

static void sched_pass(struct ctld *c, bool is_all)
{
	const struct sl_conf *cf = c->conf;
	_cleanup_free_ bool *blocked = calloc(c->part_count + 1, sizeof(bool));
	_cleanup_free_ uint32_t *part_depth = calloc(c->part_count + 1, sizeof(uint32_t));
	_cleanup_free_ struct job **pending = NULL;
	struct timespec t0;
	time_t now = time(NULL);
	uint32_t limit = is_all ? UINT32_MAX : cf->sched_queue_depth;
	uint64_t max_usec = max_sched_usec(cf);
	uint32_t n = 0, queue_len = 0, depth = 0, started = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!blocked || !part_depth || c->is_shutting_down
	    || !(pending = pending_sorted(c, limit ? limit : 1, &n, &queue_len)))
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct job *job = pending[i];
		const struct part *p = part_find(c, job->partition);
		size_t pi = p ? (size_t)(p - c->parts) : c->part_count;
		struct sel_result res = { 0 };
		enum job_state_reason why;
		int r;

		/* the pass's bounds (Slurm's): jobs tested, time, starts */
		if (depth >= limit || (cf->sched_max_job_start && started >= cf->sched_max_job_start))
			break;
		if ((depth & 15) == 15 && usec_since(&t0) >= max_usec) {
			debug("sched: pass stopped after %u of %u jobs: max_sched_time", depth,
			      queue_len);
			break;
		}
		if (cf->sched_part_depth && part_depth[pi] >= cf->sched_part_depth)
			continue; /* partition_job_depth: this partition's share is tested */
		part_depth[pi]++;
		job->last_sched_eval = now; /* and its reason, below */
		job_info_touch(job);
		depth++;
		if (!durable_job_is_saved(c, job)) {
			/* its submission is not on disk yet: the pass is asked for
			 * again after the commit; nothing behind it goes first */
			blocked[pi] = true;
			continue;
		}
		why = job_gates(c, job, p, p && blocked[pi], now);
		if (why != WAIT_NO_REASON) {
			job->reason = why;
			continue;
		}
		r = job_place(c, job, p, false, &res);
		if (r == 0) {
			struct job *task = job_sched_start(c, job, &res, now, JOB_SCHED_MAIN);

			started += task != NULL;
			if (task && task != job)
				i--; /* the meta record may start another task now */
			continue;
		}
		sel_result_done(&res);
		if ((r == -EAGAIN || r == -ENOSPC) && job_no_fit_reason(c, job, p, now))
			continue; /* reserved nodes: the jobs behind may use others */
		if (r != -EAGAIN && r != -ENOSPC)
			job->reason = WAIT_BAD_CONSTRAINTS;
		blocked[pi] = true;
		if (r == -EAGAIN)
			job_preempt_try(c, job, p, now); /* it starts once they are gone */
	}
	c->job_last_update = now;
	sched_stats_main_cycle(c, usec_since(&t0), depth, queue_len, started);
}

void job_sched_pass(struct ctld *c)
{
	sched_pass(c, false);
}

void job_sched_pass_all(struct ctld *c)
{
	sched_pass(c, true);
}

/* Passes after events are paced by their own cost: the next comes no
 * sooner than SCHED_PACE times the last one took after it ended (at most
 * SCHED_PACE_MAX_US), so that however long the queue, they take at most
 * about a tenth of the loop. A short queue's pass takes microseconds:
 * the next comes at once. */
#define SCHED_PACE 10
#define SCHED_PACE_MAX_US 500000

struct job_sched {
	struct timespec last_end; /* the last event pass ended */
	uint64_t last_usec;	  /* and took */
};

static void sched_ev_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	struct job_sched *s = c->sched;
	struct timespec t0;
	uint64_t gap, since;

	(void)fd;
	(void)what;
	gap = s->last_usec * SCHED_PACE;
	gap = gap > SCHED_PACE_MAX_US ? SCHED_PACE_MAX_US : gap;
	since = usec_since(&s->last_end);
	if (since < gap) { /* again when the pause is over (coalesced meanwhile) */
		struct timeval tv = {.tv_sec = (time_t)((gap - since) / 1000000),
				     .tv_usec = (suseconds_t)((gap - since) % 1000000)};

		event_add(c->sched_ev, &tv);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	job_sched_pass(c);
	s->last_usec = usec_since(&t0);
	clock_gettime(CLOCK_MONOTONIC, &s->last_end);
}

int job_sched_init(struct ctld *c)
{
	c->sched = calloc(1, sizeof(*c->sched));
	c->sched_ev = c->sched ? event_new(c->base, -1, 0, sched_ev_cb, c) : NULL;
	return c->sched_ev ? 0 : -ENOMEM;
}

void job_sched_fini(struct ctld *c)
{
	if (c->sched_ev)
		event_free(c->sched_ev);
	c->sched_ev = NULL;
	free(c->sched);
	c->sched = NULL;
}

int job_sched_will_run(struct ctld *c, struct job *job, char **ret_nodes, uint32_t *ret_cpus,
		       time_t *ret_start)
{
	const struct part *p = part_find(c, job->partition);
	struct sched_snap *snap = NULL;
	struct bf_stats st;
	struct bf_job *j;
	int r;

	*ret_nodes = NULL;
	*ret_cpus = 0;
	*ret_start = 0;
	if (!p)
		return -ESLURM_INVALID_PARTITION_NAME;
	r = sched_snap_take(c, &job, 1, time(NULL), &snap);
	if (r < 0)
		return r;
	if (!snap->job_count) {
		sched_snap_free(snap);
		return -ESLURM_INVALID_NODE_NAME;
	}
	/* running jobs only, as Slurm's will-run: the whole window */
	snap->params.max_job_test = 1;
	snap->params.max_job_user = 0;
	snap->params.window = 365 * 86400;
	r = bf_plan(&snap->params, snap->nodes, snap->node_count, snap->runs, snap->run_count,
		    snap->jobs, snap->job_count, &st);
	j = &snap->jobs[0];
	if (r == 0 && (j->outcome == BF_NOW || j->outcome == BF_LATER)) {
		*ret_nodes = job_place_hostlist(c, &j->res);
		*ret_cpus = j->res.total_cpus;
		*ret_start = j->start;
		r = *ret_nodes ? 0 : -ENOMEM;
	} else if (r == 0) {
		r = -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	sched_snap_free(snap);
	return r;
}
