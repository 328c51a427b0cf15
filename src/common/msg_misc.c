/* msg_misc.c - generic messages: return codes, empty requests, shutdown,
 * and the configuration dump of `scontrol show config`.
 */
#include "msg.h"

#include <errno.h>
#include <stdlib.h>

#include "limits.h"
#include "msg_family.h"
#include "pack.h"

void rc_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct rc_msg *m = msg;

	(void)ver;
	pack_u32(b, m->rc);
}

int rc_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct rc_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->rc);
	return b->err;
}

void rc_msg_free(void *msg)
{
	(void)msg;
}

void empty_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	(void)msg;
	(void)b;
	(void)ver;
}

int empty_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	(void)msg;
	(void)ver;
	return b->err;
}

void empty_msg_free(void *msg)
{
	(void)msg;
}

void shutdown_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct shutdown_msg *m = msg;

	(void)ver;
	pack_u16(b, m->options);
}

int shutdown_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct shutdown_msg *m = msg;

	(void)ver;
	unpack_u16(b, &m->options);
	return b->err;
}

void shutdown_msg_free(void *msg)
{
	(void)msg;
}

void build_info_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct build_info_msg *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_time(b, m->boot_time);
	pack_u32(b, m->count);
	for (uint32_t i = 0; i < m->count; i++) {
		pack_str(b, m->pairs[i].key);
		pack_str(b, m->pairs[i].value);
	}
}

int build_info_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct build_info_msg *m = msg;
	uint32_t n;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_time(b, &m->boot_time);
	unpack_count(b, &n, SL_ARRAY_MAX, 8);
	if (b->err || n == 0)
		return b->err;
	m->pairs = calloc(n, sizeof(*m->pairs));
	if (!m->pairs)
		return b->err = -ENOMEM;
	m->count = n;
	for (uint32_t i = 0; i < n && !b->err; i++) {
		unpack_str(b, &m->pairs[i].key, SL_NAME_MAX);
		unpack_str(b, &m->pairs[i].value, SL_STR_MAX);
	}
	return b->err;
}

void build_info_msg_free(void *msg)
{
	struct build_info_msg *m = msg;

	for (uint32_t i = 0; m->pairs && i < m->count; i++) {
		free(m->pairs[i].key);
		free(m->pairs[i].value);
	}
	free(m->pairs);
}
