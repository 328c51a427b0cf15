/* step_rpc.c - scancel JOB.STEP (REQUEST_CANCEL_JOB_STEP) and the step
 * list for squeue -s / scontrol show step (REQUEST_JOB_STEP_INFO).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_mem.h"
#include "common/rpc_async.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "node.h"
#include "rpc.h"
#include "step.h"

static char *sdup(const char *s)
{
	return s ? strdup(s) : NULL;
}
#define SHOW_ALL 0x0001

/* ---- REQUEST_CANCEL_JOB_STEP ---- */

static void batch_signal_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	uint32_t job_id = (uint32_t)(uintptr_t)arg;

	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc < 0)
		debug("JobId=%u: batch step signal: %s", job_id, sl_strerror(rc));
}

/* scancel -b / JOB.batch: the batch script's processes on the batch host. */
static int batch_signal(struct ctld *c, struct job *job, uint16_t sig)
{
	struct signal_job_msg m = {.job_id = job->job_id, .step_id = SL_BATCH_STEP, .signal = sig};
	const struct node *n;

	if (!job->desc || !job->desc->script || !job->alloc.count)
		return -ESLURM_INVALID_JOB_ID;
	n = &c->nodes[job->alloc.nodes[0].node];
	return rpc_async_call(c->base, c->conf->munge_socket, n->cfg->node_addr, n->cfg->port,
			      sig == SIGKILL ? REQUEST_TERMINATE_JOB : REQUEST_SIGNAL_TASKS, &m,
			      c->conf->slurm_user_id, c->conf->message_timeout,
			      batch_signal_done_cb, (void *)(uintptr_t)job->job_id);
}

static void step_signal(struct ctld *c, struct job *job, struct step *s, uint16_t sig, uid_t by)
{
	if (sig != SIGKILL) {
		info("Signal %u of StepId=%u.%u by uid %u", sig, job->job_id, s->step_id,
		     (unsigned)by);
		step_send_nodes(c, job, s, REQUEST_SIGNAL_TASKS, sig);
		return;
	}
	info("Cancel of StepId=%u.%u by uid %u", job->job_id, s->step_id, (unsigned)by);
	s->is_cancelled = true;
	s->kill_requid = (uint32_t)by; /* sacct: CANCELLED by <uid> */
	c->job_last_update = time(NULL);
	step_send_nodes(c, job, s, REQUEST_TERMINATE_JOB, SIGKILL);
	step_notify_srun(c, job, s, SRUN_END_CANCELLED);
}

static int step_cancel(struct ctld *c, const struct step_signal_msg *m, uid_t uid)
{
	struct job *job = job_find(c, m->job_id);
	uint16_t sig = m->signal ? m->signal : SIGKILL;
	struct step *s;

	if (!job)
		return -ESLURM_INVALID_JOB_ID;
	if (uid != job->uid && !ctld_is_admin(c, uid)) {
		error("Security violation, REQUEST_CANCEL_JOB_STEP for StepId=%u.%u from uid=%u",
		      m->job_id, m->step_id, (unsigned)uid);
		return -ESLURM_ACCESS_DENIED;
	}
	if (job_is_pending(job))
		return -ESLURM_JOB_PENDING;
	if (m->step_id == SL_BATCH_STEP) {
		if (job_is_finished(job) || (job->state & JOB_COMPLETING))
			return -ESLURM_ALREADY_DONE;
		return batch_signal(c, job, sig);
	}
	if (m->step_id == SL_ALL_STEPS) {
		for (uint32_t i = 0; i < job->step_count; i++)
			if (step_is_running(&job->steps[i]))
				step_signal(c, job, &job->steps[i], sig, uid);
		return 0;
	}
	s = step_find(job, m->step_id);
	if (!s)
		return -ESLURM_INVALID_JOB_ID;
	if (!step_is_running(s))
		return -ESLURM_ALREADY_DONE;
	step_signal(c, job, s, sig, uid);
	return 0;
}

int rpc_step_cancel(struct ctld *c, struct rpc_req *req)
{
	int r = step_cancel(c, req->body, req->uid);

	if (r < 0)
		return r;
	rpc_reply_rc(req, 0);
	return 0;
}

/* ---- REQUEST_JOB_STEP_INFO ---- */

static char *tres_string(uint32_t cpus, uint64_t mem, uint32_t nodes, uint32_t gpus)
{
	char m[32] = "", g[32] = "", *s = NULL;

	if (mem) {
		strcpy(m, ",mem=");
		mem_mb2str(mem, m + 5, sizeof(m) - 5);
	}
	if (gpus)
		snprintf(g, sizeof(g), ",gres/gpu=%u", gpus);
	if (asprintf(&s, "cpu=%u%s,node=%u%s", cpus, m, nodes, g) < 0)
		return NULL;
	return s;
}

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
	o->tres_alloc_str = tres_string(s->num_cpus, mem, s->node_count, gpus);
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

static bool has_batch_step(const struct job *job)
{
	return job->desc && job->desc->script && job->alloc.count && job->batch_host
	       && (job->state & JOB_STATE_BASE) == JOB_RUNNING;
}

static int info_fill_batch(const struct job *job, struct step_info *o)
{
	const struct sel_alloc *a = &job->alloc.nodes[0];

	info_common(job, o);
	o->step_id = SL_BATCH_STEP;
	o->name = strdup("batch");
	o->nodes = sdup(job->batch_host);
	o->tres_alloc_str =
	    tres_string(a->cpus, a->mem, 1, (uint32_t)__builtin_popcountll(a->gpus));
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
	if (rc == 0 && has_batch_step(job) && (m->step_id == NO_VAL || m->step_id == SL_BATCH_STEP))
		rc = info_fill_batch(job, &r->steps[r->count++]);
	return rc;
}

int rpc_step_info(struct ctld *c, struct rpc_req *req)
{
	const struct step_info_req *m = req->body;
	struct step_info_msg resp = {.last_update = c->job_last_update};
	size_t cap = 0;
	int r = 0;

	if (m->last_update && m->last_update >= c->job_last_update)
		return -SLURM_NO_CHANGE_IN_DATA;
	for (uint32_t i = 0; i < c->job_count; i++)
		if (m->job_id == NO_VAL || c->jobs[i]->job_id == m->job_id)
			cap += c->jobs[i]->step_count + 1;
	resp.steps = calloc(cap ? cap : 1, sizeof(*resp.steps));
	if (!resp.steps)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->job_count && r == 0; i++)
		if ((m->job_id == NO_VAL || c->jobs[i]->job_id == m->job_id)
		    && job_is_visible(c, c->jobs[i], req->uid))
			r = info_job(c->jobs[i], m, &resp);
	if (r == 0)
		rpc_reply(req, RESPONSE_JOB_STEP_INFO, &resp);
	for (uint32_t i = 0; i < resp.count; i++)
		step_info_done(&resp.steps[i]);
	free(resp.steps);
	return r;
}
