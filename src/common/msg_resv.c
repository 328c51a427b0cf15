/* msg_resv.c - reservation messages (msg_resv.h) and their Flags words. */
#include "msg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "limits.h"
#include "macros.h"
#include "msg_family.h"
#include "msg_resv.h"
#include "pack.h"

static const struct {
	uint32_t flag;
	const char *name;
	bool is_alias; /* accepted, never printed */
} resv_flag_names[] = {
    /* Slurm's order, as scontrol show reservation prints them */
    {RESV_FLAG_MAINT, "MAINT", false},
    {RESV_FLAG_FLEX, "FLEX", false},
    {RESV_FLAG_OVERLAP, "OVERLAP", false},
    {RESV_FLAG_IGNORE_JOBS, "IGNORE_JOBS", false},
    {RESV_FLAG_DAILY, "DAILY", false},
    {RESV_FLAG_WEEKDAY, "WEEKDAY", false},
    {RESV_FLAG_WEEKLY, "WEEKLY", false},
    {RESV_FLAG_SPEC_NODES, "SPEC_NODES", false},
    {RESV_FLAG_ALL_NODES, "ALL_NODES", false},
    {RESV_FLAG_NO_HOLD_JOBS_AFTER, "NO_HOLD_JOBS_AFTER_END", false},
    /* the word the man page gives; Slurm takes any start of the one above */
    {RESV_FLAG_NO_HOLD_JOBS_AFTER, "NO_HOLD_JOBS_AFTER", true},
};

const char *resv_flags_string(uint32_t flags, char *buf, size_t n)
{
	size_t len = 0;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(resv_flag_names) && len < n; i++)
		if ((flags & resv_flag_names[i].flag) && !resv_flag_names[i].is_alias)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "," : "",
						resv_flag_names[i].name);
	return buf;
}

int resv_flags_parse(const char *s, bool is_update, uint32_t *set, uint32_t *clear)
{
	*set = *clear = 0;
	if (!s || !*s)
		return -EINVAL;
	for (const char *p = s;;) {
		size_t len = strcspn(p, ",");
		bool is_clear = *p == '-';
		const char *w = p + is_clear;
		size_t wl = len - is_clear;
		uint32_t f = 0;

		for (size_t i = 0; i < ARRAY_SIZE(resv_flag_names) && !f && wl; i++)
			if (strlen(resv_flag_names[i].name) == wl
			    && !strncasecmp(w, resv_flag_names[i].name, wl))
				f = resv_flag_names[i].flag;
		if (!f || !(f & RESV_FLAGS_USER) || (is_clear && !is_update))
			return -EINVAL;
		if (is_clear)
			*clear |= f;
		else
			*set |= f;
		if (!p[len])
			break;
		p += len + 1;
	}
	if (__builtin_popcount(*set & RESV_FLAGS_REPEAT) > 1 || (*set & *clear))
		return -EINVAL;
	return 0;
}

void resv_desc_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct resv_desc_msg *m = msg;

	(void)ver;
	pack_str(b, m->name);
	pack_time(b, m->start_time);
	pack_time(b, m->end_time);
	pack_u32(b, m->duration);
	pack_str(b, m->node_list);
	pack_u32(b, m->node_cnt);
	pack_str(b, m->partition);
	pack_str(b, m->users);
	pack_str(b, m->accounts);
	pack_u32(b, m->flags);
	pack_u32(b, m->flags_clear);
}

int resv_desc_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct resv_desc_msg *m = msg;

	(void)ver;
	unpack_str(b, &m->name, SL_NAME_MAX);
	unpack_time(b, &m->start_time);
	unpack_time(b, &m->end_time);
	unpack_u32(b, &m->duration);
	unpack_str(b, &m->node_list, SL_STR_MAX);
	unpack_u32(b, &m->node_cnt);
	unpack_str(b, &m->partition, SL_NAME_MAX);
	unpack_str(b, &m->users, SL_STR_MAX);
	unpack_str(b, &m->accounts, SL_STR_MAX);
	unpack_u32(b, &m->flags);
	unpack_u32(b, &m->flags_clear);
	return b->err;
}

void resv_desc_msg_free(void *msg)
{
	struct resv_desc_msg *m = msg;

	free(m->name);
	free(m->node_list);
	free(m->partition);
	free(m->users);
	free(m->accounts);
}

void resv_name_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct resv_name_msg *m = msg;

	(void)ver;
	pack_str(b, m->name);
}

int resv_name_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct resv_name_msg *m = msg;

	(void)ver;
	unpack_str(b, &m->name, SL_NAME_MAX);
	return b->err;
}

void resv_name_msg_free(void *msg)
{
	free(((struct resv_name_msg *)msg)->name);
}

void resv_info_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct resv_info_msg *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_u32(b, m->count);
	for (uint32_t i = 0; i < m->count; i++) {
		const struct resv_info *r = &m->resvs[i];

		pack_str(b, r->name);
		pack_time(b, r->start_time);
		pack_time(b, r->end_time);
		pack_str(b, r->node_list);
		pack_u32(b, r->node_cnt);
		pack_u32(b, r->core_cnt);
		pack_str(b, r->partition);
		pack_u32(b, r->flags);
		pack_str(b, r->tres);
		pack_str(b, r->users);
		pack_str(b, r->accounts);
	}
}

int resv_info_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct resv_info_msg *m = msg;
	uint32_t n;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_count(b, &n, SL_ARRAY_MAX, 7 * 4 + 2 * 8);
	if (b->err || !n)
		return b->err;
	m->resvs = calloc(n, sizeof(*m->resvs));
	if (!m->resvs)
		return b->err = -ENOMEM;
	for (uint32_t i = 0; i < n && !b->err; i++) {
		struct resv_info *r = &m->resvs[i];

		m->count++;
		unpack_str(b, &r->name, SL_NAME_MAX);
		unpack_time(b, &r->start_time);
		unpack_time(b, &r->end_time);
		unpack_str(b, &r->node_list, SL_STR_MAX);
		unpack_u32(b, &r->node_cnt);
		unpack_u32(b, &r->core_cnt);
		unpack_str(b, &r->partition, SL_NAME_MAX);
		unpack_u32(b, &r->flags);
		unpack_str(b, &r->tres, SL_STR_MAX);
		unpack_str(b, &r->users, SL_STR_MAX);
		unpack_str(b, &r->accounts, SL_STR_MAX);
	}
	return b->err;
}

void resv_info_msg_free(void *msg)
{
	struct resv_info_msg *m = msg;

	for (uint32_t i = 0; m->resvs && i < m->count; i++) {
		struct resv_info *r = &m->resvs[i];

		free(r->name);
		free(r->node_list);
		free(r->partition);
		free(r->tres);
		free(r->users);
		free(r->accounts);
	}
	free(m->resvs);
}
