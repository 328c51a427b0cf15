/* rpc_assoc.c - sacctmgr and sshare: REQUEST_ASSOC_MGR (a change, admins
 * only: root and SlurmUser), REQUEST_ASSOC_LIST and REQUEST_SHARE_INFO
 * (the whole table, anyone).
 *
 * A change runs on a copy of the table first (assoc_edit_checked), so a
 * refusal changes nothing; a committed change is applied in memory, then
 * the table is saved by the accounting thread and sacctmgr is answered
 * once it is on disk (acct_assoc_save).
 */
#include "rpc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "assoc.h"
#include "assoc_edit.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/msg_assoc.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"

int rpc_assoc_mgr(struct ctld *c, struct rpc_req *req)
{
	const struct assoc_mgr_req *m = req->body;
	struct assoc_mgr_resp resp = {0};
	bool is_commit = m->flags & ASSOC_F_COMMIT;
	size_t olen = 0, elen = 0;
	FILE *out, *err;
	int r;

	if (!ctld_is_admin(c, req->uid)) {
		resp.rc = ESLURM_ACCESS_DENIED;
		return rpc_reply(req, RESPONSE_ASSOC_MGR, &resp) < 0 ? -EIO : 0;
	}
	if (!c->acct || !c->assoc.is_loaded) {
		resp.rc = ESLURM_DISABLED;
		return rpc_reply(req, RESPONSE_ASSOC_MGR, &resp) < 0 ? -EIO : 0;
	}
	out = open_memstream(&resp.out, &olen);
	err = open_memstream(&resp.err, &elen);
	if (!out || !err) {
		if (out)
			fclose(out);
		if (err)
			fclose(err);
		msg_lookup(RESPONSE_ASSOC_MGR)->free(&resp);
		return -ENOMEM;
	}
	r = assoc_edit_checked(&c->assoc, c->conf->cluster_name, m, is_commit, out, err);
	fclose(out);
	fclose(err);
	resp.rc = r < 0 ? (uint32_t)-r : 0;
	resp.is_changed = r > 0;
	if (r > 0 && is_commit) {
		info("sacctmgr: uid=%u changed the associations", (unsigned)req->uid);
		ctld_sched_request(c); /* limits may have changed */
		r = acct_assoc_save(c, req, &resp);
		if (r == 0)
			return 0; /* answered once written */
		resp.rc = (uint32_t)-r;
	}
	r = rpc_reply(req, RESPONSE_ASSOC_MGR, &resp);
	msg_lookup(RESPONSE_ASSOC_MGR)->free(&resp);
	return r < 0 ? -EIO : 0;
}

int rpc_assoc_list(struct ctld *c, struct rpc_req *req)
{
	struct assoc_dump d = {0};
	int r;

	if (!c->acct || !c->assoc.is_loaded) {
		d.error_code = ESLURM_DISABLED;
	} else {
		r = assoc_table_dump(&c->assoc, &d);
		if (r < 0)
			return r;
	}
	if (c->conf->cluster_name && !(d.cluster = strdup(c->conf->cluster_name))) {
		assoc_dump_free(&d);
		return -ENOMEM;
	}
	r = rpc_reply(req, RESPONSE_ASSOC_LIST, &d);
	assoc_dump_free(&d);
	return r < 0 ? -EIO : 0;
}
