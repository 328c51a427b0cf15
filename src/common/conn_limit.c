/* conn_limit.c - see conn_limit.h.
 *
 * The uid table is a short unsorted array: it holds only users with a
 * request at the daemon or a reply being written right now (a handful; at
 * most max_open), and a uid comes from a credential munged accepted, so a
 * peer cannot make it grow by inventing users. A user's reply bytes live
 * in its entry, which its counted requests keep alive while they last.
 */
#include "conn_limit.h"

#include <errno.h>
#include <stdlib.h>

#include "limits.h"

uint32_t conn_limit_max_open(uint64_t nofile)
{
	uint64_t n = nofile > 2 * CONN_LIMIT_NOFILE_RESERVE ? nofile - CONN_LIMIT_NOFILE_RESERVE
							    : nofile / 2;

	if (n < 1)
		n = 1;
	return n > CONN_LIMIT_OPEN_MAX ? CONN_LIMIT_OPEN_MAX : (uint32_t)n;
}

uint32_t conn_limit_max_per_uid(uint32_t max_open)
{
	return max_open / 4 ? max_open / 4 : 1;
}

size_t conn_limit_max_buffered(uint32_t max_frame)
{
	size_t floor = (size_t)256 << 20, four = (size_t)max_frame * 4;

	return four > floor ? four : floor;
}

void conn_limit_done(struct conn_limit *l)
{
	free(l->uids);
	l->uids = NULL;
	l->nuids = l->cap_uids = 0;
}

bool conn_limit_is_full(const struct conn_limit *l)
{
	return l->open >= l->max_open;
}

static struct conn_uid *uid_find(const struct conn_limit *l, uid_t uid)
{
	for (size_t i = 0; i < l->nuids; i++)
		if (l->uids[i].uid == uid)
			return &l->uids[i];
	return NULL;
}

uint32_t conn_limit_uid_count(const struct conn_limit *l, uid_t uid)
{
	const struct conn_uid *u = uid_find(l, uid);

	return u ? u->n : 0;
}

int conn_limit_uid_take(struct conn_limit *l, uid_t uid)
{
	struct conn_uid *u = uid_find(l, uid);

	if (u && l->max_per_uid && u->n >= l->max_per_uid)
		return -EAGAIN;
	if (u) {
		u->n++;
		return 0;
	}
	if (l->nuids == l->cap_uids) {
		size_t cap = l->cap_uids ? l->cap_uids * 2 : 8;
		struct conn_uid *p = realloc(l->uids, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->uids = p;
		l->cap_uids = cap;
	}
	l->uids[l->nuids++] = (struct conn_uid){.uid = uid, .n = 1, .out = 0};
	return 0;
}

void conn_limit_uid_put(struct conn_limit *l, uid_t uid)
{
	struct conn_uid *u = uid_find(l, uid);

	if (!u)
		return;
	if (--u->n == 0)
		*u = l->uids[--l->nuids]; /* unordered: the last one takes its place */
}

bool conn_limit_buffer(struct conn_limit *l, size_t old_len, size_t new_len)
{
	l->buffered = l->buffered - old_len + new_len;
	return !(l->buffered > l->max_buffered && new_len > SL_FRAME_PREAUTH);
}

void conn_limit_out(struct conn_limit *l, const uid_t *uid, size_t old_len, size_t new_len)
{
	struct conn_uid *u = uid ? uid_find(l, *uid) : NULL;

	l->out = l->out - old_len + new_len;
	if (u)
		u->out = u->out - old_len + new_len;
}

size_t conn_limit_uid_out(const struct conn_limit *l, uid_t uid)
{
	const struct conn_uid *u = uid_find(l, uid);

	return u ? u->out : 0;
}

bool conn_limit_uid_is_over_out(const struct conn_limit *l, uid_t uid)
{
	return l->max_out_per_uid && conn_limit_uid_out(l, uid) > l->max_out_per_uid;
}

bool conn_limit_is_over_out(const struct conn_limit *l)
{
	return l->max_out && l->out > l->max_out;
}
