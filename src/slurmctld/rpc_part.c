/* rpc_part.c - partition info handler. */
#include "rpc.h"

#include <errno.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "part.h"

int rpc_part_info(struct ctld *c, struct rpc_req *req)
{
	const struct part_info_req *m = req->body;
	struct part_info_msg resp = { .last_update = c->part_last_update };
	int r = 0;

	if (m->last_update && m->last_update >= c->part_last_update)
		return -SLURM_NO_CHANGE_IN_DATA;
	resp.parts = calloc(c->part_count + 1, sizeof(*resp.parts));
	if (!resp.parts)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->part_count && r == 0; i++)
		r = part_info_fill(c, &c->parts[i], &resp.parts[resp.count++]);
	if (r == 0)
		rpc_reply(req, RESPONSE_PARTITION_INFO, &resp);
	for (uint32_t i = 0; i < resp.count; i++)
		part_info_done(&resp.parts[i]);
	free(resp.parts);
	return r;
}
