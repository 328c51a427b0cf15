/* job_end.c - see job_end.h.
 *
 * Caveat: a signal or terminate sent to a node that does not answer is
 * only logged; the node's own failure (ping timeout) will end the job.
 */
#include "job_end.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_epilog.h"
#include "job_place.h"
#include "job_prio.h"
#include "job_res.h"
#include "mail.h"
#include "node.h"
#include "step.h"

static void job_finish(struct ctld *c, struct job *job, uint32_t base, enum job_state_reason why,
		       time_t now)
{
	step_job_ending(c, job, JOB_CANCELLED, SRUN_END_CANCELLED); /* any left */
	job->state = base;
	job->reason = why;
	job->end_time = now;
	job_res_release(c, job);
	job_epilog_start(c, job); /* its nodes stay COMPLETING until done */
	job_ended(c, job); /* EpilogSlurmctld (job_script.c): COMPLETING too */
	job_changed(c, job);
	if (base == JOB_TIMEOUT)
		mail_job(c, job, MAIL_JOB_TIME100);
	if (base != JOB_COMPLETE && base != JOB_CANCELLED)
		mail_job(c, job, MAIL_JOB_FAIL);
	mail_job(c, job, MAIL_JOB_END);
}

void job_end_launch_failed(struct ctld *c, struct job *job)
{
	job_finish(c, job, JOB_FAILED, FAIL_LAUNCH, time(NULL));
}

#define LAUNCH_RETRY_S 3

static void job_requeue_reset(struct ctld *c, struct job *job, time_t now);

void job_end_launch_retry(struct ctld *c, struct job *job)
{
	time_t now = time(NULL);

	info("JobId=%u: not started on %s; the job is requeued and tried again in %d s",
	     job->job_id, job->batch_host ? job->batch_host : "?", LAUNCH_RETRY_S);
	job_end_send_signal(c, job, REQUEST_TERMINATE_JOB, SIGKILL, 0);
	job->is_requeue_hold = false;
	job_requeue_reset(c, job, now);
	job->eligible_time = now + LAUNCH_RETRY_S;
	job_changed(c, job);
}

void job_end_prolog_failed(struct ctld *c, struct job *job, uint32_t node_index)
{
	time_t now = time(NULL);
	const char *name = node_index < c->node_count ? node_name(&c->nodes[node_index]) : "?";

	if (node_index < c->node_count)
		node_drain(c, &c->nodes[node_index], "Prolog error", now);
	if (job_is_interactive(job)) {
		info("JobId=%u: prolog failed on %s; the allocation is cancelled", job->job_id,
		     name);
		job_end_alloc(c, job, JOB_CANCELLED, WAIT_NO_REASON, REQUEST_TERMINATE_JOB,
			      SRUN_END_CANCELLED);
		return;
	}
	if (!job_may_requeue(c, job) && !(c->conf->prolog_flags & PROLOG_FLAG_FORCE_REQUEUE)) {
		info("JobId=%u: prolog failed on %s; the job may not be requeued: it fails",
		     job->job_id, name);
		job_end_send_signal(c, job, REQUEST_TERMINATE_JOB, SIGKILL, 0);
		job_finish(c, job, JOB_FAILED, FAIL_LAUNCH, now);
		return;
	}
	info("JobId=%u: prolog failed on %s; the job is requeued and held", job->job_id, name);
	job_end_send_signal(c, job, REQUEST_TERMINATE_JOB, SIGKILL, 0);
	job->is_requeue_hold = true;
	job_requeue_reset(c, job, now);
	job->reason = WAIT_HELD_LAUNCH_FAILED;
	job_changed(c, job);
}

static void client_notice_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	uint32_t job_id = (uint32_t)(uintptr_t)arg;

	(void)type;
	(void)msg;
	if (rc < 0)
		debug("JobId=%u: notice to the allocation client not delivered: %s", job_id,
		      sl_strerror(rc));
}

/* type {job, SL_ALL_STEPS, reason, node_name} to an interactive job's
 * client (salloc, srun); a batch job has nobody to tell. */
static void notify_client(struct ctld *c, const struct job *job, uint16_t type,
			  uint16_t srun_reason, const char *node_name)
{
	struct srun_notice_msg m = {.job_id = job->job_id,
				    .step_id = SL_ALL_STEPS,
				    .reason = srun_reason,
				    .node_name = (char *)node_name};

	if (!job_is_interactive(job))
		return;
	if (ctld_send(c, job->desc->alloc_host, job->desc->alloc_port, type, &m, job->uid,
		      client_notice_done_cb, (void *)(uintptr_t)job->job_id)
	    < 0)
		debug("JobId=%u: cannot reach the allocation client", job->job_id);
}

void job_end_notify_client(struct ctld *c, const struct job *job, uint16_t srun_reason)
{
	notify_client(c, job, SRUN_JOB_COMPLETE, srun_reason, NULL);
}

void job_end_alloc(struct ctld *c, struct job *job, uint32_t base, enum job_state_reason why,
		   uint16_t kill_type, uint16_t srun_reason)
{
	/* steps of a timed-out job end CANCELLED, as Slurm's do */
	uint32_t step_state = base == JOB_NODE_FAIL ? base : JOB_CANCELLED;
	uint16_t step_reason = base == JOB_TIMEOUT     ? SRUN_END_TIME_LIMIT
			       : base == JOB_NODE_FAIL ? SRUN_END_NODE_FAIL
						       : SRUN_END_CANCELLED;

	if (base == JOB_CANCELLED)
		job->is_cancelled = true;
	else if (base == JOB_TIMEOUT)
		job->is_timed_out = true;
	/* the nodes first: a stepd told KILL_TIMELIMIT says so to its srun */
	if (kill_type)
		job_end_send_signal(c, job, kill_type, SIGKILL, 0);
	step_job_ending(c, job, step_state, step_reason);
	if (srun_reason != ALLOC_NO_NOTICE)
		job_end_notify_client(c, job, srun_reason);
	job_finish(c, job, base, why, time(NULL));
}

/* Back to PENDING with a new priority, as a requeued job restarts. */
static void job_requeue_reset(struct ctld *c, struct job *job, time_t now)
{
	bool hold = job->is_requeue_hold;

	step_job_ending(c, job, JOB_CANCELLED, SRUN_END_CANCELLED);
	job_requeued(c, job, now); /* the run that ends here keeps its own row */
	if (!job_is_finished(job))
		job_epilog_start(c, job); /* before its nodes are forgotten */
	free(job->prolog_nodes); /* PrologFlags=Alloc: asked again at its next start */
	job->prolog_nodes = NULL;
	job->prolog_count = 0;
	job->is_prolog_ctld = false;
	if (job->alloc.count)
		job_res_release(c, job);
	sel_result_done(&job->alloc);
	free(job->nodes);
	free(job->batch_host);
	job->nodes = job->batch_host = NULL;
	/* not started again until its nodes' epilogs are done */
	job->state = JOB_PENDING | (job->epilog_count ? JOB_COMPLETING : 0);
	job->reason = hold ? WAIT_HELD : WAIT_NO_REASON;
	job->priority = hold ? 0 : job_next_priority(c, job);
	job->is_user_hold = false;
	job->restart_cnt++;
	job->exit_code = 0;
	(void)job_set_batch_usage(job, NULL);
	job->start_time = job->end_time = 0;
	job->eligible_time = now;
	job->is_cancelled = job->is_timed_out = job->is_requeued = job->is_requeue_hold = false;
	job->is_warned = false;
	job->kill_seen_time = 0;
	job_changed(c, job);
	ctld_sched_request(c);
}

/* --no-kill: a job on more than one node goes on without the failed one,
 * unless it was the node of its batch script (or the job is still being
 * configured), as Slurm. Returns whether it did. */
static bool job_end_excise(struct ctld *c, struct job *job, uint32_t node_index)
{
	const char *name = node_name(&c->nodes[node_index]);
	uint32_t k = 0;
	char *nodes;

	if (!job->desc || !(job->desc->flags & JOB_DESC_NO_KILL) || job->alloc.count < 2
	    || (job->state & (JOB_CONFIGURING | JOB_COMPLETING))
	    || (job->batch_host && streq(job->batch_host, name)))
		return false;
	while (k < job->alloc.count && job->alloc.nodes[k].node != node_index)
		k++;
	if (k == job->alloc.count)
		return false;
	job_res_release_node(c, job, k);
	nodes = job_place_hostlist(c, &job->alloc);
	if (nodes) { /* out of memory: the old list stays, naming one node more */
		free(job->nodes);
		job->nodes = nodes;
	}
	error("Removing failed node %s from JobId=%u (--no-kill): it goes on on %s", name,
	      job->job_id, job->nodes);
	step_node_lost(c, job, node_index, k);
	notify_client(c, job, SRUN_NODE_FAIL, 0, name); /* salloc: "Node failure on X" */
	job_changed(c, job);
	return true;
}

void job_end_node_lost(struct ctld *c, struct job *job, uint32_t node_index, time_t now)
{
	const char *name = node_name(&c->nodes[node_index]);

	if (job_end_excise(c, job, node_index))
		return;

	if (job_is_interactive(job)) { /* never requeued */
		info("JobId=%u: node %s is down, the allocation ends NODE_FAIL", job->job_id, name);
		job_end_alloc(c, job, JOB_NODE_FAIL, FAIL_DOWN_NODE, REQUEST_TERMINATE_JOB,
			      SRUN_END_NODE_FAIL);
		return;
	}
	if (step_job_ending(c, job, JOB_NODE_FAIL, SRUN_END_NODE_FAIL))
		job_end_send_signal(c, job, REQUEST_TERMINATE_JOB, SIGKILL, 0);
	if (job->desc && job_may_requeue(c, job) && !job->is_cancelled) {
		/* --requeue, or JobRequeue=1 (the default): run it again elsewhere */
		info("JobId=%u: lost on node %s, requeuing the job", job->job_id, name);
		job->is_requeue_hold = false;
		job_requeue_reset(c, job, now);
		return;
	}
	info("JobId=%u: lost on node %s, the job ends NODE_FAIL", job->job_id, name);
	job_finish(c, job, JOB_NODE_FAIL, FAIL_DOWN_NODE, now);
}

void job_end_node_down(struct ctld *c, uint32_t node_index)
{
	time_t now = time(NULL);

	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];
		bool is_here = false;

		if (!job_is_running(job) || job_is_pending(job) || job->epilog_count)
			continue; /* owing epilogs: job_epilog_node_down */
		for (uint32_t k = 0; k < job->alloc.count && !is_here; k++)
			is_here = job->alloc.nodes[k].node == node_index;
		if (is_here)
			job_end_node_lost(c, job, node_index, now);
	}
	job_epilog_node_down(c, node_index);
}

int job_end_requeue(struct ctld *c, struct job *job, bool hold, uid_t by, bool is_admin)
{
	time_t now = time(NULL);

	(void)is_admin;
	if (job_is_interactive(job))
		return -ESLURM_BATCH_ONLY; /* salloc/srun jobs are not requeued */
	if (job_is_pending(job))
		return -ESLURM_JOB_PENDING;
	if (job->state & JOB_COMPLETING)
		return -ESLURM_TRANSITION_STATE_NO_UPDATE;
	info("Requeuing JobId=%u by uid %u", job->job_id, (unsigned)by);
	job->is_requeue_hold = hold;
	if (job_is_finished(job)) {
		job_requeue_reset(c, job, now);
		return 0;
	}
	job->is_requeued = true;
	job->state = JOB_PENDING | JOB_COMPLETING | JOB_REQUEUE;
	job_end_send_signal(c, job, REQUEST_TERMINATE_JOB, SIGKILL, 0);
	step_job_ending(c, job, JOB_CANCELLED, SRUN_END_CANCELLED);
	job_changed(c, job); /* after the steps' ends, so they are journaled too */
	return 0;
}

int job_end_complete(struct ctld *c, const struct complete_batch_msg *m)
{
	struct job *job = job_find(c, m->job_id);
	int status = (int)m->job_rc;
	time_t now;

	if (!job)
		return -ESLURM_INVALID_JOB_ID;
	if (!job_is_running(job) || job->epilog_count)
		return 0; /* a retry of a completion we already have */
	if (m->node_name && job->batch_host && !streq(m->node_name, job->batch_host))
		return 0; /* from a run that was requeued off a failed node */
	/* the script's end on its node, not when the report got here */
	now = job_time_of_report(m->end_time, job->start_time, time(NULL));
	job->exit_code = m->job_rc;
	if (job_set_batch_usage(job, &m->usage) < 0)
		error("JobId=%u: no memory for its batch step's usage", job->job_id);
	/* steps that outlived the script are stopped on every node */
	if (step_job_ending(c, job, JOB_CANCELLED, SRUN_END_CANCELLED))
		job_end_send_signal(c, job, REQUEST_TERMINATE_JOB, SIGKILL, 0);
	if (job->is_requeued) {
		job_requeue_reset(c, job, time(NULL));
		return 0;
	}
	if (job->is_cancelled)
		job_finish(c, job,
			   (job->state & JOB_STATE_BASE) == JOB_PREEMPTED ? JOB_PREEMPTED
									  : JOB_CANCELLED,
			   WAIT_NO_REASON, now);
	else if (job->is_timed_out)
		job_finish(c, job, JOB_TIMEOUT, FAIL_TIMEOUT, now);
	else if (m->is_oom
		 || (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && step_job_had_oom(job)))
		job_finish(c, job, JOB_OOM, FAIL_OOM, now);
	else if (m->slurm_rc)
		job_finish(c, job, JOB_FAILED, FAIL_LAUNCH, now);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		job_finish(c, job, JOB_COMPLETE, WAIT_NO_REASON, now);
	else if (WIFSIGNALED(status))
		job_finish(c, job, JOB_FAILED, FAIL_SIGNAL, now);
	else
		job_finish(c, job, JOB_FAILED, FAIL_EXIT_CODE, now);
	info("JobId=%u done: %s exit %d:%d", job->job_id, job_state_string(job->state),
	     WIFEXITED(status) ? WEXITSTATUS(status) : 0, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return 0;
}

void job_end_no_trace(struct ctld *c, struct job *job, const char *why)
{
	struct complete_batch_msg m = {
	    .job_id = job->job_id,
	    .job_rc = SIGKILL, /* wait status: killed */
	    .node_name = job->batch_host,
	    .end_time = time(NULL),
	};

	info("JobId=%u: node %s %s; the job ends now", job->job_id,
	     job->batch_host ? job->batch_host : "?", why);
	job_end_complete(c, &m);
}

struct signal_arg {
	struct ctld *c;
	uint32_t job_id;
	uint32_t node; /* index into c->nodes */
	uint16_t type;
};

static void signal_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	struct signal_arg a = *(struct signal_arg *)arg;
	struct job *job;

	free(arg);
	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc != -ESLURM_INVALID_JOB_ID) {
		if (rc < 0)
			error("JobId=%u: signal not delivered: %s", a.job_id, sl_strerror(rc));
		return;
	}
	/* the node has no stepd of the job and no completion of it waiting */
	debug("JobId=%u: nothing of the job on a node", a.job_id);
	job = job_find(a.c, a.job_id);
	if (a.type == REQUEST_SIGNAL_TASKS || !job || !(job->state & JOB_COMPLETING)
	    || job->epilog_count
	    || job_is_interactive(job) || a.node >= a.c->node_count || !job->batch_host
	    || !streq(job->batch_host, node_name(&a.c->nodes[a.node])))
		return;
	if (job->is_launching) {
		/* the kill overtook the launch (another connection), or came
		 * before the slurmstepd listened: the script may be about to
		 * start. Not "no trace" yet: again once the launch is answered */
		debug("JobId=%u: its launch is not answered yet; the kill goes again after it",
		      job->job_id);
		job->is_kill_deferred = true;
		return;
	}
	job_end_no_trace(a.c, job, "has no trace of the job");
}

static void send_signal_node(struct ctld *c, struct job *job, uint32_t node_index, uint16_t type,
			     const struct signal_job_msg *m)
{
	struct signal_arg *a = malloc(sizeof(*a));

	if (!a)
		return;
	*a = (struct signal_arg){c, job->job_id, node_index, type};
	if (ctld_send_node(c, &c->nodes[node_index], type, m, signal_done_cb, a) < 0)
		free(a);
}

void job_end_send_signal(struct ctld *c, struct job *job, uint16_t type, uint16_t sig,
			 uint16_t flags)
{
	struct signal_job_msg m = { .job_id = job->job_id, .step_id = SL_ALL_STEPS, .signal = sig, .flags = flags };

	if (type != REQUEST_SIGNAL_TASKS)
		job_epilog_facts(job, &m); /* what the node's Epilog is told */
	for (uint32_t i = 0; i < job->alloc.count; i++)
		send_signal_node(c, job, job->alloc.nodes[i].node, type, &m);
}

void job_end_resend_kill(struct ctld *c, struct job *job, uint32_t node_index)
{
	struct signal_job_msg m = {
	    .job_id = job->job_id, .step_id = SL_ALL_STEPS, .signal = SIGKILL};
	uint16_t type = job->is_timed_out ? REQUEST_KILL_TIMELIMIT : REQUEST_TERMINATE_JOB;

	job_epilog_facts(job, &m);
	debug("JobId=%u: %s again to node %s", job->job_id, msg_type_name(type),
	      node_name(&c->nodes[node_index]));
	send_signal_node(c, job, node_index, type, &m);
}

/* --signal=[B:]sig@secs: once, that long before the time limit. The
 * signal goes to the batch step's processes. */
static void job_check_warning(struct ctld *c, struct job *job, time_t now)
{
	const struct job_desc *d = job->desc;

	if (!d || !d->warn_signal || job->is_warned || !job->end_time
	    || now < job->end_time - (time_t)d->warn_time)
		return;
	info("JobId=%u: sending signal %u, %u s before its time limit", job->job_id,
	     d->warn_signal, d->warn_time);
	job->is_warned = true;
	job_changed(c, job);
	job_end_send_signal(c, job, REQUEST_SIGNAL_TASKS, d->warn_signal, 0);
}

void job_end_time_limits(struct ctld *c, time_t now)
{
	uint32_t n;
	struct job *const *jobs = job_view(c, &n);

	for (uint32_t i = 0; i < n; i++) {
		struct job *job = jobs[i];

		/* an unlimited job has no end time, unless its reservation ends */
		if ((job->state & JOB_STATE_BASE) != JOB_RUNNING || (job->state & JOB_COMPLETING)
		    || !job->end_time)
			continue;
		job_check_warning(c, job, now);
		if (now < job->end_time)
			continue;
		info("Time limit exhausted for JobId=%u", job->job_id);
		if (job_is_interactive(job)) { /* no script to wait for: ends now */
			job_end_alloc(c, job, JOB_TIMEOUT, FAIL_TIMEOUT, REQUEST_KILL_TIMELIMIT,
				      SRUN_END_TIME_LIMIT);
			continue;
		}
		job->is_timed_out = true;
		job->state = JOB_TIMEOUT | JOB_COMPLETING;
		job->reason = FAIL_TIMEOUT;
		job_end_send_signal(c, job, REQUEST_KILL_TIMELIMIT, SIGKILL, 0);
		step_job_ending(c, job, JOB_CANCELLED, SRUN_END_TIME_LIMIT);
		job_changed(c, job);
	}
}
