/* rpc_table.c - the controller's table: msg_type -> privilege + handler,
 * served by common's rpc_table_dispatch (rpc_server.h), which checks the
 * privilege before any handler runs; each request's time goes to sdiag.
 *
 * Refusals by privilege are logged as Slurm does ("Security violation")
 * and answered with ESLURM_USER_ID_MISSING ("Invalid user id"), which is
 * what Slurm 22.05 returns for admin-only RPCs from a normal user.
 */
#include "rpc.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "auth_token.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job_submit.h"
#include "sched_stats.h"
#include "user_db.h"

#define H(type, priv, fn) RPC_HANDLER(type, priv, ctld_handler_fn, fn)

static const struct rpc_handler ctld_handlers[] = {
    H(MESSAGE_NODE_REGISTRATION_STATUS, PRIV_SLURMD, rpc_node_register),
    H(REQUEST_RECONFIGURE, PRIV_ADMIN, rpc_reconfigure),
    H(REQUEST_SHUTDOWN, PRIV_ADMIN, rpc_shutdown),
    H(REQUEST_PING, PRIV_ANY, rpc_ping),
    H(REQUEST_LICENSE_INFO, PRIV_ANY, rpc_license_info),
    H(REQUEST_BUILD_INFO, PRIV_ANY, rpc_build_info),
    H(REQUEST_JOB_INFO, PRIV_ANY, rpc_job_info),
    H(REQUEST_UPDATE_JOB, PRIV_ANY, rpc_job_update), /* owner check inside */
    H(REQUEST_NODE_INFO, PRIV_ANY, rpc_node_info),
    H(REQUEST_PARTITION_INFO, PRIV_ANY, rpc_part_info),
    H(REQUEST_RESERVATION_INFO, PRIV_ANY, rpc_resv_info),
    H(REQUEST_PRIORITY_FACTORS, PRIV_ANY, rpc_prio_factors), /* visibility inside */
    H(REQUEST_UPDATE_NODE, PRIV_ADMIN, rpc_node_update),
    H(REQUEST_CREATE_PARTITION, PRIV_ADMIN, rpc_part_edit),
    H(REQUEST_UPDATE_PARTITION, PRIV_ADMIN, rpc_part_edit),
    H(REQUEST_DELETE_PARTITION, PRIV_ADMIN, rpc_part_edit),
    H(REQUEST_CREATE_RESERVATION, PRIV_ADMIN, rpc_resv_create),
    H(REQUEST_DELETE_RESERVATION, PRIV_ADMIN, rpc_resv_delete),
    H(REQUEST_UPDATE_RESERVATION, PRIV_ADMIN, rpc_resv_update),
    H(REQUEST_REBOOT_NODES, PRIV_ADMIN, rpc_node_reboot),
    H(REQUEST_SUBMIT_BATCH_JOB, PRIV_ANY, rpc_job_submit),
    H(REQUEST_JOB_WILL_RUN, PRIV_ANY, rpc_job_will_run),
    H(REQUEST_COMPLETE_BATCH_SCRIPT, PRIV_SLURMD, rpc_job_complete),
    H(REQUEST_JOB_REQUEUE, PRIV_ANY, rpc_job_requeue), /* owner check inside */
    H(REQUEST_KILL_JOB, PRIV_ANY, rpc_job_kill),       /* owner check inside */
    H(MESSAGE_EPILOG_COMPLETE, PRIV_SLURMD, rpc_epilog_complete),
    H(REQUEST_COMPLETE_PROLOG, PRIV_SLURMD, rpc_prolog_complete),
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

static bool table_is_admin(void *ctx, uid_t uid)
{
	return ctld_is_admin(ctx, uid);
}

/* A held request, to serve once its user is known. */
struct held {
	struct ctld *c;
	const struct rpc_handler *row;
};

static void held_ready(void *arg, struct rpc_req *req, int rc)
{
	struct held h = *(struct held *)arg;

	free(arg);
	if (rc == 0 && !rpc_req_is_gone(req))
		rc = ((ctld_handler_fn *)h.row->fn)(h.c, req);
	if (rc < 0)
		rpc_reply_rc(req, rc);
}

/* A submission names its user's groups (AllowGroups, the credential):
 * served now when the cache knows the user, else held while NSS is asked
 * off the loop (user_db.h). true: held (or refused). */
static bool table_hold_for_user(struct ctld *c, const struct rpc_handler *row,
				struct rpc_req *req)
{
	struct held *h;
	uid_t uid;
	gid_t gid;
	int r;

	if (!c->users
	    || (row->type != REQUEST_SUBMIT_BATCH_JOB && row->type != REQUEST_JOB_WILL_RUN
		&& row->type != REQUEST_RESOURCE_ALLOCATION)
	    || !req->body)
		return false;
	job_submit_user(req->body, req->uid, req->gid, &uid, &gid);
	if (user_db_get(c->users, uid, gid))
		return false;
	if (!(h = malloc(sizeof(*h)))) {
		rpc_reply_rc(req, -ENOMEM);
		return true;
	}
	*h = (struct held){.c = c, .row = row};
	r = user_db_hold(c->users, uid, gid, req, held_ready, h);
	if (r < 0) {
		free(h);
		rpc_reply_rc(req, r); /* -EAGAIN: sbatch sleeps and retries */
	}
	return true;
}

static int table_call(void *ctx, const struct rpc_handler *row, struct rpc_req *req)
{
	if (table_hold_for_user(ctx, row, req))
		return 0;
	return ((ctld_handler_fn *)row->fn)(ctx, req);
}

/* sdiag: per type and per user, the time the request took here */
static void table_timed(void *ctx, uint16_t type, uid_t uid, uint64_t usec)
{
	(void)ctx;
	sched_stats_rpc(type, uid, usec);
}

static const struct rpc_table ctld_table = {
    .rows = ctld_handlers,
    .count = ARRAY_SIZE(ctld_handlers),
    .is_admin = table_is_admin,
    .call = table_call,
    .timed = table_timed,
};

void rpc_dispatch(void *arg, struct rpc_req *req)
{
	rpc_table_dispatch(&ctld_table, arg, req);
}
