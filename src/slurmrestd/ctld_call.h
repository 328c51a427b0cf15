/* ctld_call.h - slurmrestd's RPCs to slurmctld, made on a worker thread
 * on behalf of the request's authenticated user (frame.h's mark): the
 * calls of api/ctld_fetch.h and rpc_client.h with r's identity. */
#pragma once
#include <stdint.h>

struct rest_req;

/* ctld_fetch_as() as r's user: 0 and *ret_msg, the reply of type want
 * (free with msg_free(msg_lookup(want), *ret_msg)), or a negative code. */
int ctld_call_fetch(struct rest_req *r, uint16_t type, const void *msg, uint16_t want,
		    void **ret_msg);
/* For requests answered by RESPONSE_SLURM_RC: 0 or -rc. */
int ctld_call_rc(struct rest_req *r, uint16_t type, const void *msg);
