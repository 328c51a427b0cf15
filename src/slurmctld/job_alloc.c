/* job_alloc.c - see job_alloc.h.
 *
 * Calls to the client (grant, SRUN_PING, SRUN_TIMEOUT, SRUN_JOB_COMPLETE)
 * are ctld_send()s (async, on the loop); their callbacks look the job up again
 * by id, since it may have ended (or been purged) in the meantime.
 *
 * job->last_client_ping holds the last time the client answered, or, while
 * a grant or a ping is in flight, a time in the future (when that call has
 * surely finished): the timer pings only when it is 5 s in the past, so at
 * most one call per job is in flight. A job recovered from the journal has
 * 0 there (not journaled, nor is is_grant_sent): a running one gets its
 * grant again (a client that has it already just answers rc 0).
 */
#include "job_alloc.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_end.h"
#include "select.h"

#define PING_INTERVAL  5  /* s between SRUN_PINGs to one client */
#define TIMEOUT_NOTICE 60 /* s before the time limit: SRUN_TIMEOUT */

enum client_call { CALL_GRANT, CALL_PING, CALL_NOTICE };

struct client_arg {
	struct ctld *c;
	uint32_t job_id;
	enum client_call kind;
};

/* Start an async call to the job's client; done gets a struct client_arg. */
static int client_call(struct ctld *c, const struct job *job, uint16_t type, const void *msg,
		       enum client_call kind, rpc_async_done_fn *done)
{
	const struct job_desc *d = job->desc;
	struct client_arg *a = calloc(1, sizeof(*a));
	int r;

	if (!a)
		return -ENOMEM;
	*a = (struct client_arg){.c = c, .job_id = job->job_id, .kind = kind};
	r = ctld_send(c, d->alloc_host, d->alloc_port, type, msg, job->uid, done, a);
	if (r < 0)
		free(a);
	return r;
}

static void notice_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	struct client_arg *a = arg;

	(void)type;
	(void)msg;
	if (rc < 0)
		debug("JobId=%u: notice to the allocation client not delivered: %s", a->job_id,
		      sl_strerror(rc));
	free(a);
}

static void client_notice(struct ctld *c, const struct job *job, uint16_t type, time_t timeout,
			  uint16_t reason)
{
	struct srun_notice_msg m = {
	    .job_id = job->job_id,
	    .step_id = SL_ALL_STEPS,
	    .timeout = timeout,
	    .reason = reason,
	};

	if (client_call(c, job, type, &m, CALL_NOTICE, notice_done_cb) < 0)
		debug("JobId=%u: cannot reach the allocation client", job->job_id);
}

/* A pending interactive job ends CANCELLED (its client gave up or is gone). */
void job_alloc_cancel_pending(struct ctld *c, struct job *job, uid_t by, time_t now)
{
	job->state = JOB_CANCELLED;
	job->reason = WAIT_NO_REASON;
	job->start_time = job->end_time = now;
	job->cancelled_by = by;
	job_changed(c, job);
	ctld_sched_request(c);
}

/* The client cannot be reached: it is gone, and so is its job. */
static void alloc_client_gone(struct ctld *c, struct job *job, int rc)
{
	info("JobId=%u: allocation client %s:%u unreachable, cancelling", job->job_id,
	     job->desc->alloc_host, job->desc->alloc_port);
	debug("JobId=%u: the client call failed: %s", job->job_id, sl_strerror(rc));
	if (job_is_pending(job)) {
		job_alloc_cancel_pending(c, job, job->uid, time(NULL));
	} else {
		job->cancelled_by = job->uid; /* its own client went away (sacct: CANCELLED by) */
		job_end_alloc(c, job, JOB_CANCELLED, WAIT_NO_REASON, REQUEST_TERMINATE_JOB,
			      ALLOC_NO_NOTICE);
	}
}

/* Grant and ping replies: RESPONSE_SLURM_RC (any rc: the client is alive). */
static void client_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	struct client_arg *a = arg;
	struct job *job = job_find(a->c, a->job_id);

	(void)msg;
	if (rc == 0 && type != RESPONSE_SLURM_RC)
		rc = -SLURM_UNEXPECTED_MSG_ERROR;
	if (!job || job_is_finished(job) || !job_is_interactive(job)) {
		free(a);
		return;
	}
	if (rc < 0) {
		alloc_client_gone(a->c, job, rc);
	} else {
		job->last_client_ping = time(NULL);
		if (a->kind == CALL_GRANT && job_is_running(job) && !job->is_grant_sent) {
			job->is_grant_sent = true;
			info("JobId=%u: allocation granted to %s:%u", job->job_id,
			     job->desc->alloc_host, job->desc->alloc_port);
		}
	}
	free(a);
}

/* The allocation as the client sees it (strings owned by resp). */
int job_alloc_response_fill(const struct job *job, struct alloc_response *resp)
{
	const struct job_desc *d = job->desc;
	/* CONFIGURING (PrologSlurmctld runs): not given out yet */
	bool is_running = job_is_running(job) && job->alloc.count
			  && !(job->state & JOB_CONFIGURING);

	*resp = (struct alloc_response){
	    .job_id = job->job_id,
	    .job_state = is_running ? JOB_RUNNING : JOB_PENDING,
	    .state_reason = is_running ? WAIT_NO_REASON : (uint16_t)job->reason,
	    .job_name = sdup(d->name),
	    .num_nodes = is_running ? job->alloc.count : job->min_nodes,
	    .num_cpus = job->alloc.total_cpus,
	    .num_tasks = d->num_tasks != NO_VAL && d->num_tasks ? job->num_tasks : NO_VAL,
	    .partition = sdup(job->partition),
	    .account = sdup(d->account),
	    .qos = sdup(d->qos),
	    .mem_per_cpu = job->mem_per_cpu,
	    .time_limit = job->time_limit,
	};
	if (!is_running)
		return 0;
	resp->node_list = sdup(job->nodes);
	resp->cpus_per_node = select_counts_string(&job->alloc, false);
	resp->tasks_per_node = select_counts_string(&job->alloc, true);
	/* per node: what was asked, or what the job holds (--mem=0: all of it) */
	resp->mem_per_node = job->mem_per_cpu	 ? 0
			     : job->mem_per_node ? job->mem_per_node
						 : job->alloc.nodes[0].mem;
	if (!resp->node_list || !resp->cpus_per_node || !resp->tasks_per_node)
		return -ENOMEM;
	return 0;
}

void job_alloc_grant(struct ctld *c, struct job *job)
{
	struct alloc_response *m;
	int r = -ENOMEM;

	if (job->is_grant_sent || (job->state & JOB_CONFIGURING))
		return; /* started inside rpc_alloc (the reply carries it), or its
			 * PrologSlurmctld runs (granted once it is done) */
	m = calloc(1, sizeof(*m));
	if (m)
		r = job_alloc_response_fill(job, m);
	if (r == 0) /* packed at once: m is ours again on return */
		r = client_call(c, job, RESPONSE_RESOURCE_ALLOCATION, m, CALL_GRANT,
				client_done_cb);
	msg_free(msg_lookup(RESPONSE_RESOURCE_ALLOCATION), m);
	if (r < 0) {
		alloc_client_gone(c, job, r);
		return;
	}
	/* in flight: no ping until the grant is answered or timed out */
	job->last_client_ping = time(NULL) + (time_t)c->conf->message_timeout + 1;
}

static void alloc_ping(struct ctld *c, struct job *job, time_t now)
{
	struct srun_notice_msg m = {.job_id = job->job_id, .step_id = SL_ALL_STEPS};
	int r = client_call(c, job, SRUN_PING, &m, CALL_PING, client_done_cb);

	if (r < 0) {
		alloc_client_gone(c, job, r);
		return;
	}
	job->last_client_ping = now + (time_t)c->conf->message_timeout + 1;
}

void job_alloc_timer(struct ctld *c, time_t now)
{
	uint32_t n;
	struct job *const *jobs = job_view(c, &n);

	for (uint32_t i = 0; i < n; i++) {
		struct job *job = jobs[i];
		bool is_running;

		if (!job_is_interactive(job) || job_is_finished(job)
		    || (job->state & JOB_COMPLETING))
			continue;
		is_running = !job_is_pending(job);
		if (is_running && !job->is_grant_sent && !job->last_client_ping) {
			job_alloc_grant(c, job); /* recovered from the journal */
			continue;
		}
		if (is_running && !job->is_grant_sent)
			continue; /* its grant is in flight */
		if (is_running && job->end_time && job->end_time - now == TIMEOUT_NOTICE)
			client_notice(c, job, SRUN_TIMEOUT, job->end_time, 0);
		if (now - job->last_client_ping >= PING_INTERVAL)
			alloc_ping(c, job, now);
	}
}
