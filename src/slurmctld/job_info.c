/* job_info.c - the job_info view of a job for squeue and scontrol. */
#include "job_info.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/path_pattern.h"
#include "common/tres.h"
#include "ctld.h"
#include "job.h"
#include "job_alloc.h"
#include "job_array.h"
#include "job_explain.h"
#include "job_res.h"
#include "node.h"
#include "job_depend_check.h"

/* StdOut= etc. as scontrol shows them: the pattern expanded, made
 * absolute against the working directory. */
static char *job_path(const struct job *job, const char *pattern, const char *dflt)
{
	const struct job_desc *d = job->desc;
	struct path_pattern_job v = {
		.job_id = job->job_id,
		.array_job_id = job->array_job_id,
		.array_task_id = job->array_job_id ? job->array_task_id : NO_VAL,
		.step_id = PATH_PATTERN_STEP_BATCH,
		.job_name = d->name,
		.node_name = job->batch_host,
		.user_name = job->user_name,
		.work_dir = d->work_dir,
	};
	char *s = NULL;

	if (path_pattern_expand(pattern ? pattern : dflt, &v, &s) < 0)
		return NULL;
	return s;
}

/* Slurm lists a typed GPU twice: "...,gres/gpu=2,gres/gpu:a100=2". Adds
 * the second entry to *tres (which ends with gres/gpu=N when it has GPUs);
 * left as it is when type is NULL or out of memory. */
static void tres_add_gpu_type(char **tres, const char *type)
{
	const char *at = *tres && type ? strstr(*tres, "gres/gpu=") : NULL;
	char *s;

	if (at && asprintf(&s, "%s,gres/gpu:%s=%s", *tres, type, at + 9) >= 0) {
		free(*tres);
		*tres = s;
	}
}

/* The one GPU type of what the job asked (--gres=gpu:a100:2), NULL when
 * untyped. */
static const char *req_gpu_type(const struct job_desc *d, char *buf, size_t len)
{
	const char *t = d->tres_per_node ? d->tres_per_node : d->tres_per_job;

	if (t && !strncmp(t, "gres/", 5))
		t += 5;
	return tres_gpu_type(t, buf, len);
}

/* The one GPU type of the nodes the job's GPUs are on, NULL when untyped
 * or mixed. */
static const char *alloc_gpu_type(const struct ctld *c, const struct job *job, char *buf,
				  size_t len)
{
	char one[TRES_TYPE_MAX];
	const char *type = NULL;

	for (uint32_t i = 0; i < job->alloc.count; i++) {
		const struct sel_alloc *a = &job->alloc.nodes[i];
		const char *t;

		if (!a->gpus || a->node >= c->node_count)
			continue;
		t = tres_gpu_type(c->nodes[a->node].cfg->gres, one, sizeof(one));
		if (!t || (type && strcmp(type, t)))
			return NULL;
		if (!type)
			type = tres_gpu_type(c->nodes[a->node].cfg->gres, buf, len);
	}
	return type;
}

/* OverSubscribe= of scontrol show job: NO (--exclusive), USER, YES (-s),
 * else OK. */
static uint16_t shared_of(const struct job_desc *d)
{
	if (d->flags & JOB_DESC_EXCLUSIVE)
		return 0;
	if (d->flags & JOB_DESC_EXCLUSIVE_USER)
		return 2;
	return (d->flags & JOB_DESC_OVERSUBSCRIBE) ? 4 : 1;
}

/* The GPU options beyond TresPerNode, with CpusPerTres= and MemPerTres=
 * as Slurm keeps them ("gres/gpu:4");
 * left NULL when out of memory. */
static void per_gpu_strs(const struct job_desc *d, struct job_info *ret)
{
	ret->tres_per_job = (char *)d->tres_per_job;
	ret->tres_per_task = (char *)d->tres_per_task;
	ret->tres_per_socket = (char *)d->tres_per_socket;
	if (d->cpus_per_gpu && asprintf(&ret->cpus_per_tres, "gres/gpu:%u", d->cpus_per_gpu) < 0)
		ret->cpus_per_tres = NULL;
	if (d->mem_per_gpu
	    && asprintf(&ret->mem_per_tres, "gres/gpu:%llu", (unsigned long long)d->mem_per_gpu) < 0)
		ret->mem_per_tres = NULL;
}

int job_info_fill(const struct ctld *c, const struct job *job, bool brief, time_t now,
		  struct job_info *ret)
{
	char type[TRES_TYPE_MAX];
	const struct job_desc *d = job->desc;
	uint32_t req_cpus = job->num_tasks * job->cpus_per_task;

	*ret = (struct job_info){
	    .job_id = job->job_id,
	    .array_job_id = job->array_job_id,
	    .array_task_id = job->array_job_id ? job->array_task_id : NO_VAL,
	    .array_task_str = job_is_array_meta(job)
				  ? job_array_ranges(job->array_pending, job->array_pending_count)
				  : NULL,
	    .array_max_tasks = job->array_throttle,
	    .name = (char *)d->name,
	    .user_id = job->uid,
	    .group_id = job->gid,
	    .user_name = (char *)job->user_name,
	    .priority = job->priority,
	    .nice = d->nice == NO_VAL ? NICE_OFFSET : d->nice,
	    .account = (char *)d->account,
	    .qos = (char *)d->qos,
	    .job_state = job->state,
	    .state_reason = (uint16_t)job->reason,
	    .state_desc = (char *)job->state_desc,
	    .dependency = job_depend_check_text(job),
	    .requeue = job_may_requeue(c, job),
	    .restart_cnt = job->restart_cnt,
	    .batch_flag = 1,
	    .exit_code = job->exit_code,
	    .time_limit = job->time_limit,
	    .time_min = d->time_min,
	    .submit_time = job->submit_time,
	    .eligible_time = job->eligible_time,
	    .accrue_time = job->eligible_time,
	    .start_time = job->start_time,
	    .end_time = job->end_time,
	    .last_sched_eval = job->last_sched_eval,
	    .partition = (char *)job->partition,
	    .alloc_node = (char *)d->submit_host,
	    .req_nodes = (char *)d->req_nodes,
	    .exc_nodes = (char *)d->exc_nodes,
	    .nodes = (char *)job->nodes,
	    .batch_host = (char *)job->batch_host,
	    .num_nodes = job->alloc.count ? job->alloc.count : job->min_nodes,
	    .max_nodes = job->max_nodes,
	    .num_cpus = job->alloc.count ? job->alloc.total_cpus
					 : (req_cpus < job->min_nodes ? job->min_nodes : req_cpus),
	    .num_tasks = job->num_tasks,
	    .cpus_per_task = job->cpus_per_task,
	    .ntasks_per_node = d->ntasks_per_node == NO_VAL16 ? 0 : d->ntasks_per_node,
	    .pn_min_cpus = d->min_cpus > job->cpus_per_task ? d->min_cpus : job->cpus_per_task,
	    .pn_min_tmp_disk = d->tmp_mb,
	    .pn_min_memory =
		job->mem_per_cpu ? (job->mem_per_cpu | MEM_PER_CPU) : job->mem_per_node,
	    .shared = shared_of(d),
	    .work_dir = (char *)d->work_dir,
	    .std_in = (char *)(d->std_in ? d->std_in : "/dev/null"),
	    .comment = (char *)d->comment,
	    .features = (char *)d->features,
	    .licenses = (char *)d->licenses,
	    .resv_name = (char *)d->reservation,
	    .tres_per_node = (char *)d->tres_per_node,
	    .mail_user = (char *)d->mail_user,
	    .mail_type = d->mail_type,
	};
	if (!brief) { /* what a brief record leaves out costs the most to make */
		per_gpu_strs(d, ret);
		ret->reason_detail = job_explain(c, job);
		ret->tres_req_str = job_res_tres_req(job);
		ret->tres_alloc_str = job_res_tres_alloc(job);
		ret->std_out = job_path(job, d->std_out,
					path_pattern_default_stdout(job->array_job_id));
		ret->std_err = job_path(job, d->std_err ? d->std_err : d->std_out,
					path_pattern_default_stdout(job->array_job_id));
		tres_add_gpu_type(&ret->tres_req_str, req_gpu_type(d, type, sizeof(type)));
		tres_add_gpu_type(&ret->tres_alloc_str,
				  alloc_gpu_type(c, job, type, sizeof(type)));
	}
	/* Slurm: a held job, one waiting on a dependency or an array at its
	 * throttle is not eligible yet (EligibleTime=Unknown); age accrues
	 * only from eligibility. */
	if (job_is_pending(job)
	    && (job->priority == 0 || ret->dependency || job->reason == WAIT_ARRAY_TASK_LIMIT))
		ret->eligible_time = ret->accrue_time = 0;
	else if (job_is_pending(job) && job->eligible_time > now)
		ret->accrue_time = 0;
	else if (!job_is_pending(job) && job->array_throttle && job->array_task_id != NO_VAL
		 && job->start_time) {
		/* a task of a throttled array became eligible when it was
		 * split off to start; it never accrued age */
		ret->eligible_time = job->start_time;
		ret->accrue_time = 0;
	}
	if (job_is_interactive(job)) { /* salloc/srun: no script, no files */
		ret->batch_flag = 0;
		free(ret->std_out);
		free(ret->std_err);
		ret->std_in = ret->std_out = ret->std_err = NULL;
		ret->command = d->argc && d->argv ? (char *)d->argv[0] : NULL;
	}
	ret->sched_by = job->sched_by;
	if (job_is_pending(job) && job->sched_start) { /* backfill's estimate */
		ret->start_time = job->sched_start;
		ret->end_time = job->time_limit == INFINITE
				    ? 0
				    : job->sched_start + (time_t)job->time_limit * 60;
		ret->sched_nodes = (char *)job->sched_nodes;
	}
	if (brief) { /* the dependency only decided eligible_time above */
		free(ret->dependency);
		job_info_brief(ret);
	}
	return 0;
}

void job_info_fill_done(struct job_info *j)
{
	free(j->array_task_str);
	free(j->reason_detail);
	free(j->dependency);
	free(j->tres_req_str);
	free(j->tres_alloc_str);
	free(j->std_out);
	free(j->std_err);
	free(j->cpus_per_tres);
	free(j->mem_per_tres);
	*j = (struct job_info){0};
}

/* A job's brief record as packed (struct job::info_kept). */
struct job_info_kept {
	uint32_t gen;	    /* job->info_gen then */
	uint32_t epoch;	    /* c->job_info_epoch then */
	time_t valid_until; /* 0, or when the record changes by itself */
	uint32_t len;
	uint8_t bytes[];
};

/* A record that depends on other jobs (a dependency's text, an array's
 * pending tasks) is packed afresh every time. */
static bool is_keepable(const struct job *job)
{
	return !job->depend && !job_is_array_meta(job);
}

static const struct job_info_kept *kept_of(const struct ctld *c, const struct job *job, time_t now)
{
	const struct job_info_kept *k = job->info_kept;

	if (!k || k->gen != job->info_gen || k->epoch != c->job_info_epoch
	    || (k->valid_until && now >= k->valid_until) || !is_keepable(job))
		return NULL;
	return k;
}

static int pack_fresh(const struct ctld *c, const struct job *job, bool brief, time_t now,
		      struct pack_buf *b)
{
	struct job_info j;
	int r = job_info_fill(c, job, brief, now, &j);

	if (r == 0)
		job_info_pack(&j, b);
	job_info_fill_done(&j);
	return r < 0 ? r : b->err;
}

/* Keeps len bytes at p as the job's record; left without one when out of
 * memory. */
static void keep(const struct ctld *c, struct job *job, const uint8_t *p, size_t len, time_t now)
{
	struct job_info_kept *k = job->info_kept;

	if (len > UINT32_MAX)
		return;
	if (!k || k->len != len) {
		k = realloc(k, sizeof(*k) + len);
		if (!k) {
			free(job->info_kept);
			job->info_kept = NULL;
			return;
		}
		job->info_kept = k;
	}
	/* a pending job's AccrueTime shows once its EligibleTime is past */
	*k = (struct job_info_kept){
	    .gen = job->info_gen,
	    .epoch = c->job_info_epoch,
	    .valid_until = job_is_pending(job) && job->eligible_time > now ? job->eligible_time : 0,
	    .len = (uint32_t)len,
	};
	memcpy(k->bytes, p, len);
}

int job_info_pack_job(const struct ctld *c, struct job *job, bool brief, time_t now,
		      struct pack_buf *b)
{
	const struct job_info_kept *k = brief ? kept_of(c, job, now) : NULL;
	size_t at = b->len;
	int r;

	if (k && !c->is_job_info_checked) {
		pack_raw(b, k->bytes, k->len);
		return b->err;
	}
	r = pack_fresh(c, job, brief, now, b);
	if (r < 0 || !brief || !is_keepable(job))
		return r;
	if (k && (k->len != b->len - at || memcmp(k->bytes, b->data + at, k->len)))
		error("job_info: JobId=%u: its kept record differs from a fresh one "
		      "(changed without job_info_touch)",
		      job->job_id);
	keep(c, job, b->data + at, b->len - at, now);
	return 0;
}
