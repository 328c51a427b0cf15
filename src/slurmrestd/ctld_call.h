/* ctld_call.h - slurmrestd's RPCs to slurmctld, made on a worker thread
 * on behalf of the request's authenticated user (frame.h's mark). */
#pragma once
#include <stdint.h>

struct rest_req;

/* Request type+msg as r's user; 0 and the reply (free with
 * msg_free(msg_lookup(*ret_type), *ret_msg)), or a negative code; a
 * RESPONSE_SLURM_RC reply with an error is returned as that error. */
int ctld_call(struct rest_req *r, uint16_t type, const void *msg, uint16_t *ret_type,
	      void **ret_msg);
/* For requests answered by RESPONSE_SLURM_RC: 0 or -rc. */
int ctld_call_rc(struct rest_req *r, uint16_t type, const void *msg);
