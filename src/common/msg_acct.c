/* msg_acct.c - accounting messages (msg_acct.h). Pack, unpack and free
 * mirror each other line for line.
 */
#include "msg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "msg_family.h"
#include "pack.h"

/* ---- struct acct_usage ---- */

void acct_usage_pack(const struct acct_usage *u, struct pack_buf *b)
{
	pack_u64(b, u->user_usec);
	pack_u64(b, u->sys_usec);
	pack_u64(b, u->max_rss_kb);
	pack_u64(b, u->tot_rss_kb);
	pack_u64(b, u->max_vm_kb);
	pack_u64(b, u->tot_vm_kb);
	pack_u32(b, u->max_rss_task);
	pack_u32(b, u->max_vm_task);
	pack_u32(b, u->ntasks);
}

void acct_usage_unpack(struct acct_usage *u, struct pack_buf *b)
{
	unpack_u64(b, &u->user_usec);
	unpack_u64(b, &u->sys_usec);
	unpack_u64(b, &u->max_rss_kb);
	unpack_u64(b, &u->tot_rss_kb);
	unpack_u64(b, &u->max_vm_kb);
	unpack_u64(b, &u->tot_vm_kb);
	unpack_u32(b, &u->max_rss_task);
	unpack_u32(b, &u->max_vm_task);
	unpack_u32(b, &u->ntasks);
}

unsigned acct_usage_merge(struct acct_usage *t, const struct acct_usage *u)
{
	unsigned r = 0;
	bool is_first = t->ntasks == 0 && t->max_rss_kb == 0 && t->max_vm_kb == 0;

	t->user_usec += u->user_usec;
	t->sys_usec += u->sys_usec;
	t->tot_rss_kb += u->tot_rss_kb;
	t->tot_vm_kb += u->tot_vm_kb;
	t->ntasks += u->ntasks;
	if (u->max_rss_kb > t->max_rss_kb || (is_first && u->ntasks)) {
		t->max_rss_kb = u->max_rss_kb;
		t->max_rss_task = u->max_rss_task;
		r |= ACCT_MERGE_RSS;
	}
	if (u->max_vm_kb > t->max_vm_kb || (is_first && u->ntasks)) {
		t->max_vm_kb = u->max_vm_kb;
		t->max_vm_task = u->max_vm_task;
		r |= ACCT_MERGE_VM;
	}
	return r;
}

/* ---- rows ---- */

void acct_step_rec_done(struct acct_step_rec *s)
{
	free(s->name);
	free(s->nodes);
	free(s->tres_alloc);
	free(s->max_rss_node);
	free(s->max_vm_node);
	memset(s, 0, sizeof(*s));
}

void acct_job_rec_done(struct acct_job_rec *j)
{
	free(j->array_task_str);
	free(j->name);
	free(j->user);
	free(j->account);
	free(j->partition);
	free(j->qos);
	free(j->nodes);
	free(j->work_dir);
	free(j->comment);
	free(j->tres_req);
	free(j->tres_alloc);
	free(j->resv_name);
	for (uint32_t i = 0; j->steps && i < j->step_count; i++)
		acct_step_rec_done(&j->steps[i]);
	free(j->steps);
	memset(j, 0, sizeof(*j));
}

static void step_rec_pack(const struct acct_step_rec *s, struct pack_buf *b)
{
	pack_u32(b, s->step_id);
	pack_str(b, s->name);
	pack_u32(b, s->state);
	pack_u32(b, s->exit_code);
	pack_u32(b, s->kill_requid);
	pack_str(b, s->nodes);
	pack_u32(b, s->nnodes);
	pack_u32(b, s->ntasks);
	pack_u32(b, s->ncpus);
	pack_time(b, s->start);
	pack_time(b, s->end);
	pack_str(b, s->tres_alloc);
	acct_usage_pack(&s->usage, b);
	pack_str(b, s->max_rss_node);
	pack_str(b, s->max_vm_node);
}

static void step_rec_unpack(struct acct_step_rec *s, struct pack_buf *b)
{
	unpack_u32(b, &s->step_id);
	unpack_str(b, &s->name, SL_STR_MAX);
	unpack_u32(b, &s->state);
	unpack_u32(b, &s->exit_code);
	unpack_u32(b, &s->kill_requid);
	unpack_str(b, &s->nodes, SL_STR_MAX);
	unpack_u32(b, &s->nnodes);
	unpack_u32(b, &s->ntasks);
	unpack_u32(b, &s->ncpus);
	unpack_time(b, &s->start);
	unpack_time(b, &s->end);
	unpack_str(b, &s->tres_alloc, SL_STR_MAX);
	acct_usage_unpack(&s->usage, b);
	unpack_str(b, &s->max_rss_node, SL_NAME_MAX);
	unpack_str(b, &s->max_vm_node, SL_NAME_MAX);
}

static void job_rec_pack(const struct acct_job_rec *j, struct pack_buf *b)
{
	pack_u64(b, j->inx);
	pack_u32(b, j->job_id);
	pack_u32(b, j->array_job_id);
	pack_u32(b, j->array_task_id);
	pack_str(b, j->array_task_str);
	pack_u32(b, j->restart_cnt);
	pack_str(b, j->name);
	pack_u32(b, j->uid);
	pack_u32(b, j->gid);
	pack_str(b, j->user);
	pack_str(b, j->account);
	pack_str(b, j->partition);
	pack_str(b, j->qos);
	pack_u32(b, j->state);
	pack_u32(b, j->reason);
	pack_u32(b, j->exit_code);
	pack_u32(b, j->derived_ec);
	pack_u32(b, j->kill_requid);
	pack_str(b, j->nodes);
	pack_u32(b, j->nnodes);
	pack_u32(b, j->ncpus);
	pack_u32(b, j->req_cpus);
	pack_u32(b, j->req_nodes);
	pack_u64(b, j->req_mem_mb);
	pack_u32(b, j->mem_per_cpu);
	pack_u32(b, j->time_limit);
	pack_time(b, j->submit);
	pack_time(b, j->eligible);
	pack_time(b, j->start);
	pack_time(b, j->end);
	pack_str(b, j->work_dir);
	pack_str(b, j->comment);
	pack_str(b, j->tres_req);
	pack_str(b, j->tres_alloc);
	pack_str(b, j->resv_name);
	pack_u32(b, j->resv_id);
	pack_u32(b, j->step_count);
	for (uint32_t i = 0; i < j->step_count; i++)
		step_rec_pack(&j->steps[i], b);
}

static void job_rec_unpack(struct acct_job_rec *j, struct pack_buf *b)
{
	uint32_t n;

	unpack_u64(b, &j->inx);
	unpack_u32(b, &j->job_id);
	unpack_u32(b, &j->array_job_id);
	unpack_u32(b, &j->array_task_id);
	unpack_str(b, &j->array_task_str, SL_STR_MAX);
	unpack_u32(b, &j->restart_cnt);
	unpack_str(b, &j->name, SL_STR_MAX);
	unpack_u32(b, &j->uid);
	unpack_u32(b, &j->gid);
	unpack_str(b, &j->user, SL_NAME_MAX);
	unpack_str(b, &j->account, SL_NAME_MAX);
	unpack_str(b, &j->partition, SL_NAME_MAX);
	unpack_str(b, &j->qos, SL_NAME_MAX);
	unpack_u32(b, &j->state);
	unpack_u32(b, &j->reason);
	unpack_u32(b, &j->exit_code);
	unpack_u32(b, &j->derived_ec);
	unpack_u32(b, &j->kill_requid);
	unpack_str(b, &j->nodes, SL_STR_MAX);
	unpack_u32(b, &j->nnodes);
	unpack_u32(b, &j->ncpus);
	unpack_u32(b, &j->req_cpus);
	unpack_u32(b, &j->req_nodes);
	unpack_u64(b, &j->req_mem_mb);
	unpack_u32(b, &j->mem_per_cpu);
	unpack_u32(b, &j->time_limit);
	unpack_time(b, &j->submit);
	unpack_time(b, &j->eligible);
	unpack_time(b, &j->start);
	unpack_time(b, &j->end);
	unpack_str(b, &j->work_dir, SL_PATH_MAX);
	unpack_str(b, &j->comment, SL_STR_MAX);
	unpack_str(b, &j->tres_req, SL_STR_MAX);
	unpack_str(b, &j->tres_alloc, SL_STR_MAX);
	unpack_str(b, &j->resv_name, SL_NAME_MAX);
	unpack_u32(b, &j->resv_id);
	unpack_count(b, &n, SL_ARRAY_MAX, 100); /* a step row is at least 100 bytes */
	if (b->err || n == 0)
		return;
	j->steps = calloc(n, sizeof(*j->steps));
	if (!j->steps) {
		b->err = -ENOMEM;
		return;
	}
	j->step_count = n;
	for (uint32_t i = 0; i < n && !b->err; i++)
		step_rec_unpack(&j->steps[i], b);
}

/* ---- REQUEST_ACCT_QUERY ---- */

void acct_query_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct acct_query_req *m = msg;

	(void)ver;
	pack_u32(b, m->flags);
	pack_str(b, m->job_ids);
	pack_str(b, m->uids);
	pack_str(b, m->accounts);
	pack_str(b, m->partitions);
	pack_str(b, m->names);
	pack_str(b, m->gids);
	pack_str(b, m->qos);
	pack_str(b, m->nodes);
	pack_u32(b, m->nodes_min);
	pack_u32(b, m->nodes_max);
	pack_u32(b, m->cpus_min);
	pack_u32(b, m->cpus_max);
	pack_u32(b, m->time_limit_min);
	pack_u32(b, m->time_limit_max);
	pack_u32(b, m->state_mask);
	pack_time(b, m->start);
	pack_time(b, m->end);
	pack_u64(b, m->after);
	pack_u32(b, m->limit);
}

int acct_query_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct acct_query_req *m = msg;

	(void)ver;
	unpack_u32(b, &m->flags);
	unpack_str(b, &m->job_ids, SL_STR_MAX);
	unpack_str(b, &m->uids, SL_STR_MAX);
	unpack_str(b, &m->accounts, SL_STR_MAX);
	unpack_str(b, &m->partitions, SL_STR_MAX);
	unpack_str(b, &m->names, SL_STR_MAX);
	unpack_str(b, &m->gids, SL_STR_MAX);
	unpack_str(b, &m->qos, SL_STR_MAX);
	unpack_str(b, &m->nodes, SL_STR_MAX);
	unpack_u32(b, &m->nodes_min);
	unpack_u32(b, &m->nodes_max);
	unpack_u32(b, &m->cpus_min);
	unpack_u32(b, &m->cpus_max);
	unpack_u32(b, &m->time_limit_min);
	unpack_u32(b, &m->time_limit_max);
	unpack_u32(b, &m->state_mask);
	unpack_time(b, &m->start);
	unpack_time(b, &m->end);
	unpack_u64(b, &m->after);
	unpack_u32(b, &m->limit);
	return b->err;
}

void acct_query_req_free(void *msg)
{
	struct acct_query_req *m = msg;

	free(m->job_ids);
	free(m->uids);
	free(m->accounts);
	free(m->partitions);
	free(m->names);
	free(m->gids);
	free(m->qos);
	free(m->nodes);
}

/* ---- RESPONSE_ACCT_QUERY ---- */

void acct_query_resp_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct acct_query_resp *m = msg;

	(void)ver;
	pack_u32(b, m->error_code);
	pack_u64(b, m->last);
	pack_bool(b, m->is_more);
	pack_u32(b, m->count);
	for (uint32_t i = 0; i < m->count; i++)
		job_rec_pack(&m->jobs[i], b);
}

int acct_query_resp_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct acct_query_resp *m = msg;
	uint32_t n;

	(void)ver;
	unpack_u32(b, &m->error_code);
	unpack_u64(b, &m->last);
	unpack_bool(b, &m->is_more);
	unpack_count(b, &n, SL_ARRAY_MAX, 160); /* a job row is at least 164 bytes */
	if (b->err || n == 0)
		return b->err;
	m->jobs = calloc(n, sizeof(*m->jobs));
	if (!m->jobs)
		return b->err = -ENOMEM;
	m->count = n;
	for (uint32_t i = 0; i < n && !b->err; i++)
		job_rec_unpack(&m->jobs[i], b);
	return b->err;
}

void acct_query_resp_free(void *msg)
{
	struct acct_query_resp *m = msg;

	for (uint32_t i = 0; m->jobs && i < m->count; i++)
		acct_job_rec_done(&m->jobs[i]);
	free(m->jobs);
}
