/* rpc_step.c - the step RPCs: REQUEST_JOB_STEP_CREATE (srun),
 * REQUEST_STEP_COMPLETE (stepds), REQUEST_CANCEL_JOB_STEP (scancel
 * JOB.STEP) and REQUEST_JOB_STEP_INFO (squeue -s, scontrol show step):
 * decode (done by the table) -> domain call -> reply.
 */
#include "rpc.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "common/step_cred.h"
#include "ctld.h"
#include "durable.h"
#include "job.h"
#include "step.h"
#include "step_create.h"
#include "step_info.h"

/* Errors go back in the step_create_resp (error_code), as srun expects. */
static int reply_create_error(struct rpc_req *req, uint32_t job_id, int r)
{
	struct step_create_resp resp = {
	    .job_id = job_id, .step_id = NO_VAL, .error_code = (uint32_t)(r < 0 ? -r : r)};

	rpc_reply(req, RESPONSE_JOB_STEP_CREATE, &resp);
	return 0;
}

/* The credential of the step resp describes: its grant, signed. */
static int resp_sign(struct ctld *c, struct step_create_resp *resp)
{
	struct timespec now;
	struct step_cred cred;
	int r;

	clock_gettime(CLOCK_REALTIME, &now);
	r = step_cred_from_resp(resp, (uint64_t)now.tv_sec * 1000000 + (uint64_t)now.tv_nsec / 1000,
				&cred);
	if (r == 0)
		r = step_cred_create(c->conf->munge_socket, &cred, &resp->cred);
	step_cred_done(&cred);
	return r;
}

/* srun_host as rpc_client_addr gives it; no port, no notices. */
static int srun_addr(const struct rpc_req *req, struct step_create_req *m)
{
	char *host = NULL;
	int r;

	if (!m->srun_port)
		return 0;
	r = rpc_client_addr(req->peer, m->srun_host, &host);
	if (r < 0)
		return r;
	free(m->srun_host);
	m->srun_host = host;
	return 0;
}

int rpc_step_create(struct ctld *c, struct rpc_req *req)
{
	struct step_create_req *m = req->body;
	struct job *job = job_find(c, m->job_id);
	struct step_create_resp *resp = NULL;
	struct step rec, *s = NULL;
	int r;

	r = srun_addr(req, m);
	if (r == 0)
		r = step_create_check(c, job, req->uid);
	if (r == -ESLURM_ACCESS_DENIED)
		error("Security violation, REQUEST_JOB_STEP_CREATE for JobId=%u from uid=%u",
		      m->job_id, (unsigned)req->uid);
	if (r == 0 && !(resp = calloc(1, sizeof(*resp))))
		r = -ENOMEM;
	if (r == 0)
		r = step_create_build(c, job, m, &rec, resp);
	if (r == 0) {
		r = resp_sign(c, resp);
		s = r == 0 ? step_create_commit(c, job, &rec) : (step_rec_done(&rec), NULL);
		if (r == 0 && !s)
			r = -ENOMEM;
	}
	if (r < 0) {
		if (r == -ESLURM_NODES_BUSY)
			debug("JobId=%u: step creation waits: %s", m->job_id, sl_strerror(r));
		else
			info("JobId=%u: step creation refused: %s", m->job_id, sl_strerror(r));
		if (resp)
			msg_free(msg_lookup(RESPONSE_JOB_STEP_CREATE), resp);
		return reply_create_error(req, m->job_id, r);
	}
	info("STEP_CREATE: StepId=%u.%u %s tasks=%u nodes=%s", job->job_id, s->step_id, s->name,
	     s->num_tasks, s->nodes_str);
	rpc_reply_durable(c, req, RESPONSE_JOB_STEP_CREATE, resp);
	return 0;
}

int rpc_step_complete(struct ctld *c, struct rpc_req *req)
{
	struct rc_msg *rc;

	if (step_complete(c, req->body) == 0) {
		/* unknown or a retry: the stepd only needs to stop retrying */
		rpc_reply_rc(req, 0);
		return 0;
	}
	/* every node's report and usage is journaled (and accounted) before the
	 * stepd is told to stop retrying: a kill -9 now loses none of them */
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return -ENOMEM;
	rpc_reply_durable(c, req, RESPONSE_SLURM_RC, rc);
	return 0;
}

int rpc_step_cancel(struct ctld *c, struct rpc_req *req)
{
	int r = step_signal(c, req->body, req->uid);

	if (r < 0)
		return r;
	rpc_reply_rc(req, 0);
	return 0;
}

int rpc_step_info(struct ctld *c, struct rpc_req *req)
{
	struct step_info_msg resp = {0};
	int r = step_info_list(c, req->body, req->uid, &resp);

	if (r == 0)
		rpc_reply(req, RESPONSE_JOB_STEP_INFO, &resp);
	step_info_msg_done(&resp);
	return r;
}
