/* rpc_wait.c - REQUEST_JOB_WAIT: the request is held (rpc_req_hold) while
 * job_wait.c waits, and answered RESPONSE_JOB_WAIT from there; a client
 * that closes its connection meanwhile drops its wait.
 */
#include "rpc.h"

#include "common/msg.h"
#include "common/msg_wait.h"
#include "common/rpc_server.h"
#include "job_wait.h"

static void wait_done(void *arg, const struct job_wait_resp *resp)
{
	rpc_reply(arg, RESPONSE_JOB_WAIT, resp);
}

static void wait_gone(void *arg, struct rpc_req *req)
{
	job_wait_cancel(arg);
	rpc_reply_rc(req, 0); /* only frees req: its peer is gone */
}

int rpc_job_wait(struct ctld *c, struct rpc_req *req)
{
	const struct job_wait_req *m = req->body;
	struct job_waiter *w;
	int r;

	r = job_wait_start(c, m, req->uid, wait_done, req, &w);
	if (r < 0)
		return r;
	if (w)
		rpc_req_hold(req, wait_gone, w);
	return 0;
}
