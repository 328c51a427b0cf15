/* ctld.c - the controller-wide helpers of ctld.h: the bottom floor, so any
 * file may call them without calling upward.
 */
#include "ctld.h"

#include <event2/event.h>

#include "common/conf.h"
#include "node.h"

bool ctld_is_admin(const struct ctld *c, uid_t uid)
{
	return uid == 0 || uid == c->conf->slurm_user_id;
}

int ctld_send(struct ctld *c, const char *host, uint16_t port, uint16_t type, const void *msg,
	      uid_t peer_uid, rpc_async_done_fn *done, void *arg)
{
	if (c->send)
		return c->send(c, host, port, type, msg, peer_uid, done, arg);
	return rpc_async_call(c->base, c->conf->munge_socket, host, port, type, msg, peer_uid,
			      c->conf->message_timeout, done, arg);
}

void ctld_sched_request(struct ctld *c)
{
	if (c->sched_ev)
		event_active(c->sched_ev, EV_TIMEOUT, 0);
}

int ctld_send_node(struct ctld *c, const struct node *n, uint16_t type, const void *msg,
		   rpc_async_done_fn *done, void *arg)
{
	return ctld_send(c, n->cfg->node_addr, n->cfg->port, type, msg, c->conf->slurm_user_id,
			 done, arg);
}
