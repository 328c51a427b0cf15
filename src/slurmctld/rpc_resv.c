/* rpc_resv.c - reservation handlers: scontrol create/update/delete
 * reservation (admins), scontrol show reservation and sinfo -T (anyone). */
#include "rpc.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "durable.h"
#include "node_state.h"
#include "resv.h"

/* Saved with the nodes' state; jobs may start (or must wait) now. */
static int changed(struct ctld *c)
{
	c->resv_last_update = time(NULL);
	resv_tick(c, c->resv_last_update); /* the nodes' flags at once */
	ctld_sched_request(c);
	return node_state_save(c) < 0 ? -ESLURM_WRITING_TO_FILE : 0;
}

int rpc_resv_create(struct ctld *c, struct rpc_req *req)
{
	struct resv_name_msg resp = {0};
	int r = resv_create(c, req->body, time(NULL), &resp.name);

	if (r < 0)
		return r;
	r = changed(c);
	if (r == 0)
		rpc_reply(req, RESPONSE_CREATE_RESERVATION, &resp);
	free(resp.name);
	return r;
}

int rpc_resv_update(struct ctld *c, struct rpc_req *req)
{
	int r = resv_update(c, req->body, time(NULL));

	if (r == 0)
		r = changed(c);
	if (r == 0)
		rpc_reply_rc(req, 0);
	return r;
}

/* Its pending jobs' changes are journaled: answered once they are on disk. */
int rpc_resv_delete(struct ctld *c, struct rpc_req *req)
{
	const struct resv_name_msg *m = req->body;
	struct rc_msg *rc = calloc(1, sizeof(*rc));
	int r = rc ? resv_delete(c, m->name) : -ENOMEM;

	if (r == 0)
		r = changed(c);
	if (r < 0) {
		free(rc);
		return r;
	}
	rpc_reply_durable(c, req, RESPONSE_SLURM_RC, rc);
	return 0;
}

int rpc_resv_info(struct ctld *c, struct rpc_req *req)
{
	const struct part_info_req *m = req->body;
	struct resv_info_msg resp = {.last_update = c->resv_last_update};
	int r = 0;

	if (m->last_update && m->last_update >= c->resv_last_update)
		return -SLURM_NO_CHANGE_IN_DATA;
	resp.resvs = calloc(c->resv_count + 1, sizeof(*resp.resvs));
	if (!resp.resvs)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->resv_count && r == 0; i++)
		r = resv_info_fill(c, &c->resvs[i], &resp.resvs[resp.count++]);
	if (r == 0)
		rpc_reply(req, RESPONSE_RESERVATION_INFO, &resp);
	msg_lookup(RESPONSE_RESERVATION_INFO)->free(&resp);
	return r;
}
