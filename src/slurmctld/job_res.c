/* job_res.c - see job_res.h. Node usage lives in struct node (cpus_used,
 * mem_used, gpus_used); the scheduler copies it for select_place().
 */
#include "job_res.h"

#include <string.h>
#include <time.h>

#include "common/msg.h"
#include "common/tres.h"
#include "ctld.h"
#include "job.h"
#include "license.h"
#include "node.h"

/* Charge (or give back) one node of the job's allocation. */
static void job_res_apply_node(struct ctld *c, const struct job *job, const struct sel_alloc *a,
			       bool is_release, time_t now)
{
	bool is_excl = (job->desc && (job->desc->flags & JOB_DESC_EXCLUSIVE)) || job->alloc.is_exclusive;
	bool is_shared = job->alloc.share >= 2; /* its cpus are shared ones (OverSubscribe) */
	bool is_user = job->desc && (job->desc->flags & JOB_DESC_EXCLUSIVE_USER);
	struct node *n = &c->nodes[a->node];

	if (is_release) {
		if (is_shared)
			n->cpus_shared -= a->cpus < n->cpus_shared ? a->cpus : n->cpus_shared;
		else
			n->cpus_used -= a->cpus < n->cpus_used ? a->cpus : n->cpus_used;
		n->mem_used -= a->mem < n->mem_used ? a->mem : n->mem_used;
		n->gpus_used &= ~a->gpus;
		n->is_exclusive_used = n->is_exclusive_used && !is_excl;
		n->excl_user_jobs -= is_user && n->excl_user_jobs;
		n->last_busy = now;
	} else {
		if (is_shared)
			n->cpus_shared += a->cpus;
		else
			n->cpus_used += a->cpus;
		n->mem_used += a->mem;
		n->gpus_used |= a->gpus;
		n->is_exclusive_used = n->is_exclusive_used || is_excl;
		if (is_user) { /* placement let only this user's jobs here */
			n->excl_user_jobs++;
			n->excl_user_uid = job->uid;
		}
	}
	node_update_alloc_state(n);
}

static void job_res_apply(struct ctld *c, struct job *job, bool is_release)
{
	bool is_user = job->desc && (job->desc->flags & JOB_DESC_EXCLUSIVE_USER);
	time_t now = time(NULL);

	if (is_user) {
		if (is_release)
			c->excl_user_jobs -= c->excl_user_jobs > 0;
		else
			c->excl_user_jobs++;
	}
	for (uint32_t i = 0; i < job->alloc.count; i++)
		job_res_apply_node(c, job, &job->alloc.nodes[i], is_release, now);
	license_job_apply(c, job, is_release);
	c->node_last_update = now;
}

void job_res_charge(struct ctld *c, struct job *job)
{
	c->alloc_gen++;
	job_res_apply(c, job, false);
}

void job_res_release(struct ctld *c, struct job *job)
{
	job_res_apply(c, job, true);
	ctld_sched_request(c);
}

void job_res_release_node(struct ctld *c, struct job *job, uint32_t k)
{
	struct sel_result *a = &job->alloc;
	time_t now = time(NULL);

	if (k >= a->count)
		return;
	job_res_apply_node(c, job, &a->nodes[k], true, now);
	a->total_cpus -= a->nodes[k].cpus < a->total_cpus ? a->nodes[k].cpus : a->total_cpus;
	memmove(&a->nodes[k], &a->nodes[k + 1], (a->count - k - 1) * sizeof(*a->nodes));
	a->count--;
	c->node_last_update = now;
	ctld_sched_request(c);
}

uint32_t job_res_req_cpus(const struct job *job)
{
	uint32_t cpus = job->num_tasks * job->cpus_per_task;

	return cpus < job->min_nodes ? job->min_nodes : cpus;
}

char *job_res_tres_req(const struct job *job)
{
	uint32_t cpus = job_res_req_cpus(job);
	struct tres t = {
	    .cpus = cpus,
	    .mem_mb =
		job->mem_per_cpu ? job->mem_per_cpu * cpus : job->mem_per_node * job->min_nodes,
	    .nodes = job->min_nodes,
	    .billing = cpus,
	    .gpus =
		job->gpus_total ? job->gpus_total : (uint64_t)job->gpus_per_node * job->min_nodes,
	};

	return tres_string(&t);
}

char *job_res_tres_alloc(const struct job *job)
{
	struct tres t = {
	    .cpus = job->alloc.total_cpus,
	    .nodes = job->alloc.count,
	    .billing = job->alloc.total_cpus,
	};

	if (!job->alloc.count)
		return NULL;
	for (uint32_t i = 0; i < job->alloc.count; i++) {
		t.mem_mb += job->alloc.nodes[i].mem;
		t.gpus += (uint64_t)__builtin_popcountll(job->alloc.nodes[i].gpus);
	}
	return tres_string(&t);
}
