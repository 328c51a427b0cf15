/* msg_step.c - allocation, step and srun notice messages (msg_step.h).
 * Pack, unpack and free mirror each other line for line.
 */
#include "msg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "msg_family.h"
#include "pack.h"
#include "step_cred.h"

/* ---- RESPONSE_RESOURCE_ALLOCATION ---- */

void alloc_response_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct alloc_response *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->error_code);
	pack_u32(b, m->job_state);
	pack_u16(b, m->state_reason);
	pack_str(b, m->job_name);
	pack_str(b, m->node_list);
	pack_u32(b, m->num_nodes);
	pack_u32(b, m->num_cpus);
	pack_u32(b, m->num_tasks);
	pack_str(b, m->cpus_per_node);
	pack_str(b, m->tasks_per_node);
	pack_str(b, m->partition);
	pack_str(b, m->account);
	pack_str(b, m->qos);
	pack_u64(b, m->mem_per_node);
	pack_u64(b, m->mem_per_cpu);
	pack_u32(b, m->time_limit);
	pack_str(b, m->user_msg);
}

int alloc_response_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct alloc_response *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->error_code);
	unpack_u32(b, &m->job_state);
	unpack_u16(b, &m->state_reason);
	unpack_str(b, &m->job_name, SL_NAME_MAX);
	unpack_str(b, &m->node_list, SL_STR_MAX);
	unpack_u32(b, &m->num_nodes);
	unpack_u32(b, &m->num_cpus);
	unpack_u32(b, &m->num_tasks);
	unpack_str(b, &m->cpus_per_node, SL_STR_MAX);
	unpack_str(b, &m->tasks_per_node, SL_STR_MAX);
	unpack_str(b, &m->partition, SL_NAME_MAX);
	unpack_str(b, &m->account, SL_NAME_MAX);
	unpack_str(b, &m->qos, SL_NAME_MAX);
	unpack_u64(b, &m->mem_per_node);
	unpack_u64(b, &m->mem_per_cpu);
	unpack_u32(b, &m->time_limit);
	unpack_str(b, &m->user_msg, SL_STR_MAX);
	return b->err;
}

void alloc_response_free(void *msg)
{
	struct alloc_response *m = msg;

	free(m->job_name);
	free(m->node_list);
	free(m->cpus_per_node);
	free(m->tasks_per_node);
	free(m->partition);
	free(m->account);
	free(m->qos);
	free(m->user_msg);
}

/* ---- REQUEST_JOB_STEP_CREATE ---- */

void step_create_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct step_create_req *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_str(b, m->name);
	pack_u32(b, m->num_tasks);
	pack_u32(b, m->min_nodes);
	pack_u32(b, m->max_nodes);
	pack_u16(b, m->cpus_per_task);
	pack_u16(b, m->ntasks_per_node);
	pack_u64(b, m->mem_per_node);
	pack_u64(b, m->mem_per_cpu);
	pack_str(b, m->tres_per_node);
	pack_str(b, m->req_nodes);
	pack_str(b, m->exc_nodes);
	pack_u32(b, m->time_limit);
	pack_u16(b, m->flags);
	pack_str(b, m->srun_host);
	pack_u16(b, m->srun_port);
	pack_u32(b, m->srun_pid);
	pack_str(b, m->command);
	pack_u16(b, m->task_dist);
	pack_u16(b, m->plane_size);
	pack_str(b, m->task_nodes);
	pack_str(b, m->tres_per_task);
	pack_str(b, m->tres_per_step);
}

int step_create_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct step_create_req *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_str(b, &m->name, SL_NAME_MAX);
	unpack_u32(b, &m->num_tasks);
	unpack_u32(b, &m->min_nodes);
	unpack_u32(b, &m->max_nodes);
	unpack_u16(b, &m->cpus_per_task);
	unpack_u16(b, &m->ntasks_per_node);
	unpack_u64(b, &m->mem_per_node);
	unpack_u64(b, &m->mem_per_cpu);
	unpack_str(b, &m->tres_per_node, SL_STR_MAX);
	unpack_str(b, &m->req_nodes, SL_STR_MAX);
	unpack_str(b, &m->exc_nodes, SL_STR_MAX);
	unpack_u32(b, &m->time_limit);
	unpack_u16(b, &m->flags);
	unpack_str(b, &m->srun_host, SL_NAME_MAX);
	unpack_u16(b, &m->srun_port);
	unpack_u32(b, &m->srun_pid);
	unpack_str(b, &m->command, SL_STR_MAX);
	unpack_u16(b, &m->task_dist);
	unpack_u16(b, &m->plane_size);
	unpack_str(b, &m->task_nodes, SL_STR_MAX);
	unpack_str(b, &m->tres_per_task, SL_STR_MAX);
	unpack_str(b, &m->tres_per_step, SL_STR_MAX);
	return b->err;
}

void step_create_req_free(void *msg)
{
	struct step_create_req *m = msg;

	free(m->name);
	free(m->tres_per_node);
	free(m->req_nodes);
	free(m->exc_nodes);
	free(m->srun_host);
	free(m->command);
	free(m->task_nodes);
	free(m->tres_per_task);
	free(m->tres_per_step);
}

/* ---- RESPONSE_JOB_STEP_CREATE ---- */

static void step_node_pack(const struct step_node *n, struct pack_buf *b)
{
	pack_str(b, n->name);
	pack_str(b, n->addr);
	pack_u16(b, n->port);
	pack_u32(b, n->tasks);
	pack_u32(b, n->cpus);
	pack_u64(b, n->mem);
	pack_str(b, n->gpus);
}

static void step_node_unpack(struct step_node *n, struct pack_buf *b)
{
	unpack_str(b, &n->name, SL_NAME_MAX);
	unpack_str(b, &n->addr, SL_NAME_MAX);
	unpack_u16(b, &n->port);
	unpack_u32(b, &n->tasks);
	unpack_u32(b, &n->cpus);
	unpack_u64(b, &n->mem);
	unpack_str(b, &n->gpus, SL_STR_MAX);
}

static void step_node_done(struct step_node *n)
{
	free(n->name);
	free(n->addr);
	free(n->gpus);
}

void step_create_resp_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct step_create_resp *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->step_id);
	pack_u32(b, m->error_code);
	pack_str(b, m->user_msg);
	pack_str(b, m->step_nodes);
	pack_u32(b, m->num_tasks);
	pack_u32(b, m->node_count);
	for (uint32_t i = 0; i < m->node_count; i++)
		step_node_pack(&m->nodes[i], b);
	if (m->node_count)
		task_map_pack(&m->map, b);
	pack_str(b, m->cred);
	pack_u32(b, m->uid);
	pack_u32(b, m->gid);
	pack_str(b, m->user_name);
	pack_str(b, m->job_name);
	pack_str(b, m->job_nodes);
	pack_u32(b, m->job_num_nodes);
	pack_str(b, m->job_cpus_per_node);
	pack_str(b, m->partition);
	pack_str(b, m->account);
	pack_str(b, m->qos);
	pack_u32(b, m->time_limit);
}

int step_create_resp_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct step_create_resp *m = msg;
	uint32_t n;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->step_id);
	unpack_u32(b, &m->error_code);
	unpack_str(b, &m->user_msg, SL_STR_MAX);
	unpack_str(b, &m->step_nodes, SL_STR_MAX);
	unpack_u32(b, &m->num_tasks);
	unpack_count(b, &n, SL_ARRAY_MAX, 30); /* a node is at least 30 bytes */
	if (b->err)
		return b->err;
	if (n) {
		m->nodes = calloc(n, sizeof(*m->nodes));
		if (!m->nodes)
			return b->err = -ENOMEM;
		m->node_count = n;
		for (uint32_t i = 0; i < n && !b->err; i++)
			step_node_unpack(&m->nodes[i], b);
		if (!b->err)
			task_map_unpack(b, &m->map);
	}
	unpack_str(b, &m->cred, SL_STEP_CRED_MAX);
	unpack_u32(b, &m->uid);
	unpack_u32(b, &m->gid);
	unpack_str(b, &m->user_name, SL_NAME_MAX);
	unpack_str(b, &m->job_name, SL_NAME_MAX);
	unpack_str(b, &m->job_nodes, SL_STR_MAX);
	unpack_u32(b, &m->job_num_nodes);
	unpack_str(b, &m->job_cpus_per_node, SL_STR_MAX);
	unpack_str(b, &m->partition, SL_NAME_MAX);
	unpack_str(b, &m->account, SL_NAME_MAX);
	unpack_str(b, &m->qos, SL_NAME_MAX);
	unpack_u32(b, &m->time_limit);
	return b->err;
}

void step_create_resp_free(void *msg)
{
	struct step_create_resp *m = msg;

	free(m->user_msg);
	free(m->step_nodes);
	for (uint32_t i = 0; m->nodes && i < m->node_count; i++)
		step_node_done(&m->nodes[i]);
	free(m->nodes);
	task_map_done(&m->map);
	free(m->cred);
	free(m->user_name);
	free(m->job_name);
	free(m->job_nodes);
	free(m->job_cpus_per_node);
	free(m->partition);
	free(m->account);
	free(m->qos);
}

/* ---- REQUEST_LAUNCH_TASKS ---- */

void launch_tasks_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct launch_tasks_msg *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->step_id);
	pack_u32(b, m->uid);
	pack_u32(b, m->gid);
	pack_str(b, m->user_name);
	pack_str(b, m->cred);
	pack_str(b, m->node_name);
	pack_strv(b, m->argv, m->argc);
	pack_strv(b, m->env, m->env_count);
	pack_str(b, m->cwd);
	pack_str(b, m->step_nodes);
	pack_u32(b, m->num_nodes);
	pack_u32(b, m->node_id);
	pack_u32(b, m->num_tasks);
	pack_u32(b, m->ntasks_here);
	for (uint32_t i = 0; i < m->ntasks_here; i++)
		pack_u32(b, m->gtids[i]);
	task_map_pack(&m->map, b);
	pack_u32(b, m->cpus_on_node);
	pack_u64(b, m->mem_limit);
	pack_str(b, m->gpus);
	pack_str(b, m->io_host);
	pack_u16(b, m->io_port);
	pack_str(b, m->io_key);
	pack_str(b, m->ofname);
	pack_str(b, m->efname);
	pack_str(b, m->ifname);
	pack_u16(b, m->open_mode);
	pack_u16(b, m->flags);
	pack_u32(b, m->time_limit);
	pack_str(b, m->task_prolog);
	pack_str(b, m->task_epilog);
}

int launch_tasks_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct launch_tasks_msg *m = msg;
	uint32_t n;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->step_id);
	unpack_u32(b, &m->uid);
	unpack_u32(b, &m->gid);
	unpack_str(b, &m->user_name, SL_NAME_MAX);
	unpack_str(b, &m->cred, SL_STEP_CRED_MAX);
	unpack_str(b, &m->node_name, SL_NAME_MAX);
	unpack_strv(b, &m->argv, &m->argc, SL_ARRAY_MAX);
	unpack_strv(b, &m->env, &m->env_count, SL_ARRAY_MAX);
	unpack_str(b, &m->cwd, SL_PATH_MAX);
	unpack_str(b, &m->step_nodes, SL_STR_MAX);
	unpack_u32(b, &m->num_nodes);
	unpack_u32(b, &m->node_id);
	unpack_u32(b, &m->num_tasks);
	unpack_count(b, &n, SL_ARRAY_MAX, 4);
	if (b->err)
		return b->err;
	if (n) {
		m->gtids = calloc(n, sizeof(*m->gtids));
		if (!m->gtids)
			return b->err = -ENOMEM;
		m->ntasks_here = n;
		for (uint32_t i = 0; i < n; i++)
			unpack_u32(b, &m->gtids[i]);
	}
	task_map_unpack(b, &m->map);
	unpack_u32(b, &m->cpus_on_node);
	unpack_u64(b, &m->mem_limit);
	unpack_str(b, &m->gpus, SL_STR_MAX);
	unpack_str(b, &m->io_host, SL_NAME_MAX);
	unpack_u16(b, &m->io_port);
	unpack_str(b, &m->io_key, SL_NAME_MAX);
	unpack_str(b, &m->ofname, SL_PATH_MAX);
	unpack_str(b, &m->efname, SL_PATH_MAX);
	unpack_str(b, &m->ifname, SL_PATH_MAX);
	unpack_u16(b, &m->open_mode);
	unpack_u16(b, &m->flags);
	unpack_u32(b, &m->time_limit);
	unpack_str(b, &m->task_prolog, SL_PATH_MAX);
	unpack_str(b, &m->task_epilog, SL_PATH_MAX);
	return b->err;
}

void launch_tasks_msg_free(void *msg)
{
	struct launch_tasks_msg *m = msg;

	free(m->user_name);
	free(m->cred);
	free(m->node_name);
	strv_free(m->argv, m->argc);
	strv_free(m->env, m->env_count);
	free(m->cwd);
	free(m->step_nodes);
	free(m->gtids);
	task_map_done(&m->map);
	free(m->gpus);
	free(m->io_host);
	free(m->io_key);
	free(m->ofname);
	free(m->efname);
	free(m->ifname);
	free(m->task_prolog);
	free(m->task_epilog);
}

/* ---- REQUEST_STEP_COMPLETE ---- */

void step_complete_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct step_complete_msg *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->step_id);
	pack_str(b, m->node_name);
	pack_u32(b, m->step_rc);
	pack_u16(b, m->is_oom);
	acct_usage_pack(&m->usage, b);
	pack_time(b, m->end_time);
}

int step_complete_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct step_complete_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->step_id);
	unpack_str(b, &m->node_name, SL_NAME_MAX);
	unpack_u32(b, &m->step_rc);
	unpack_u16(b, &m->is_oom);
	acct_usage_unpack(&m->usage, b);
	unpack_time(b, &m->end_time);
	return b->err;
}

void step_complete_msg_free(void *msg)
{
	struct step_complete_msg *m = msg;

	free(m->node_name);
}

/* ---- REQUEST_JOB_STEP_STAT / RESPONSE_JOB_STEP_STAT ---- */

void step_stat_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct step_stat_req *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->step_id);
	pack_u32(b, m->uid);
}

int step_stat_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct step_stat_req *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->step_id);
	unpack_u32(b, &m->uid);
	return b->err;
}

void step_stat_req_free(void *msg)
{
	(void)msg;
}

void step_stat_resp_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct step_stat_resp *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->step_id);
	pack_str(b, m->node_name);
	acct_usage_pack(&m->usage, b);
	pack_u64(b, m->min_cpu_usec);
	pack_u32(b, m->min_cpu_task);
}

int step_stat_resp_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct step_stat_resp *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->step_id);
	unpack_str(b, &m->node_name, SL_NAME_MAX);
	acct_usage_unpack(&m->usage, b);
	unpack_u64(b, &m->min_cpu_usec);
	unpack_u32(b, &m->min_cpu_task);
	return b->err;
}

void step_stat_resp_free(void *msg)
{
	struct step_stat_resp *m = msg;

	free(m->node_name);
}

/* ---- REQUEST_COMPLETE_JOB_ALLOCATION ---- */

void complete_alloc_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct complete_alloc_msg *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->job_rc);
}

int complete_alloc_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct complete_alloc_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->job_rc);
	return b->err;
}

void complete_alloc_msg_free(void *msg)
{
	(void)msg;
}

/* ---- REQUEST_CANCEL_JOB_STEP ---- */

void step_signal_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct step_signal_msg *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->step_id);
	pack_u16(b, m->signal);
	pack_u16(b, m->flags);
}

int step_signal_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct step_signal_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->step_id);
	unpack_u16(b, &m->signal);
	unpack_u16(b, &m->flags);
	return b->err;
}

void step_signal_msg_free(void *msg)
{
	(void)msg;
}

/* ---- REQUEST_JOB_STEP_INFO / RESPONSE_JOB_STEP_INFO ---- */

void step_info_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct step_info_req *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_u32(b, m->job_id);
	pack_u32(b, m->step_id);
	pack_u16(b, m->show_flags);
}

int step_info_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct step_info_req *m = msg;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->step_id);
	unpack_u16(b, &m->show_flags);
	return b->err;
}

void step_info_req_free(void *msg)
{
	(void)msg;
}

static void step_info_pack(const struct step_info *s, struct pack_buf *b)
{
	pack_u32(b, s->job_id);
	pack_u32(b, s->step_id);
	pack_u32(b, s->array_job_id);
	pack_u32(b, s->array_task_id);
	pack_str(b, s->name);
	pack_str(b, s->partition);
	pack_str(b, s->nodes);
	pack_str(b, s->tres_alloc_str);
	pack_str(b, s->srun_host);
	pack_u32(b, s->srun_pid);
	pack_u32(b, s->user_id);
	pack_str(b, s->user_name);
	pack_u32(b, s->state);
	pack_time(b, s->start_time);
	pack_u32(b, s->time_limit);
	pack_u32(b, s->num_nodes);
	pack_u32(b, s->num_cpus);
	pack_u32(b, s->num_tasks);
	pack_u32(b, s->exit_code);
}

static void step_info_unpack(struct step_info *s, struct pack_buf *b)
{
	unpack_u32(b, &s->job_id);
	unpack_u32(b, &s->step_id);
	unpack_u32(b, &s->array_job_id);
	unpack_u32(b, &s->array_task_id);
	unpack_str(b, &s->name, SL_NAME_MAX);
	unpack_str(b, &s->partition, SL_NAME_MAX);
	unpack_str(b, &s->nodes, SL_STR_MAX);
	unpack_str(b, &s->tres_alloc_str, SL_STR_MAX);
	unpack_str(b, &s->srun_host, SL_NAME_MAX);
	unpack_u32(b, &s->srun_pid);
	unpack_u32(b, &s->user_id);
	unpack_str(b, &s->user_name, SL_NAME_MAX);
	unpack_u32(b, &s->state);
	unpack_time(b, &s->start_time);
	unpack_u32(b, &s->time_limit);
	unpack_u32(b, &s->num_nodes);
	unpack_u32(b, &s->num_cpus);
	unpack_u32(b, &s->num_tasks);
	unpack_u32(b, &s->exit_code);
}

void step_info_done(struct step_info *s)
{
	free(s->name);
	free(s->partition);
	free(s->nodes);
	free(s->tres_alloc_str);
	free(s->srun_host);
	free(s->user_name);
}

void step_info_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct step_info_msg *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_u32(b, m->count);
	for (uint32_t i = 0; i < m->count; i++)
		step_info_pack(&m->steps[i], b);
}

int step_info_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct step_info_msg *m = msg;
	uint32_t n;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_count(b, &n, SL_ARRAY_MAX, 60); /* a record is at least 60 bytes */
	if (b->err || n == 0)
		return b->err;
	m->steps = calloc(n, sizeof(*m->steps));
	if (!m->steps)
		return b->err = -ENOMEM;
	m->count = n;
	for (uint32_t i = 0; i < n && !b->err; i++)
		step_info_unpack(&m->steps[i], b);
	return b->err;
}

void step_info_msg_free(void *msg)
{
	struct step_info_msg *m = msg;

	for (uint32_t i = 0; m->steps && i < m->count; i++)
		step_info_done(&m->steps[i]);
	free(m->steps);
}

/* ---- SRUN_PING / SRUN_TIMEOUT / SRUN_NODE_FAIL / SRUN_JOB_COMPLETE ---- */

void srun_notice_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct srun_notice_msg *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->step_id);
	pack_time(b, m->timeout);
	pack_u16(b, m->reason);
	pack_str(b, m->node_name);
}

int srun_notice_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct srun_notice_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->step_id);
	unpack_time(b, &m->timeout);
	unpack_u16(b, &m->reason);
	unpack_str(b, &m->node_name, SL_NAME_MAX);
	return b->err;
}

void srun_notice_msg_free(void *msg)
{
	struct srun_notice_msg *m = msg;

	free(m->node_name);
}

void extern_pid_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct extern_pid_msg *m = msg;

	(void)ver;
	pack_u32(b, m->uid);
	pack_u32(b, m->pid);
}

int extern_pid_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct extern_pid_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->uid);
	unpack_u32(b, &m->pid);
	return b->err;
}

void extern_pid_msg_free(void *msg)
{
	(void)msg;
}
