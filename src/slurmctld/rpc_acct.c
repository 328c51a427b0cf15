/* rpc_acct.c - REQUEST_ACCT_QUERY (sacct, seff): who may see what, then the
 * query goes to the accounting thread (acct.c), which answers it in queue
 * order.
 */
#include "rpc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/msg_acct.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "acct.h"
#include "ctld.h"

/* Whose jobs the caller may see: its own unless it asked for others and
 * PrivateData=jobs does not forbid it (admins see everyone's). */
static int resolve_uids(const struct ctld *c, const struct rpc_req *req, struct acct_query_req *q)
{
	bool is_private =
	    (c->conf->private_data_flags & PRIVATE_DATA_JOBS) && !ctld_is_admin(c, req->uid);

	if (!is_private && (q->uids || (q->flags & ACCT_Q_ALL_USERS)))
		return 0;
	q->flags &= ~ACCT_Q_ALL_USERS;
	free(q->uids);
	q->uids = NULL;
	if (asprintf(&q->uids, "%u", (unsigned)req->uid) < 0) {
		q->uids = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* sacct -N: the list is counted, never expanded, here; a malformed one or
 * one naming more than ACCT_Q_NODES_MAX hosts ("n[1-100000000]") is
 * refused before the query is queued. */
static int check_nodes(const struct rpc_req *req, const struct acct_query_req *q)
{
	int r;

	if (!q->nodes)
		return 0;
	r = hostlist_count_expr(q->nodes, ACCT_Q_NODES_MAX, NULL);
	if (r == -E2BIG)
		info("%s: accounting query from uid=%u refused: node list over %u hosts", req->peer,
		     (unsigned)req->uid, ACCT_Q_NODES_MAX);
	return r == -EINVAL ? -ESLURM_INVALID_NODE_NAME : r;
}

int rpc_acct_query(struct ctld *c, struct rpc_req *req)
{
	struct acct_query_req *m = req->body;
	int r = check_nodes(req, m);

	if (r == 0)
		r = resolve_uids(c, req, m);
	if (r == 0)
		r = acct_query(c, req, m);
	if (r == -ESLURM_DISABLED || r == -EAGAIN) {
		/* in the reply, as sacct expects; on EAGAIN the client retries */
		struct acct_query_resp resp = {.error_code = (uint32_t)-r};

		rpc_reply(req, RESPONSE_ACCT_QUERY, &resp);
		return 0;
	}
	return r;
}
