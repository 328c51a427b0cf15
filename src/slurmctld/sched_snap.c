/* sched_snap.c - see sched_snap.h. */
#include "sched_snap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/macros.h"
#include "common/msg.h"
#include "ctld.h"
#include "job.h"
#include "job_place.h"
#include "node.h"
#include "part.h"
#include "resv.h"
#include "resv_mask.h"

static int runs_take(struct ctld *c, struct sched_snap *s)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < c->job_count; i++)
		n += job_is_running(c->jobs[i]) && c->jobs[i]->alloc.count;
	s->runs = calloc(n + 1, sizeof(*s->runs));
	s->run_allocs = calloc(n + 1, sizeof(*s->run_allocs));
	if (!s->runs || !s->run_allocs)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->job_count; i++) {
		const struct job *job = c->jobs[i];
		struct sel_result *a = &s->run_allocs[s->run_count];

		if (!job_is_running(job) || !job->alloc.count)
			continue;
		a->nodes = malloc(job->alloc.count * sizeof(*a->nodes));
		if (!a->nodes)
			return -ENOMEM;
		memcpy(a->nodes, job->alloc.nodes, job->alloc.count * sizeof(*a->nodes));
		a->count = job->alloc.count;
		a->total_cpus = job->alloc.total_cpus;
		s->runs[s->run_count++] = (struct bf_run){
		    .job_id = job->job_id,
		    .end = job->time_limit == INFINITE ? 0 : job->end_time,
		    .alloc = a,
		    .is_exclusive = job->desc && (job->desc->flags & JOB_DESC_EXCLUSIVE),
		};
	}
	return 0;
}

/* The reservations as windows the plan leaves alone. */
static int blocks_take(const struct ctld *c, struct sched_snap *s)
{
	uint32_t total = 0, at = 0;

	for (uint32_t i = 0; i < c->resv_count; i++)
		total += c->resvs[i].node_count;
	s->blocks = calloc(c->resv_count + 1, sizeof(*s->blocks));
	s->block_nodes = calloc(total + 1, sizeof(*s->block_nodes));
	if (!s->blocks || !s->block_nodes)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->resv_count; i++) {
		const struct resv *r = &c->resvs[i];

		memcpy(s->block_nodes + at, r->node_idx, r->node_count * sizeof(uint32_t));
		s->blocks[i] = (struct bf_block){.start = r->start,
						 .end = r->end,
						 .nodes = s->block_nodes + at,
						 .node_count = r->node_count};
		at += r->node_count;
	}
	s->params.blocks = s->blocks;
	s->params.block_count = c->resv_count;
	return 0;
}

static int parts_take(struct ctld *c, struct sched_snap *s)
{
	uint32_t nc = c->node_count;

	s->part_usable = calloc((size_t)c->part_count * nc + 1, sizeof(bool));
	if (!s->part_usable)
		return -ENOMEM;
	for (uint32_t p = 0; p < c->part_count; p++)
		for (uint32_t k = 0; k < c->parts[p].node_count; k++)
			s->part_usable[(size_t)p * nc + c->parts[p].node_idx[k]] = true;
	return 0;
}

static int job_take(struct ctld *c, struct sched_snap *s, struct job *job)
{
	struct part *p = part_find(c, job->partition);
	struct bf_job *j = &s->jobs[s->job_count];
	const struct resv *own = resv_mask_job_resv(c, job);
	bool *req = NULL, *exc = NULL;
	struct sel_feat *feat = NULL;
	int r;

	/* a reservation's jobs start in its window, by the main pass; a FLEX
	 * one's may start anywhere, its own window open to them */
	if (!p
	    || (job->desc && job->desc->reservation && *job->desc->reservation
		&& (!own || !(own->flags & RESV_FLAG_FLEX))))
		return 0;
	r = job_place_request(c, job, p, false, false, &j->req, &req, &exc, &feat);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0;
	j->req.order = s->order;
	s->flags[s->flag_count++] = req;
	s->flags[s->flag_count++] = exc;
	s->flags[s->flag_count++] = feat;
	j->job_id = job->job_id;
	j->user = job->uid;
	j->own = own ? &s->blocks[own - c->resvs] : NULL; /* blocks_take: one per reservation */
	j->is_usable = &s->part_usable[(size_t)(p - c->parts) * c->node_count];
	j->limit =
	    job->time_limit == INFINITE || job->time_limit == NO_VAL ? 0 : job->time_limit * 60;
	s->job_count++;
	return 0;
}

int sched_snap_take(struct ctld *c, struct job *const *pending, uint32_t n, time_t now,
		    struct sched_snap **ret)
{
	const struct sl_conf *cf = c->conf;
	struct sched_snap *s = calloc(1, sizeof(*s));
	int r = -ENOMEM;

	if (!s)
		return -ENOMEM;
	s->params = (struct bf_params){
	    .now = now,
	    .window = cf->bf_window * 60,
	    .resolution = cf->bf_resolution ? cf->bf_resolution : 60,
	    .max_job_test = cf->bf_max_job_test,
	    .max_job_user = cf->bf_max_job_user,
	    .is_busy_nodes = cf->bf_busy_nodes,
	};
	s->alloc_gen = c->alloc_gen;
	s->nodes_id = c->nodes;
	s->node_count = c->node_count;
	if (c->node_order) {
		s->order = malloc(c->node_count * sizeof(*s->order) + 1);
		if (!s->order)
			goto fail;
		memcpy(s->order, c->node_order, c->node_count * sizeof(*s->order));
	}
	s->jobs = calloc(n + 1, sizeof(*s->jobs));
	s->flags = calloc(3 * (size_t)n + 1, sizeof(*s->flags));
	if (!s->jobs || !s->flags || !(s->nodes = job_place_nodes(c, NULL, false))
	    || runs_take(c, s) < 0 || parts_take(c, s) < 0 || blocks_take(c, s) < 0)
		goto fail;
	for (uint32_t i = 0; i < c->node_count; i++)
		s->nodes[i].is_usable = job_place_node_usable(&c->nodes[i]);
	/* only what the planner will test (its per-user cap needs them all) */
	for (uint32_t i = 0; i < n; i++) {
		if (cf->bf_max_job_test && !cf->bf_max_job_user
		    && s->job_count >= cf->bf_max_job_test)
			break;
		if (job_take(c, s, pending[i]) < 0)
			goto fail;
	}
	*ret = s;
	return 0;
fail:
	sched_snap_free(s);
	return r;
}

struct sched_snap *sched_snap_free(struct sched_snap *s)
{
	if (!s)
		return NULL;
	bf_jobs_done(s->jobs, s->job_count);
	for (uint32_t i = 0; i < s->run_count; i++)
		free(s->run_allocs[i].nodes);
	for (uint32_t i = 0; i < s->flag_count; i++)
		free(s->flags[i]);
	free(s->flags);
	free(s->runs);
	free(s->run_allocs);
	free(s->jobs);
	free(s->part_usable);
	free(s->blocks);
	free(s->block_nodes);
	free(s->order);
	free(s->nodes);
	free(s);
	return NULL;
}
