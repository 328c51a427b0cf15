/* req.c - slurmd's handler table (R17), served by common's
 * rpc_table_dispatch, and its own handlers: ping, registration request,
 * reconfigure, shutdown. Everything but REQUEST_LAUNCH_TASKS (srun, as its
 * user; launch.c checks it) and REQUEST_JOB_STEP_STAT (sstat; the stepd
 * checks it) comes from the controller and requires root or SlurmUser.
 */
#include "slurmd.h"

#include <signal.h>
#include <stddef.h>
#include <stdlib.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/hw_detect.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "health.h"
#include "launch.h"
#include "prolog.h"
#include "reboot.h"

typedef int slurmd_handler_fn(struct slurmd *d, struct rpc_req *req);

static int req_ping(struct slurmd *d, struct rpc_req *req)
{
	struct hw_info hw = { 0 };
	struct ping_slurmd_msg m = { .cpu_load = NO_VAL, .free_mem = NO_VAL64 };
	int r;

	if (hw_detect(&hw, NULL) == 0) {
		m.cpu_load = hw.cpu_load_x100;
		m.free_mem = hw.free_mem_mb;
	}
	hw_info_done(&hw);
	/* an unreadable spool is not "nothing runs here": no answer */
	r = slurmd_spool_steps(d, &m.steps, &m.step_count);
	if (r < 0)
		return r;
	rpc_reply(req, RESPONSE_PING_SLURMD, &m);
	free(m.steps);
	return 0;
}

static int req_registration(struct slurmd *d, struct rpc_req *req)
{
	struct node_reg_msg m = { 0 };
	int r = slurmd_reg_msg_fill(d, &m);

	if (r == 0) {
		rpc_reply(req, MESSAGE_NODE_REGISTRATION_STATUS, &m);
		d->is_registered = true;
		slurmd_spool_resend(d); /* a controller that (re)started asks this */
	}
	msg_lookup(MESSAGE_NODE_REGISTRATION_STATUS)->free(&m);
	return r;
}

static int req_shutdown(struct slurmd *d, struct rpc_req *req)
{
	info("Shutdown requested by the controller");
	rpc_reply_rc(req, 0);
	event_base_loopexit(d->base, NULL);
	return 0;
}

static int req_reconfigure(struct slurmd *d, struct rpc_req *req)
{
	rpc_reply_rc(req, 0);
	raise(SIGHUP); /* same path as kill -HUP: main.c reloads */
	(void)d;
	return 0;
}

/* Controller's messages: root or SlurmUser (PRIV_ADMIN). */
#define H(type, priv, fn) RPC_HANDLER(type, priv, slurmd_handler_fn, fn)

static const struct rpc_handler slurmd_handlers[] = {
    H(REQUEST_NODE_REGISTRATION_STATUS, PRIV_ADMIN, req_registration),
    H(REQUEST_RECONFIGURE, PRIV_ADMIN, req_reconfigure),
    H(REQUEST_SHUTDOWN, PRIV_ADMIN, req_shutdown),
    H(REQUEST_PING, PRIV_ADMIN, req_ping),
    H(REQUEST_HEALTH_CHECK, PRIV_ADMIN, slurmd_req_health_check), /* health.c */
    H(REQUEST_REBOOT_NODES, PRIV_ADMIN, slurmd_req_reboot),	  /* reboot.c */
    H(REQUEST_BATCH_JOB_LAUNCH, PRIV_ADMIN, slurmd_req_batch_launch), /* launch.c */
    H(REQUEST_LAUNCH_TASKS, PRIV_ANY, slurmd_req_launch_tasks),	  /* who: checked there */
    H(REQUEST_SIGNAL_TASKS, PRIV_ADMIN, slurmd_req_signal_job),
    H(REQUEST_KILL_TIMELIMIT, PRIV_ADMIN, slurmd_req_signal_job),
    H(REQUEST_TERMINATE_JOB, PRIV_ADMIN, slurmd_req_signal_job),
    H(REQUEST_LAUNCH_PROLOG, PRIV_ADMIN, slurmd_req_launch_prolog), /* prolog.c */
    H(REQUEST_JOB_STEP_STAT, PRIV_ANY, slurmd_req_step_stat), /* the stepd checks who */
};

#undef H

static bool table_is_admin(void *ctx, uid_t uid)
{
	const struct slurmd *d = ctx;

	return uid == 0 || uid == d->conf->slurm_user_id;
}

static int table_call(void *ctx, const struct rpc_handler *row, struct rpc_req *req)
{
	return ((slurmd_handler_fn *)row->fn)(ctx, req);
}

static const struct rpc_table slurmd_table = {
    .rows = slurmd_handlers,
    .count = ARRAY_SIZE(slurmd_handlers),
    .is_admin = table_is_admin,
    .call = table_call,
};

const struct rpc_handler *slurmd_rpc_handlers(size_t *ret_count)
{
	*ret_count = slurmd_table.count;
	return slurmd_table.rows;
}

void slurmd_dispatch(void *arg, struct rpc_req *req)
{
	rpc_table_dispatch(&slurmd_table, arg, req);
}
