/* sched_bf.c - see sched_bf.h.
 *
 * Owns: the 1 s check timer, the planning thread (one at a time) and the
 * eventfd it signals, the copy in flight. The thread touches only the copy.
 */
#include "sched_bf.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "assoc_limits.h"
#include "ctld.h"
#include "durable.h"
#include "job.h"
#include "license.h"
#include "job_place.h"
#include "job_prio.h"
#include "job_sched.h"
#include "node.h"
#include "sched_snap.h"
#include "sched_stats.h"

struct sched_bf {
	struct event *timer;
	struct event *done_ev;
	int efd;
	pthread_t thread;
	bool is_running;
	bool is_rerun;	/* the plan came back stale: run again at once... */
	bool was_rerun; /* ...once per interval */
	struct sched_snap *snap;
	int rc;
	uint64_t usec;
	struct bf_stats st;
	uint32_t queue_len;
	time_t last_cycle;
};

static bool is_backfill(const struct ctld *c)
{
	const char *t = c->conf->scheduler_type;

	return (!t || strcmp(t, "sched/backfill") == 0) && c->conf->bf_interval != -1;
}

static uint64_t usec_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (uint64_t)((int64_t)(t1.tv_sec - t0->tv_sec) * 1000000
			  + (int64_t)(t1.tv_nsec - t0->tv_nsec) / 1000);
}

static void plan(struct sched_bf *bf)
{
	struct sched_snap *s = bf->snap;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	bf->rc = bf_plan(&s->params, s->nodes, s->node_count, s->runs, s->run_count, s->jobs,
			 s->job_count, &bf->st);
	bf->usec = usec_since(&t0);
}

static void *plan_thread(void *arg)
{
	struct sched_bf *bf = arg;
	uint64_t one = 1;

	plan(bf);
	if (write(bf->efd, &one, sizeof(one)) < 0)
		abort(); /* an eventfd write cannot fail here; the loop would wait forever */
	return NULL;
}

/* Still free for the job now: the nodes are up and hold what res takes. */
static bool fits_now(const struct ctld *c, const struct job *job, const struct sel_result *res)
{
	bool is_excl = (job->desc && (job->desc->flags & JOB_DESC_EXCLUSIVE)) || res->is_exclusive;

	for (uint32_t k = 0; k < res->count; k++) {
		const struct sel_alloc *a = &res->nodes[k];
		const struct node *n;
		struct sel_node nd;

		if (a->node >= c->node_count)
			return false;
		n = &c->nodes[a->node];
		nd = (struct sel_node){.cpus = n->cfg->cpus,
				       .cpus_used = n->cpus_used,
				       .cpus_shared = n->cpus_shared};
		if (!job_place_node_usable(n) || n->is_exclusive_used || (n->gpus_used & a->gpus)
		    || a->cpus > select_free_cpus(&nd, res->share)
		    || n->mem_used + a->mem > n->cfg->real_memory
		    || (is_excl && (node_alloc_cpus(n) || n->mem_used || n->gpus_used)))
			return false;
	}
	return true;
}

static bool may_start(const struct job *job)
{
	/* ReqNodeNotAvail: reserved nodes (or -w's down ones) for now; the
	 * plan finds when */
	return job_is_pending(job) && job->priority
	       && (job->reason == WAIT_PRIORITY || job->reason == WAIT_RESOURCES
		   || job->reason == WAIT_NODE_NOT_AVAIL);
}

static void note_plan(struct ctld *c, struct job *job, struct bf_job *j)
{
	job->sched_by = JOB_SCHED_BF_PLAN;
	job_info_touch(job);
	if (j->outcome != BF_LATER)
		return;
	job->sched_start = j->start;
	job->sched_after = j->after_job;
	free(job->sched_nodes); /* a job held meanwhile kept its last one */
	job->sched_nodes = job_place_hostlist(c, &j->res);
}

/* Forget the estimates of the pending jobs that are not held (a new plan
 * sets them again). A held job keeps its last one, as Slurm's start_time
 * does: squeue sorts by it. */
static void estimates_clear(struct ctld *c)
{
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];

		if (!job_is_pending(job) || !job->priority
		    || (!job->sched_start && !job->sched_nodes))
			continue;
		job->sched_start = 0;
		job->sched_after = 0;
		free(job->sched_nodes);
		job->sched_nodes = NULL;
		job_info_touch(job);
	}
}

/* The plan onto the jobs; the number started. */
static uint32_t apply(struct ctld *c, struct sched_bf *bf, struct sched_snap *s)
{
	bool is_stale = s->nodes_id != (const void *)c->nodes || s->node_count != c->node_count;
	time_t now = time(NULL);
	uint32_t started = 0;

	estimates_clear(c);
	for (uint32_t i = 0; i < s->job_count && !is_stale; i++) {
		struct bf_job *j = &s->jobs[i];
		struct job *job = j->outcome == BF_UNTESTED ? NULL : job_find(c, j->job_id);
		enum job_state_reason why;
		struct sel_result res;

		if (!job || !job_is_pending(job))
			continue;
		if (j->outcome != BF_NOW) {
			note_plan(c, job, j);
			continue;
		}
		if (s->alloc_gen != c->alloc_gen || !may_start(job) || !fits_now(c, job, &j->res)
		    || !durable_job_is_saved(c, job)) {
			bf->is_rerun = true; /* something moved since the copy */
			continue;
		}
		/* the jobs started before it in this plan count towards its
		 * association's and QOS's limits */
		why = assoc_limits_blocker(c, job);
		if (why == WAIT_NO_REASON && !license_job_fits(c, job))
			why = WAIT_LICENSES; /* taken by a start since the copy */
		if (why != WAIT_NO_REASON) {
			job->reason = why;
			job_info_touch(job);
			continue;
		}
		res = j->res;
		j->res = (struct sel_result){0};
		started += job_sched_start(c, job, &res, now, JOB_SCHED_BF) != NULL;
		s->alloc_gen = c->alloc_gen; /* our own starts were planned for */
	}
	if (is_stale)
		bf->is_rerun = true;
	c->job_last_update = now;
	return started;
}

/* The jobs the main pass left waiting on Priority or Resources, in
 * priority order: the first *ret_n, as many as the planner may test (with
 * room for some it skips); *ret_queue_len: how many wait. */
static struct job **bf_queue(struct ctld *c, uint32_t *ret_n, uint32_t *ret_queue_len)
{
	const struct sl_conf *cf = c->conf;
	struct job **q = calloc(c->job_count + 1, sizeof(*q));
	uint32_t n = 0, keep;

	if (!q)
		return NULL;
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];

		if (may_start(job) && durable_job_is_saved(c, job))
			q[n++] = job;
	}
	/* its per-user cap needs them all */
	keep = cf->bf_max_job_test && !cf->bf_max_job_user && cf->bf_max_job_test < n / 2
		   ? 2 * cf->bf_max_job_test
		   : n;
	/* the main pass's order: PriorityTier, then priority */
	*ret_n = (uint32_t)job_prio_sort_top(c, q, n, keep);
	*ret_queue_len = n;
	return q;
}

/* Main pass, then the copy; 0, or -EAGAIN when there is nothing to plan. */
static int cycle_prepare(struct ctld *c, struct sched_bf *bf)
{
	_cleanup_free_ struct job **q = NULL;
	uint32_t n = 0;
	int r;

	job_sched_pass(c);
	bf->last_cycle = time(NULL);
	if (!(q = bf_queue(c, &n, &bf->queue_len)))
		return -ENOMEM;
	if (!n) {
		estimates_clear(c);
		return -EAGAIN;
	}
	r = sched_snap_take(c, q, n, bf->last_cycle, &bf->snap);
	return r;
}

static void cycle_finish(struct ctld *c, struct sched_bf *bf)
{
	uint32_t started = 0;

	if (bf->rc < 0)
		error("backfill: planning failed: %s", strerror(-bf->rc));
	else if (!c->is_shutting_down)
		started = apply(c, bf, bf->snap);
	sched_stats_bf_cycle(c, bf->usec, bf->st.tested, bf->st.tried, bf->queue_len, started,
			     bf->last_cycle);
	if (started)
		debug("backfill: started %u job(s), %u planned, %u tested in %lu usec", started,
		      bf->st.later_count, bf->st.tested, (unsigned long)bf->usec);
	bf->snap = sched_snap_free(bf->snap);
}

int sched_bf_cycle_sync(struct ctld *c, uint64_t *ret_plan_usec)
{
	struct sched_bf *bf = c->bf;
	struct sched_bf local = {.efd = -1};
	int r;

	if (!bf)
		bf = &local;
	if (bf->is_running)
		return -EBUSY;
	if (!is_backfill(c)) {
		job_sched_pass(c);
		return 0;
	}
	r = cycle_prepare(c, bf);
	if (r == -EAGAIN)
		return 0;
	if (r < 0)
		return r;
	plan(bf);
	if (ret_plan_usec)
		*ret_plan_usec = bf->usec;
	cycle_finish(c, bf);
	return bf->rc;
}

static void cycle_start(struct ctld *c, struct sched_bf *bf)
{
	sigset_t all, old;
	int r = cycle_prepare(c, bf);

	if (r == -EAGAIN)
		return;
	if (r < 0) {
		error("backfill: cannot copy the queue: %s", strerror(-r));
		return;
	}
	/* the thread takes no signals: the loop's handlers run on the loop */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&bf->thread, NULL, plan_thread, bf);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		error("backfill: cannot start the planning thread: %s", strerror(r));
		bf->snap = sched_snap_free(bf->snap);
		return;
	}
	bf->is_running = true;
}

static void done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	struct sched_bf *bf = c->bf;
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof(n)) < 0)
		return;
	if (!bf->is_running)
		return;
	pthread_join(bf->thread, NULL);
	bf->is_running = false;
	cycle_finish(c, bf);
	if (bf->is_rerun && !bf->was_rerun && !c->is_shutting_down) {
		bf->is_rerun = false;
		bf->was_rerun = true;
		cycle_start(c, bf);
	}
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	struct sched_bf *bf = c->bf;
	time_t now = time(NULL);

	(void)fd;
	(void)what;
	if (bf->is_running || c->is_shutting_down || !is_backfill(c)
	    || now - bf->last_cycle < c->conf->bf_interval)
		return;
	bf->is_rerun = bf->was_rerun = false;
	cycle_start(c, bf);
}

int sched_bf_init(struct ctld *c)
{
	struct sched_bf *bf = calloc(1, sizeof(*bf));
	struct timeval one = {1, 0};

	if (!bf)
		return -ENOMEM;
	c->bf = bf;
	bf->last_cycle = time(NULL);
	bf->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (bf->efd < 0)
		return log_errno(-errno, "backfill: eventfd");
	bf->done_ev = event_new(c->base, bf->efd, EV_READ | EV_PERSIST, done_cb, c);
	bf->timer = event_new(c->base, -1, EV_PERSIST, timer_cb, c);
	if (!bf->done_ev || !bf->timer || event_add(bf->done_ev, NULL) < 0
	    || event_add(bf->timer, &one) < 0)
		return log_errno(-ENOMEM, "backfill: cannot set up its events");
	return 0;
}

void sched_bf_fini(struct ctld *c)
{
	struct sched_bf *bf = c->bf;

	if (!bf)
		return;
	if (bf->is_running)
		pthread_join(bf->thread, NULL);
	sched_snap_free(bf->snap);
	if (bf->timer)
		event_free(bf->timer);
	if (bf->done_ev)
		event_free(bf->done_ev);
	if (bf->efd >= 0)
		close(bf->efd);
	free(bf);
	c->bf = NULL;
}
