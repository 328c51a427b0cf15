/* node_reconcile.c - see node_reconcile.h.
 *
 * A job or step is "there" when the node lists it, live or with its
 * completion waiting in the spool (NODE_STEP_DONE: that completion is on
 * its way, so nothing is decided here). Only what started at least
 * RECONCILE_GRACE(c) seconds before the node was asked is judged missing:
 * a launch in flight may not have reached the node when it answered
 * (BatchStartTimeout + MessageTimeout, as Slurm's "missing from batch
 * node").
 */
#include "node_reconcile.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_epilog.h"
#include "job_end.h"
#include "node.h"
#include "step.h"

#define RECONCILE_GRACE(c)                                                                         \
	((time_t)(c)->conf->batch_start_timeout + (time_t)(c)->conf->message_timeout)

struct refs {
	const struct node_step_ref *v; /* sorted by (job, step) */
	uint32_t count;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct node_step_ref *x = a, *y = b;

	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	return x->step_id < y->step_id ? -1 : x->step_id > y->step_id;
}

/* The node's entry for job.step, NULL when it has none. */
static const struct node_step_ref *refs_find(const struct refs *r, uint32_t job_id,
					     uint32_t step_id)
{
	struct node_step_ref key = {.job_id = job_id, .step_id = step_id};

	return r->count ? bsearch(&key, r->v, r->count, sizeof(key), ref_cmp) : NULL;
}

static bool job_uses_node(const struct job *job, uint32_t node_index)
{
	for (uint32_t k = 0; k < job->alloc.count; k++)
		if (job->alloc.nodes[k].node == node_index)
			return true;
	return false;
}

/* started at `start`, not judged before start + grace: ask the node again then */
static bool is_too_young(struct ctld *c, struct node *n, time_t start, time_t asked)
{
	time_t due = start + RECONCILE_GRACE(c);

	if (due <= asked)
		return false;
	if (!n->recheck_time || due < n->recheck_time)
		n->recheck_time = due;
	return true;
}

static bool job_is_batch_on(const struct job *job, const struct node *n)
{
	return !job_is_interactive(job) && job->batch_host && streq(job->batch_host, node_name(n));
}

/* A running step the controller has on n that n does not list: its
 * tasks there are gone; the step's report from n is "killed". */
static void reconcile_steps(struct ctld *c, struct job *job, struct node *n, const struct refs *r,
			    time_t asked)
{
	uint32_t node_index = (uint32_t)(n - c->nodes);

	for (uint32_t i = 0; i < job->step_count; i++) {
		struct step *s = &job->steps[i];
		struct step_complete_msg m = {
		    .job_id = job->job_id,
		    .step_id = s->step_id,
		    .node_name = (char *)node_name(n),
		    .step_rc = SIGKILL,
		    .end_time = asked,
		};
		bool is_pending_here = false;

		for (uint32_t k = 0; k < s->node_count; k++)
			is_pending_here |= s->nodes[k].node == node_index && !s->nodes[k].is_done;
		if (!step_is_running(s) || !is_pending_here
		    || s->start_time + RECONCILE_GRACE(c) > asked
		    /* the extern stepd starts once the node's Prolog is done */
		    || (s->step_id == SL_EXTERN_STEP && (job->state & JOB_CONFIGURING))
		    || refs_find(r, job->job_id, s->step_id))
			continue;
		error("StepId=%u.%u: node %s has no trace of the step; it ends there", job->job_id,
		      s->step_id, node_name(n));
		step_complete(c, &m);
	}
}

/* COMPLETING and still live on n: its kill is sent again (as Slurm does);
 * past UnkillableStepTimeout the node is drained ("Kill task failed", as
 * Slurm) and the job ends. */
static void reconcile_unkillable(struct ctld *c, struct job *job, struct node *n, time_t asked)
{
	if (!job->kill_seen_time)
		job->kill_seen_time = asked;
	if (asked - job->kill_seen_time < (time_t)c->conf->unkillable_step_timeout) {
		/* the kill may never have arrived (slurmd restarting): again */
		job_end_resend_kill(c, job, (uint32_t)(n - c->nodes));
		return;
	}
	error("JobId=%u: still running on node %s %u s after it was told to stop", job->job_id,
	      node_name(n), (unsigned)(asked - job->kill_seen_time));
	node_drain(c, n, "Kill task failed", asked);
	job_end_no_trace(c, job, "could not kill the job (UnkillableStepTimeout)");
}

/* What the controller has running on n, against what n lists. */
static void reconcile_ours(struct ctld *c, struct node *n, const struct refs *r, time_t asked)
{
	uint32_t node_index = (uint32_t)(n - c->nodes);

	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];
		const struct node_step_ref *batch;

		if (!job_is_running(job) || !job_uses_node(job, node_index) || job->epilog_count)
			continue; /* owing epilogs: job_epilog_node_alive */
		if (!job_is_batch_on(job, n)) {
			reconcile_steps(c, job, n, r, asked);
			continue;
		}
		batch = refs_find(r, job->job_id, SL_BATCH_STEP);
		if (batch && !(batch->flags & NODE_STEP_DONE) && (job->state & JOB_COMPLETING))
			reconcile_unkillable(c, job, n, asked);
		if (batch || job->is_launching || (job->state & JOB_CONFIGURING)
		    || is_too_young(c, n, job->start_time, asked)) {
			reconcile_steps(c, job, n, r, asked);
			continue;
		}
		if (job->state & JOB_COMPLETING) {
			job_end_no_trace(c, job, "has no trace of the job");
			continue;
		}
		error("JobId=%u: node %s does not run the job any more (no slurmstepd, no "
		      "completion)",
		      job->job_id, node_name(n));
		job_end_node_lost(c, job, node_index, asked);
	}
}

static void kill_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	(void)arg;
	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc < 0 && rc != -ESLURM_INVALID_JOB_ID)
		debug("kill of an orphan step not delivered: %s", sl_strerror(rc));
}

/* Is what n lists one the controller has running there? */
static const char *ref_is_stale(struct ctld *c, const struct node_step_ref *ref,
				uint32_t node_index)
{
	struct job *job = job_find(c, ref->job_id);
	struct step *s;

	if (!job)
		return "unknown";
	if (!job_is_running(job) || job_is_pending(job))
		return job_state_string(job->state);
	if (!job_uses_node(job, node_index))
		return "running elsewhere";
	if (ref->step_id == SL_BATCH_STEP)
		return NULL;
	s = step_find(job, ref->step_id);
	if (!s)
		return "an unknown step";
	return step_is_running(s) ? NULL : "an ended step";
}

/* What n runs that the controller does not have running there: killed. */
static void reconcile_theirs(struct ctld *c, struct node *n, const struct refs *r)
{
	uint32_t node_index = (uint32_t)(n - c->nodes);

	for (uint32_t i = 0; i < r->count; i++) {
		const struct node_step_ref *ref = &r->v[i];
		struct signal_job_msg m = {
		    .job_id = ref->job_id, .step_id = ref->step_id, .signal = SIGKILL};
		const char *why;
		char step[16] = "batch";

		if (ref->flags & NODE_STEP_DONE)
			continue; /* over; its completion is on its way */
		why = ref_is_stale(c, ref, node_index);
		if (!why)
			continue;
		if (ref->step_id != SL_BATCH_STEP)
			snprintf(step, sizeof(step), "%u", ref->step_id);
		error("StepId=%u.%s runs on node %s but the controller has it as %s: killing it",
		      ref->job_id, step, node_name(n), why);
		ctld_send_node(c, n, REQUEST_TERMINATE_JOB, &m, kill_done_cb, NULL);
	}
}

void node_reconcile(struct ctld *c, struct node *n, const struct node_step_ref *steps,
		    uint32_t count, time_t asked)
{
	_cleanup_free_ struct node_step_ref *sorted = NULL;
	struct refs r = {0};

	n->recheck_time = 0;
	if (count) {
		sorted = malloc(count * sizeof(*sorted));
		if (!sorted)
			return; /* next time */
		memcpy(sorted, steps, count * sizeof(*sorted));
		qsort(sorted, count, sizeof(*sorted), ref_cmp);
		r = (struct refs){sorted, count};
	}
	reconcile_ours(c, n, &r, asked);
	reconcile_theirs(c, n, &r);
	job_epilog_node_alive(c, (uint32_t)(n - c->nodes), asked);
}
