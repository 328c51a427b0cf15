/* rpc_part.c - partition and license handlers: info, and scontrol's
 * create/update/delete partition. */
#include "rpc.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "license.h"
#include "node_state.h"
#include "part_admin.h"
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

/* scontrol show licenses: the table as it is now (no last_update check:
 * the counts move with every start and end). */
int rpc_license_info(struct ctld *c, struct rpc_req *req)
{
	struct license_info_msg resp = {.last_update = time(NULL), .count = c->license_count};

	resp.lics = calloc(c->license_count + 1, sizeof(*resp.lics));
	if (!resp.lics)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->license_count; i++) {
		const struct license *l = &c->licenses[i];

		resp.lics[i] = (struct license_info){
		    .name = l->name,
		    .total = l->total,
		    .in_use = l->used,
		    .available = l->total > l->used ? l->total - l->used : 0,
		};
	}
	rpc_reply(req, RESPONSE_LICENSE_INFO, &resp);
	free(resp.lics);
	return 0;
}

/* scontrol create/update/delete partition (admins): applied, kept with the
 * nodes' saved state, and a scheduling pass asked for (a partition that
 * came UP, new nodes). */
int rpc_part_edit(struct ctld *c, struct rpc_req *req)
{
	char *msg = NULL;
	int r = part_admin_edit(c, req->type, req->body, &msg);

	if (msg) {
		info("%s: %s", msg_type_name(req->type), msg);
		free(msg);
	}
	if (r < 0)
		return r;
	ctld_sched_request(c);
	if (node_state_save(c) < 0)
		return -ESLURM_WRITING_TO_FILE;
	rpc_reply_rc(req, 0);
	return 0;
}
