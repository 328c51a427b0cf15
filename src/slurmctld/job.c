/* job.c - job records and the job table; see job.h. */
#include "job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_mem.h"
#include "acct.h"
#include "ctld.h"
#include "job_depend.h"
#include "step.h"

struct job *job_free(struct job *job)
{
	if (!job)
		return NULL;
	if (job->desc) {
		job_desc_done(job->desc);
		free(job->desc);
	}
	free(job->array_pending);
	job_depend_free(job->depend);
	free(job->user_name);
	free(job->gids);
	free(job->state_desc);
	free(job->partition);
	sel_result_done(&job->alloc);
	free(job->nodes);
	free(job->batch_host);
	step_job_free(job); /* step.c */
	free(job);
	return NULL;
}

struct job *job_find(struct ctld *c, uint32_t job_id)
{
	uint32_t lo = 0, hi = c->job_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->jobs[mid]->job_id == job_id)
			return c->jobs[mid];
		if (c->jobs[mid]->job_id < job_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int job_table_add(struct ctld *c, struct job *job)
{
	if (c->job_count && c->jobs[c->job_count - 1]->job_id >= job->job_id) {
		job_free(job);
		return -EINVAL; /* ids only grow */
	}
	if (c->job_count == c->job_cap) {
		uint32_t cap = c->job_cap ? c->job_cap * 2 : 64;
		struct job **jobs = realloc(c->jobs, cap * sizeof(*jobs));

		if (!jobs) {
			job_free(job);
			return -ENOMEM;
		}
		c->jobs = jobs;
		c->job_cap = cap;
	}
	c->jobs[c->job_count++] = job;
	return 0;
}

void job_table_free(struct ctld *c)
{
	for (uint32_t i = 0; i < c->job_count; i++)
		job_free(c->jobs[i]);
	free(c->jobs);
	c->jobs = NULL;
	c->job_count = c->job_cap = 0;
}

void job_table_purge(struct ctld *c, time_t now)
{
	uint32_t kept = 0;

	acct_retry_lost(c, now);
	if (!c->conf->min_job_age)
		return; /* MinJobAge=0: job records are never purged (slurm.conf(5)) */
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *j = c->jobs[i];

		/* acct.c: a job leaves memory only once its final row is on disk */
		if (job_is_finished(j) && !(j->state & JOB_COMPLETING)
		    && now - j->end_time >= (time_t)c->conf->min_job_age
		    && acct_seq_is_written(c, j->acct_seq)) {
			job_free(j);
			c->job_last_update = now;
			continue;
		}
		c->jobs[kept++] = j;
	}
	c->job_count = kept;
}

bool job_is_visible(const struct ctld *c, const struct job *job, uid_t uid)
{
	return job->uid == uid || !(c->conf->private_data_flags & PRIVATE_DATA_JOBS)
	       || ctld_is_admin(c, uid);
}

bool job_is_pending(const struct job *job)
{
	/* a requeued job still completing on its node is not schedulable yet */
	return (job->state & JOB_STATE_BASE) == JOB_PENDING && !(job->state & JOB_COMPLETING);
}

bool job_is_running(const struct job *job)
{
	return (job->state & JOB_STATE_BASE) == JOB_RUNNING || (job->state & JOB_COMPLETING);
}

bool job_is_finished(const struct job *job)
{
	return (job->state & JOB_STATE_BASE) > JOB_SUSPENDED;
}

static char *tres_string(uint32_t cpus, uint64_t mem, uint32_t nodes, uint64_t gpus)
{
	char m[32], *s = NULL;
	int n;

	mem_mb2str(mem, m, sizeof(m));
	if (gpus)
		n = asprintf(&s, "cpu=%u,mem=%s,node=%u,billing=%u,gres/gpu=%llu", cpus, m, nodes,
			     cpus, (unsigned long long)gpus);
	else
		n = asprintf(&s, "cpu=%u,mem=%s,node=%u,billing=%u", cpus, m, nodes, cpus);
	return n < 0 ? NULL : s;
}

/* CPUs asked for: tasks x cpus per task, at least one per node. */
static uint32_t job_req_cpus(const struct job *job)
{
	uint32_t cpus = job->num_tasks * job->cpus_per_task;

	return cpus < job->min_nodes ? job->min_nodes : cpus;
}

char *job_tres_req(const struct job *job)
{
	uint32_t cpus = job_req_cpus(job);
	uint64_t mem = job->mem_per_cpu ? job->mem_per_cpu * cpus
					: job->mem_per_node * job->min_nodes;
	uint64_t gpus = job->gpus_total ? job->gpus_total
					: (uint64_t)job->gpus_per_node * job->min_nodes;

	return tres_string(cpus, mem, job->min_nodes, gpus);
}

char *job_tres_alloc(const struct job *job)
{
	uint64_t mem = 0, gpus = 0;

	if (!job->alloc.count)
		return NULL;
	for (uint32_t i = 0; i < job->alloc.count; i++) {
		mem += job->alloc.nodes[i].mem;
		gpus += (uint64_t)__builtin_popcountll(job->alloc.nodes[i].gpus);
	}
	return tres_string(job->alloc.total_cpus, mem, job->alloc.count, gpus);
}
