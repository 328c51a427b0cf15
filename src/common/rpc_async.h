/* rpc_async.h - outgoing request/reply on a libevent loop (R20).
 *
 * The controller pings slurmds and slurmd registers with the controller
 * without ever blocking its loop on the peer: connect, write and the reply
 * are all events, bounded by timeout_s.
 */
#pragma once
#include <stdint.h>
#include <sys/types.h>

struct event_base;

/* rc: 0 and (type, msg) the reply, or a negative code and msg NULL.
 * msg is borrowed: it is freed when the callback returns. */
typedef void rpc_async_done_fn(void *arg, int rc, uint16_t type, void *msg);

/* Starts the call; done is called exactly once, never from inside this
 * function. The reply must be signed by root or by peer_uid (the daemon
 * we called), else done gets -SLURM_PROTOCOL_AUTHENTICATION_ERROR.
 * Returns <0 only if the call could not start at all (then done is not
 * called). */
int rpc_async_call(struct event_base *base, const char *munge_socket, const char *host,
		   uint16_t port, uint16_t type, const void *req, uid_t peer_uid,
		   unsigned timeout_s, rpc_async_done_fn *done, void *arg);
