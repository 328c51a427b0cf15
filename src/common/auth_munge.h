/* auth_munge.h - the one place that talks to the local munged: sign a
 * payload, decode a credential, and say what a failure means.
 *
 * A failure is either the credential's (malformed, signed with another
 * key, replayed, expired: the peer's doing, SLURM_PROTOCOL_AUTHENTICATION_ERROR)
 * or the local munged's (unreachable, overloaded, internal error:
 * ESLURM_AUTH_NET_ERROR, "Failed to connect to authentication agent"),
 * which is never reported as a bad credential. When munged momentarily
 * refuses, the call is tried again a few times, within
 * AUTH_MUNGE_RETRY_BUDGET_MS (see auth_munge.c for why and how long).
 */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

#include <munge.h>

struct sl_error;

/* What a munge error means for us. */
struct auth_munge_cause {
	int code;	   /* negative: what the caller returns and a peer is sent */
	const char *what;  /* a few words for the log, e.g. "munged unreachable" */
	bool is_local;	   /* the local munged (or our call to it) failed, not the credential */
	bool is_transient; /* munged busy or restarting: a try a moment later may work */
};

/* Never fails: an error this table does not know is a local failure. */
struct auth_munge_cause auth_munge_cause(munge_err_t e);

/* munge_encode of payload through munge_socket (NULL: munge's default),
 * retried while munged momentarily refuses. On success *ret_cred is owned
 * by the caller; on failure it is NULL and err (may be NULL) says what
 * failed and, for a local failure, names munged's socket. */
munge_err_t auth_munge_encode(const char *munge_socket, const void *payload, int len,
			      char **ret_cred, struct sl_error *err);

/* munge_decode of cred, retried like auth_munge_encode. As with
 * munge_decode, *ret_payload (owned by the caller) may be set on
 * EMUNGE_CRED_EXPIRED, _REWOUND and _REPLAYED too; it is NULL otherwise.
 * A retry after a socket error may be called a replay by munged when the
 * earlier try reached it; err then also names the first try's error. */
munge_err_t auth_munge_decode(const char *munge_socket, const char *cred, void **ret_payload,
			      int *ret_len, uid_t *ret_uid, gid_t *ret_gid, struct sl_error *err);

/* ---- exposed for unit testing only ---------------------------------- */

#define AUTH_MUNGE_RETRY_BUDGET_MS 300u	 /* one call, all its tries and pauses */
#define AUTH_MUNGE_QUIET_MS	   1000u /* after a call that gave up: one try only */

/* The pause before the next try of a call that has made tries_done tries
 * in elapsed_ms so far: 10, 50, 200 ms, or -1 to give up (three retries
 * done, or the pause would end past AUTH_MUNGE_RETRY_BUDGET_MS). */
int auth_munge_backoff_ms(unsigned tries_done, unsigned elapsed_ms);
