/* rpc_node.c - node registration, node info and node update handlers:
 * decode (done by the table) -> look up -> domain call -> reply (R18).
 */
#include "rpc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld.h"
#include "job_end.h"
#include "node.h"
#include "node_ping.h"
#include "node_reboot.h"
#include "node_state.h"

int rpc_node_register(struct ctld *c, struct rpc_req *req)
{
	int r = node_ping_registered(c, req->body, time(NULL));

	if (r < 0)
		return r;
	rpc_reply_rc(req, 0);
	return 0;
}

int rpc_node_info(struct ctld *c, struct rpc_req *req)
{
	const struct node_info_req *m = req->body;
	struct node_info_msg resp = { .last_update = c->node_last_update };
	int r = 0;

	if (m->last_update && m->last_update >= c->node_last_update)
		return -SLURM_NO_CHANGE_IN_DATA;
	resp.nodes = calloc(c->node_count + 1, sizeof(*resp.nodes));
	if (!resp.nodes)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->node_count && r == 0; i++) {
		if (m->node_name && !streq(m->node_name, node_name(&c->nodes[i])))
			continue;
		r = node_info_fill(c, &c->nodes[i], &resp.nodes[resp.count++]);
	}
	if (r == 0)
		rpc_reply(req, RESPONSE_NODE_INFO, &resp);
	for (uint32_t i = 0; i < resp.count; i++)
		node_info_done(&resp.nodes[i]);
	free(resp.nodes);
	return r;
}

int rpc_node_update(struct ctld *c, struct rpc_req *req)
{
	int r = node_update(c, req->body, req->uid, time(NULL));

	if (r < 0)
		return r;
	/* an admin's DOWN ends (or requeues) what runs there, as a failure does */
	for (uint32_t i = 0; i < c->node_count; i++)
		if ((c->nodes[i].state & NODE_STATE_BASE) == NODE_STATE_DOWN
		    && node_alloc_cpus(&c->nodes[i]))
			job_end_node_down(c, i);
	ctld_sched_request(c); /* resumed nodes, new features: jobs may start */
	if (node_state_save(c) < 0)
		return -ESLURM_WRITING_TO_FILE;
	rpc_reply_rc(req, 0);
	return 0;
}

int rpc_node_reboot(struct ctld *c, struct rpc_req *req)
{
	int r = node_reboot_request(c, req->body, req->uid, time(NULL));

	if (r < 0)
		return r;
	if (node_state_save(c) < 0)
		return -ESLURM_WRITING_TO_FILE;
	rpc_reply_rc(req, 0);
	return 0;
}
