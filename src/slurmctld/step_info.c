/* step_info.c - the step list of squeue -s and scontrol show step; see
 * step_info.h.
 */
#include "step_info.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/tres.h"
#include "ctld.h"
#include "job.h"
#include "step_rec.h"

#define SHOW_ALL 0x0001

static void info_common(const struct job *job, struct step_info *o)
{
	o->job_id = job->job_id;
	o->array_job_id = job->array_job_id;
	o->array_task_id = job->array_job_id ? job->array_task_id : NO_VAL;
	o->partition = sdup(job->partition);
	o->user_id = job->uid;
	o->user_name = sdup(job->user_name);
}

static int info_fill(const struct job *job, const struct step *s, struct step_info *o)
{
	uint64_t mem = 0;
	uint32_t gpus = 0;

	for (uint32_t i = 0; i < s->node_count; i++) {
		mem += s->nodes[i].mem;
		gpus += (uint32_t)__builtin_popcountll(s->nodes[i].gpus);
	}
	info_common(job, o);
	o->step_id = s->step_id;
	o->name = sdup(s->name);
	o->nodes = sdup(s->nodes_str);
	o->tres_alloc_str = tres_string(&(struct tres){
	    .cpus = s->num_cpus, .mem_mb = mem, .nodes = s->node_count, .gpus = gpus});
	o->srun_host = sdup(s->srun_host);
	o->srun_pid = s->srun_pid;
	o->state = s->state;
	o->start_time = s->start_time;
	o->time_limit = s->time_limit;
	o->num_nodes = s->node_count;
	o->num_cpus = s->num_cpus;
	o->num_tasks = s->num_tasks;
	o->exit_code = s->exit_code;
	return o->name && o->tres_alloc_str ? 0 : -ENOMEM;
}

static int info_fill_batch(const struct job *job, struct step_info *o)
{
	const struct sel_alloc *a = &job->alloc.nodes[0];

	info_common(job, o);
	o->step_id = SL_BATCH_STEP;
	o->name = strdup("batch");
	o->nodes = sdup(job->batch_host);
	o->tres_alloc_str = tres_string(&(struct tres){
	    .cpus = a->cpus, .mem_mb = a->mem, .nodes = 1, .gpus = __builtin_popcountll(a->gpus)});
	o->state = JOB_RUNNING;
	o->start_time = job->start_time;
	o->time_limit = INFINITE;
	o->num_nodes = 1;
	o->num_cpus = a->cpus;
	o->num_tasks = 1;
	return o->name && o->tres_alloc_str ? 0 : -ENOMEM;
}

/* One job's steps matching m, in step id order (batch last: its id is
 * the highest). */
static int info_job(const struct job *job, const struct step_info_req *m, struct step_info_msg *r)
{
	bool is_all = m->show_flags & SHOW_ALL;
	int rc = 0;

	for (uint32_t i = 0; i < job->step_count && rc == 0; i++) {
		const struct step *s = &job->steps[i];

		if ((m->step_id != NO_VAL && s->step_id != m->step_id)
		    || (!is_all && !step_is_running(s)))
			continue;
		rc = info_fill(job, s, &r->steps[r->count++]);
	}
	if (rc == 0 && job_is_batch_running(job)
	    && (m->step_id == NO_VAL || m->step_id == SL_BATCH_STEP))
		rc = info_fill_batch(job, &r->steps[r->count++]);
	return rc;
}

int step_info_list(struct ctld *c, const struct step_info_req *m, uid_t uid,
		   struct step_info_msg *resp)
{
	size_t cap = 0;
	int r = 0;

	*resp = (struct step_info_msg){.last_update = c->job_last_update};
	if (m->last_update && m->last_update >= c->job_last_update)
		return -SLURM_NO_CHANGE_IN_DATA;
	for (uint32_t i = 0; i < c->job_count; i++)
		if (m->job_id == NO_VAL || c->jobs[i]->job_id == m->job_id)
			cap += c->jobs[i]->step_count + 1;
	resp->steps = calloc(cap ? cap : 1, sizeof(*resp->steps));
	if (!resp->steps)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->job_count && r == 0; i++)
		if ((m->job_id == NO_VAL || c->jobs[i]->job_id == m->job_id)
		    && job_is_visible(c, c->jobs[i], uid))
			r = info_job(c->jobs[i], m, resp);
	return r;
}

void step_info_msg_done(struct step_info_msg *resp)
{
	for (uint32_t i = 0; i < resp->count; i++)
		step_info_done(&resp->steps[i]);
	free(resp->steps);
	resp->steps = NULL;
	resp->count = 0;
}
