/* conn_limit.h - the caps of one RPC listener, as plain accounting.
 *
 * rpc_server.c asks this unit before it spends anything on a peer:
 *   - open connections, at most max_open (from RLIMIT_NOFILE): over it,
 *     the server closes its oldest connection that has not sent a whole
 *     frame (a slow-loris, never a request being served) to let the new
 *     one in;
 *   - requests with the daemon at once per user, at most max_per_uid for
 *     any uid the server does not exempt (root, SlurmUser): counted from
 *     the credential, so only after authentication;
 *   - bytes of frames being read, all connections together, at most
 *     max_buffered; only frames over SL_FRAME_PREAUTH (authenticated
 *     early) are refused by it, so small requests never are;
 *   - bytes of replies written but not yet taken by the peers' sockets:
 *     at most max_out_per_uid for the requests a user has counted, and
 *     max_out all connections together; over either the server closes
 *     the connections whose replies have waited longest.
 * No I/O, no logging: the server decides whom to close, this counts.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct conn_uid {
	uid_t uid;
	uint32_t n; /* requests with the daemon or with a reply not yet written */
	size_t out; /* bytes of those replies not yet taken by the sockets */
};

struct conn_limit {
	uint32_t max_open;
	uint32_t max_per_uid; /* 0: no cap */
	size_t max_buffered;
	size_t max_out_per_uid; /* 0: no cap */
	size_t max_out;		/* 0: no cap */
	uint32_t open;		/* now */
	size_t buffered;
	size_t out;	       /* reply bytes not yet taken, every connection's */
	struct conn_uid *uids; /* users with a request being served, unordered */
	size_t nuids;
	size_t cap_uids;
};

/* The defaults for a process whose soft RLIMIT_NOFILE is nofile: room for
 * the daemon's own files and outgoing connections is kept, and the
 * listener takes at most CONN_LIMIT_OPEN_MAX. */
#define CONN_LIMIT_OPEN_MAX	  1024u
#define CONN_LIMIT_NOFILE_RESERVE 128u
uint32_t conn_limit_max_open(uint64_t nofile);
/* Per-user cap for a listener of max_open connections: a quarter of it. */
uint32_t conn_limit_max_per_uid(uint32_t max_open);
/* Bytes of frames in reading: four of the largest, at least 256 MiB. */
size_t conn_limit_max_buffered(uint32_t max_frame);
/* Reply bytes not yet taken. A user's: eight whole pages of a job listing
 * (JOB_INFO_PAGE_BYTES, 8 MiB), as much as the default MaxMessageSize; a
 * larger reply still goes out, as the server never closes the connection
 * it is writing to. All users': eight users at their budget, small
 * against a controller's memory. */
#define CONN_LIMIT_OUT_PER_UID ((size_t)64 << 20)
#define CONN_LIMIT_OUT_TOTAL   ((size_t)512 << 20)

void conn_limit_done(struct conn_limit *l); /* frees the uid table */

bool conn_limit_is_full(const struct conn_limit *l);

/* One more request of uid with the daemon: 0, -EAGAIN when uid already has
 * max_per_uid (nothing counted), -ENOMEM. */
int conn_limit_uid_take(struct conn_limit *l, uid_t uid);
/* That request's reply was written (or its connection dropped); its
 * bytes must have been given back first (conn_limit_out to 0). */
void conn_limit_uid_put(struct conn_limit *l, uid_t uid);
uint32_t conn_limit_uid_count(const struct conn_limit *l, uid_t uid);

/* A connection's reply bytes not yet taken went from old_len to new_len.
 * uid: the user whose counted request it answers (taken with
 * conn_limit_uid_take and not yet put), or NULL: only the total counts
 * it (root, SlurmUser, a peer refused before it was counted). */
void conn_limit_out(struct conn_limit *l, const uid_t *uid, size_t old_len, size_t new_len);
size_t conn_limit_uid_out(const struct conn_limit *l, uid_t uid);
/* Over max_out_per_uid (uid's) or max_out (everyone's) now. */
bool conn_limit_uid_is_over_out(const struct conn_limit *l, uid_t uid);
bool conn_limit_is_over_out(const struct conn_limit *l);

/* A connection's unread input went from old_len to new_len bytes. Returns
 * false when the total is now over max_buffered and this connection holds
 * more than SL_FRAME_PREAUTH: the caller closes it (and gives back its
 * bytes with a call to new_len 0). The total is updated either way. */
bool conn_limit_buffer(struct conn_limit *l, size_t old_len, size_t new_len);
