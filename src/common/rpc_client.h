/* rpc_client.h - blocking request/reply for CLIs and slurmd registration.
 *
 * One connection per request (as Slurm): connect, send one authenticated
 * frame, read one authenticated reply frame, close. Timeouts come from
 * MessageTimeout. The event-loop daemons use rpc_async.h instead.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct frame_as;
struct sl_conf;

/* Send a request to host:port and wait for the reply. On success returns 0
 * and sets *ret_type and *ret_msg (owned; free with msg_free(msg_lookup(type), m)).
 * The peer is a daemon (slurmctld, slurmd): its reply must be signed by
 * root or SlurmUser, else it is refused (logged at error) with
 * -SLURM_PROTOCOL_AUTHENTICATION_ERROR, a communication failure the
 * caller may retry (slurmstepd keeps its completion for the real one).
 * Errors: -SLURM_COMMUNICATIONS_CONNECTION_ERROR (connect failed),
 * -SLURM_COMMUNICATIONS_SEND_ERROR, -SLURM_COMMUNICATIONS_RECEIVE_ERROR,
 * -SLURM_PROTOCOL_AUTHENTICATION_ERROR, -SLURM_PROTOCOL_VERSION_ERROR. */
int rpc_call_addr(const struct sl_conf *conf, const char *host, uint16_t port, uint16_t type,
		  const void *req, uint16_t *ret_type, void **ret_msg);

/* Same to the controller (SlurmctldHost address and port); connection
 * errors map to the SLURMCTLD_COMMUNICATIONS_* codes so that
 * sl_strerror() gives "Unable to contact slurm controller (connect failure)". */
int rpc_call_ctld(const struct sl_conf *conf, uint16_t type, const void *req, uint16_t *ret_type,
		  void **ret_msg);

/* rpc_call_ctld for a request the controller answers only after up to
 * wait_s seconds (REQUEST_JOB_WAIT's timeout_s, at most
 * SL_WAIT_TIMEOUT_MAX): the reply is awaited MessageTimeout + wait_s. */
int rpc_call_ctld_wait(const struct sl_conf *conf, uint16_t type, const void *req,
		       uint32_t wait_s, uint16_t *ret_type, void **ret_msg);

/* For requests answered by RESPONSE_SLURM_RC: returns 0 or -rc. */
int rpc_call_ctld_rc(const struct sl_conf *conf, uint16_t type, const void *req);

/* rpc_call_ctld and rpc_call_ctld_rc on behalf of as->uid/as->gid (frame.h:
 * the controller honours it only when we run as root or SlurmUser). as
 * NULL: as ourselves. */
int rpc_call_ctld_as(const struct sl_conf *conf, const struct frame_as *as, uint16_t type,
		     const void *req, uint16_t *ret_type, void **ret_msg);
int rpc_call_ctld_as_rc(const struct sl_conf *conf, const struct frame_as *as, uint16_t type,
			const void *req);

/* A request the controller answers in several frames (JOB_SHOW_STREAM):
 * each reply frame, verified (signed by a daemon, as rpc_call_ctld's), is
 * handed to fn still packed: part->body is good until fn returns (unpack
 * it with msg_unpack_body, or a view such as job_info_msg_unpack_view
 * that does not outlive the call). fn returns 1 when another frame
 * follows, 0 after the last, or a negative code to stop. Returns 0 or
 * the first error (fn's, or the codes of rpc_call_ctld). */
struct frame_body;
typedef int rpc_part_fn(void *arg, const struct frame_body *part);
int rpc_stream_ctld_as(const struct sl_conf *conf, const struct frame_as *as, uint16_t type,
		       const void *req, rpc_part_fn *fn, void *arg);
/* The same, each frame's bytes given to fn with it: frame (part->body
 * points into it) is fn's to free, whatever fn returns, so views into it
 * may outlive the call (squeue keeps every page of a listing so). */
typedef int rpc_owned_part_fn(void *arg, const struct frame_body *part, void *frame);
int rpc_stream_ctld_owned(const struct sl_conf *conf, uint16_t type, const void *req,
			  rpc_owned_part_fn *fn, void *arg);

/* Whether a reply signed by uid may come from one of our daemons: root
 * (slurmd) or SlurmUser (slurmctld). */
bool rpc_signer_is_daemon(const struct sl_conf *conf, uid_t uid);

struct sockaddr_in;
/* host name or dotted quad -> address; -EHOSTUNREACH when unknown. */
int rpc_resolve(const char *host, uint16_t port, struct sockaddr_in *ret);
