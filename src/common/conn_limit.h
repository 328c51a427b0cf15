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
 *     early) are refused by it, so small requests never are.
 * No I/O, no logging: the server decides whom to close, this counts.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct conn_uid {
	uid_t uid;
	uint32_t n; /* requests with the daemon */
};

struct conn_limit {
	uint32_t max_open;
	uint32_t max_per_uid; /* 0: no cap */
	size_t max_buffered;
	uint32_t open; /* now */
	size_t buffered;
	struct conn_uid *uids; /* users with a request at the daemon, unordered */
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

void conn_limit_done(struct conn_limit *l); /* frees the uid table */

bool conn_limit_is_full(const struct conn_limit *l);

/* One more request of uid with the daemon: 0, -EAGAIN when uid already has
 * max_per_uid (nothing counted), -ENOMEM. */
int conn_limit_uid_take(struct conn_limit *l, uid_t uid);
/* That request was answered (or its connection dropped). */
void conn_limit_uid_put(struct conn_limit *l, uid_t uid);
uint32_t conn_limit_uid_count(const struct conn_limit *l, uid_t uid);

/* A connection's unread input went from old_len to new_len bytes. Returns
 * false when the total is now over max_buffered and this connection holds
 * more than SL_FRAME_PREAUTH: the caller closes it (and gives back its
 * bytes with a call to new_len 0). The total is updated either way. */
bool conn_limit_buffer(struct conn_limit *l, size_t old_len, size_t new_len);
