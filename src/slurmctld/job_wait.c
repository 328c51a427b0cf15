/* job_wait.c - waits on job states (job_wait.h), answered from the
 * job_changed() hook.
 *
 * Each waited id is a ref in a fixed hash of id -> refs, so a job change
 * costs one bucket walk whether anybody waits or not; only the waits
 * naming the job (or its array) are looked at again. A wait is answered
 * once its jobs are done (any, or all with JOB_WAIT_ALL); its timer
 * answers it at its timeout otherwise. An array's id stands for all its
 * tasks: done when every task is, with the highest exit code.
 * Caveat: a job purged (MinJobAge) is not looked up from the purge hook,
 * which runs while the table is being compacted: its ref keeps what the
 * job was, and a purged job was finished, so its wait was answered.
 */
#include "job_wait.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <event2/event.h>

#include "common/job_states.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/msg_wait.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"

#define WAIT_BUCKETS 1024 /* power of two */

struct wait_ref {
	uint32_t id;
	struct job_waiter *w;
	struct wait_ref *next, **pprev; /* the bucket's chain */
	bool is_unknown;		/* absent or invisible when the wait began */
	bool is_purged;
	uint32_t gone_state, gone_exit; /* the job (or an array's purged task) as it left */
};

struct job_waiter {
	struct ctld *c;
	uid_t uid;
	uint32_t states, flags;
	job_wait_done_fn *done;
	void *arg;
	struct event *timer;
	struct job_waiter *next, **pprev; /* every wait */
	struct job_waiter *done_next;	  /* collected by a hook, answered after */
	bool is_done;
	uint32_t n;
	struct wait_ref refs[];
};

struct job_wait {
	struct wait_ref *buckets[WAIT_BUCKETS];
	struct job_waiter *all;
	uint32_t count;
};

static struct wait_ref **bucket(struct job_wait *jw, uint32_t id)
{
	return &jw->buckets[(id * 2654435761u) >> 22 & (WAIT_BUCKETS - 1)];
}

/* Finished and its nodes released: it will change no more (but a requeue). */
static bool is_final(uint32_t state)
{
	uint32_t base = state & JOB_STATE_BASE;

	return base > JOB_SUSPENDED && !(state & JOB_COMPLETING);
}

static bool is_in_set(uint32_t state, uint32_t set)
{
	uint32_t base = state & JOB_STATE_BASE;

	if (set & JOB_WAIT_FINISHED && is_final(state))
		return true;
	if (set & JOB_WAIT_STARTED && base != JOB_PENDING)
		return true;
	if (base >= 30 || !(set & 1u << base))
		return false;
	return base <= JOB_SUSPENDED || !(state & JOB_COMPLETING);
}

static enum job_wait_result job_result(uint32_t state, uint32_t set)
{
	if (is_in_set(state, set))
		return JOB_WAIT_REACHED;
	return is_final(state) ? JOB_WAIT_ENDED : JOB_WAIT_PENDING;
}

/* The first index of the table with an id >= id (ids are sorted). */
static uint32_t table_lower_bound(const struct ctld *c, uint32_t id)
{
	uint32_t lo = 0, hi = c->job_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->jobs[mid]->job_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keep in out the state and exit code of the task with the highest exit. */
static void fold_exit(struct job_wait_job *out, bool *has, uint32_t state, uint32_t status)
{
	if (!*has || job_wait_exit_code(status) > job_wait_exit_code(out->exit_code)) {
		out->state = state;
		out->exit_code = status;
	}
	*has = true;
}

/* An array's id: every task record (its tasks get later ids; the meta
 * record, pending tasks left, keeps the array's id). */
static enum job_wait_result array_eval(const struct ctld *c, const struct wait_ref *r,
				       uint32_t set, struct job_wait_job *out)
{
	bool is_done = true, is_reached = true, has = false;

	if (r->gone_exit)
		fold_exit(out, &has, r->gone_state, r->gone_exit);
	for (uint32_t i = table_lower_bound(c, r->id); i < c->job_count; i++) {
		const struct job *j = c->jobs[i];
		enum job_wait_result jr;

		if (j->array_job_id != r->id)
			continue;
		jr = job_result(j->state, set);
		is_done = is_done && jr != JOB_WAIT_PENDING;
		is_reached = is_reached && jr == JOB_WAIT_REACHED;
		fold_exit(out, &has, j->state, j->exit_code);
	}
	if (!is_done)
		return JOB_WAIT_PENDING;
	return is_reached ? JOB_WAIT_REACHED : JOB_WAIT_ENDED;
}

static enum job_wait_result ref_eval(struct ctld *c, const struct wait_ref *r, uint32_t set,
				     struct job_wait_job *out)
{
	struct job *job;

	*out = (struct job_wait_job){.job_id = r->id};
	if (r->is_unknown)
		return JOB_WAIT_UNKNOWN;
	if (r->is_purged) {
		out->state = r->gone_state;
		out->exit_code = r->gone_exit;
		return JOB_WAIT_PURGED;
	}
	job = job_find(c, r->id);
	if (!job)
		return JOB_WAIT_PURGED;
	if (job->array_job_id == r->id)
		return array_eval(c, r, set, out);
	out->state = job->state;
	out->exit_code = job->exit_code;
	return job_result(job->state, set);
}

static bool waiter_is_done(struct job_waiter *w)
{
	bool is_all = w->flags & JOB_WAIT_ALL;

	for (uint32_t i = 0; i < w->n; i++) {
		struct job_wait_job tmp;
		bool is_done = ref_eval(w->c, &w->refs[i], w->states, &tmp) != JOB_WAIT_PENDING;

		if (is_done && !is_all)
			return true;
		if (!is_done && is_all)
			return false;
	}
	return is_all;
}

static void waiter_free(struct job_waiter *w)
{
	struct job_wait *jw = w->c->job_wait;

	for (uint32_t i = 0; i < w->n; i++) {
		struct wait_ref *r = &w->refs[i];

		if (!r->pprev)
			continue;
		*r->pprev = r->next;
		if (r->next)
			r->next->pprev = r->pprev;
	}
	if (w->pprev) {
		*w->pprev = w->next;
		if (w->next)
			w->next->pprev = w->pprev;
		jw->count--;
	}
	if (w->timer)
		event_free(w->timer);
	free(w);
}

/* Answer w with what its jobs are now (those not done: is_timeout's word)
 * and free it. */
static void waiter_answer(struct job_waiter *w, bool is_timeout)
{
	struct job_wait_job *jobs = calloc(w->n, sizeof(*jobs));
	struct job_wait_resp resp = {.count = jobs ? w->n : 0, .jobs = jobs};

	for (uint32_t i = 0; jobs && i < w->n; i++) {
		jobs[i].result = ref_eval(w->c, &w->refs[i], w->states, &jobs[i]);
		if (jobs[i].result == JOB_WAIT_PENDING && is_timeout)
			jobs[i].result = JOB_WAIT_TIMEOUT;
	}
	w->done(w->arg, &resp);
	free(jobs);
	waiter_free(w);
}

void job_wait_timeout(struct job_waiter *w)
{
	waiter_answer(w, true);
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	job_wait_timeout(arg);
}

/* The waits naming id, done now, go on *list (each once). */
static void collect_done(struct job_wait *jw, uint32_t id, struct job_waiter **list)
{
	for (struct wait_ref *r = *bucket(jw, id); r; r = r->next) {
		if (r->id != id || r->w->is_done || !waiter_is_done(r->w))
			continue;
		r->w->is_done = true;
		r->w->done_next = *list;
		*list = r->w;
	}
}

static void wait_job_changed(struct ctld *c, struct job *job)
{
	struct job_wait *jw = c->job_wait;
	struct job_waiter *list = NULL;

	if (!jw || !jw->count)
		return;
	collect_done(jw, job->job_id, &list);
	if (job->array_job_id && job->array_job_id != job->job_id)
		collect_done(jw, job->array_job_id, &list);
	while (list) {
		struct job_waiter *w = list;

		list = w->done_next;
		waiter_answer(w, false);
	}
}

/* Not looked up again (the table is being compacted): the refs keep what
 * the job was when it left. */
static void wait_job_purged(struct ctld *c, const struct job *job)
{
	struct job_wait *jw = c->job_wait;
	uint32_t array_id = job->array_job_id != job->job_id ? job->array_job_id : 0;

	if (!jw || !jw->count)
		return;
	for (struct wait_ref *r = *bucket(jw, job->job_id); r; r = r->next) {
		if (r->id != job->job_id)
			continue;
		r->is_purged = true;
		r->gone_state = job->state;
		r->gone_exit = job->exit_code;
	}
	for (struct wait_ref *r = array_id ? *bucket(jw, array_id) : NULL; r; r = r->next) {
		if (r->id == array_id && (!r->gone_exit || job_wait_exit_code(job->exit_code)
							       > job_wait_exit_code(r->gone_exit))) {
			r->gone_state = job->state;
			r->gone_exit = job->exit_code;
		}
	}
}

static const struct job_hook wait_hook = {
    .changed = wait_job_changed,
    .purged = wait_job_purged,
};

int job_wait_init(struct ctld *c)
{
	c->job_wait = calloc(1, sizeof(*c->job_wait));
	if (!c->job_wait)
		return -ENOMEM;
	return job_hook_add(c, &wait_hook);
}

void job_wait_fini(struct ctld *c)
{
	if (!c->job_wait)
		return;
	while (c->job_wait->all)
		waiter_answer(c->job_wait->all, true);
	free(c->job_wait);
	c->job_wait = NULL;
}

uint32_t job_wait_count(const struct ctld *c)
{
	return c->job_wait ? c->job_wait->count : 0;
}

static int check_caps(const struct job_wait *jw, uid_t uid)
{
	uint32_t mine = 0;

	if (jw->count >= SL_WAIT_TOTAL_MAX)
		return -ESLURM_WAIT_LIMIT;
	for (const struct job_waiter *w = jw->all; w; w = w->next)
		mine += w->uid == uid;
	return mine >= SL_WAIT_PER_UID_MAX ? -ESLURM_WAIT_LIMIT : 0;
}

/* The wait's refs, each marked unknown when uid may not see its job. */
static void refs_fill(struct ctld *c, struct job_waiter *w, const struct job_wait_req *m)
{
	for (uint32_t i = 0; i < w->n; i++) {
		struct wait_ref *r = &w->refs[i];
		struct job *job = job_find(c, m->job_ids[i]);

		r->id = m->job_ids[i];
		r->w = w;
		r->is_unknown = !job || !job_is_visible(c, job, w->uid);
	}
}

static void waiter_link(struct job_wait *jw, struct job_waiter *w)
{
	for (uint32_t i = 0; i < w->n; i++) {
		struct wait_ref *r = &w->refs[i], **head = bucket(jw, r->id);

		r->next = *head;
		if (*head)
			(*head)->pprev = &r->next;
		r->pprev = head;
		*head = r;
	}
	w->next = jw->all;
	if (jw->all)
		jw->all->pprev = &w->next;
	w->pprev = &jw->all;
	jw->all = w;
	jw->count++;
}

int job_wait_start(struct ctld *c, const struct job_wait_req *m, uid_t uid,
		   job_wait_done_fn *done, void *arg, struct job_waiter **ret_w)
{
	struct job_wait *jw = c->job_wait;
	struct job_waiter *w;
	uint32_t timeout = m->timeout_s < SL_WAIT_TIMEOUT_MAX ? m->timeout_s : SL_WAIT_TIMEOUT_MAX;
	int r;

	*ret_w = NULL;
	if (!m->job_id_count || m->job_id_count > SL_WAIT_JOBS_MAX)
		return -EINVAL;
	r = check_caps(jw, uid);
	if (r < 0)
		return r;
	w = calloc(1, sizeof(*w) + m->job_id_count * sizeof(w->refs[0]));
	if (!w)
		return -ENOMEM;
	*w = (struct job_waiter){.c = c, .uid = uid, .states = m->states ? m->states
									  : JOB_WAIT_FINISHED,
				 .flags = m->flags, .done = done, .arg = arg, .n = m->job_id_count};
	refs_fill(c, w, m);
	if (waiter_is_done(w) || !timeout) {
		waiter_answer(w, !waiter_is_done(w));
		return 0;
	}
	if (c->base) {
		struct timeval tv = {.tv_sec = timeout};

		w->timer = evtimer_new(c->base, timer_cb, w);
		if (!w->timer || evtimer_add(w->timer, &tv) < 0) {
			waiter_free(w);
			return -ENOMEM;
		}
	}
	waiter_link(jw, w);
	debug2("uid=%u waits on %u job(s) for %u s", (unsigned)uid, w->n, timeout);
	*ret_w = w;
	return 0;
}

void job_wait_cancel(struct job_waiter *w)
{
	waiter_free(w);
}
