/* step_layout.c - see step_layout.h. */
#include "step_layout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macros.h"

static bool is_given32(uint32_t v)
{
	return v != NO_VAL && v != 0;
}

static bool is_given16(uint16_t v)
{
	return v != NO_VAL16 && v != 0;
}

static bool is_given64(uint64_t v)
{
	return v != NO_VAL64 && v != 0;
}

static uint16_t req_cpt(const struct step_layout_req *req)
{
	return is_given16(req->cpus_per_task) ? req->cpus_per_task : 1;
}

/* GPUs of the job on node a the step may take (now: not held by others). */
static uint64_t gpus_free(const struct step_avail *a, const struct step_layout_req *req,
			  bool is_now)
{
	return is_now && !req->is_overlap ? a->gpus & ~a->gpus_held : a->gpus;
}

/* How many tasks node a can hold for req, now or once every other step
 * has ended. */
static uint32_t node_cap(const struct step_avail *a, const struct step_layout_req *req, bool is_now)
{
	uint32_t cpus = a->cpus, cap;
	uint16_t cpt = req_cpt(req);

	if (a->is_excluded)
		return 0;
	if (is_now && !req->is_overlap)
		cpus = a->cpus_held >= a->cpus ? 0 : a->cpus - a->cpus_held;
	if (req->gpu_mode == STEP_GPUS_COUNT
	    && (uint32_t)__builtin_popcountll(gpus_free(a, req, is_now)) < req->gpus_per_node)
		return 0;
	cap = cpus / cpt;
	if (req->gpu_mode == STEP_GPUS_PER_TASK && req->gpus_per_task) {
		uint32_t by_gpus =
		    (uint32_t)__builtin_popcountll(gpus_free(a, req, is_now)) / req->gpus_per_task;

		if (by_gpus < cap)
			cap = by_gpus;
	}
	if (is_given16(req->ntasks_per_node) && cap > req->ntasks_per_node)
		cap = req->ntasks_per_node;
	if (a->mem && is_given64(req->mem_per_node) && req->mem_per_node > a->mem)
		return 0;
	if (a->mem && is_given64(req->mem_per_cpu)) {
		uint64_t by_mem = a->mem / req->mem_per_cpu / cpt; /* no overflow */

		if (by_mem < cap)
			cap = (uint32_t)by_mem;
	}
	return cap;
}

struct range {
	uint32_t lo, hi; /* node count */
	bool has_tasks;	 /* -n given */
};

/* The node count range; 0 or -ERANGE / -EINVAL. */
static int node_range(const struct step_avail *nodes, uint32_t n, const struct step_layout_req *req,
		      struct range *ret)
{
	uint32_t avail = 0, nreq = 0;
	struct range r = {.has_tasks = req->num_tasks != NO_VAL};

	if (req->num_tasks == 0)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		if (nodes[i].is_required && nodes[i].is_excluded)
			return -ENOSPC;
		avail += !nodes[i].is_excluded;
		nreq += nodes[i].is_required;
	}
	if (is_given32(req->min_nodes)) {
		r.lo = req->min_nodes;
		r.hi = is_given32(req->max_nodes) ? req->max_nodes : avail;
		if (r.hi < r.lo)
			return -ERANGE;
	} else if (r.has_tasks) {
		r.lo = 1;
		r.hi = is_given32(req->max_nodes) ? req->max_nodes : avail;
	} else {
		r.lo = r.hi = nreq ? nreq : avail; /* -w alone: those nodes */
	}
	if (r.lo < nreq)
		r.lo = nreq;
	if (r.hi > avail)
		r.hi = avail;
	if (r.lo > avail || r.hi < r.lo || r.lo == 0)
		return -ERANGE;
	if (r.has_tasks) {
		if (req->num_tasks < r.lo)
			return -EINVAL;
		if (r.hi > req->num_tasks)
			r.hi = req->num_tasks;
	}
	*ret = r;
	return 0;
}

/* Task ids dealt to a node in one round: a plane, or one. */
static uint32_t deal_chunk(const struct step_layout_req *req)
{
	return req->dist == TASK_DIST_PLANE && req->plane_size ? req->plane_size : 1;
}

/* Choose nodes with caps cap[]: required ones, then in job order until
 * the count and the tasks are met. Fills tasks[] (0: not chosen) and
 * returns the task count, or 0 when it does not fit. */
static uint32_t choose(const struct step_avail *nodes, uint32_t n,
		       const struct step_layout_req *req, const struct range *r,
		       const uint32_t *cap, uint32_t *tasks)
{
	uint32_t count = 0, capsum = 0, num_tasks, dealt = 0;
	uint32_t per_node = is_given16(req->ntasks_per_node) ? req->ntasks_per_node : 1;
	bool *is_chosen = calloc(n ? n : 1, sizeof(*is_chosen));

	if (!is_chosen)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!nodes[i].is_required)
			continue;
		if (!cap[i])
			goto fail;
		is_chosen[i] = true;
		count++;
		capsum += cap[i];
	}
	for (uint32_t i = 0; i < n && count < r->hi; i++) {
		if (count >= r->lo && (!r->has_tasks || capsum >= req->num_tasks))
			break;
		if (is_chosen[i] || !cap[i])
			continue;
		is_chosen[i] = true;
		count++;
		capsum += cap[i];
	}
	if (count < r->lo)
		goto fail;
	num_tasks = r->has_tasks ? req->num_tasks : count * per_node;
	if (capsum < num_tasks)
		goto fail;
	memset(tasks, 0, n * sizeof(*tasks));
	/* Slurm's layouts: deal counts round-robin up to each node's cap, one
	 * task a round (block, cyclic) or a plane of them; capsum >= num_tasks,
	 * so every round deals some */
	while (dealt < num_tasks)
		for (uint32_t i = 0; i < n && dealt < num_tasks; i++) {
			uint32_t take = deal_chunk(req);

			if (!is_chosen[i] || tasks[i] >= cap[i])
				continue;
			if (take > cap[i] - tasks[i])
				take = cap[i] - tasks[i];
			if (take > num_tasks - dealt)
				take = num_tasks - dealt;
			tasks[i] += take;
			dealt += take;
		}
	free(is_chosen);
	return num_tasks;
fail:
	free(is_chosen);
	return 0;
}

static uint64_t pick_gpus(uint64_t free_mask, uint16_t count)
{
	uint64_t out = 0;

	for (int b = 0; b < 64 && count; b++)
		if (free_mask & (1ull << b)) {
			out |= 1ull << b;
			count--;
		}
	return out;
}

/* --gpus=N: are there N GPUs (free now, or ever) on the nodes that got
 * tasks? */
static bool total_fits(const struct step_avail *nodes, uint32_t n,
		       const struct step_layout_req *req, const uint32_t *tasks, bool is_now)
{
	uint32_t have = 0;

	for (uint32_t i = 0; i < n; i++)
		if (tasks[i])
			have += (uint32_t)__builtin_popcountll(gpus_free(&nodes[i], req, is_now));
	return have >= req->gpus_total;
}

/* --gpus=N: one GPU a round to each step node that has one free left,
 * in job order, until N are given (total_fits said there are). */
static void deal_gpus(const struct step_avail *nodes, const struct step_layout_req *req,
		      struct step_layout *l)
{
	uint32_t left = req->gpus_total;
	bool any = true;

	while (left && any) {
		any = false;
		for (uint32_t k = 0; k < l->count && left; k++) {
			struct step_place *p = &l->nodes[k];
			uint64_t free_mask = gpus_free(&nodes[p->job_node], req, true) & ~p->gpus;

			if (!free_mask)
				continue;
			p->gpus |= pick_gpus(free_mask, 1);
			left--;
			any = true;
		}
	}
}

static int fill(const struct step_avail *nodes, uint32_t n, const struct step_layout_req *req,
		const uint32_t *tasks, uint32_t num_tasks, struct step_layout *ret)
{
	struct step_layout l = {.num_tasks = num_tasks};
	uint16_t cpt = req_cpt(req);

	for (uint32_t i = 0; i < n; i++)
		l.count += tasks[i] > 0;
	l.nodes = calloc(l.count, sizeof(*l.nodes));
	if (!l.nodes)
		return -ENOMEM;
	for (uint32_t i = 0, k = 0; i < n; i++) {
		struct step_place *p = &l.nodes[k];

		if (!tasks[i])
			continue;
		p->job_node = i;
		p->tasks = tasks[i];
		p->cpus = (uint16_t)(tasks[i] * cpt);
		if (is_given64(req->mem_per_node))
			p->mem = req->mem_per_node;
		else if (is_given64(req->mem_per_cpu))
			p->mem = req->mem_per_cpu * p->cpus;
		else
			p->mem = nodes[i].mem;
		if (req->gpu_mode == STEP_GPUS_ALL)
			p->gpus = nodes[i].gpus;
		else if (req->gpu_mode == STEP_GPUS_COUNT)
			p->gpus = pick_gpus(gpus_free(&nodes[i], req, true), req->gpus_per_node);
		else if (req->gpu_mode == STEP_GPUS_PER_TASK)
			p->gpus = pick_gpus(gpus_free(&nodes[i], req, true),
					    (uint16_t)(tasks[i] * req->gpus_per_task));
		l.num_cpus += p->cpus;
		k++;
	}
	if (req->gpu_mode == STEP_GPUS_TOTAL)
		deal_gpus(nodes, req, &l);
	*ret = l;
	return 0;
}

/* l->node_of from the placed counts: node by node (block), or dealt
 * round-robin as choose() dealt the counts (cyclic, plane). */
static int number(struct step_layout *l, const struct step_layout_req *req)
{
	uint32_t chunk = deal_chunk(req), t = 0;
	_cleanup_free_ uint32_t *have = calloc(l->count ? l->count : 1, sizeof(*have));

	l->node_of = calloc(l->num_tasks ? l->num_tasks : 1, sizeof(*l->node_of));
	if (!have || !l->node_of)
		return -ENOMEM;
	if (req->dist != TASK_DIST_CYCLIC && req->dist != TASK_DIST_PLANE) {
		for (uint32_t k = 0; k < l->count; k++)
			for (uint32_t i = 0; i < l->nodes[k].tasks; i++)
				l->node_of[t++] = k;
		return 0;
	}
	while (t < l->num_tasks)
		for (uint32_t k = 0; k < l->count; k++)
			for (uint32_t i = 0; i < chunk && have[k] < l->nodes[k].tasks; i++) {
				have[k]++;
				l->node_of[t++] = k;
			}
	return 0;
}

/* -m arbitrary: task i on job node req->arb_node[i]. */
static int place_arbitrary(const struct step_avail *nodes, uint32_t n,
			   const struct step_layout_req *req, struct step_layout *ret)
{
	_cleanup_free_ uint32_t *tasks = calloc(n ? n : 1, sizeof(*tasks));
	_cleanup_free_ uint32_t *step_of = calloc(n ? n : 1, sizeof(*step_of));
	uint32_t count = 0;
	int rc = 0;

	if (!tasks || !step_of)
		return -ENOMEM;
	if (!req->arb_node || !is_given32(req->num_tasks))
		return -EINVAL;
	for (uint32_t t = 0; t < req->num_tasks; t++) {
		if (req->arb_node[t] >= n)
			return -ENOSPC;
		count += !tasks[req->arb_node[t]]++;
	}
	if (is_given32(req->min_nodes)
	    && (count < req->min_nodes || (is_given32(req->max_nodes) && count > req->max_nodes)))
		return -ERANGE;
	for (uint32_t i = 0; i < n; i++) {
		if (!tasks[i])
			continue;
		if (nodes[i].is_excluded || tasks[i] > node_cap(&nodes[i], req, false))
			return -ENOSPC;
		if (tasks[i] > node_cap(&nodes[i], req, true))
			rc = -EAGAIN;
	}
	if (req->gpu_mode == STEP_GPUS_TOTAL && !total_fits(nodes, n, req, tasks, false))
		return -ENOSPC;
	if (rc == 0 && req->gpu_mode == STEP_GPUS_TOTAL && !total_fits(nodes, n, req, tasks, true))
		rc = -EAGAIN;
	if (rc == 0)
		rc = fill(nodes, n, req, tasks, req->num_tasks, ret);
	if (rc < 0)
		return rc;
	for (uint32_t k = 0; k < ret->count; k++)
		step_of[ret->nodes[k].job_node] = k;
	ret->node_of = calloc(req->num_tasks, sizeof(*ret->node_of));
	if (!ret->node_of) {
		step_layout_done(ret);
		return -ENOMEM;
	}
	for (uint32_t t = 0; t < req->num_tasks; t++)
		ret->node_of[t] = step_of[req->arb_node[t]];
	return 0;
}

int step_layout_place(const struct step_avail *nodes, uint32_t n, const struct step_layout_req *req,
		      struct step_layout *ret)
{
	struct range r;
	uint32_t *cap = NULL, *tasks = NULL, num_tasks;
	int rc;

	if (req->dist == TASK_DIST_ARBITRARY)
		return place_arbitrary(nodes, n, req, ret);
	rc = node_range(nodes, n, req, &r);
	if (rc < 0)
		return rc;
	cap = calloc(n, sizeof(*cap));
	tasks = calloc(n, sizeof(*tasks));
	rc = -ENOMEM;
	if (!cap || !tasks)
		goto out;
	/* ever: with no other step running */
	for (uint32_t i = 0; i < n; i++)
		cap[i] = node_cap(&nodes[i], req, false);
	rc = -ENOSPC;
	if (!choose(nodes, n, req, &r, cap, tasks)
	    || (req->gpu_mode == STEP_GPUS_TOTAL && !total_fits(nodes, n, req, tasks, false)))
		goto out;
	for (uint32_t i = 0; i < n; i++)
		cap[i] = node_cap(&nodes[i], req, true);
	rc = -EAGAIN;
	num_tasks = choose(nodes, n, req, &r, cap, tasks);
	if (!num_tasks
	    || (req->gpu_mode == STEP_GPUS_TOTAL && !total_fits(nodes, n, req, tasks, true)))
		goto out;
	rc = fill(nodes, n, req, tasks, num_tasks, ret);
	if (rc == 0 && number(ret, req) < 0) {
		step_layout_done(ret);
		rc = -ENOMEM;
	}
out:
	free(cap);
	free(tasks);
	return rc;
}

void step_layout_done(struct step_layout *l)
{
	if (!l)
		return;
	free(l->nodes);
	free(l->node_of);
	*l = (struct step_layout){0};
}
