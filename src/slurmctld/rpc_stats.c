/* rpc_stats.c - REQUEST_STATS_INFO (sdiag): the statistics, or with
 * STATS_CMD_RESET (admins only, as Slurm) their reset. */
#include <errno.h>
#include <time.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/msg_stats.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "rpc.h"
#include "sched_stats.h"

int rpc_stats_info(struct ctld *c, struct rpc_req *req)
{
	const struct stats_info_req *m = req->body;
	struct stats_info_msg resp;
	time_t now = time(NULL);
	int r;

	if (m->command == STATS_CMD_RESET) {
		if (!ctld_is_admin(c, req->uid)) {
			error("Security violation, REQUEST_STATS_INFO reset from uid=%u",
			      (unsigned)req->uid);
			return -ESLURM_ACCESS_DENIED;
		}
		sched_stats_reset(now);
		info("sdiag: statistics reset by uid=%u", (unsigned)req->uid);
		rpc_reply_rc(req, 0);
		return 0;
	}
	if (m->command != STATS_CMD_GET)
		return -EINVAL;
	r = sched_stats_fill(c, now, &resp);
	if (r < 0)
		return r;
	rpc_reply(req, RESPONSE_STATS_INFO, &resp);
	stats_info_msg_free(&resp);
	return 0;
}
