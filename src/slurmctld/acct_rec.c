/* acct_rec.c - see acct_rec.h.
 *
 * One row per run of a job: a pending job shows what it asked for, a
 * running one what it holds (state RUNNING, no end), a finished one its
 * final state. Rows follow Slurm's sacct: a cancelled or timed-out job's
 * own exit code is 0:0 while its batch step shows the signal that ended
 * the script (0:15); an OOM-killed job and step show Slurm's pseudo-signal
 * SIG_OOM (0:125 in sacct).
 * Caveat: finished steps stay on the job across a requeue; a run's steps
 * are those started at or after the run's start (same-second edge).
 */
#include "acct_rec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/tres.h"
#include "ctld.h"
#include "job.h"
#include "job_array.h"
#include "job_res.h"
#include "resv.h"
#include "resv_mask.h"
#include "step_rec.h"

#define SIG_OOM 253 /* Slurm's pseudo-signal: sacct prints it 0:125 */

static bool job_has_ended(const struct job *job)
{
	return job_is_finished(job) && !(job->state & JOB_COMPLETING);
}

static uint32_t row_state(const struct job *job)
{
	if (job_is_pending(job))
		return JOB_PENDING;
	if (!job_has_ended(job))
		return JOB_RUNNING; /* running, or completing: the final state is not known yet */
	return job->state & JOB_STATE_BASE;
}

static uint32_t row_exit_code(const struct job *job, uint32_t state)
{
	if (state == JOB_OOM)
		return SIG_OOM;
	if (state == JOB_CANCELLED || state == JOB_TIMEOUT)
		return 0; /* Slurm ends these jobs itself: the script's signal is the step's */
	return job->exit_code;
}

/* This run of the job had a batch script (not salloc/srun), which gets a
 * .batch row. */
static bool run_had_batch_step(const struct job *job)
{
	return job->start_time && job->batch_host && !job_is_interactive(job);
}

/* The batch step's state once the job ended (job_state: the row's). A
 * script that failed after its job's cancel or time limit is CANCELLED,
 * whether the signal stopped it or the end of an srun step it waited for
 * (that step's tasks were killed at the same moment): the order of the
 * two is a race. One that still exits 0 (a trap) is COMPLETED. */
static uint32_t batch_final_state(const struct job *job, uint32_t job_state)
{
	int status = (int)job->exit_code;

	if (job_state == JOB_OOM || job_state == JOB_NODE_FAIL)
		return job_state;
	if (status != 0
	    && (job->is_cancelled || job->is_timed_out || job_state == JOB_CANCELLED
		|| job_state == JOB_TIMEOUT))
		return JOB_CANCELLED;
	if (job->reason == FAIL_LAUNCH)
		return JOB_FAILED;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return JOB_COMPLETE;
	return JOB_FAILED;
}

static int batch_fill(const struct job *job, uint32_t job_state, struct acct_step_rec *o)
{
	const struct sel_alloc *a = job->alloc.count ? &job->alloc.nodes[0] : NULL;
	bool is_ended = job_has_ended(job);
	const struct acct_usage *u = job_batch_usage(job);
	bool has_usage = u->ntasks || u->max_rss_kb;

	*o = (struct acct_step_rec){
	    .step_id = SL_BATCH_STEP,
	    .name = strdup("batch"),
	    .state = is_ended ? batch_final_state(job, job_state) : JOB_RUNNING,
	    .exit_code = job->exit_code,
	    .kill_requid = NO_VAL,
	    .nodes = sdup(job->batch_host),
	    .nnodes = 1,
	    .ntasks = 1,
	    .ncpus = a ? a->cpus : 0,
	    .start = job->start_time,
	    .end = is_ended ? job->end_time : 0,
	    .tres_alloc = tres_string(&(struct tres){
		.cpus = a ? a->cpus : 0,
		.mem_mb = a ? a->mem : 0,
		.nodes = 1,
		.gpus = a ? __builtin_popcountll(a->gpus) : 0,
	    }),
	    .usage = *u,
	    .max_rss_node = has_usage ? sdup(job->batch_host) : NULL,
	    .max_vm_node = has_usage ? sdup(job->batch_host) : NULL,
	};
	if (o->state == JOB_OOM)
		o->exit_code = SIG_OOM;
	if (!o->name || !o->nodes || !o->tres_alloc || (has_usage && !o->max_vm_node))
		return -ENOMEM;
	return 0;
}

static int step_fill(const struct step *s, struct acct_step_rec *o)
{
	struct tres t = {.cpus = s->num_cpus, .nodes = s->node_count};

	for (uint32_t i = 0; i < s->node_count; i++) {
		t.mem_mb += s->nodes[i].mem;
		t.gpus += (uint64_t)__builtin_popcountll(s->nodes[i].gpus);
	}
	*o = (struct acct_step_rec){
	    .step_id = s->step_id,
	    .name = sdup(s->name),
	    .state = s->state,
	    .exit_code = s->state == JOB_OOM ? SIG_OOM : s->exit_code,
	    .kill_requid = s->kill_requid,
	    .nodes = sdup(s->nodes_str),
	    .nnodes = s->node_count,
	    .ntasks = s->num_tasks,
	    .ncpus = s->num_cpus,
	    .start = s->start_time,
	    .end = step_is_running(s) ? 0 : s->end_time,
	    .tres_alloc = tres_string(&t),
	    .usage = s->usage,
	    .max_rss_node = sdup(s->max_rss_node),
	    .max_vm_node = sdup(s->max_vm_node),
	};
	if ((s->name && !o->name) || (s->nodes_str && !o->nodes) || !o->tres_alloc
	    || (s->max_rss_node && !o->max_rss_node) || (s->max_vm_node && !o->max_vm_node))
		return -ENOMEM;
	return 0;
}

static int steps_fill(const struct job *job, struct acct_job_rec *r)
{
	uint32_t n = run_had_batch_step(job);
	int rc = 0;

	for (uint32_t i = 0; i < job->step_count; i++)
		n += step_is_of_this_run(job, &job->steps[i]);
	if (!n)
		return 0;
	r->steps = calloc(n, sizeof(*r->steps));
	if (!r->steps)
		return -ENOMEM;
	if (run_had_batch_step(job))
		rc = batch_fill(job, r->state, &r->steps[r->step_count++]);
	for (uint32_t i = 0; i < job->step_count && rc == 0; i++) {
		const struct step *s = &job->steps[i];

		if (!step_is_of_this_run(job, s))
			continue;
		rc = step_fill(s, &r->steps[r->step_count++]);
		if (rc == 0 && s->exit_code > r->derived_ec)
			r->derived_ec = s->exit_code;
	}
	return rc;
}

/* Memory of the whole job: per node x nodes, or per cpu x cpus. */
static uint64_t req_mem(const struct job *job, uint32_t nodes, uint32_t cpus)
{
	if (job->mem_per_node)
		return job->mem_per_node * nodes;
	return job->mem_per_cpu * cpus;
}

/* Where it ran (the ResvID it started in), or the reservation it waits
 * for now. */
static uint32_t row_resv_id(const struct ctld *c, const struct job *job)
{
	const struct resv *own = c && !job->resv_id ? resv_mask_job_resv(c, job) : NULL;

	return job->resv_id ? job->resv_id : own ? own->id : 0;
}

static int job_fill(const struct ctld *c, const struct job *job, struct acct_job_rec *r)
{
	const struct job_desc *d = job->desc;
	bool is_alloc = job->alloc.count != 0;
	uint32_t state = row_state(job);

	*r = (struct acct_job_rec){
	    .job_id = job->job_id,
	    .array_job_id = job->array_job_id,
	    .array_task_id = job->array_job_id ? job->array_task_id : NO_VAL,
	    .restart_cnt = job->restart_cnt,
	    .uid = (uint32_t)job->uid,
	    .gid = (uint32_t)job->gid,
	    .state = state,
	    .reason = (uint32_t)job->reason,
	    .exit_code = row_exit_code(job, state),
	    .kill_requid = state == JOB_CANCELLED ? (uint32_t)job->cancelled_by : NO_VAL,
	    .nnodes = is_alloc ? job->alloc.count : job->min_nodes,
	    .ncpus = is_alloc ? job->alloc.total_cpus : job_res_req_cpus(job),
	    .req_cpus = job_res_req_cpus(job),
	    .req_nodes = job->min_nodes,
	    .time_limit = job->time_limit,
	    .submit = job->submit_time,
	    .eligible = job->eligible_time,
	    .start = job->start_time,
	    .end = job_has_ended(job) ? job->end_time : 0,
	    .resv_id = row_resv_id(c, job),
	};
	r->req_mem_mb = req_mem(job, r->nnodes, r->ncpus);
	r->mem_per_cpu = job->mem_per_cpu != 0;
	if (job_is_array_meta(job)
	    && !(r->array_task_str =
		     job_array_ranges(job->array_pending, job->array_pending_count)))
		return -ENOMEM;
	if ((d && d->name && !(r->name = strdup(d->name)))
	    || (job->user_name && !(r->user = strdup(job->user_name)))
	    || (d && d->account && !(r->account = strdup(d->account)))
	    || (d && d->qos && !(r->qos = strdup(d->qos)))
	    || (job->partition && !(r->partition = strdup(job->partition)))
	    || (job->nodes && is_alloc && !(r->nodes = strdup(job->nodes)))
	    || (d && d->work_dir && !(r->work_dir = strdup(d->work_dir)))
	    || (d && d->comment && !(r->comment = strdup(d->comment)))
	    || (d && d->reservation && !(r->resv_name = strdup(d->reservation))))
		return -ENOMEM;
	r->tres_req = job_res_tres_req(job);
	if (!r->tres_req)
		return -ENOMEM;
	if (job->start_time && is_alloc && !(r->tres_alloc = job_res_tres_alloc(job)))
		return -ENOMEM;
	return steps_fill(job, r);
}

int acct_rec_from_job(const struct ctld *c, const struct job *job, struct acct_job_rec *ret)
{
	int r;

	r = job_fill(c, job, ret);
	if (r < 0)
		acct_job_rec_done(ret);
	return r;
}

int acct_rec_requeued(const struct ctld *c, const struct job *job, time_t now,
		      struct acct_job_rec *ret)
{
	bool is_ended = job_has_ended(job);
	int r = acct_rec_from_job(c, job, ret);

	if (r < 0)
		return r;
	ret->state = (ret->state & JOB_STATE_BASE) | JOB_REQUEUE;
	ret->kill_requid = NO_VAL;
	if (is_ended)
		return 0;
	ret->end = now;
	for (uint32_t i = 0; i < ret->step_count; i++) {
		struct acct_step_rec *s = &ret->steps[i];

		if (s->step_id != SL_BATCH_STEP || s->state != JOB_RUNNING)
			continue;
		s->state = JOB_CANCELLED;
		s->end = now;
	}
	return 0;
}
