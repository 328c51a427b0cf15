/* select.c - see select.h: select/cons_tres placement, CR_Core_Memory.
 *
 * Purpose: decide on which nodes a job runs and what it gets there, with
 * no I/O and no controller state, so every rule is unit-tested.
 * Input: the node array (description + current use) and one request.
 * Action: each node gets a capacity (tasks it can host now: whole free
 * cores, free memory, free GPUs); nodes are taken in index order until the
 * node count, the tasks and the GPUs are met; then tasks are spread in
 * blocks (one on every chosen node first, the rest filling nodes in order)
 * and cpus, memory and GPU indexes are handed out per node.
 * -EAGAIN versus -ENOSPC is decided by placing again on an idle copy.
 * Caveats: first fit in index order, no best fit, no topology. When the
 * node limit is reached, a later node replaces a chosen one only if it is
 * better in every dimension that still matters (tasks, GPUs).
 */
#include "select.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macros.h"

struct plan {			       /* the request, normalised */
	uint32_t min_nodes, max_nodes; /* after required nodes; max <= n */
	uint32_t num_tasks;	       /* 0: one (or ntasks_per_node) per node */
	uint32_t n_required;
};

struct cand { /* a chosen node */
	uint32_t node;
	uint32_t cap;  /* tasks it can host */
	uint32_t gpus; /* free GPUs */
	bool is_required;
};

struct pick { /* the nodes chosen so far */
	struct cand *c;
	uint32_t count, limit;
	uint64_t cap_sum, gpu_sum;
};

static uint64_t gpu_mask(uint16_t gpus)
{
	return gpus >= SEL_MAX_GPUS ? UINT64_MAX : (UINT64_C(1) << gpus) - 1;
}

/* The free GPUs of nd this job may have (of its type, when typed). */
static uint64_t free_gpus(const struct sel_node *nd, const struct sel_req *req)
{
	uint64_t m = gpu_mask(nd->gpus) & ~nd->gpus_used;

	if (req->gpu_type)
		m &= nd->gpu_type_mask ? nd->gpu_type_mask[req->gpu_type - 1] : 0;
	return m;
}

uint32_t select_free_cpus(const struct sel_node *nd, uint16_t share)
{
	uint64_t own = nd->cpus > nd->cpus_used ? (uint32_t)(nd->cpus - nd->cpus_used) : 0;

	if (share >= 2)
		own *= share;
	return own > nd->cpus_shared ? (uint32_t)(own - nd->cpus_shared) : 0;
}

/* What the job may take of nd's cpus: sharing lets jobs overlap on the
 * cores no dedicated job holds, never one job use a core twice. */
static uint32_t free_cpus_of(const struct sel_node *nd, const struct sel_req *req)
{
	uint32_t f = select_free_cpus(nd, req->is_exclusive ? 0 : req->share);
	uint32_t own = nd->cpus > nd->cpus_used ? (uint32_t)(nd->cpus - nd->cpus_used) : 0;

	return f < own ? f : own;
}

static uint64_t free_mem_of(const struct sel_node *nd)
{
	return nd->real_memory > nd->mem_used ? nd->real_memory - nd->mem_used : 0;
}

static bool is_mem_per_gpu(const struct sel_req *req)
{
	return req->mem_per_gpu && !req->mem_per_node && !req->mem_per_cpu;
}

/* The GPUs nd can give the job now: free ones of its type, no more than
 * the free cpus (--cpus-per-gpu) and memory (--mem-per-gpu) can go with. */
static uint32_t usable_gpus(const struct sel_node *nd, const struct sel_req *req)
{
	uint64_t g = (uint64_t)__builtin_popcountll(free_gpus(nd, req));

	if (req->cpus_per_gpu && free_cpus_of(nd, req) / req->cpus_per_gpu < g)
		g = free_cpus_of(nd, req) / req->cpus_per_gpu;
	if (is_mem_per_gpu(req) && free_mem_of(nd) / req->mem_per_gpu < g)
		g = free_mem_of(nd) / req->mem_per_gpu;
	return (uint32_t)g;
}

/* The GPUs a node running `tasks` of the job's tasks needs; 0 for --gpus
 * (its share is handed out as the nodes are filled). */
static uint64_t gpus_for_tasks(const struct sel_req *req, uint32_t tasks)
{
	if (req->gpus_per_node)
		return req->gpus_per_node;
	if (req->gpus_per_task)
		return (uint64_t)tasks * req->gpus_per_task;
	if (req->ntasks_per_gpu)
		return (tasks + req->ntasks_per_gpu - 1) / req->ntasks_per_gpu;
	return 0;
}

/* The lowest `want` bits of mask (all of them when fewer). */
static uint64_t lowest_bits(uint64_t mask, uint64_t want)
{
	uint64_t out = 0;

	for (; want && mask; want--) {
		uint64_t bit = mask & -mask;

		out |= bit;
		mask &= ~bit;
	}
	return out;
}

/* cpus one task takes on nd: whole cores. */
static uint32_t task_cpus(const struct sel_node *nd, const struct sel_req *req)
{
	uint32_t tpc = nd->threads_per_core ? nd->threads_per_core : 1;

	return (req->cpus_per_task + tpc - 1) / tpc * tpc;
}

static bool is_busy(const struct sel_node *nd)
{
	return nd->cpus_used || nd->cpus_shared || nd->mem_used || nd->gpus_used
	       || nd->is_exclusive_used;
}

/* --mincpus on nd: whole cores. */
static uint32_t min_cpus_of(const struct sel_node *nd, const struct sel_req *req)
{
	uint32_t tpc = nd->threads_per_core ? nd->threads_per_core : 1;

	return (req->min_cpus + tpc - 1) / tpc * tpc;
}

/* Tasks req can place on nd now; 0 when nd cannot take the job. */
static uint32_t node_cap(const struct sel_node *nd, const struct sel_req *req)
{
	uint32_t per_task = task_cpus(nd, req);
	uint64_t free_mem = free_mem_of(nd);
	uint32_t free_cpus = free_cpus_of(nd, req);
	uint64_t cap, mem;

	if (!nd->is_usable || nd->is_exclusive_used || (req->is_exclusive && is_busy(nd)))
		return 0;
	cap = free_cpus / per_task;
	if (req->min_cpus && free_cpus < min_cpus_of(nd, req))
		return 0;
	if (req->mem_per_node > free_mem)
		return 0;
	if (req->is_whole_memory && nd->mem_used)
		return 0; /* the job takes all of the node's memory */
	if (req->mem_per_cpu && req->is_exclusive) {
		/* an exclusive job is charged memory for every cpu of the node */
		if (__builtin_mul_overflow(req->mem_per_cpu, (uint64_t)nd->cpus, &mem)
		    || mem > free_mem)
			return 0;
	} else if (req->mem_per_cpu) {
		if (__builtin_mul_overflow(req->mem_per_cpu, (uint64_t)per_task, &mem))
			return 0;
		if (free_mem / mem < cap)
			cap = free_mem / mem;
	}
	if (req->gpus_per_node || req->gpus_per_task || req->ntasks_per_gpu) {
		uint32_t g = usable_gpus(nd, req);

		if (g < req->gpus_per_node)
			return 0;
		if (req->gpus_per_task && g / req->gpus_per_task < cap)
			cap = g / req->gpus_per_task;
		if (req->ntasks_per_gpu && (uint64_t)g * req->ntasks_per_gpu < cap)
			cap = (uint64_t)g * req->ntasks_per_gpu;
	}
	if (req->ntasks_per_socket
	    && (uint64_t)(nd->sockets ? nd->sockets : 1) * req->ntasks_per_socket < cap)
		cap = (uint64_t)(nd->sockets ? nd->sockets : 1) * req->ntasks_per_socket;
	if (req->ntasks_per_node)
		cap = cap >= req->ntasks_per_node ? req->ntasks_per_node : 0;
	return (uint32_t)cap;
}

static bool is_flagged(const bool *flags, uint32_t i)
{
	return flags && flags[i];
}

/* Normalise req into *p; -EINVAL for a malformed request, -ENOSPC when a
 * required node can never be used or there are too few nodes. */
static int plan_init(uint32_t n, const struct sel_req *req, struct plan *p)
{
	if (!req->cpus_per_task || (req->mem_per_node && req->mem_per_cpu)
	    || (req->gpus_per_node && req->gpus_total))
		return -EINVAL;
	*p = (struct plan){.num_tasks = req->num_tasks};
	for (uint32_t i = 0; req->is_required && i < n; i++) {
		if (!req->is_required[i])
			continue;
		if (is_flagged(req->is_excluded, i))
			return -ENOSPC;
		p->n_required++;
	}
	p->min_nodes = req->min_nodes ? req->min_nodes : 1;
	p->max_nodes = req->max_nodes ? req->max_nodes : p->min_nodes;
	if (p->min_nodes < p->n_required)
		p->min_nodes = p->n_required;
	if (req->feat && p->min_nodes < req->feat->count_sum) {
		p->min_nodes = req->feat->count_sum; /* "a*2": at least two nodes */
		if (p->num_tasks && p->num_tasks < p->min_nodes)
			return -ENOSPC; /* too few tasks for the counted nodes */
	}
	if (p->max_nodes < p->min_nodes)
		p->max_nodes = p->min_nodes;
	if (p->num_tasks && p->num_tasks < p->min_nodes)
		return -EINVAL; /* every node runs a task: the client trims -N first */
	if (p->min_nodes > n)
		return -ENOSPC;
	if (p->max_nodes > n)
		p->max_nodes = n;
	return 0;
}

static bool is_enough(const struct plan *p, const struct sel_req *req, const struct pick *k)
{
	return k->count >= p->min_nodes && k->gpu_sum >= req->gpus_total
	       && (!p->num_tasks || k->cap_sum >= p->num_tasks);
}

static void pick_add(struct pick *k, uint32_t slot, const struct cand *c)
{
	if (slot < k->count) {
		k->cap_sum -= k->c[slot].cap;
		k->gpu_sum -= k->c[slot].gpus;
	} else {
		k->count++;
	}
	k->c[slot] = *c;
	k->cap_sum += c->cap;
	k->gpu_sum += c->gpus;
}

/* What a node is worth for the request: capacity beyond need is no gain. */
static void worth(const struct plan *p, const struct sel_req *req, const struct cand *c,
		  uint64_t *ret_tasks, uint64_t *ret_gpus)
{
	*ret_tasks = p->num_tasks ? (c->cap < p->num_tasks ? c->cap : p->num_tasks) : 0;
	*ret_gpus = c->gpus < req->gpus_total ? c->gpus : req->gpus_total;
}

/* The chosen, not required node that c beats the most; -1 if none. */
static int64_t weakest_beaten(const struct plan *p, const struct sel_req *req, const struct pick *k,
			      const struct cand *c)
{
	uint64_t ct, cg, bt = 0, bg = 0;
	int64_t best = -1;

	worth(p, req, c, &ct, &cg);
	for (uint32_t j = 0; j < k->count; j++) {
		uint64_t t, g;

		if (k->c[j].is_required)
			continue;
		worth(p, req, &k->c[j], &t, &g);
		if (t > ct || g > cg || (t == ct && g == cg))
			continue;
		if (best < 0 || t < bt || (t == bt && g < bg)) {
			best = j;
			bt = t;
			bg = g;
		}
	}
	return best;
}

/* Beyond min_nodes a node is only worth taking for what is still missing. */
static bool is_helping(const struct plan *p, const struct sel_req *req, const struct pick *k,
		       const struct cand *c)
{
	return (p->num_tasks && k->cap_sum < p->num_tasks)
	       || (k->gpu_sum < req->gpus_total && c->gpus);
}

static bool is_picked(const struct pick *k, uint32_t i)
{
	for (uint32_t j = 0; j < k->count; j++)
		if (k->c[j].node == i)
			return true;
	return false;
}

/* Counted features ("a*2"): the first nodes in order that satisfy each
 * term, kept as if required; -EAGAIN when too few can take the job now. */
static int choose_counted(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
			  struct pick *k)
{
	const struct sel_feat *f = req->feat;

	for (uint32_t t = 0; f && t < f->count_n; t++) {
		const bool *ok = f->count_ok[t];
		uint32_t have = 0;

		for (uint32_t j = 0; j < k->count; j++)
			have += ok[k->c[j].node];
		for (uint32_t x = 0; x < n && have < f->count_need[t]; x++) {
			uint32_t i = req->order ? req->order[x] : x;
			struct cand c = {i, 0, 0, true};

			if (i >= n || !ok[i] || is_flagged(req->is_excluded, i) || is_picked(k, i))
				continue;
			if (!(c.cap = node_cap(&nodes[i], req)))
				continue;
			if (k->count >= k->limit)
				return -EAGAIN;
			c.gpus = usable_gpus(&nodes[i], req);
			pick_add(k, k->count, &c);
			have++;
		}
		if (have < f->count_need[t])
			return -EAGAIN;
	}
	return 0;
}

/* Fill k with the nodes the job gets; -EAGAIN when they cannot be found. */
static int choose(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
		  const struct plan *p, struct pick *k)
{
	bool is_counted = req->feat && req->feat->count_n;

	for (uint32_t i = 0; i < n && p->n_required; i++) {
		struct cand c = {i, node_cap(&nodes[i], req), 0, true};

		if (!req->is_required[i])
			continue;
		if (!c.cap)
			return -EAGAIN;
		c.gpus = usable_gpus(&nodes[i], req);
		pick_add(k, k->count, &c);
	}
	if (is_counted && choose_counted(nodes, n, req, k) < 0)
		return -EAGAIN;
	for (uint32_t x = 0; x < n && !is_enough(p, req, k); x++) {
		uint32_t i = req->order ? req->order[x] : x;
		struct cand c = {i, 0, 0, false};
		int64_t slot;

		if (i >= n)
			continue;
		if (is_flagged(req->is_required, i) || is_flagged(req->is_excluded, i)
		    || (is_counted && is_picked(k, i)))
			continue;
		c.cap = node_cap(&nodes[i], req);
		if (!c.cap)
			continue;
		c.gpus = usable_gpus(&nodes[i], req);
		if (k->count >= p->min_nodes && !is_helping(p, req, k, &c))
			continue;
		slot = k->count < k->limit ? k->count : weakest_beaten(p, req, k, &c);
		if (slot >= 0)
			pick_add(k, (uint32_t)slot, &c);
	}
	return is_enough(p, req, k) ? 0 : -EAGAIN;
}

/* Drop chosen nodes (lowest index first, or the last in req->order first)
 * the job does not need beyond min_nodes; k's order is kept. */
static void prune(const struct plan *p, const struct sel_req *req, struct pick *k)
{
	for (uint32_t j = 0; j < k->count && k->count > p->min_nodes;) {
		const struct cand *c = &k->c[j];

		if (c->is_required || k->gpu_sum - c->gpus < req->gpus_total
		    || (p->num_tasks && k->cap_sum - c->cap < p->num_tasks)) {
			j++;
			continue;
		}
		k->cap_sum -= c->cap;
		k->gpu_sum -= c->gpus;
		memmove(&k->c[j], &k->c[j + 1], (k->count - j - 1) * sizeof(*k->c));
		k->count--;
	}
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return (x->node > y->node) - (x->node < y->node);
}

/* k by rank (place in req->order), the least preferred first, so prune()
 * gives up the heaviest nodes; -ENOMEM leaves k as it is. */
static int sort_least_preferred_first(const struct sel_req *req, uint32_t n, struct pick *k)
{
	_cleanup_free_ uint32_t *rank = calloc(n ? n : 1, sizeof(*rank));

	if (!rank)
		return -ENOMEM;
	for (uint32_t x = 0; x < n; x++)
		if (req->order[x] < n)
			rank[req->order[x]] = x;
	for (uint32_t j = 1; j < k->count; j++) { /* insertion sort: k is short */
		struct cand c = k->c[j];
		uint32_t i = j;

		for (; i > 0 && rank[k->c[i - 1].node] < rank[c.node]; i--)
			k->c[i] = k->c[i - 1];
		k->c[i] = c;
	}
	return 0;
}

/* cpus, memory and GPUs of one chosen node running `tasks` tasks. */
static void fill_alloc(const struct sel_node *nd, const struct sel_req *req, uint32_t tasks,
		       uint64_t *gpus_left, struct sel_alloc *a)
{
	a->tasks = (uint16_t)tasks;
	a->cpus = req->is_exclusive ? nd->cpus : (uint16_t)(tasks * task_cpus(nd, req));
	if (a->cpus < min_cpus_of(nd, req))
		a->cpus = (uint16_t)min_cpus_of(nd, req);
	uint64_t need = gpus_for_tasks(req, tasks), ngpus;

	if (need) {
		a->gpus = lowest_bits(free_gpus(nd, req), need);
	} else {
		a->gpus = lowest_bits(free_gpus(nd, req), *gpus_left);
		*gpus_left -= (uint64_t)__builtin_popcountll(a->gpus);
	}
	ngpus = (uint64_t)__builtin_popcountll(a->gpus);
	if (req->cpus_per_gpu) { /* whole cores, within the node */
		uint32_t tpc = nd->threads_per_core ? nd->threads_per_core : 1;
		uint64_t want = (ngpus * req->cpus_per_gpu + tpc - 1) / tpc * tpc;

		if (want > a->cpus)
			a->cpus = (uint16_t)(want < nd->cpus ? want : nd->cpus);
	}
	a->mem = req->is_whole_memory ? nd->real_memory
		 : req->mem_per_node  ? req->mem_per_node
		 : req->mem_per_cpu   ? req->mem_per_cpu * a->cpus
				      : req->mem_per_gpu * ngpus;
	if (req->is_exclusive) /* Slurm: an exclusive job gets all the node's GRES */
		a->gpus = gpu_mask(nd->gpus) & ~nd->gpus_used;
}

static int build_result(const struct sel_node *nodes, const struct sel_req *req,
			const struct plan *p, const struct pick *k, struct sel_result *ret)
{
	struct sel_alloc *a = calloc(k->count, sizeof(*a));
	uint64_t gpus_left = req->gpus_total;
	uint32_t tasks_left = p->num_tasks ? p->num_tasks - k->count : 0;
	uint32_t total = 0;

	if (!a)
		return -ENOMEM;
	for (uint32_t j = 0; j < k->count; j++) {
		uint32_t tasks = req->ntasks_per_node && !p->num_tasks ? req->ntasks_per_node : 1;
		uint32_t more = k->c[j].cap - 1 < tasks_left ? k->c[j].cap - 1 : tasks_left;

		if (p->num_tasks) { /* block: one each, then fill in order */
			tasks += more;
			tasks_left -= more;
		}
		a[j].node = k->c[j].node;
		fill_alloc(&nodes[a[j].node], req, tasks, &gpus_left, &a[j]);
		total += a[j].cpus;
	}
	*ret = (struct sel_result){.nodes = a,
				   .count = k->count,
				   .total_cpus = total,
				   .share = req->is_exclusive ? 0 : req->share,
				   .is_exclusive = req->is_exclusive};
	return 0;
}

static int place(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
		 const struct plan *p, struct sel_result *ret)
{
	_cleanup_free_ struct cand *c = calloc(p->max_nodes ? p->max_nodes : 1, sizeof(*c));
	struct pick k = {.c = c, .limit = p->max_nodes};
	int r;

	if (!c)
		return -ENOMEM;
	if (p->num_tasks && k.limit > p->num_tasks)
		k.limit = p->num_tasks; /* each node needs a task */
	r = choose(nodes, n, req, p, &k);
	if (r < 0)
		return r;
	if (req->order && k.count > p->min_nodes && sort_least_preferred_first(req, n, &k) < 0)
		return -ENOMEM;
	if (!req->order)
		qsort(k.c, k.count, sizeof(*k.c), cand_cmp);
	prune(p, req, &k);
	if (req->order)
		qsort(k.c, k.count, sizeof(*k.c), cand_cmp);
	return build_result(nodes, req, p, &k, ret);
}

/* -EAGAIN if req fits on these nodes once they are idle, else -ENOSPC. */
static int fits_when_idle(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
			  const struct plan *p)
{
	_cleanup_free_ struct sel_node *idle = calloc(n, sizeof(*idle));
	struct sel_result tmp = {0};
	int r;

	if (!idle)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		idle[i] = nodes[i];
		idle[i].cpus_used = 0;
		idle[i].cpus_shared = 0;
		idle[i].mem_used = 0;
		idle[i].gpus_used = 0;
		idle[i].is_exclusive_used = false;
	}
	r = place(idle, n, req, p, &tmp);
	sel_result_done(&tmp);
	if (r == 0)
		return -EAGAIN;
	return r == -EAGAIN ? -ENOSPC : r;
}

static int try_one(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
		   struct sel_result *ret)
{
	struct plan p;
	int r;

	if ((!nodes && n) || !req || !ret)
		return -EINVAL;
	r = plan_init(n, req, &p);
	for (uint32_t i = 0; r == 0 && req->is_required && i < n; i++)
		if (req->is_required[i] && !nodes[i].is_usable)
			r = -ENOSPC;
	return r < 0 ? r : place(nodes, n, req, &p, ret);
}

static int place_one(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
		     struct sel_result *ret)
{
	struct plan p;
	int r = try_one(nodes, n, req, ret);

	if (r != -EAGAIN || plan_init(n, req, &p) < 0)
		return r;
	return fits_when_idle(nodes, n, req, &p);
}

/* Matching OR: each alternative in turn, its nodes only; the first that
 * fits wins. Failing, -EAGAIN if one would fit later, else the last
 * error. */
static int try_alts(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
		    struct sel_result *ret, bool is_place)
{
	_cleanup_free_ bool *exc = calloc(n + 1, sizeof(*exc));
	struct sel_feat f = *req->feat;
	struct sel_req one = *req;
	int best = -ENOSPC;

	if (!exc)
		return -ENOMEM;
	f.alt_count = 0;
	one.feat = &f;
	one.is_excluded = exc;
	for (uint32_t a = 0; a < req->feat->alt_count; a++) {
		int r;

		for (uint32_t i = 0; i < n; i++)
			exc[i] = is_flagged(req->is_excluded, i) || !req->feat->alt_ok[a][i];
		r = is_place ? place_one(nodes, n, &one, ret) : try_one(nodes, n, &one, ret);
		if (r == 0)
			return 0;
		if (best != -EAGAIN)
			best = r;
	}
	return best;
}

int select_try(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
	       struct sel_result *ret)
{
	if (req && req->feat && req->feat->alt_count)
		return try_alts(nodes, n, req, ret, false);
	return try_one(nodes, n, req, ret);
}

int select_place(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
		 struct sel_result *ret)
{
	if (req && req->feat && req->feat->alt_count)
		return try_alts(nodes, n, req, ret, true);
	return place_one(nodes, n, req, ret);
}

void sel_result_done(struct sel_result *r)
{
	if (!r)
		return;
	free(r->nodes);
	*r = (struct sel_result){0};
}

void select_charge(struct sel_node *nodes, const struct sel_result *r, bool is_exclusive)
{
	for (uint32_t j = 0; r && j < r->count; j++) {
		struct sel_node *nd = &nodes[r->nodes[j].node];

		if (r->share >= 2)
			nd->cpus_shared += r->nodes[j].cpus;
		else
			nd->cpus_used += r->nodes[j].cpus;
		nd->mem_used += r->nodes[j].mem;
		nd->gpus_used |= r->nodes[j].gpus;
		if (is_exclusive || r->is_exclusive)
			nd->is_exclusive_used = true;
	}
}

void select_release(struct sel_node *nodes, const struct sel_result *r, bool is_exclusive)
{
	for (uint32_t j = 0; r && j < r->count; j++) {
		struct sel_node *nd = &nodes[r->nodes[j].node];
		const struct sel_alloc *a = &r->nodes[j];

		if (r->share >= 2)
			nd->cpus_shared = nd->cpus_shared > a->cpus ? nd->cpus_shared - a->cpus : 0;
		else
			nd->cpus_used = nd->cpus_used > a->cpus ? nd->cpus_used - a->cpus : 0;
		nd->mem_used = nd->mem_used > a->mem ? nd->mem_used - a->mem : 0;
		nd->gpus_used &= ~a->gpus;
		if (is_exclusive || r->is_exclusive)
			nd->is_exclusive_used = false;
	}
}

char *select_counts_string(const struct sel_result *r, bool is_tasks)
{
	size_t cap = 32 + (size_t)r->count * 16, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < r->count;) {
		uint32_t v = is_tasks ? r->nodes[i].tasks : r->nodes[i].cpus, run = 1;

		while (i + run < r->count
		       && (is_tasks ? r->nodes[i + run].tasks : r->nodes[i + run].cpus) == v)
			run++;
		len += (size_t)snprintf(s + len, cap - len, run > 1 ? "%s%u(x%u)" : "%s%u",
					len ? "," : "", v, run);
		i += run;
	}
	return s;
}

char *select_gpu_list(uint64_t mask)
{
	char *s = calloc(1, 64 * 4);
	size_t len = 0;

	if (!s || !mask) {
		free(s);
		return NULL;
	}
	for (int i = 0; i < 64; i++)
		if (mask & (1ull << i))
			len += (size_t)sprintf(s + len, "%s%d", len ? "," : "", i);
	return s;
}
