/* rpc_table.c - msg_type -> privilege + handler, and the dispatcher.
 *
 * Refusals by privilege are logged as Slurm does ("Security violation")
 * and answered with ESLURM_USER_ID_MISSING ("Invalid user id"), which is
 * what Slurm 22.05 returns for admin-only RPCs from a normal user.
 */
#include "rpc.h"

#include <stddef.h>
#include <time.h>

#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/conf.h"
#include "common/sl_errno.h"
#include "auth_token.h"
#include "ctld.h"
#include "sched_stats.h"

#define H(type, priv, fn)                                                                          \
	{                                                                                          \
		type, priv, fn, #fn                                                                \
	}

static const struct rpc_handler ctld_handlers[] = {
    H(MESSAGE_NODE_REGISTRATION_STATUS, PRIV_SLURMD, rpc_node_register),
    H(REQUEST_RECONFIGURE, PRIV_ADMIN, rpc_reconfigure),
    H(REQUEST_SHUTDOWN, PRIV_ADMIN, rpc_shutdown),
    H(REQUEST_PING, PRIV_ANY, rpc_ping),
    H(REQUEST_BUILD_INFO, PRIV_ANY, rpc_build_info),
    H(REQUEST_JOB_INFO, PRIV_ANY, rpc_job_info),
    H(REQUEST_UPDATE_JOB, PRIV_ANY, rpc_job_update), /* owner check inside */
    H(REQUEST_NODE_INFO, PRIV_ANY, rpc_node_info),
    H(REQUEST_PARTITION_INFO, PRIV_ANY, rpc_part_info),
    H(REQUEST_PRIORITY_FACTORS, PRIV_ANY, rpc_prio_factors), /* visibility inside */
    H(REQUEST_UPDATE_NODE, PRIV_ADMIN, rpc_node_update),
    H(REQUEST_SUBMIT_BATCH_JOB, PRIV_ANY, rpc_job_submit),
    H(REQUEST_JOB_WILL_RUN, PRIV_ANY, rpc_job_will_run),
    H(REQUEST_COMPLETE_BATCH_SCRIPT, PRIV_SLURMD, rpc_job_complete),
    H(REQUEST_JOB_REQUEUE, PRIV_ANY, rpc_job_requeue), /* owner check inside */
    H(REQUEST_KILL_JOB, PRIV_ANY, rpc_job_kill),       /* owner check inside */
    H(MESSAGE_EPILOG_COMPLETE, PRIV_SLURMD, rpc_epilog_complete),
    H(REQUEST_RESOURCE_ALLOCATION, PRIV_ANY, rpc_alloc),
    H(REQUEST_COMPLETE_JOB_ALLOCATION, PRIV_ANY, rpc_alloc_complete), /* owner check inside */
    H(REQUEST_JOB_STEP_CREATE, PRIV_ANY, rpc_step_create),	      /* owner check inside */
    H(REQUEST_STEP_COMPLETE, PRIV_SLURMD, rpc_step_complete),
    H(REQUEST_CANCEL_JOB_STEP, PRIV_ANY, rpc_step_cancel), /* owner check inside */
    H(REQUEST_JOB_STEP_INFO, PRIV_ANY, rpc_step_info),
    H(REQUEST_ACCT_QUERY, PRIV_ANY, rpc_acct_query), /* uid filter inside */
    H(REQUEST_STATS_INFO, PRIV_ANY, rpc_stats_info), /* reset: admin check inside */
    H(REQUEST_ASSOC_MGR, PRIV_ANY, rpc_assoc_mgr),   /* admin check inside */
    H(REQUEST_ASSOC_LIST, PRIV_ANY, rpc_assoc_list),
    H(REQUEST_SHARE_INFO, PRIV_ANY, rpc_assoc_list),
    H(REQUEST_AUTH_TOKEN, PRIV_ANY, rpc_auth_token), /* self, or admins for anyone */
    H(REQUEST_JOB_WAIT, PRIV_ANY, rpc_job_wait),     /* visibility inside */
};

#undef H

const struct rpc_handler *rpc_handlers(size_t *ret_count)
{
	*ret_count = ARRAY_SIZE(ctld_handlers);
	return ctld_handlers;
}

static const struct rpc_handler *handler_find(uint16_t type)
{
	for (size_t i = 0; i < ARRAY_SIZE(ctld_handlers); i++)
		if (ctld_handlers[i].type == type)
			return &ctld_handlers[i];
	return NULL;
}

void rpc_dispatch(void *arg, struct rpc_req *req)
{
	struct ctld *c = arg;
	const struct rpc_handler *h = handler_find(req->type);
	uint16_t type = req->type;
	uint32_t uid = req->uid;
	struct timespec t0, t1;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	if (!h) {
		error("%s: unexpected %s from uid=%u", req->peer, msg_type_name(req->type),
		      (unsigned)req->uid);
		r = -SLURM_UNEXPECTED_MSG_ERROR;
	} else if (h->priv != PRIV_ANY && !ctld_is_admin(c, req->uid)) {
		error("Security violation, %s RPC from uid=%u", msg_type_name(req->type),
		      (unsigned)req->uid);
		r = -ESLURM_USER_ID_MISSING;
	} else {
		r = h->fn(c, req);
	}
	if (r < 0)
		rpc_reply_rc(req, r);
	/* sdiag: per type and per user, the time the handler took here (the
	 * request may be gone once answered: type and uid were copied) */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sched_stats_rpc(
	    type, uid,
	    (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec)) / 1000);
}
