/* node_state.c - see node_state.h.
 *
 * File: str magic | u16 version | time saved | u32 count | count x
 * { str name | u32 state | str reason | u32 reason_uid | time reason_time |
 *   bool down_no_respond | (2:) u32 reboot next state | time reboot asked |
 *   u64 old slurmd instance | bool ASAP } | (3:) u32 edits | edits x { u16
 *   type | part_edit_msg } | (4:) u32 last reservation number | u32
 *   reservations | x { str name | time start | time end | str nodes | str
 *   partition | str users | str accounts | u32 flags | (5:) u32 id } |
 *   32-byte SHA-256 of everything before it.
 * Nodes no longer in slurm.conf are skipped on load.
 */
#include "node_state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/limits.h"
#include "common/msg.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/pack.h"
#include "common/sha256.h"
#include "common/states.h"
#include "ctld.h"
#include "journal.h"
#include "node.h"
#include "part_admin.h"
#include "resv.h"

#define NODE_STATE_MAGIC "SL_NODE_STATE"
/* 5: a reservation's ResvID; 4: reservations; 3: partition edits; 2: a
 * reboot requested or issued; 1 to 4 are read */
#define NODE_STATE_VERSION 5

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* tmp + fsync + rename + fsync(dir): the file is either old or new. */
static int save_atomic(const char *dir, const char *name, const struct pack_buf *b)
{
	_cleanup_free_ char *path = NULL, *tmp = NULL;
	_cleanup_close_ int fd = -1, dfd = -1;
	int r;

	if (asprintf(&path, "%s/%s", dir, name) < 0 || asprintf(&tmp, "%s/%s.new", dir, name) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = write_all(fd, b->data, b->len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		fsync(dfd);
	return 0;
}

/* Logged once until a save succeeds; the journal's commit event tries
 * again (durable.c), and refuses state changes meanwhile. */
static void node_state_save_failed(struct ctld *c, int r)
{
	if (!c->is_node_state_dirty)
		error("node_state: cannot save to %s: %s; retrying every second",
		      c->conf->state_save_location, strerror(-r));
	else
		debug("node_state: still cannot save to %s: %s", c->conf->state_save_location,
		      strerror(-r));
	c->is_node_state_dirty = true;
	if (!c->state_save_err)
		c->state_save_err = r;
	if (c->commit_ev)
		event_add(c->commit_ev, &(struct timeval){.tv_sec = 1});
}

int node_state_save(struct ctld *c)
{
	struct pack_buf b = { 0 };
	struct iovec iov;
	uint8_t digest[32];
	int r;

	pack_str(&b, NODE_STATE_MAGIC);
	pack_u16(&b, NODE_STATE_VERSION);
	pack_time(&b, time(NULL));
	pack_u32(&b, c->node_count);
	for (uint32_t i = 0; i < c->node_count; i++) {
		const struct node *n = &c->nodes[i];

		pack_str(&b, node_name(n));
		pack_u32(&b, n->state);
		pack_str(&b, n->reason);
		pack_u32(&b, n->reason_uid);
		pack_time(&b, n->reason_time);
		pack_bool(&b, n->is_down_no_respond);
		/* version 2: a requested or issued reboot */
		pack_u32(&b, n->reboot_next_state);
		pack_time(&b, n->boot_req_time);
		pack_u64(&b, n->reboot_old_instance);
		pack_bool(&b, n->is_reboot_asap);
	}
	/* version 3: scontrol's partition edits (part_admin.c) */
	pack_u32(&b, c->part_edit_count);
	for (uint32_t i = 0; i < c->part_edit_count; i++) {
		pack_u16(&b, c->part_edits[i].type);
		msg_lookup(REQUEST_UPDATE_PARTITION)->pack(&c->part_edits[i].m, &b,
							   PROTOCOL_VERSION);
	}
	/* version 4: reservations (resv.h) and the number of the last made name */
	pack_u32(&b, c->resv_seq);
	pack_u32(&b, c->resv_count);
	for (uint32_t i = 0; i < c->resv_count; i++) {
		const struct resv *v = &c->resvs[i];

		pack_str(&b, v->name);
		pack_time(&b, v->start);
		pack_time(&b, v->end);
		pack_str(&b, v->node_list);
		pack_str(&b, v->partition);
		pack_str(&b, v->users);
		pack_str(&b, v->accounts);
		pack_u32(&b, v->flags);
		pack_u32(&b, v->id); /* version 5 */
	}
	if (b.err == 0) {
		iov = (struct iovec){ .iov_base = b.data, .iov_len = b.len };
		r = sha256_iov(&iov, 1, digest);
		if (r < 0)
			b.err = r;
		else
			pack_raw(&b, digest, sizeof(digest));
	}
	r = b.err ? b.err : save_atomic(c->conf->state_save_location, NODE_STATE_FILE, &b);
	pack_buf_done(&b);
	if (r < 0)
		node_state_save_failed(c, r);
	else
		c->is_node_state_dirty = false;
	return r;
}

static int read_file(const char *path, uint8_t **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint8_t *data;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size > (off_t)SL_FRAME_MAX_DEFAULT)
		return -EFBIG;
	data = malloc((size_t)st.st_size + 1);
	if (!data)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(data);
			return n < 0 ? -errno : -EIO;
		}
		got += (size_t)n;
	}
	*ret = data;
	*ret_len = got;
	return 0;
}

/* One node's record as saved. */
struct saved_node {
	uint32_t state, reason_uid, next_state;
	char *reason;
	time_t reason_time, boot_req_time;
	uint64_t old_instance;
	bool down_no_respond, reboot_asap;
};

/* Apply one saved record; only admin-meaningful parts are restored. */
static void node_state_apply(struct node *n, struct saved_node *v)
{
	uint32_t keep = NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_REBOOT_REQUESTED
		      | NODE_STATE_REBOOT_ISSUED;
	uint32_t state = v->state;

	n->state |= state & keep;
	if ((state & NODE_STATE_BASE) == NODE_STATE_DOWN)
		n->state = (n->state & NODE_STATE_FLAGS) | NODE_STATE_DOWN;
	else if ((state & NODE_STATE_BASE) == NODE_STATE_FUTURE)
		n->state = NODE_STATE_FUTURE;
	n->is_down_no_respond = v->down_no_respond;
	free(n->reason);
	n->reason = v->reason;
	v->reason = NULL;
	n->reason_uid = v->reason_uid;
	n->reason_time = v->reason_time;
	n->reboot_next_state = v->next_state;
	n->boot_req_time = v->boot_req_time;
	n->reboot_old_instance = v->old_instance;
	n->is_reboot_asap = v->reboot_asap;
}

/* The kept partition edits into c->part_edits (part_admin_replay applies
 * them). */
static void unpack_part_edits(struct ctld *c, struct pack_buf *b)
{
	uint32_t n;

	unpack_count(b, &n, PART_EDITS_MAX, 6);
	if (b->err || !n)
		return;
	c->part_edits = calloc(n, sizeof(*c->part_edits));
	if (!c->part_edits) {
		b->err = -ENOMEM;
		return;
	}
	for (uint32_t i = 0; i < n && !b->err; i++) {
		struct part_edit *e = &c->part_edits[i];

		c->part_edit_count++;
		unpack_u16(b, &e->type);
		msg_lookup(REQUEST_UPDATE_PARTITION)->unpack(&e->m, b, PROTOCOL_VERSION);
		if (!b->err && (!e->m.name || (e->type != REQUEST_CREATE_PARTITION
					       && e->type != REQUEST_UPDATE_PARTITION
					       && e->type != REQUEST_DELETE_PARTITION)))
			b->err = -EBADMSG;
	}
}

/* The saved reservations into c->resvs (resv_table_resolve() finds their
 * nodes). Before version 5 they had no ResvID: each gets the next number. */
static void unpack_resvs(struct ctld *c, struct pack_buf *b, uint16_t version)
{
	uint32_t n;

	unpack_u32(b, &c->resv_seq);
	unpack_count(b, &n, RESV_MAX, 8);
	if (b->err || !n)
		return;
	c->resvs = calloc(n, sizeof(*c->resvs));
	if (!c->resvs) {
		b->err = -ENOMEM;
		return;
	}
	for (uint32_t i = 0; i < n && !b->err; i++) {
		struct resv *r = &c->resvs[i];

		c->resv_count++;
		unpack_str(b, &r->name, SL_NAME_MAX);
		unpack_time(b, &r->start);
		unpack_time(b, &r->end);
		unpack_str(b, &r->node_list, SL_STR_MAX);
		unpack_str(b, &r->partition, SL_NAME_MAX);
		unpack_str(b, &r->users, SL_STR_MAX);
		unpack_str(b, &r->accounts, SL_STR_MAX);
		unpack_u32(b, &r->flags);
		if (version >= 5)
			unpack_u32(b, &r->id);
		else
			r->id = ++c->resv_seq;
		if (!b->err && !r->name)
			b->err = -EBADMSG;
	}
}

int node_state_load(struct ctld *c)
{
	_cleanup_free_ char *path = NULL, *magic = NULL;
	_cleanup_free_ uint8_t *data = NULL;
	struct pack_buf b;
	struct iovec iov;
	uint8_t digest[32];
	size_t len = 0;
	uint16_t version;
	uint32_t count;
	time_t saved;
	int r;

	if (asprintf(&path, "%s/%s", c->conf->state_save_location, NODE_STATE_FILE) < 0)
		return -ENOMEM;
	r = read_file(path, &data, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (len < sizeof(digest))
		return -EBADMSG;
	iov = (struct iovec){ .iov_base = data, .iov_len = len - sizeof(digest) };
	r = sha256_iov(&iov, 1, digest);
	if (r < 0)
		return r;
	if (memcmp(digest, data + len - sizeof(digest), sizeof(digest)) != 0)
		return -EBADMSG;
	b = pack_buf_view(data, len - sizeof(digest));
	unpack_str(&b, &magic, SL_NAME_MAX);
	unpack_u16(&b, &version);
	unpack_time(&b, &saved);
	unpack_count(&b, &count, SL_ARRAY_MAX, 8);
	if (b.err || !magic || !streq(magic, NODE_STATE_MAGIC) || version < 1
	    || version > NODE_STATE_VERSION)
		return -EBADMSG;
	for (uint32_t i = 0; i < count && !b.err; i++) {
		struct saved_node v = {.next_state = NO_VAL};
		char *name = NULL;
		struct node *n;

		unpack_str(&b, &name, SL_NAME_MAX);
		unpack_u32(&b, &v.state);
		unpack_str(&b, &v.reason, SL_REASON_MAX);
		unpack_u32(&b, &v.reason_uid);
		unpack_time(&b, &v.reason_time);
		unpack_bool(&b, &v.down_no_respond);
		if (version >= 2) {
			unpack_u32(&b, &v.next_state);
			unpack_time(&b, &v.boot_req_time);
			unpack_u64(&b, &v.old_instance);
			unpack_bool(&b, &v.reboot_asap);
		}
		n = (b.err || !name) ? NULL : node_find(c, name);
		if (n)
			node_state_apply(n, &v);
		free(name);
		free(v.reason);
	}
	if (version >= 3)
		unpack_part_edits(c, &b);
	if (version >= 4)
		unpack_resvs(c, &b, version);
	if (b.err)
		return -EBADMSG;
	info("Recovered state of %u nodes", count);
	return 0;
}

int node_state_set_aside(struct ctld *c, char *ret_name, size_t len)
{
	_cleanup_close_ int dfd =
	    open(c->conf->state_save_location, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return -errno;
	return journal_file_set_aside(dfd, NODE_STATE_FILE, time(NULL), ret_name, len);
}
