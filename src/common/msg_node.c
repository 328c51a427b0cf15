/* msg_node.c - node messages: registration, slurmd ping reply, node info
 * request and reply, node update. Pack and unpack mirror line for line.
 */
#include "msg.h"

#include <errno.h>
#include <stdlib.h>

#include "limits.h"
#include "msg_family.h"
#include "pack.h"

static void step_refs_pack(const struct node_step_ref *refs, uint32_t count, struct pack_buf *b)
{
	pack_u32(b, count);
	for (uint32_t i = 0; i < count; i++) {
		pack_u32(b, refs[i].job_id);
		pack_u32(b, refs[i].step_id);
		pack_u16(b, refs[i].flags);
	}
}

static void step_refs_unpack(struct node_step_ref **ret, uint32_t *ret_count, struct pack_buf *b)
{
	uint32_t count = 0;

	unpack_count(b, &count, SL_ARRAY_MAX, 10);
	if (b->err || count == 0)
		return;
	*ret = calloc(count, sizeof(**ret));
	if (!*ret) {
		b->err = -ENOMEM;
		return;
	}
	*ret_count = count;
	for (uint32_t i = 0; i < count && !b->err; i++) {
		unpack_u32(b, &(*ret)[i].job_id);
		unpack_u32(b, &(*ret)[i].step_id);
		unpack_u16(b, &(*ret)[i].flags);
	}
}

void node_reg_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct node_reg_msg *m = msg;

	(void)ver;
	pack_str(b, m->node_name);
	pack_str(b, m->hostname);
	pack_str(b, m->arch);
	pack_str(b, m->os);
	pack_str(b, m->version);
	pack_str(b, m->gres);
	pack_u16(b, m->cpus);
	pack_u16(b, m->boards);
	pack_u16(b, m->sockets);
	pack_u16(b, m->cores);
	pack_u16(b, m->threads);
	pack_u64(b, m->real_memory);
	pack_u32(b, m->tmp_disk);
	pack_u32(b, m->cpu_load);
	pack_u64(b, m->free_mem);
	pack_time(b, m->boot_time);
	pack_time(b, m->slurmd_start_time);
	pack_u64(b, m->instance);
	pack_u16(b, m->port);
	step_refs_pack(m->steps, m->step_count, b);
}

int node_reg_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct node_reg_msg *m = msg;

	(void)ver;
	unpack_str(b, &m->node_name, SL_NAME_MAX);
	unpack_str(b, &m->hostname, SL_NAME_MAX);
	unpack_str(b, &m->arch, SL_NAME_MAX);
	unpack_str(b, &m->os, SL_NAME_MAX);
	unpack_str(b, &m->version, SL_NAME_MAX);
	unpack_str(b, &m->gres, SL_STR_MAX);
	unpack_u16(b, &m->cpus);
	unpack_u16(b, &m->boards);
	unpack_u16(b, &m->sockets);
	unpack_u16(b, &m->cores);
	unpack_u16(b, &m->threads);
	unpack_u64(b, &m->real_memory);
	unpack_u32(b, &m->tmp_disk);
	unpack_u32(b, &m->cpu_load);
	unpack_u64(b, &m->free_mem);
	unpack_time(b, &m->boot_time);
	unpack_time(b, &m->slurmd_start_time);
	unpack_u64(b, &m->instance);
	unpack_u16(b, &m->port);
	step_refs_unpack(&m->steps, &m->step_count, b);
	return b->err;
}

void node_reg_msg_free(void *msg)
{
	struct node_reg_msg *m = msg;

	free(m->node_name);
	free(m->hostname);
	free(m->arch);
	free(m->os);
	free(m->version);
	free(m->gres);
	free(m->steps);
}

void ping_slurmd_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct ping_slurmd_msg *m = msg;

	(void)ver;
	pack_u32(b, m->cpu_load);
	pack_u64(b, m->free_mem);
	step_refs_pack(m->steps, m->step_count, b);
}

int ping_slurmd_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct ping_slurmd_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->cpu_load);
	unpack_u64(b, &m->free_mem);
	step_refs_unpack(&m->steps, &m->step_count, b);
	return b->err;
}

void ping_slurmd_msg_free(void *msg)
{
	struct ping_slurmd_msg *m = msg;

	free(m->steps);
}

void node_info_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct node_info_req *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_u16(b, m->show_flags);
	pack_str(b, m->node_name);
}

int node_info_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct node_info_req *m = msg;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_u16(b, &m->show_flags);
	unpack_str(b, &m->node_name, SL_STR_MAX);
	return b->err;
}

void node_info_req_free(void *msg)
{
	struct node_info_req *m = msg;

	free(m->node_name);
}

static void node_info_pack(const struct node_info *n, struct pack_buf *b)
{
	pack_str(b, n->name);
	pack_str(b, n->node_addr);
	pack_str(b, n->node_hostname);
	pack_str(b, n->arch);
	pack_str(b, n->os);
	pack_str(b, n->version);
	pack_str(b, n->features);
	pack_str(b, n->features_act);
	pack_str(b, n->gres);
	pack_str(b, n->gres_used);
	pack_str(b, n->partitions);
	pack_str(b, n->reason);
	pack_str(b, n->cfg_tres);
	pack_str(b, n->alloc_tres);
	pack_str(b, n->comment);
	pack_str(b, n->extra);
	pack_u32(b, n->state);
	pack_u32(b, n->reason_uid);
	pack_time(b, n->reason_time);
	pack_u16(b, n->port);
	pack_u16(b, n->cpus);
	pack_u16(b, n->boards);
	pack_u16(b, n->sockets);
	pack_u16(b, n->cores);
	pack_u16(b, n->threads);
	pack_u16(b, n->alloc_cpus);
	pack_u64(b, n->real_memory);
	pack_u64(b, n->alloc_mem);
	pack_u64(b, n->free_mem);
	pack_u32(b, n->tmp_disk);
	pack_u32(b, n->weight);
	pack_u32(b, n->cpu_load);
	pack_time(b, n->boot_time);
	pack_time(b, n->slurmd_start_time);
	pack_time(b, n->last_busy);
}

static void node_info_unpack(struct node_info *n, struct pack_buf *b)
{
	unpack_str(b, &n->name, SL_NAME_MAX);
	unpack_str(b, &n->node_addr, SL_NAME_MAX);
	unpack_str(b, &n->node_hostname, SL_NAME_MAX);
	unpack_str(b, &n->arch, SL_NAME_MAX);
	unpack_str(b, &n->os, SL_NAME_MAX);
	unpack_str(b, &n->version, SL_NAME_MAX);
	unpack_str(b, &n->features, SL_STR_MAX);
	unpack_str(b, &n->features_act, SL_STR_MAX);
	unpack_str(b, &n->gres, SL_STR_MAX);
	unpack_str(b, &n->gres_used, SL_STR_MAX);
	unpack_str(b, &n->partitions, SL_STR_MAX);
	unpack_str(b, &n->reason, SL_STR_MAX);
	unpack_str(b, &n->cfg_tres, SL_STR_MAX);
	unpack_str(b, &n->alloc_tres, SL_STR_MAX);
	unpack_str(b, &n->comment, SL_STR_MAX);
	unpack_str(b, &n->extra, SL_STR_MAX);
	unpack_u32(b, &n->state);
	unpack_u32(b, &n->reason_uid);
	unpack_time(b, &n->reason_time);
	unpack_u16(b, &n->port);
	unpack_u16(b, &n->cpus);
	unpack_u16(b, &n->boards);
	unpack_u16(b, &n->sockets);
	unpack_u16(b, &n->cores);
	unpack_u16(b, &n->threads);
	unpack_u16(b, &n->alloc_cpus);
	unpack_u64(b, &n->real_memory);
	unpack_u64(b, &n->alloc_mem);
	unpack_u64(b, &n->free_mem);
	unpack_u32(b, &n->tmp_disk);
	unpack_u32(b, &n->weight);
	unpack_u32(b, &n->cpu_load);
	unpack_time(b, &n->boot_time);
	unpack_time(b, &n->slurmd_start_time);
	unpack_time(b, &n->last_busy);
}

void node_info_done(struct node_info *n)
{
	free(n->name);
	free(n->node_addr);
	free(n->node_hostname);
	free(n->arch);
	free(n->os);
	free(n->version);
	free(n->features);
	free(n->features_act);
	free(n->gres);
	free(n->gres_used);
	free(n->partitions);
	free(n->reason);
	free(n->cfg_tres);
	free(n->alloc_tres);
	free(n->comment);
	free(n->extra);
	*n = (struct node_info){ 0 };
}

void node_info_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct node_info_msg *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_u32(b, m->count);
	for (uint32_t i = 0; i < m->count; i++)
		node_info_pack(&m->nodes[i], b);
}

int node_info_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct node_info_msg *m = msg;
	uint32_t n;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_count(b, &n, SL_ARRAY_MAX, 64); /* 16 empty strings alone take 64 bytes */
	if (b->err || n == 0)
		return b->err;
	m->nodes = calloc(n, sizeof(*m->nodes));
	if (!m->nodes)
		return b->err = -ENOMEM;
	m->count = n;
	for (uint32_t i = 0; i < n && !b->err; i++)
		node_info_unpack(&m->nodes[i], b);
	return b->err;
}

void node_info_msg_free(void *msg)
{
	struct node_info_msg *m = msg;

	for (uint32_t i = 0; m->nodes && i < m->count; i++)
		node_info_done(&m->nodes[i]);
	free(m->nodes);
}

void update_node_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct update_node_msg *m = msg;

	(void)ver;
	pack_str(b, m->node_names);
	pack_u32(b, m->state);
	pack_str(b, m->reason);
	pack_u32(b, m->weight);
	pack_str(b, m->features);
	pack_str(b, m->comment);
	pack_str(b, m->features_act);
}

int update_node_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct update_node_msg *m = msg;

	(void)ver;
	unpack_str(b, &m->node_names, SL_STR_MAX);
	unpack_u32(b, &m->state);
	unpack_str(b, &m->reason, SL_REASON_MAX);
	unpack_u32(b, &m->weight);
	unpack_str(b, &m->features, SL_STR_MAX);
	unpack_str(b, &m->comment, SL_STR_MAX);
	unpack_str(b, &m->features_act, SL_STR_MAX);
	return b->err;
}

void update_node_msg_free(void *msg)
{
	struct update_node_msg *m = msg;

	free(m->node_names);
	free(m->reason);
	free(m->features);
	free(m->comment);
	free(m->features_act);
}

void reboot_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct reboot_msg *m = msg;

	(void)ver;
	pack_str(b, m->node_list);
	pack_str(b, m->reason);
	pack_u16(b, m->flags);
	pack_u32(b, m->next_state);
}

int reboot_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct reboot_msg *m = msg;

	(void)ver;
	unpack_str(b, &m->node_list, SL_STR_MAX);
	unpack_str(b, &m->reason, SL_REASON_MAX);
	unpack_u16(b, &m->flags);
	unpack_u32(b, &m->next_state);
	return b->err;
}

void reboot_msg_free(void *msg)
{
	struct reboot_msg *m = msg;

	free(m->node_list);
	free(m->reason);
}
