/* job_alloc.c - see job_alloc.h.
 *
 * Calls to the client (grant, SRUN_PING, SRUN_TIMEOUT, SRUN_JOB_COMPLETE)
 * are rpc_async_call()s on the loop; their callbacks look the job up again
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
#include <sys/wait.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_async.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "durable.h"
#include "job.h"
#include "job_end.h"
#include "job_launch.h"
#include "job_sched.h"
#include "job_submit.h"
#include "rpc.h"
#include "step.h"

#define PING_INTERVAL  5  /* s between SRUN_PINGs to one client */
#define TIMEOUT_NOTICE 60 /* s before the time limit: SRUN_TIMEOUT */

enum client_call { CALL_GRANT, CALL_PING, CALL_NOTICE };

struct client_arg {
	struct ctld *c;
	uint32_t job_id;
	enum client_call kind;
};

bool job_is_interactive(const struct job *job)
{
	return job->desc && job->desc->alloc_port != 0;
}

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
	r = rpc_async_call(c->base, c->conf->munge_socket, d->alloc_host, d->alloc_port, type, msg,
			   job->uid, c->conf->message_timeout, done, a);
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

void job_alloc_notify_end(struct ctld *c, const struct job *job, uint16_t srun_reason)
{
	if (job_is_interactive(job))
		client_notice(c, job, SRUN_JOB_COMPLETE, 0, srun_reason);
}

/* A pending interactive job ends CANCELLED (its client gave up or is gone). */
static void alloc_cancel_pending(struct ctld *c, struct job *job, uid_t by, time_t now)
{
	job->state = JOB_CANCELLED;
	job->reason = WAIT_NO_REASON;
	job->start_time = job->end_time = now;
	job->cancelled_by = by;
	job_touch(c, job);
	job_sched_request(c);
}

void job_alloc_end(struct ctld *c, struct job *job, uint32_t base, enum job_state_reason why,
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
		job_end_send_signal(c, job, kill_type, SIGKILL);
	step_job_ending(c, job, step_state, step_reason);
	if (srun_reason != ALLOC_NO_NOTICE)
		job_alloc_notify_end(c, job, srun_reason);
	job_end_finish(c, job, base, why);
}

/* The client cannot be reached: it is gone, and so is its job. */
static void alloc_client_gone(struct ctld *c, struct job *job, int rc)
{
	info("JobId=%u: allocation client %s:%u unreachable, cancelling", job->job_id,
	     job->desc->alloc_host, job->desc->alloc_port);
	debug("JobId=%u: the client call failed: %s", job->job_id, sl_strerror(rc));
	if (job_is_pending(job)) {
		alloc_cancel_pending(c, job, job->uid, time(NULL));
	} else {
		job->cancelled_by = job->uid; /* its own client went away (sacct: CANCELLED by) */
		job_alloc_end(c, job, JOB_CANCELLED, WAIT_NO_REASON, REQUEST_TERMINATE_JOB,
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

#define DUP(x) ((x) ? strdup(x) : NULL)

/* The allocation as the client sees it (strings owned by resp). */
static int alloc_response_fill(const struct job *job, struct alloc_response *resp)
{
	const struct job_desc *d = job->desc;
	bool is_running = job_is_running(job) && job->alloc.count;

	*resp = (struct alloc_response){
	    .job_id = job->job_id,
	    .job_state = is_running ? JOB_RUNNING : JOB_PENDING,
	    .state_reason = is_running ? WAIT_NO_REASON : (uint16_t)job->reason,
	    .job_name = DUP(d->name),
	    .num_nodes = is_running ? job->alloc.count : job->min_nodes,
	    .num_cpus = job->alloc.total_cpus,
	    .num_tasks = d->num_tasks != NO_VAL && d->num_tasks ? job->num_tasks : NO_VAL,
	    .partition = DUP(job->partition),
	    .account = DUP(d->account),
	    .qos = DUP(d->qos),
	    .mem_per_cpu = job->mem_per_cpu,
	    .time_limit = job->time_limit,
	};
	if (!is_running)
		return 0;
	resp->node_list = DUP(job->nodes);
	resp->cpus_per_node = job_counts_string(&job->alloc, false);
	resp->tasks_per_node = job_counts_string(&job->alloc, true);
	/* per node: what was asked, or what the job holds (--mem=0: all of it) */
	resp->mem_per_node = job->mem_per_cpu	 ? 0
			     : job->mem_per_node ? job->mem_per_node
						 : job->alloc.nodes[0].mem;
	if (!resp->node_list || !resp->cpus_per_node || !resp->tasks_per_node)
		return -ENOMEM;
	return 0;
}

static void alloc_response_drop(struct alloc_response *m)
{
	msg_free(msg_lookup(RESPONSE_RESOURCE_ALLOCATION), m);
}

void job_alloc_grant(struct ctld *c, struct job *job)
{
	struct alloc_response *m;
	int r = -ENOMEM;

	if (job->is_grant_sent)
		return; /* started inside rpc_alloc: the reply carries it */
	m = calloc(1, sizeof(*m));
	if (m)
		r = alloc_response_fill(job, m);
	if (r == 0) /* packed at once: m is ours again on return */
		r = client_call(c, job, RESPONSE_RESOURCE_ALLOCATION, m, CALL_GRANT,
				client_done_cb);
	alloc_response_drop(m);
	if (r < 0) {
		alloc_client_gone(c, job, r);
		return;
	}
	/* in flight: no ping until the grant is answered or timed out */
	job->last_client_ping = time(NULL) + (time_t)c->conf->message_timeout + 1;
}

/* "127.0.0.1:4567" -> "127.0.0.1" (malloc'd). */
static char *peer_host(const char *peer)
{
	const char *colon = strrchr(peer, ':');

	return strndup(peer, colon ? (size_t)(colon - peer) : strlen(peer));
}

/* The request, taken out of req so the job can own it. */
static struct job_desc *alloc_desc_take(struct rpc_req *req)
{
	struct job_desc *d = malloc(sizeof(*d));

	if (!d)
		return NULL;
	*d = *(struct job_desc *)req->body;
	memset(req->body, 0, sizeof(*d));
	return d;
}

/* Checks of the request itself, before the batch validation. */
static int alloc_desc_check(struct job_desc *d, const struct rpc_req *req)
{
	if (!d->alloc_port)
		return -EINVAL; /* nowhere to send the grant: a batch job needs sbatch */
	if (d->array_spec)
		return -ESLURM_INVALID_ARRAY; /* salloc/srun have no --array */
	free(d->script);
	d->script = NULL; /* an allocation runs nothing itself */
	if (!d->alloc_host || !*d->alloc_host || streq(d->alloc_host, "0.0.0.0")) {
		/* the client listens on every address: use the one it came from */
		free(d->alloc_host);
		d->alloc_host = peer_host(req->peer);
		if (!d->alloc_host)
			return -ENOMEM;
	}
	return 0;
}

static void desc_drop(struct job_desc *d)
{
	job_desc_done(d);
	free(d);
}

/* With a text for the user ("invalid partition specified: x") the error
 * goes in a RESPONSE_RESOURCE_ALLOCATION, which can carry it; else
 * RESPONSE_SLURM_RC, as Slurm answers. */
static int alloc_reply_error(struct rpc_req *req, int r, const char *msg)
{
	struct alloc_response resp = {
	    .error_code = (uint32_t)-r,
	    .user_msg = (char *)msg,
	};

	if (!msg)
		return r;
	rpc_reply(req, RESPONSE_RESOURCE_ALLOCATION, &resp);
	return 0;
}

int rpc_alloc(struct ctld *c, struct rpc_req *req)
{
	struct job_desc *d = alloc_desc_take(req);
	struct alloc_response *resp;
	struct job *job = NULL;
	_cleanup_free_ char *msg = NULL;
	int r;

	if (!d)
		return -ENOMEM;
	r = alloc_desc_check(d, req);
	if (r == 0)
		r = job_submit_build(c, d, req->uid, req->gid, &job, &msg);
	if (r < 0) {
		desc_drop(d);
		info("%s: allocation from uid=%u refused: %s%s%s", req->peer, (unsigned)req->uid,
		     sl_strerror(r), msg ? ": " : "", msg ? msg : "");
		return alloc_reply_error(req, r, msg);
	}
	r = job_submit_commit(c, job);
	if (r < 0)
		return r;
	info("_slurm_rpc_allocate_resources: JobId=%u InitPrio=%u usec=0", job->job_id,
	     job->priority);
	/* try it now, so that the reply can carry the allocation: marked as
	 * granted, the scheduler sends no grant of its own */
	job->is_grant_sent = true;
	job_sched_pass(c);
	if (!job_is_running(job))
		job->is_grant_sent = false;
	job->last_client_ping = time(NULL);
	resp = calloc(1, sizeof(*resp));
	if (!resp)
		return -ENOMEM;
	r = alloc_response_fill(job, resp);
	if (r < 0) {
		alloc_response_drop(resp);
		return r;
	}
	resp->user_msg = TAKE_PTR(msg);
	rpc_reply_durable(c, req, RESPONSE_RESOURCE_ALLOCATION, resp);
	return 0;
}

int rpc_alloc_complete(struct ctld *c, struct rpc_req *req)
{
	const struct complete_alloc_msg *m = req->body;
	struct job *job = job_find(c, m->job_id);
	int status = (int)m->job_rc;
	struct rc_msg *rc;

	if (!job)
		return -ESLURM_INVALID_JOB_ID;
	if (req->uid != job->uid && !ctld_is_admin(c, req->uid)) {
		error("Security violation, REQUEST_COMPLETE_JOB_ALLOCATION RPC for JobId=%u from "
		      "uid=%u",
		      job->job_id, (unsigned)req->uid);
		return -ESLURM_ACCESS_DENIED;
	}
	if (job_is_finished(job) || (job->state & JOB_COMPLETING))
		return -ESLURM_ALREADY_DONE;
	if (!job_is_interactive(job))
		return -ESLURM_BATCH_ONLY; /* a batch job ends with its script */
	if (job_is_pending(job)) {
		info("JobId=%u: allocation request withdrawn by uid %u", job->job_id,
		     (unsigned)req->uid);
		alloc_cancel_pending(c, job, req->uid, time(NULL));
	} else {
		job->exit_code = m->job_rc;
		info("JobId=%u: allocation released, exit %d:%d", job->job_id,
		     WIFEXITED(status) ? WEXITSTATUS(status) : 0,
		     WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		if (status == 0)
			job_alloc_end(c, job, JOB_COMPLETE, WAIT_NO_REASON, REQUEST_TERMINATE_JOB,
				      ALLOC_NO_NOTICE);
		else if (step_job_had_oom(job))
			job_alloc_end(c, job, JOB_OOM, FAIL_OOM, REQUEST_TERMINATE_JOB,
				      ALLOC_NO_NOTICE);
		else
			job_alloc_end(c, job, JOB_FAILED,
				      WIFSIGNALED(status) ? FAIL_SIGNAL : FAIL_EXIT_CODE,
				      REQUEST_TERMINATE_JOB, ALLOC_NO_NOTICE);
	}
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return -ENOMEM;
	rpc_reply_durable(c, req, RESPONSE_SLURM_RC, rc);
	return 0;
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
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];
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
