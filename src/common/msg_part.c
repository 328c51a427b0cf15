/* msg_part.c - partition info request and reply. */
#include "msg.h"

#include <errno.h>
#include <stdlib.h>

#include "limits.h"
#include "msg_family.h"
#include "pack.h"

void part_info_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct part_info_req *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_u16(b, m->show_flags);
}

int part_info_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct part_info_req *m = msg;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_u16(b, &m->show_flags);
	return b->err;
}

void part_info_req_free(void *msg)
{
	(void)msg;
}

static void part_info_pack(const struct part_info *p, struct pack_buf *b)
{
	pack_str(b, p->name);
	pack_str(b, p->nodes);
	pack_str(b, p->allow_groups);
	pack_str(b, p->allow_accounts);
	pack_str(b, p->allow_qos);
	pack_str(b, p->alloc_nodes);
	pack_str(b, p->qos);
	pack_str(b, p->tres);
	pack_str(b, p->job_defaults);
	pack_u16(b, p->flags);
	pack_u16(b, p->state_up);
	pack_u32(b, p->max_time);
	pack_u32(b, p->default_time);
	pack_u32(b, p->max_nodes);
	pack_u32(b, p->min_nodes);
	pack_u32(b, p->max_cpus_per_node);
	pack_u32(b, p->total_cpus);
	pack_u32(b, p->total_nodes);
	pack_u32(b, p->grace_time);
	pack_u16(b, p->priority_job_factor);
	pack_u16(b, p->priority_tier);
	pack_u16(b, p->over_subscribe);
	pack_u16(b, p->over_time_limit);
	pack_u16(b, p->preempt_mode);
	pack_u64(b, p->def_mem_per_cpu);
	pack_u64(b, p->def_mem_per_node);
	pack_u64(b, p->max_mem_per_cpu);
	pack_u64(b, p->max_mem_per_node);
}

static void part_info_unpack(struct part_info *p, struct pack_buf *b)
{
	unpack_str(b, &p->name, SL_NAME_MAX);
	unpack_str(b, &p->nodes, SL_STR_MAX);
	unpack_str(b, &p->allow_groups, SL_STR_MAX);
	unpack_str(b, &p->allow_accounts, SL_STR_MAX);
	unpack_str(b, &p->allow_qos, SL_STR_MAX);
	unpack_str(b, &p->alloc_nodes, SL_STR_MAX);
	unpack_str(b, &p->qos, SL_NAME_MAX);
	unpack_str(b, &p->tres, SL_STR_MAX);
	unpack_str(b, &p->job_defaults, SL_STR_MAX);
	unpack_u16(b, &p->flags);
	unpack_u16(b, &p->state_up);
	unpack_u32(b, &p->max_time);
	unpack_u32(b, &p->default_time);
	unpack_u32(b, &p->max_nodes);
	unpack_u32(b, &p->min_nodes);
	unpack_u32(b, &p->max_cpus_per_node);
	unpack_u32(b, &p->total_cpus);
	unpack_u32(b, &p->total_nodes);
	unpack_u32(b, &p->grace_time);
	unpack_u16(b, &p->priority_job_factor);
	unpack_u16(b, &p->priority_tier);
	unpack_u16(b, &p->over_subscribe);
	unpack_u16(b, &p->over_time_limit);
	unpack_u16(b, &p->preempt_mode);
	unpack_u64(b, &p->def_mem_per_cpu);
	unpack_u64(b, &p->def_mem_per_node);
	unpack_u64(b, &p->max_mem_per_cpu);
	unpack_u64(b, &p->max_mem_per_node);
}

void part_info_done(struct part_info *p)
{
	free(p->name);
	free(p->nodes);
	free(p->allow_groups);
	free(p->allow_accounts);
	free(p->allow_qos);
	free(p->alloc_nodes);
	free(p->qos);
	free(p->tres);
	free(p->job_defaults);
	*p = (struct part_info){ 0 };
}

void part_info_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct part_info_msg *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_u32(b, m->count);
	for (uint32_t i = 0; i < m->count; i++)
		part_info_pack(&m->parts[i], b);
}

int part_info_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct part_info_msg *m = msg;
	uint32_t n;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_count(b, &n, SL_ARRAY_MAX, 36); /* 9 empty strings alone take 36 bytes */
	if (b->err || n == 0)
		return b->err;
	m->parts = calloc(n, sizeof(*m->parts));
	if (!m->parts)
		return b->err = -ENOMEM;
	m->count = n;
	for (uint32_t i = 0; i < n && !b->err; i++)
		part_info_unpack(&m->parts[i], b);
	return b->err;
}

void part_info_msg_free(void *msg)
{
	struct part_info_msg *m = msg;

	for (uint32_t i = 0; m->parts && i < m->count; i++)
		part_info_done(&m->parts[i]);
	free(m->parts);
}

void license_info_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct license_info_msg *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_u32(b, m->count);
	for (uint32_t i = 0; i < m->count; i++) {
		const struct license_info *l = &m->lics[i];

		pack_str(b, l->name);
		pack_u32(b, l->total);
		pack_u32(b, l->in_use);
		pack_u32(b, l->available);
		pack_u32(b, l->reserved);
		pack_bool(b, l->is_remote);
	}
}

int license_info_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct license_info_msg *m = msg;
	uint32_t n;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_count(b, &n, SL_ARRAY_MAX, 4 * 5 + 1);
	if (b->err || !n)
		return b->err;
	m->lics = calloc(n, sizeof(*m->lics));
	if (!m->lics)
		return b->err = -ENOMEM;
	for (uint32_t i = 0; i < n && !b->err; i++) {
		struct license_info *l = &m->lics[i];

		m->count++;
		unpack_str(b, &l->name, SL_NAME_MAX);
		unpack_u32(b, &l->total);
		unpack_u32(b, &l->in_use);
		unpack_u32(b, &l->available);
		unpack_u32(b, &l->reserved);
		unpack_bool(b, &l->is_remote);
	}
	return b->err;
}

void license_info_msg_free(void *msg)
{
	struct license_info_msg *m = msg;

	for (uint32_t i = 0; m->lics && i < m->count; i++)
		free(m->lics[i].name);
	free(m->lics);
}

void part_edit_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct part_edit_msg *m = msg;

	(void)ver;
	pack_str(b, m->name);
	pack_strv(b, m->words, m->word_count);
}

int part_edit_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct part_edit_msg *m = msg;

	(void)ver;
	unpack_str(b, &m->name, SL_NAME_MAX);
	unpack_strv(b, &m->words, &m->word_count, PART_EDIT_WORDS_MAX);
	return b->err;
}

void part_edit_msg_free(void *msg)
{
	struct part_edit_msg *m = msg;

	free(m->name);
	strv_free(m->words, m->word_count);
}
