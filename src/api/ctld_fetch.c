/* ctld_fetch.c - a call to slurmctld with its reply unwrapped; see
 * ctld_fetch.h.
 *
 * Purpose: the one place that turns "the controller answered
 * RESPONSE_SLURM_RC (or something else) where a message was wanted" into
 * a code, so no caller reads a reply as a type it is not.
 * Owns: nothing.
 */
#include "api/ctld_fetch.h"

#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"

int ctld_fetch_unwrap(uint16_t type, void *msg, uint16_t want)
{
	int r = -SLURM_UNEXPECTED_MSG_ERROR;

	if (type == want)
		return 0;
	if (type == RESPONSE_SLURM_RC && msg && ((const struct rc_msg *)msg)->rc)
		r = -(int)((const struct rc_msg *)msg)->rc;
	msg_free(msg_lookup(type), msg);
	return r;
}

int ctld_fetch(const struct sl_conf *conf, uint16_t req_type, const void *req, uint16_t resp_type,
	       void **ret_msg)
{
	return ctld_fetch_as(conf, NULL, req_type, req, resp_type, ret_msg);
}

int ctld_fetch_as(const struct sl_conf *conf, const struct frame_as *as, uint16_t req_type,
		  const void *req, uint16_t resp_type, void **ret_msg)
{
	uint16_t type = 0;
	void *m = NULL;
	int r;

	r = rpc_call_ctld_as(conf, as, req_type, req, &type, &m);
	if (r < 0)
		return r;
	r = ctld_fetch_unwrap(type, m, resp_type);
	if (r == 0)
		*ret_msg = m;
	return r;
}
