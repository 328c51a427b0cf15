/* msg_job.c - job messages (msg_job.h). The field lists are written once
 * per message below and pack, unpack and free mirror them line for line.
 */
#include "msg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "msg_family.h"
#include "pack.h"
#include "share.h"

/* The strings a job_desc_share()d request keeps as shared copies besides
 * its script: those the jobs of a user or a sweep have alike (a name,
 * a comment, often one of a kind, keep their own: a shared copy of a
 * string no other job has costs twice as much). */
#define DESC_SHARED_STRS(d)                                                                        \
	{&(d)->partition, &(d)->work_dir, &(d)->account, &(d)->qos, &(d)->submit_host,           \
	 &(d)->std_in, &(d)->std_out, &(d)->std_err}

static void unpack_u32v(struct pack_buf *b, uint32_t **ret, uint32_t *ret_n)
{
	uint32_t n;

	*ret = NULL;
	*ret_n = 0;
	unpack_count(b, &n, SL_ARRAY_MAX, 4);
	if (b->err || n == 0)
		return;
	*ret = calloc(n, sizeof(**ret));
	if (!*ret) {
		b->err = -ENOMEM;
		return;
	}
	*ret_n = n;
	for (uint32_t i = 0; i < n; i++)
		unpack_u32(b, &(*ret)[i]);
}

void job_desc_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct job_desc *m = msg;

	(void)ver;
	pack_str(b, m->name);
	pack_str(b, m->partition);
	pack_str(b, m->script);
	pack_strv(b, m->argv, m->argc);
	pack_strv(b, m->env, m->env_count);
	pack_str(b, m->work_dir);
	pack_str(b, m->std_in);
	pack_str(b, m->std_out);
	pack_str(b, m->std_err);
	pack_str(b, m->comment);
	pack_str(b, m->account);
	pack_str(b, m->qos);
	pack_str(b, m->dependency);
	pack_str(b, m->array_spec);
	pack_str(b, m->req_nodes);
	pack_str(b, m->exc_nodes);
	pack_str(b, m->mail_user);
	pack_str(b, m->tres_per_node);
	pack_str(b, m->tres_per_job);
	pack_str(b, m->submit_host);
	pack_u32(b, m->min_nodes);
	pack_u32(b, m->max_nodes);
	pack_u32(b, m->num_tasks);
	pack_u16(b, m->ntasks_per_node);
	pack_u16(b, m->cpus_per_task);
	pack_u32(b, m->time_limit);
	pack_u32(b, m->time_min);
	pack_u64(b, m->mem_per_node);
	pack_u64(b, m->mem_per_cpu);
	pack_u16(b, m->mail_type);
	pack_u16(b, m->open_mode);
	pack_u16(b, m->requeue);
	pack_u16(b, m->warn_signal);
	pack_u16(b, m->warn_time);
	pack_u16(b, m->flags);
	pack_u32(b, m->nice);
	pack_time(b, m->begin_time);
	pack_u32(b, m->user_id);
	pack_u32(b, m->group_id);
	pack_str(b, m->alloc_host);
	pack_u16(b, m->alloc_port);
	pack_str(b, m->features);
	pack_str(b, m->prefer);
	pack_str(b, m->licenses);
	pack_str(b, m->reservation);
	pack_u32(b, m->priority);
	pack_u32(b, m->tmp_mb);
	pack_u16(b, m->min_cpus);
	pack_u16(b, m->sockets_per_node);
	pack_u16(b, m->cores_per_socket);
	pack_str(b, m->tres_per_task);
	pack_str(b, m->tres_per_socket);
	pack_str(b, m->gpu_bind);
	pack_u16(b, m->cpus_per_gpu);
	pack_u16(b, m->ntasks_per_gpu);
	pack_u16(b, m->gres_flags);
	pack_u64(b, m->mem_per_gpu);
	pack_u16(b, m->ntasks_per_socket);
}

int job_desc_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct job_desc *m = msg;

	(void)ver;
	unpack_str(b, &m->name, SL_NAME_MAX);
	unpack_str(b, &m->partition, SL_STR_MAX);
	unpack_str(b, &m->script, SL_SCRIPT_MAX);
	unpack_strv(b, &m->argv, &m->argc, SL_ARRAY_MAX);
	unpack_strv(b, &m->env, &m->env_count, SL_ARRAY_MAX);
	unpack_str(b, &m->work_dir, SL_PATH_MAX);
	unpack_str(b, &m->std_in, SL_PATH_MAX);
	unpack_str(b, &m->std_out, SL_PATH_MAX);
	unpack_str(b, &m->std_err, SL_PATH_MAX);
	unpack_str(b, &m->comment, SL_STR_MAX);
	unpack_str(b, &m->account, SL_NAME_MAX);
	unpack_str(b, &m->qos, SL_NAME_MAX);
	unpack_str(b, &m->dependency, SL_STR_MAX);
	unpack_str(b, &m->array_spec, SL_STR_MAX);
	unpack_str(b, &m->req_nodes, SL_STR_MAX);
	unpack_str(b, &m->exc_nodes, SL_STR_MAX);
	unpack_str(b, &m->mail_user, SL_NAME_MAX);
	unpack_str(b, &m->tres_per_node, SL_STR_MAX);
	unpack_str(b, &m->tres_per_job, SL_STR_MAX);
	unpack_str(b, &m->submit_host, SL_NAME_MAX);
	unpack_u32(b, &m->min_nodes);
	unpack_u32(b, &m->max_nodes);
	unpack_u32(b, &m->num_tasks);
	unpack_u16(b, &m->ntasks_per_node);
	unpack_u16(b, &m->cpus_per_task);
	unpack_u32(b, &m->time_limit);
	unpack_u32(b, &m->time_min);
	unpack_u64(b, &m->mem_per_node);
	unpack_u64(b, &m->mem_per_cpu);
	unpack_u16(b, &m->mail_type);
	unpack_u16(b, &m->open_mode);
	unpack_u16(b, &m->requeue);
	unpack_u16(b, &m->warn_signal);
	unpack_u16(b, &m->warn_time);
	unpack_u16(b, &m->flags);
	unpack_u32(b, &m->nice);
	unpack_time(b, &m->begin_time);
	unpack_u32(b, &m->user_id);
	unpack_u32(b, &m->group_id);
	unpack_str(b, &m->alloc_host, SL_NAME_MAX);
	unpack_u16(b, &m->alloc_port);
	if (ver == JOB_DESC_LAYOUT_1)
		return b->err;
	unpack_str(b, &m->features, SL_STR_MAX);
	unpack_str(b, &m->prefer, SL_STR_MAX);
	unpack_str(b, &m->licenses, SL_STR_MAX);
	unpack_str(b, &m->reservation, SL_NAME_MAX);
	unpack_u32(b, &m->priority);
	unpack_u32(b, &m->tmp_mb);
	unpack_u16(b, &m->min_cpus);
	unpack_u16(b, &m->sockets_per_node);
	unpack_u16(b, &m->cores_per_socket);
	if (ver == JOB_DESC_LAYOUT_2)
		return b->err;
	unpack_str(b, &m->tres_per_task, SL_STR_MAX);
	unpack_str(b, &m->tres_per_socket, SL_STR_MAX);
	unpack_str(b, &m->gpu_bind, SL_STR_MAX);
	unpack_u16(b, &m->cpus_per_gpu);
	unpack_u16(b, &m->ntasks_per_gpu);
	unpack_u16(b, &m->gres_flags);
	unpack_u64(b, &m->mem_per_gpu);
	if (ver == JOB_DESC_LAYOUT_3)
		return b->err;
	unpack_u16(b, &m->ntasks_per_socket);
	return b->err;
}

void job_desc_free(void *msg)
{
	struct job_desc *m = msg;

	free(m->name);
	if (m->is_shared) {
		char **f[] = DESC_SHARED_STRS(m);

		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			share_put(*f[i]);
			*f[i] = NULL; /* not freed again below */
		}
		share_put(m->script);
		share_put(m->env);
	} else {
		free(m->script);
		strv_free(m->env, m->env_count);
	}
	free(m->partition);
	strv_free(m->argv, m->argc);
	free(m->work_dir);
	free(m->std_in);
	free(m->std_out);
	free(m->std_err);
	free(m->comment);
	free(m->account);
	free(m->qos);
	free(m->dependency);
	free(m->array_spec);
	free(m->req_nodes);
	free(m->exc_nodes);
	free(m->mail_user);
	free(m->tres_per_node);
	free(m->tres_per_job);
	free(m->submit_host);
	free(m->alloc_host);
	free(m->features);
	free(m->prefer);
	free(m->licenses);
	free(m->reservation);
	free(m->tres_per_task);
	free(m->tres_per_socket);
	free(m->gpu_bind);
}

void submit_response_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct submit_response *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->error_code);
	pack_time(b, m->start_time);
	pack_str(b, m->node_list);
	pack_str(b, m->partition);
	pack_str(b, m->user_msg);
	pack_u32(b, m->proc_cnt);
}

int submit_response_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct submit_response *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->error_code);
	unpack_time(b, &m->start_time);
	unpack_str(b, &m->node_list, SL_STR_MAX);
	unpack_str(b, &m->partition, SL_NAME_MAX);
	unpack_str(b, &m->user_msg, SL_STR_MAX);
	unpack_u32(b, &m->proc_cnt);
	return b->err;
}

void submit_response_free(void *msg)
{
	struct submit_response *m = msg;

	free(m->node_list);
	free(m->partition);
	free(m->user_msg);
}

void job_info_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct job_info_req *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_u16(b, m->show_flags);
	pack_str(b, m->job_ids);
	pack_u32(b, m->after_job_id);
	pack_u32(b, m->n_user_ids);
	for (uint32_t i = 0; i < m->n_user_ids; i++)
		pack_u32(b, m->user_ids[i]);
	pack_u32(b, m->state_bases);
	pack_u32(b, m->state_flags);
	pack_str(b, m->partitions);
}

int job_info_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct job_info_req *m = msg;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_u16(b, &m->show_flags);
	unpack_str(b, &m->job_ids, SL_STR_MAX);
	unpack_u32(b, &m->after_job_id);
	unpack_u32v(b, &m->user_ids, &m->n_user_ids);
	unpack_u32(b, &m->state_bases);
	unpack_u32(b, &m->state_flags);
	unpack_str(b, &m->partitions, SL_STR_MAX);
	return b->err;
}

void job_info_req_free(void *msg)
{
	struct job_info_req *m = msg;

	free(m->job_ids);
	free(m->user_ids);
	free(m->partitions);
}

void kill_job_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct kill_job_msg *m = msg;

	(void)ver;
	pack_str(b, m->sjob_id);
	pack_u16(b, m->signal);
	pack_u16(b, m->flags);
}

int kill_job_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct kill_job_msg *m = msg;

	(void)ver;
	unpack_str(b, &m->sjob_id, SL_STR_MAX);
	unpack_u16(b, &m->signal);
	unpack_u16(b, &m->flags);
	return b->err;
}

void kill_job_msg_free(void *msg)
{
	struct kill_job_msg *m = msg;

	free(m->sjob_id);
}

void update_job_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct update_job_msg *m = msg;

	(void)ver;
	pack_str(b, m->sjob_id);
	pack_str(b, m->name);
	pack_str(b, m->partition);
	pack_u32(b, m->time_limit);
	pack_u32(b, m->min_nodes);
	pack_u32(b, m->max_nodes);
	pack_u32(b, m->nice);
	pack_u32(b, m->priority);
	pack_u16(b, m->hold_user);
	pack_u16(b, m->requeue_op);
	pack_str(b, m->account);
	pack_str(b, m->qos);
}

int update_job_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct update_job_msg *m = msg;

	(void)ver;
	unpack_str(b, &m->sjob_id, SL_STR_MAX);
	unpack_str(b, &m->name, SL_NAME_MAX);
	unpack_str(b, &m->partition, SL_STR_MAX);
	unpack_u32(b, &m->time_limit);
	unpack_u32(b, &m->min_nodes);
	unpack_u32(b, &m->max_nodes);
	unpack_u32(b, &m->nice);
	unpack_u32(b, &m->priority);
	unpack_u16(b, &m->hold_user);
	unpack_u16(b, &m->requeue_op);
	unpack_str(b, &m->account, SL_NAME_MAX);
	unpack_str(b, &m->qos, SL_NAME_MAX);
	return b->err;
}

void update_job_msg_free(void *msg)
{
	struct update_job_msg *m = msg;

	free(m->sjob_id);
	free(m->name);
	free(m->partition);
	free(m->account);
	free(m->qos);
}

void batch_launch_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct batch_launch_msg *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->array_job_id);
	pack_u32(b, m->array_task_id);
	pack_u32(b, m->uid);
	pack_u32(b, m->gid);
	pack_str(b, m->user_name);
	pack_u32(b, m->ngids);
	for (uint32_t i = 0; i < m->ngids; i++)
		pack_u32(b, m->gids[i]);
	pack_str(b, m->job_name);
	pack_str(b, m->script);
	pack_strv(b, m->argv, m->argc);
	pack_strv(b, m->env, m->env_count);
	pack_str(b, m->work_dir);
	pack_str(b, m->std_in);
	pack_str(b, m->std_out);
	pack_str(b, m->std_err);
	pack_u16(b, m->open_mode);
	pack_str(b, m->nodes);
	pack_u32(b, m->num_nodes);
	pack_u32(b, m->num_tasks);
	pack_u16(b, m->cpus_per_task);
	pack_u16(b, m->ntasks_per_node);
	pack_str(b, m->cpus_per_node);
	pack_str(b, m->tasks_per_node);
	pack_u16(b, m->cpus_on_node);
	pack_u64(b, m->mem_per_node);
	pack_u64(b, m->mem_per_cpu);
	pack_u64(b, m->mem_limit);
	pack_str(b, m->gpus);
	pack_str(b, m->partition);
	pack_str(b, m->account);
	pack_str(b, m->qos);
	pack_str(b, m->cluster_name);
	pack_str(b, m->submit_host);
	pack_str(b, m->submit_dir);
	pack_u32(b, m->time_limit);
	pack_time(b, m->start_time);
}

int batch_launch_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct batch_launch_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->array_job_id);
	unpack_u32(b, &m->array_task_id);
	unpack_u32(b, &m->uid);
	unpack_u32(b, &m->gid);
	unpack_str(b, &m->user_name, SL_NAME_MAX);
	unpack_u32v(b, &m->gids, &m->ngids);
	unpack_str(b, &m->job_name, SL_NAME_MAX);
	unpack_str(b, &m->script, SL_SCRIPT_MAX);
	unpack_strv(b, &m->argv, &m->argc, SL_ARRAY_MAX);
	unpack_strv(b, &m->env, &m->env_count, SL_ARRAY_MAX);
	unpack_str(b, &m->work_dir, SL_PATH_MAX);
	unpack_str(b, &m->std_in, SL_PATH_MAX);
	unpack_str(b, &m->std_out, SL_PATH_MAX);
	unpack_str(b, &m->std_err, SL_PATH_MAX);
	unpack_u16(b, &m->open_mode);
	unpack_str(b, &m->nodes, SL_STR_MAX);
	unpack_u32(b, &m->num_nodes);
	unpack_u32(b, &m->num_tasks);
	unpack_u16(b, &m->cpus_per_task);
	unpack_u16(b, &m->ntasks_per_node);
	unpack_str(b, &m->cpus_per_node, SL_STR_MAX);
	unpack_str(b, &m->tasks_per_node, SL_STR_MAX);
	unpack_u16(b, &m->cpus_on_node);
	unpack_u64(b, &m->mem_per_node);
	unpack_u64(b, &m->mem_per_cpu);
	unpack_u64(b, &m->mem_limit);
	unpack_str(b, &m->gpus, SL_STR_MAX);
	unpack_str(b, &m->partition, SL_NAME_MAX);
	unpack_str(b, &m->account, SL_NAME_MAX);
	unpack_str(b, &m->qos, SL_NAME_MAX);
	unpack_str(b, &m->cluster_name, SL_NAME_MAX);
	unpack_str(b, &m->submit_host, SL_NAME_MAX);
	unpack_str(b, &m->submit_dir, SL_PATH_MAX);
	unpack_u32(b, &m->time_limit);
	unpack_time(b, &m->start_time);
	return b->err;
}

void batch_launch_msg_free(void *msg)
{
	struct batch_launch_msg *m = msg;

	free(m->user_name);
	free(m->gids);
	free(m->job_name);
	free(m->script);
	strv_free(m->argv, m->argc);
	strv_free(m->env, m->env_count);
	free(m->work_dir);
	free(m->std_in);
	free(m->std_out);
	free(m->std_err);
	free(m->nodes);
	free(m->cpus_per_node);
	free(m->tasks_per_node);
	free(m->gpus);
	free(m->partition);
	free(m->account);
	free(m->qos);
	free(m->cluster_name);
	free(m->submit_host);
	free(m->submit_dir);
}

void complete_batch_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct complete_batch_msg *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->job_rc);
	pack_u32(b, m->slurm_rc);
	pack_str(b, m->node_name);
	pack_u16(b, m->is_oom);
	acct_usage_pack(&m->usage, b);
	pack_time(b, m->end_time);
}

int complete_batch_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct complete_batch_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->job_rc);
	unpack_u32(b, &m->slurm_rc);
	unpack_str(b, &m->node_name, SL_NAME_MAX);
	unpack_u16(b, &m->is_oom);
	acct_usage_unpack(&m->usage, b);
	unpack_time(b, &m->end_time);
	return b->err;
}

void complete_batch_msg_free(void *msg)
{
	struct complete_batch_msg *m = msg;

	free(m->node_name);
}

void signal_job_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct signal_job_msg *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->step_id);
	pack_u16(b, m->signal);
	pack_u16(b, m->flags);
	pack_str(b, m->reason);
	pack_u32(b, m->uid);
	pack_u32(b, m->gid);
	pack_u32(b, m->exit_code);
	pack_str(b, m->user_name);
	pack_str(b, m->partition);
	pack_str(b, m->account);
	pack_str(b, m->nodes);
	pack_u32(b, m->cpus);
	pack_u64(b, m->mem);
	pack_str(b, m->gpus);
}

int signal_job_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct signal_job_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->step_id);
	unpack_u16(b, &m->signal);
	unpack_u16(b, &m->flags);
	unpack_str(b, &m->reason, SL_STR_MAX);
	unpack_u32(b, &m->uid);
	unpack_u32(b, &m->gid);
	unpack_u32(b, &m->exit_code);
	unpack_str(b, &m->user_name, SL_NAME_MAX);
	unpack_str(b, &m->partition, SL_NAME_MAX);
	unpack_str(b, &m->account, SL_NAME_MAX);
	unpack_str(b, &m->nodes, SL_STR_MAX);
	unpack_u32(b, &m->cpus);
	unpack_u64(b, &m->mem);
	unpack_str(b, &m->gpus, SL_NAME_MAX);
	return b->err;
}

void signal_job_msg_free(void *msg)
{
	struct signal_job_msg *m = msg;

	free(m->gpus);
	free(m->reason);
	free(m->user_name);
	free(m->partition);
	free(m->account);
	free(m->nodes);
}

void epilog_complete_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct epilog_complete_msg *m = msg;

	(void)ver;
	pack_u32(b, m->job_id);
	pack_u32(b, m->rc);
	pack_str(b, m->node_name);
}

int epilog_complete_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct epilog_complete_msg *m = msg;

	(void)ver;
	unpack_u32(b, &m->job_id);
	unpack_u32(b, &m->rc);
	unpack_str(b, &m->node_name, SL_NAME_MAX);
	return b->err;
}

void epilog_complete_msg_free(void *msg)
{
	struct epilog_complete_msg *m = msg;

	free(m->node_name);
}

void job_info_pack(const struct job_info *j, struct pack_buf *b)
{
	pack_u32(b, j->job_id);
	pack_u32(b, j->array_job_id);
	pack_u32(b, j->array_task_id);
	pack_str(b, j->array_task_str);
	pack_u32(b, j->array_max_tasks);
	pack_str(b, j->name);
	pack_u32(b, j->user_id);
	pack_u32(b, j->group_id);
	pack_str(b, j->user_name);
	pack_str(b, j->group_name);
	pack_u32(b, j->priority);
	pack_u32(b, j->nice);
	pack_str(b, j->account);
	pack_str(b, j->qos);
	pack_u32(b, j->job_state);
	pack_u16(b, j->state_reason);
	pack_str(b, j->state_desc);
	pack_str(b, j->reason_detail);
	pack_str(b, j->dependency);
	pack_u16(b, j->requeue);
	pack_u16(b, j->restart_cnt);
	pack_u16(b, j->batch_flag);
	pack_u32(b, j->exit_code);
	pack_u32(b, j->derived_ec);
	pack_u32(b, j->time_limit);
	pack_u32(b, j->time_min);
	pack_time(b, j->submit_time);
	pack_time(b, j->eligible_time);
	pack_time(b, j->accrue_time);
	pack_time(b, j->start_time);
	pack_time(b, j->end_time);
	pack_time(b, j->suspend_time);
	pack_time(b, j->last_sched_eval);
	pack_u32(b, j->pre_sus_time);
	pack_str(b, j->partition);
	pack_str(b, j->alloc_node);
	pack_u32(b, j->alloc_sid);
	pack_str(b, j->req_nodes);
	pack_str(b, j->exc_nodes);
	pack_str(b, j->nodes);
	pack_str(b, j->sched_nodes);
	pack_u16(b, j->sched_by);
	pack_str(b, j->batch_host);
	pack_u32(b, j->num_nodes);
	pack_u32(b, j->max_nodes);
	pack_u32(b, j->num_cpus);
	pack_u32(b, j->num_tasks);
	pack_u16(b, j->cpus_per_task);
	pack_u16(b, j->ntasks_per_node);
	pack_str(b, j->tres_req_str);
	pack_str(b, j->tres_alloc_str);
	pack_u16(b, j->pn_min_cpus);
	pack_u64(b, j->pn_min_memory);
	pack_u32(b, j->pn_min_tmp_disk);
	pack_str(b, j->features);
	pack_u16(b, j->shared);
	pack_u16(b, j->contiguous);
	pack_str(b, j->licenses);
	pack_str(b, j->network);
	pack_str(b, j->command);
	pack_str(b, j->work_dir);
	pack_str(b, j->std_err);
	pack_str(b, j->std_in);
	pack_str(b, j->std_out);
	pack_str(b, j->comment);
	pack_str(b, j->tres_per_node);
	pack_str(b, j->mail_user);
	pack_u16(b, j->mail_type);
	pack_str(b, j->cpus_per_node);
	pack_str(b, j->gres_detail);
	pack_str(b, j->resv_name);
	pack_str(b, j->tres_per_job);
	pack_str(b, j->tres_per_task);
	pack_str(b, j->tres_per_socket);
	pack_str(b, j->cpus_per_tres);
	pack_str(b, j->mem_per_tres);
}

static void job_info_unpack(struct job_info *j, struct pack_buf *b)
{
	unpack_u32(b, &j->job_id);
	unpack_u32(b, &j->array_job_id);
	unpack_u32(b, &j->array_task_id);
	unpack_str(b, &j->array_task_str, SL_STR_MAX);
	unpack_u32(b, &j->array_max_tasks);
	unpack_str(b, &j->name, SL_NAME_MAX);
	unpack_u32(b, &j->user_id);
	unpack_u32(b, &j->group_id);
	unpack_str(b, &j->user_name, SL_NAME_MAX);
	unpack_str(b, &j->group_name, SL_NAME_MAX);
	unpack_u32(b, &j->priority);
	unpack_u32(b, &j->nice);
	unpack_str(b, &j->account, SL_NAME_MAX);
	unpack_str(b, &j->qos, SL_NAME_MAX);
	unpack_u32(b, &j->job_state);
	unpack_u16(b, &j->state_reason);
	unpack_str(b, &j->state_desc, SL_STR_MAX);
	unpack_str(b, &j->reason_detail, SL_STR_MAX);
	unpack_str(b, &j->dependency, SL_STR_MAX);
	unpack_u16(b, &j->requeue);
	unpack_u16(b, &j->restart_cnt);
	unpack_u16(b, &j->batch_flag);
	unpack_u32(b, &j->exit_code);
	unpack_u32(b, &j->derived_ec);
	unpack_u32(b, &j->time_limit);
	unpack_u32(b, &j->time_min);
	unpack_time(b, &j->submit_time);
	unpack_time(b, &j->eligible_time);
	unpack_time(b, &j->accrue_time);
	unpack_time(b, &j->start_time);
	unpack_time(b, &j->end_time);
	unpack_time(b, &j->suspend_time);
	unpack_time(b, &j->last_sched_eval);
	unpack_u32(b, &j->pre_sus_time);
	unpack_str(b, &j->partition, SL_STR_MAX);
	unpack_str(b, &j->alloc_node, SL_NAME_MAX);
	unpack_u32(b, &j->alloc_sid);
	unpack_str(b, &j->req_nodes, SL_STR_MAX);
	unpack_str(b, &j->exc_nodes, SL_STR_MAX);
	unpack_str(b, &j->nodes, SL_STR_MAX);
	unpack_str(b, &j->sched_nodes, SL_STR_MAX);
	unpack_u16(b, &j->sched_by);
	unpack_str(b, &j->batch_host, SL_NAME_MAX);
	unpack_u32(b, &j->num_nodes);
	unpack_u32(b, &j->max_nodes);
	unpack_u32(b, &j->num_cpus);
	unpack_u32(b, &j->num_tasks);
	unpack_u16(b, &j->cpus_per_task);
	unpack_u16(b, &j->ntasks_per_node);
	unpack_str(b, &j->tres_req_str, SL_STR_MAX);
	unpack_str(b, &j->tres_alloc_str, SL_STR_MAX);
	unpack_u16(b, &j->pn_min_cpus);
	unpack_u64(b, &j->pn_min_memory);
	unpack_u32(b, &j->pn_min_tmp_disk);
	unpack_str(b, &j->features, SL_STR_MAX);
	unpack_u16(b, &j->shared);
	unpack_u16(b, &j->contiguous);
	unpack_str(b, &j->licenses, SL_STR_MAX);
	unpack_str(b, &j->network, SL_STR_MAX);
	unpack_str(b, &j->command, SL_PATH_MAX);
	unpack_str(b, &j->work_dir, SL_PATH_MAX);
	unpack_str(b, &j->std_err, SL_PATH_MAX);
	unpack_str(b, &j->std_in, SL_PATH_MAX);
	unpack_str(b, &j->std_out, SL_PATH_MAX);
	unpack_str(b, &j->comment, SL_STR_MAX);
	unpack_str(b, &j->tres_per_node, SL_STR_MAX);
	unpack_str(b, &j->mail_user, SL_NAME_MAX);
	unpack_u16(b, &j->mail_type);
	unpack_str(b, &j->cpus_per_node, SL_STR_MAX);
	unpack_str(b, &j->gres_detail, SL_STR_MAX);
	unpack_str(b, &j->resv_name, SL_NAME_MAX);
	unpack_str(b, &j->tres_per_job, SL_STR_MAX);
	unpack_str(b, &j->tres_per_task, SL_STR_MAX);
	unpack_str(b, &j->tres_per_socket, SL_STR_MAX);
	unpack_str(b, &j->cpus_per_tres, SL_STR_MAX);
	unpack_str(b, &j->mem_per_tres, SL_STR_MAX);
}

void job_info_done(struct job_info *j)
{
	free(j->array_task_str);
	free(j->name);
	free(j->user_name);
	free(j->group_name);
	free(j->account);
	free(j->qos);
	free(j->state_desc);
	free(j->reason_detail);
	free(j->dependency);
	free(j->partition);
	free(j->alloc_node);
	free(j->req_nodes);
	free(j->exc_nodes);
	free(j->nodes);
	free(j->sched_nodes);
	free(j->batch_host);
	free(j->tres_req_str);
	free(j->tres_alloc_str);
	free(j->features);
	free(j->licenses);
	free(j->network);
	free(j->command);
	free(j->work_dir);
	free(j->std_err);
	free(j->std_in);
	free(j->std_out);
	free(j->comment);
	free(j->tres_per_node);
	free(j->mail_user);
	free(j->cpus_per_node);
	free(j->gres_detail);
	free(j->resv_name);
	free(j->tres_per_job);
	free(j->tres_per_task);
	free(j->tres_per_socket);
	free(j->cpus_per_tres);
	free(j->mem_per_tres);
	*j = (struct job_info){ 0 };
}

void job_desc_done(struct job_desc *d)
{
	job_desc_free(d);
	*d = (struct job_desc){ 0 };
}

int job_desc_share(struct job_desc *d)
{
	char **f[] = DESC_SHARED_STRS(d);
	const char *s[sizeof(f) / sizeof(f[0])] = {NULL};
	const char *script = NULL;
	char **env = NULL;
	size_t n = sizeof(f) / sizeof(f[0]), i;

	if (d->is_shared)
		return 0;
	for (i = 0; i < n; i++)
		if (*f[i] && !(s[i] = share_str(*f[i])))
			break;
	if (i < n || (d->script && !(script = share_str(d->script)))
	    || !(env = share_strv(d->env, d->env_count))) {
		for (i = 0; i < n; i++)
			share_put(s[i]);
		share_put(script);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		free(*f[i]);
		*f[i] = (char *)s[i];
	}
	free(d->script);
	strv_free(d->env, d->env_count);
	d->script = (char *)script; /* read-only from here on */
	d->env = env;
	d->is_shared = true;
	return 0;
}

int job_desc_set_str(struct job_desc *d, char **field, const char *s)
{
	char **f[] = DESC_SHARED_STRS(d);
	bool is_shared = false;
	char *v = NULL;

	for (size_t i = 0; d->is_shared && i < sizeof(f) / sizeof(f[0]); i++)
		is_shared |= f[i] == field;
	if (s && !(v = is_shared ? (char *)share_str(s) : strdup(s)))
		return -ENOMEM;
	if (is_shared)
		share_put(*field);
	else
		free(*field);
	*field = v;
	return 0;
}

void job_info_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct job_info_msg *m = msg;

	(void)ver;
	pack_time(b, m->last_update);
	pack_u32(b, m->last_job_id);
	pack_u8(b, m->is_more);
	pack_u32(b, m->count);
	if (m->packed)
		pack_raw(b, m->packed, m->packed_len);
	for (uint32_t i = 0; !m->packed && i < m->count; i++)
		job_info_pack(&m->jobs[i], b);
}

int job_info_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct job_info_msg *m = msg;
	uint8_t more = 0;
	uint32_t n;

	(void)ver;
	unpack_time(b, &m->last_update);
	unpack_u32(b, &m->last_job_id);
	unpack_u8(b, &more);
	m->is_more = more != 0;
	unpack_count(b, &n, SL_ARRAY_MAX, 100); /* a record is well over 100 bytes */
	if (b->err || n == 0)
		return b->err;
	m->jobs = calloc(n, sizeof(*m->jobs));
	if (!m->jobs)
		return b->err = -ENOMEM;
	m->count = n;
	for (uint32_t i = 0; i < n && !b->err; i++)
		job_info_unpack(&m->jobs[i], b);
	return b->err;
}

void job_info_msg_free(void *msg)
{
	struct job_info_msg *m = msg;

	for (uint32_t i = 0; !m->is_view && m->jobs && i < m->count; i++)
		job_info_done(&m->jobs[i]);
	free(m->jobs);
}

int job_info_msg_unpack_view(const void *data, size_t len, uint16_t ver,
			     struct job_info_msg **ret)
{
	struct pack_buf b = pack_buf_view(data, len);
	struct job_info_msg *m = calloc(1, sizeof(*m));
	int r;

	*ret = NULL;
	if (!m)
		return -ENOMEM;
	b.str_view = true;
	m->is_view = true;
	r = job_info_msg_unpack(m, &b, ver);
	if (r == 0 && pack_remaining(&b) != 0)
		r = -EBADMSG;
	if (r < 0) {
		job_info_msg_free(m);
		free(m);
		return r;
	}
	*ret = m;
	return 0;
}

void job_info_brief(struct job_info *j)
{
	j->reason_detail = j->dependency = j->alloc_node = NULL;
	j->req_nodes = j->exc_nodes = j->batch_host = NULL;
	j->tres_req_str = j->tres_alloc_str = j->features = j->licenses = NULL;
	j->network = j->command = j->work_dir = NULL;
	j->std_err = j->std_in = j->std_out = j->comment = NULL;
	j->tres_per_node = j->mail_user = j->cpus_per_node = j->gres_detail = NULL;
	j->tres_per_job = j->tres_per_task = j->tres_per_socket = NULL;
	j->cpus_per_tres = j->mem_per_tres = NULL;
}

int job_info_msg_append(struct job_info_msg *all, struct job_info_msg *page)
{
	struct job_info *jobs;

	if (all->is_view || page->is_view)
		return -EINVAL;
	if (!page->count)
		return 0;
	if (all->count > SL_ARRAY_MAX || page->count > SL_ARRAY_MAX)
		return -E2BIG;
	if (all->count + page->count > (all->cap ? all->cap : all->count)) {
		/* doubling: a listing of many pages is copied O(jobs) times,
		 * not O(jobs x pages) */
		uint32_t cap = all->cap > all->count ? all->cap : all->count;

		cap = cap * 2 > all->count + page->count ? cap * 2 : all->count + page->count;
		jobs = realloc(all->jobs, (size_t)cap * sizeof(*jobs));
		if (!jobs)
			return -ENOMEM;
		all->jobs = jobs;
		all->cap = cap;
	}
	memcpy(all->jobs + all->count, page->jobs, page->count * sizeof(*all->jobs));
	all->count += page->count;
	free(page->jobs);
	page->jobs = NULL;
	page->count = 0;
	return 0;
}
