/* job_preempt.c - see job_preempt.h. */
#include "job_preempt.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "assoc.h"
#include "ctld.h"
#include "job.h"
#include "job_cancel.h"
#include "job_end.h"
#include "job_place.h"
#include "part.h"
#include "preempt.h"

#define PREEMPT_CANDS_MAX 256 /* running jobs weighed for one preemptor */

struct cand {
	struct job *job;
	uint32_t qos_prio;
};

/* name is one of the words of list ("a,b"). */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == len && strncasecmp(p, name, n) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

static bool runs_on(const struct job *job, const struct part *p, const bool *in_part)
{
	(void)p;
	for (uint32_t k = 0; k < job->alloc.count; k++)
		if (in_part[job->alloc.nodes[k].node])
			return true;
	return false;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->qos_prio != y->qos_prio)
		return x->qos_prio < y->qos_prio ? -1 : 1;
	if (x->job->start_time != y->job->start_time) /* the youngest first */
		return x->job->start_time > y->job->start_time ? -1 : 1;
	return x->job->job_id > y->job->job_id ? -1 : 1;
}

/* PreemptMode of victim's QOS, else slurm.conf's: PREEMPT_MODE_*. */
static uint16_t mode_of(const struct ctld *c, const struct job *victim)
{
	const struct qos *q = qos_of_job(c, victim);
	const char *m = q ? q->rec.preempt_mode : NULL;

	if (!m || !*m || strcasecmp(m, "cluster") == 0)
		return c->conf->preempt_mode;
	if (strcasecmp(m, "requeue") == 0)
		return PREEMPT_MODE_REQUEUE;
	if (strcasecmp(m, "cancel") == 0)
		return PREEMPT_MODE_CANCEL;
	return PREEMPT_MODE_OFF;
}

/* Requeue (when the job may run again) or cancel the victim now. */
static void preempt_now(struct ctld *c, struct job *v)
{
	uint16_t mode = mode_of(c, v);

	v->preempt_kill_at = 0;
	if (mode == PREEMPT_MODE_REQUEUE && !job_is_interactive(v) && job_may_requeue(c, v)
	    && job_end_requeue(c, v, false, 0, true) == 0) {
		info("preempt: JobId=%u requeued for JobId=%u", v->job_id, v->preempted_for);
		return;
	}
	info("preempt: JobId=%u cancelled for JobId=%u", v->job_id, v->preempted_for);
	job_cancel_preempt(c, v);
}

static void victim_take(struct ctld *c, struct job *v, const struct job *job, time_t now)
{
	const struct qos *q = qos_of_job(c, v);
	uint32_t grace = q ? q->rec.grace_time : 0;

	v->preempted_for = job->job_id;
	if (!grace) {
		preempt_now(c, v);
		return;
	}
	info("preempt: JobId=%u has %u s (GraceTime) to end for JobId=%u", v->job_id, grace,
	     job->job_id);
	job_end_send_signal(c, v, REQUEST_SIGNAL_TASKS, SIGCONT, 0);
	job_end_send_signal(c, v, REQUEST_SIGNAL_TASKS, SIGTERM, 0);
	v->preempt_kill_at = now + grace;
}

/* Running jobs the preemptor's QOS may preempt, on p's nodes, in order. */
static uint32_t cands_of(struct ctld *c, const struct job *job, const struct qos *q,
			 const struct part *p, struct cand *out, bool *ret_waiting)
{
	_cleanup_free_ bool *in_part = calloc(c->node_count + 1, sizeof(bool));
	uint32_t n = 0;

	*ret_waiting = false;
	if (!in_part)
		return 0;
	for (uint32_t k = 0; k < p->node_count; k++)
		in_part[p->node_idx[k]] = true;
	for (uint32_t i = 0; i < c->job_count && n < PREEMPT_CANDS_MAX; i++) {
		struct job *o = c->jobs[i];
		const struct qos *oq;

		if (!job_is_running(o) || !o->alloc.count)
			continue;
		if (o->preempted_for == job->job_id) {
			*ret_waiting = true; /* still giving its place back */
			return 0;
		}
		if (o->preempted_for || (o->state & JOB_COMPLETING) || !runs_on(o, p, in_part))
			continue;
		oq = qos_of_job(c, o);
		if (!oq || oq == q || !in_list(q->rec.preempt, oq->name)
		    || mode_of(c, o) == PREEMPT_MODE_OFF)
			continue;
		out[n++] = (struct cand){o, oq->priority};
	}
	qsort(out, n, sizeof(*out), cand_cmp);
	return n;
}

bool job_preempt_try(struct ctld *c, struct job *job, const struct part *p, time_t now)
{
	const struct qos *q = qos_of_job(c, job);
	_cleanup_free_ struct cand *cands = NULL;
	_cleanup_free_ struct preempt_cand *pc = NULL;
	_cleanup_free_ bool *chosen = NULL;
	_cleanup_free_ struct sel_node *nodes = NULL;
	_cleanup_free_ bool *req = NULL;
	_cleanup_free_ bool *exc = NULL;
	_cleanup_free_ struct sel_feat *feat = NULL;
	struct sel_req r;
	bool is_waiting;
	uint32_t n;

	if (c->conf->preempt_type != PREEMPT_TYPE_QOS || !p || !q || !q->rec.preempt
	    || !*q->rec.preempt)
		return false;
	cands = calloc(PREEMPT_CANDS_MAX, sizeof(*cands));
	if (!cands)
		return false;
	n = cands_of(c, job, q, p, cands, &is_waiting);
	if (is_waiting)
		return true;
	pc = calloc(n + 1, sizeof(*pc));
	chosen = calloc(n + 1, sizeof(*chosen));
	nodes = job_place_nodes(c, p, false);
	if (!n || !pc || !chosen || !nodes
	    || job_place_request(c, job, p, false, true, &r, &req, &exc, &feat) < 0)
		return false;
	for (uint32_t i = 0; i < n; i++)
		pc[i] = (struct preempt_cand){
		    &cands[i].job->alloc,
		    cands[i].job->desc && (cands[i].job->desc->flags & JOB_DESC_EXCLUSIVE)};
	if (preempt_pick(nodes, c->node_count, &r, pc, n, chosen) < 0)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (chosen[i]) {
			victim_take(c, cands[i].job, job, now);
			is_waiting = true;
		}
	return is_waiting;
}

void job_preempt_timer(struct ctld *c, time_t now)
{
	uint32_t n;
	struct job *const *jobs = job_view(c, &n);

	for (uint32_t i = 0; i < n; i++) {
		struct job *v = jobs[i];

		if (v->preempt_kill_at && v->preempt_kill_at <= now && job_is_running(v)
		    && !(v->state & JOB_COMPLETING))
			preempt_now(c, v);
	}
}
