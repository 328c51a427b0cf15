/* rpc_alloc.c - interactive allocations: REQUEST_RESOURCE_ALLOCATION
 * (salloc, srun outside an allocation) and REQUEST_COMPLETE_JOB_ALLOCATION
 * (the client gives it back). The job's life after the reply is in
 * job_alloc.c (grant, pings) and job_end.c (its end).
 */
#include "rpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "durable.h"
#include "job.h"
#include "job_alloc.h"
#include "job_end.h"
#include "job_sched.h"
#include "job_submit.h"
#include "job_submit_lua.h"
#include "step_rec.h"

int rpc_client_addr(const char *peer, const char *claimed, char **ret)
{
	const char *colon = peer ? strrchr(peer, ':') : NULL;
	char ip[INET_ADDRSTRLEN];
	struct in_addr a;

	*ret = NULL;
	if (colon && (size_t)(colon - peer) < sizeof(ip)) {
		memcpy(ip, peer, (size_t)(colon - peer));
		ip[colon - peer] = '\0';
		if (inet_pton(AF_INET, ip, &a) == 1)
			claimed = ip; /* where the request came from: what we trust */
	}
	if (!claimed || inet_pton(AF_INET, claimed, &a) != 1)
		return -EINVAL; /* a name would need resolving (the loop never does) */
	if (a.s_addr == htonl(INADDR_ANY))
		return -EINVAL;
	*ret = strdup(claimed);
	return *ret ? 0 : -ENOMEM;
}

/* Checks of the request itself, before the batch validation. */
static int alloc_desc_check(struct job_desc *d, const struct rpc_req *req)
{
	char *host;
	int r;

	if (!d->alloc_port)
		return -EINVAL; /* nowhere to send the grant: a batch job needs sbatch */
	if (d->array_spec)
		return -ESLURM_INVALID_ARRAY; /* salloc/srun have no --array */
	free(d->script);
	d->script = NULL; /* an allocation runs nothing itself */
	r = rpc_client_addr(req->peer, d->alloc_host, &host);
	if (r < 0)
		return r;
	free(d->alloc_host);
	d->alloc_host = host;
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
	struct job_desc *d = rpc_req_take_body(req, sizeof(struct job_desc));
	struct alloc_response *resp;
	struct job *job = NULL;
	_cleanup_free_ char *msg = NULL;
	char *lua_msg = NULL;
	int r;

	if (!d)
		return -ENOMEM;
	r = alloc_desc_check(d, req);
	if (r == 0) /* JobSubmitPlugins=lua: job_submit.lua may change or refuse it */
		r = job_submit_lua_submit(c, d, req->uid, req->gid, &lua_msg);
	if (r == 0)
		r = job_submit_build(c, d, req->uid, req->gid, &job, &msg);
	msg = job_submit_lua_msg_join(lua_msg, msg);
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
	if (!job_is_running(job) || (job->state & JOB_CONFIGURING))
		job->is_grant_sent = false; /* the grant follows (PrologSlurmctld) */
	job->last_client_ping = time(NULL);
	resp = calloc(1, sizeof(*resp));
	if (!resp)
		return -ENOMEM;
	r = job_alloc_response_fill(job, resp);
	if (r < 0) {
		msg_free(msg_lookup(RESPONSE_RESOURCE_ALLOCATION), resp);
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
		job_alloc_cancel_pending(c, job, req->uid, time(NULL));
	} else {
		job->exit_code = m->job_rc;
		info("JobId=%u: allocation released, exit %d:%d", job->job_id,
		     WIFEXITED(status) ? WEXITSTATUS(status) : 0,
		     WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		if (status == 0)
			job_end_alloc(c, job, JOB_COMPLETE, WAIT_NO_REASON, REQUEST_TERMINATE_JOB,
				      ALLOC_NO_NOTICE);
		else if (step_job_had_oom(job))
			job_end_alloc(c, job, JOB_OOM, FAIL_OOM, REQUEST_TERMINATE_JOB,
				      ALLOC_NO_NOTICE);
		else
			job_end_alloc(c, job, JOB_FAILED,
				      WIFSIGNALED(status) ? FAIL_SIGNAL : FAIL_EXIT_CODE,
				      REQUEST_TERMINATE_JOB, ALLOC_NO_NOTICE);
	}
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return -ENOMEM;
	rpc_reply_durable(c, req, RESPONSE_SLURM_RC, rc);
	return 0;
}
