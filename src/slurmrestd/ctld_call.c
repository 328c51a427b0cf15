/* ctld_call.c - RPCs on behalf of the request's user; see ctld_call.h. */
#include "ctld_call.h"

#include "api/ctld_fetch.h"
#include "common/frame.h"
#include "common/rpc_client.h"
#include "restd.h"

int ctld_call_fetch(struct rest_req *r, uint16_t type, const void *msg, uint16_t want,
		    void **ret_msg)
{
	struct frame_as as = {.uid = r->uid, .gid = r->gid};

	return ctld_fetch_as(r->rd->conf, &as, type, msg, want, ret_msg);
}

int ctld_call_rc(struct rest_req *r, uint16_t type, const void *msg)
{
	struct frame_as as = {.uid = r->uid, .gid = r->gid};

	return rpc_call_ctld_as_rc(r->rd->conf, &as, type, msg);
}
