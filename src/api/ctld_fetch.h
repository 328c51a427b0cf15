/* ctld_fetch.h - one request to slurmctld and its reply unwrapped: the
 * wanted message, or the error the controller answered instead as a
 * negative code (sl_errno.h). The commands and slurmrestd (on behalf of
 * its caller) make their synchronous calls through it; the transport
 * under it is common/rpc_client.h.
 */
#pragma once
#include <stdint.h>

struct frame_as;
struct sl_conf;

/* The code of a reply (type, msg) whose good answer is want: 0 when type
 * is want (msg stays the caller's). Otherwise msg is freed and the code
 * is -rc of a RESPONSE_SLURM_RC carrying an error, or
 * -SLURM_UNEXPECTED_MSG_ERROR for an RC of 0 where another message was
 * wanted and for any other type. msg may be NULL (nothing to free). */
int ctld_fetch_unwrap(uint16_t type, void *msg, uint16_t want);

/* One request to slurmctld whose good answer is resp_type. Returns 0 and
 * sets *ret_msg (owned; free with msg_free(msg_lookup(resp_type), m)), or a
 * negative code: the connection error, or ctld_fetch_unwrap()'s. *ret_msg
 * is untouched on error. */
int ctld_fetch(const struct sl_conf *conf, uint16_t req_type, const void *req, uint16_t resp_type,
	       void **ret_msg);
/* The same on behalf of as->uid/as->gid (frame.h; slurmrestd's calls for
 * its authenticated user); as NULL: as ourselves. */
int ctld_fetch_as(const struct sl_conf *conf, const struct frame_as *as, uint16_t req_type,
		  const void *req, uint16_t resp_type, void **ret_msg);
