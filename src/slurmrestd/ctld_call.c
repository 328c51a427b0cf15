/* ctld_call.c - RPCs on behalf of the request's user; see ctld_call.h. */
#include "ctld_call.h"

#include "common/frame.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "restd.h"

int ctld_call(struct rest_req *r, uint16_t type, const void *msg, uint16_t *ret_type,
	      void **ret_msg)
{
	struct frame_as as = { .uid = r->uid, .gid = r->gid };
	int rc;

	*ret_msg = NULL;
	rc = rpc_call_ctld_as(r->rd->conf, &as, type, msg, ret_type, ret_msg);
	if (rc == 0 && *ret_type == RESPONSE_SLURM_RC && ((struct rc_msg *)*ret_msg)->rc) {
		rc = -(int)((struct rc_msg *)*ret_msg)->rc;
		msg_free(msg_lookup(*ret_type), *ret_msg);
		*ret_msg = NULL;
	}
	return rc;
}

int ctld_call_rc(struct rest_req *r, uint16_t type, const void *msg)
{
	struct frame_as as = { .uid = r->uid, .gid = r->gid };

	return rpc_call_ctld_as_rc(r->rd->conf, &as, type, msg);
}
