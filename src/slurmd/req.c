/* req.c - slurmd's handler table (R17) and handlers: ping, registration
 * request, reconfigure, shutdown. Everything but REQUEST_LAUNCH_TASKS
 * (srun, as its user; launch.c checks it) comes from the controller and
 * requires root or SlurmUser.
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
#include "launch.h"

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

enum slurmd_priv {
	PRIV_SLURM, /* root or SlurmUser */
	PRIV_ANY,   /* any authenticated user; the handler checks */
};

static const struct {
	uint16_t type;
	enum slurmd_priv priv;
	slurmd_handler_fn *fn;
} slurmd_handlers[] = {
	{ REQUEST_NODE_REGISTRATION_STATUS, PRIV_SLURM, req_registration },
	{ REQUEST_RECONFIGURE, PRIV_SLURM, req_reconfigure },
	{ REQUEST_SHUTDOWN, PRIV_SLURM, req_shutdown },
	{ REQUEST_PING, PRIV_SLURM, req_ping },
	{ REQUEST_BATCH_JOB_LAUNCH, PRIV_SLURM, slurmd_req_batch_launch },  /* launch.c */
	{ REQUEST_LAUNCH_TASKS, PRIV_ANY, slurmd_req_launch_tasks },
	{ REQUEST_SIGNAL_TASKS, PRIV_SLURM, slurmd_req_signal_job },
	{ REQUEST_KILL_TIMELIMIT, PRIV_SLURM, slurmd_req_signal_job },
	{ REQUEST_TERMINATE_JOB, PRIV_SLURM, slurmd_req_signal_job },
	{ REQUEST_JOB_STEP_STAT, PRIV_ANY, slurmd_req_step_stat }, /* the stepd checks who */
};

void slurmd_dispatch(void *arg, struct rpc_req *req)
{
	struct slurmd *d = arg;
	int r = -SLURM_UNEXPECTED_MSG_ERROR;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(slurmd_handlers); i++)
		if (slurmd_handlers[i].type == req->type)
			break;
	if (i == ARRAY_SIZE(slurmd_handlers))
		error("%s: unexpected %s", req->peer, msg_type_name(req->type));
	else if (slurmd_handlers[i].priv == PRIV_SLURM && req->uid != 0
		 && req->uid != d->conf->slurm_user_id) {
		error("Security violation, %s RPC from uid=%u", msg_type_name(req->type),
		      (unsigned)req->uid);
		r = -ESLURM_USER_ID_MISSING;
	} else
		r = slurmd_handlers[i].fn(d, req);
	if (r < 0)
		rpc_reply_rc(req, r);
}
