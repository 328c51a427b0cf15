/* job_launch.c - see job_launch.h. */
#include "job_launch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_array.h"
#include "job_end.h"
#include "node.h"

struct launch_arg {
	struct ctld *c;
	uint32_t job_id;
};

/* The submitted environment (f's) plus SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP
 * of the array (the stepd adds the job and task ids). NULL: use f's. */
static char **array_env(const struct ctld *c, const struct job *job, const struct job_files *f,
			uint32_t *ret_n)
{
	const struct job_desc *d = job->desc;
	uint32_t *ids = NULL, n = 0, throttle, step = 1;
	char **env;

	if (!job->array_job_id || !d->array_spec
	    || job_array_parse(d->array_spec, c->conf->max_array_size, &ids, &n, &throttle) < 0)
		return NULL;
	if (n > 1) {
		step = ids[1] - ids[0];
		for (uint32_t i = 2; i < n; i++)
			if (ids[i] - ids[i - 1] != step)
				step = 1;
	}
	env = calloc(f->env_count + 5, sizeof(*env));
	if (env) {
		memcpy(env, f->env, f->env_count * sizeof(*env));
		*ret_n = f->env_count;
		if (asprintf(&env[(*ret_n)++], "SLURM_ARRAY_TASK_COUNT=%u", n) < 0
		    || asprintf(&env[(*ret_n)++], "SLURM_ARRAY_TASK_MIN=%u", ids[0]) < 0
		    || asprintf(&env[(*ret_n)++], "SLURM_ARRAY_TASK_MAX=%u", ids[n - 1]) < 0
		    || asprintf(&env[(*ret_n)++], "SLURM_ARRAY_TASK_STEP=%u", step) < 0)
			env[--(*ret_n)] = NULL;
	}
	free(ids);
	return env;
}

/* The launch did not get through to the node or its answer back (slurmd
 * restarting, munged overloaded): the job may run again, as Slurm
 * requeues a batch job whose launch hit a communication error. */
static bool launch_may_retry(int rc)
{
	switch (-rc) {
	case ESLURMD_STEP_EXISTS: /* a stepd of an earlier run is still there */
	case SLURM_COMMUNICATIONS_CONNECTION_ERROR:
	case SLURM_COMMUNICATIONS_SEND_ERROR:
	case SLURM_COMMUNICATIONS_RECEIVE_ERROR:
	case SLURM_COMMUNICATIONS_SHUTDOWN_ERROR:
	case ESLURM_AUTH_NET_ERROR:
		return true;
	default:
		return false;
	}
}

/* A cancel (or time limit) that reached the node before its slurmstepd
 * was listening found "nothing of the job" (job_end.c): now that the
 * launch is answered, the stepd is there to be killed, or nothing runs. */
static void launch_kill_again(struct ctld *c, struct job *job, int rc)
{
	if (!job_is_running(job) || job_is_finished(job) || !(job->state & JOB_COMPLETING))
		return;
	if (rc == 0)
		job_end_resend_kill(c, job, job->alloc.nodes[0].node);
	else
		job_end_no_trace(c, job, "has no trace of the job (its launch failed)");
}

static void launch_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	struct launch_arg *a = arg;
	struct job *job = job_find(a->c, a->job_id);
	bool is_kill_deferred = false;

	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (job) {
		is_kill_deferred = job->is_kill_deferred;
		job->is_launching = job->is_kill_deferred = false;
	}
	if (job && is_kill_deferred)
		launch_kill_again(a->c, job, rc);
	if (job && rc < 0 && job_is_running(job) && !job_is_finished(job)
	    && !(job->state & JOB_COMPLETING)) {
		error("JobId=%u: launch on %s failed: %s", job->job_id, job->batch_host,
		      sl_strerror(rc));
		if (launch_may_retry(rc))
			job_end_launch_retry(a->c, job);
		else if (rc == -ESLURMD_PROLOG_FAILED)
			job_end_prolog_failed(a->c, job, job->alloc.nodes[0].node);
		else
			job_end_launch_failed(a->c, job);
	}
	free(a);
}

void job_launch(struct ctld *c, struct job *job)
{
	const struct job_desc *d = job->desc;
	const struct sel_alloc *first = &job->alloc.nodes[0];
	const struct node *bn = &c->nodes[first->node];
	struct batch_launch_msg m = {
		.job_id = job->job_id,
		.array_job_id = job->array_job_id ? job->array_job_id : NO_VAL,
		.array_task_id = job->array_job_id ? job->array_task_id : NO_VAL,
		.uid = job->uid,
		.gid = job->gid,
		.user_name = job->user_name,
		.gids = job->gids,
		.ngids = job->ngids,
		.job_name = d->name,
		.argv = d->argv,
		.argc = d->argc,
		.work_dir = d->work_dir,
		.std_in = d->std_in,
		.std_out = d->std_out,
		.std_err = d->std_err,
		.open_mode = d->open_mode,
		.nodes = job->nodes,
		.num_nodes = job->alloc.count,
		.num_tasks = d->num_tasks != NO_VAL ? job->num_tasks : NO_VAL,
		.cpus_per_task = d->cpus_per_task,
		.ntasks_per_node = d->ntasks_per_node,
		.cpus_on_node = first->cpus,
		.mem_per_node = job->mem_per_cpu ? 0 : first->mem,
		.mem_per_cpu = job->mem_per_cpu,
		.mem_limit = first->mem,
		.partition = job->partition,
		.account = d->account,
		.qos = d->qos,
		.cluster_name = c->conf->cluster_name,
		.submit_host = d->submit_host,
		.submit_dir = d->work_dir,
		.time_limit = job->time_limit,
		.start_time = job->start_time,
	};
	struct launch_arg *a = calloc(1, sizeof(*a));
	struct job_files f;
	uint32_t env_n = 0;
	char **env = NULL;
	int r;

	/* read back from StateSaveLocation: a damaged file fails the launch */
	r = job_files_load(job, &f);
	if (r < 0) {
		free(a);
		error("JobId=%u: its script or environment cannot be read: %s", job->job_id,
		      sl_strerror(r));
		job_end_launch_failed(c, job);
		return;
	}
	r = -ENOMEM;
	m.script = (char *)f.script; /* only read by the packer */
	m.env = (char **)f.env;
	m.env_count = f.env_count;
	env = array_env(c, job, &f, &env_n);
	if (env) {
		m.env = env;
		m.env_count = env_n;
	}
	m.cpus_per_node = select_counts_string(&job->alloc, false);
	m.tasks_per_node = select_counts_string(&job->alloc, true);
	m.gpus = select_gpu_list(first->gpus);
	if (a && m.cpus_per_node && m.tasks_per_node) {
		a->c = c;
		a->job_id = job->job_id;
		r = ctld_send_node(c, bn, REQUEST_BATCH_JOB_LAUNCH, &m, launch_done_cb, a);
		job->is_launching = r == 0;
	}
	free(m.cpus_per_node);
	free(m.tasks_per_node);
	free(m.gpus);
	for (uint32_t i = f.env_count; env && i < env_n; i++)
		free(env[i]); /* only ours: the rest are f's */
	free(env);
	job_files_done(&f);
	if (r < 0) {
		free(a);
		error("JobId=%u: cannot send the launch: %s", job->job_id, sl_strerror(r));
		job_end_launch_failed(c, job);
	}
}
