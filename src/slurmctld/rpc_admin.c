/* rpc_admin.c - controller ping, configuration dump, reconfigure and
 * shutdown handlers.
 */
#include "rpc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "admin.h"
#include "common/conf_show.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "ctld.h"

int rpc_ping(struct ctld *c, struct rpc_req *req)
{
	(void)c;
	rpc_reply_rc(req, 0);
	return 0;
}

int rpc_build_info(struct ctld *c, struct rpc_req *req)
{
	struct build_info_msg resp = { .last_update = time(NULL), .boot_time = c->boot_time };
	int r;

	r = conf_show_pairs(c->conf, c->boot_time, &resp.pairs, &resp.count);
	if (r < 0)
		return r;
	rpc_reply(req, RESPONSE_BUILD_INFO, &resp);
	for (uint32_t i = 0; i < resp.count; i++) {
		free(resp.pairs[i].key);
		free(resp.pairs[i].value);
	}
	free(resp.pairs);
	return 0;
}

int rpc_reconfigure(struct ctld *c, struct rpc_req *req)
{
	int r = admin_reconfigure(c);

	if (r < 0)
		return r;
	rpc_reply_rc(req, 0);
	return 0;
}

int rpc_shutdown(struct ctld *c, struct rpc_req *req)
{
	const struct shutdown_msg *m = req->body;
	bool also_slurmds = m->options == 0; /* read before the reply frees req */

	rpc_reply_rc(req, 0);
	admin_shutdown(c, also_slurmds);
	return 0;
}
