/* backfill.c - see backfill.h: sched/backfill's planner.
 *
 * Purpose: the earliest start of each pending job that delays no job
 * before it, on per-node timelines of use.
 * Input: nodes with their current use, running jobs (allocation, expected
 * end), pending jobs in priority order (select request, usable nodes,
 * time limit).
 * Action: per node a list of segments [t_i, t_i+1) of constant use, from
 * now on; a running job's end lowers the use from then on; a planned job
 * raises it over its window. For each job: the earliest time each node
 * alone could host the job's smallest per-node share for the whole limit
 * (a lower bound); from the k-th smallest of those (k = its node count),
 * try the window at each time the use drops, placing with select_place()
 * on the peak use over the window, until it fits or leaves bf_window.
 * Cost: O(nodes x segments) per try; a job is tried at most BF_TRIES times.
 * A job no k nodes could host within the window is remembered (the last
 * BF_FAILS): a later one asking at least as much is BF_NEVER at once.
 * Reservations are counted on the segments apart from the use (blocked):
 * a blocked node hosts nothing then, except a job of that reservation
 * when it is FLEX (bf_job.own).
 */
#include "backfill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macros.h"

#define BF_TRIES   64	     /* windows tried per job */
#define BF_NEVER_T INT64_MAX /* "no such time" */
#define BF_FAILS   64	     /* jobs remembered as unable to start in the window */

struct seg { /* use from t until the next segment (or forever) */
	time_t t;
	uint32_t cpus;
	union { /* nonzero: no job may be added (but see seg_blocked) */
		struct {
			uint16_t excl;	  /* exclusive holders */
			uint16_t blocked; /* reservations holding the node (lines_block) */
		};
		uint32_t held;
	};
	uint64_t mem;
	uint64_t gpus; /* GPU indexes in use */
};

struct holder { /* who frees a node when: a running or a planned job */
	time_t end;
	uint32_t job_id;
};

struct line {
	struct seg *s;
	uint32_t n, cap;
	struct holder *h;
	uint32_t hn, hcap;
};

struct share { /* the least a job needs on one node */
	uint32_t cpus_per_task, tasks;
	uint64_t mem_per_node, mem_per_cpu;
	uint32_t gpus;
	bool is_exclusive, is_whole_memory;
};

/* A job that fewer nodes than it needs could host within the window. Use only
 * grows while a plan is made, so a later job that asks at least as much of
 * as many of the same nodes for at least as long cannot start either. */
struct failed {
	const bool *is_usable;
	struct share sh;
	uint32_t limit; /* 0: forever */
	uint32_t nodes;
};

struct planner {
	const struct bf_params *p;
	const struct sel_node *nodes;
	uint32_t n;
	struct line *lines;
	struct sel_node *work; /* the peak use over one window, for select */
	time_t *fit;	       /* per node: earliest lone fit (BF_NEVER_T: none) */
	time_t *kth;	       /* scratch for the k-th smallest fit */
	bool *is_ok;	       /* per node: usable and not excluded, for this job */
	uint32_t *order;       /* bf_busy_nodes: busy nodes first, for select */
	time_t horizon;	       /* now + window */
	/* the job being planned: its FLEX reservation (NULL: none), from when
	 * it holds its nodes, and which nodes */
	const struct bf_block *own;
	time_t own_from;
	bool *in_own;
	struct failed fails[BF_FAILS];
	uint32_t fail_count, fail_next;
};

static int line_grow(struct line *l)
{
	uint32_t cap = l->cap ? l->cap * 2 : 4;
	struct seg *s = realloc(l->s, cap * sizeof(*s));

	if (!s)
		return -ENOMEM;
	l->s = s;
	l->cap = cap;
	return 0;
}

/* The index of the segment starting at t (t > the first's), made if needed. */
static int line_split(struct line *l, time_t t, uint32_t *ret)
{
	uint32_t lo = 0, hi = l->n;

	while (lo < hi) { /* first segment with s.t >= t */
		uint32_t mid = lo + (hi - lo) / 2;

		if (l->s[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < l->n && l->s[lo].t == t) {
		*ret = lo;
		return 0;
	}
	if (l->n == l->cap && line_grow(l) < 0)
		return -ENOMEM;
	memmove(&l->s[lo + 1], &l->s[lo], (l->n - lo) * sizeof(*l->s));
	l->s[lo] = l->s[lo - 1];
	l->s[lo].t = t;
	l->n++;
	*ret = lo;
	return 0;
}

/* The segment that holds time t (t >= the first's). */
static uint32_t line_at(const struct line *l, time_t t)
{
	uint32_t lo = 0, hi = l->n;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (l->s[mid].t <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The segments [*ret_i, *ret_j) that cover [from, to) exactly; to 0:
 * forever. */
static int line_range(struct line *l, time_t from, time_t to, uint32_t *ret_i, uint32_t *ret_j)
{
	uint32_t i, j = 0;

	if (line_split(l, from, &i) < 0 || (to && line_split(l, to, &j) < 0))
		return -ENOMEM;
	if (!to)
		j = l->n;
	else /* the second split may have moved the first segment */
		i = line_at(l, from);
	*ret_i = i;
	*ret_j = j;
	return 0;
}

/* Add (or, with is_release, take away) a's use on [from, to); to 0: forever. */
static int line_apply(struct line *l, time_t from, time_t to, const struct sel_alloc *a,
		      bool is_excl, bool is_release)
{
	uint32_t i, j;

	if (line_range(l, from, to, &i, &j) < 0)
		return -ENOMEM;
	for (uint32_t k = i; k < j; k++) {
		struct seg *s = &l->s[k];

		if (is_release) {
			s->cpus -= a->cpus < s->cpus ? a->cpus : s->cpus;
			s->mem -= a->mem < s->mem ? a->mem : s->mem;
			s->gpus &= ~a->gpus;
			s->excl -= is_excl && s->excl;
		} else {
			s->cpus += a->cpus;
			s->mem += a->mem;
			s->gpus |= a->gpus;
			s->excl += is_excl;
		}
	}
	return 0;
}

static int line_hold(struct line *l, time_t end, uint32_t job_id)
{
	if (l->hn == l->hcap) {
		uint32_t cap = l->hcap ? l->hcap * 2 : 4;
		struct holder *h = realloc(l->h, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		l->h = h;
		l->hcap = cap;
	}
	l->h[l->hn++] = (struct holder){end, job_id};
	return 0;
}

static uint64_t gpu_mask(uint16_t gpus)
{
	return gpus >= SEL_MAX_GPUS ? UINT64_MAX : (UINT64_C(1) << gpus) - 1;
}

/* Tasks every chosen node must take at least: --ntasks-per-node, else the
 * tasks spread over the most nodes the job may get. */
static uint32_t share_tasks(const struct sel_req *r)
{
	uint32_t most = r->max_nodes > r->min_nodes ? r->max_nodes : r->min_nodes;

	if (r->ntasks_per_node)
		return r->ntasks_per_node;
	if (!r->num_tasks || !most)
		return 1;
	return (r->num_tasks + most - 1) / most;
}

static struct share share_of(const struct sel_req *r)
{
	return (struct share){
	    .cpus_per_task = r->cpus_per_task ? r->cpus_per_task : 1,
	    .tasks = share_tasks(r),
	    .mem_per_node = r->mem_per_node,
	    .mem_per_cpu = r->mem_per_cpu,
	    .gpus = r->gpus_per_node,
	    .is_exclusive = r->is_exclusive,
	    .is_whole_memory = r->is_whole_memory,
	};
}

/* What a share takes on one node, worked out once per node and job. */
struct need {
	uint32_t cpus, node_cpus, gpus;
	uint64_t mem, node_mem, gpu_mask;
	bool is_exclusive, is_whole_memory;
};

static struct need need_of(const struct sel_node *nd, const struct share *sh)
{
	uint32_t tpc = nd->threads_per_core ? nd->threads_per_core : 1;
	struct need n = {
	    .cpus = (sh->cpus_per_task + tpc - 1) / tpc * tpc * sh->tasks,
	    .node_cpus = nd->cpus,
	    .gpus = sh->gpus,
	    .node_mem = nd->real_memory,
	    .gpu_mask = gpu_mask(nd->gpus),
	    .is_exclusive = sh->is_exclusive,
	    .is_whole_memory = sh->is_whole_memory,
	};

	n.mem = sh->mem_per_node ? sh->mem_per_node : sh->mem_per_cpu * n.cpus;
	if (sh->is_exclusive) {
		n.cpus = nd->cpus;
		if (sh->mem_per_cpu)
			n.mem = sh->mem_per_cpu * nd->cpus;
	}
	return n;
}

/* Could a node with use s host the need? */
static inline bool need_fits(const struct need *n, const struct seg *s)
{
	if (s->held || (n->is_exclusive && (s->cpus || s->mem || s->gpus)))
		return false;
	if (s->cpus + n->cpus > n->node_cpus)
		return false;
	if (n->is_whole_memory ? s->mem != 0 : s->mem + n->mem > n->node_mem)
		return false;
	return !n->gpus || (uint32_t)__builtin_popcountll(n->gpu_mask & ~s->gpus) >= n->gpus;
}

/* A reservation holds node i over segment s, and not (only) the job's own
 * FLEX one: the segments split where each window starts and ends. */
static inline bool seg_blocked(const struct planner *pl, uint32_t i, const struct seg *s)
{
	if (!s->blocked)
		return false;
	if (s->blocked > 1 || !pl->own || !pl->in_own[i])
		return true;
	return s->t < pl->own_from || (pl->own->end && s->t >= pl->own->end);
}

/* need_fits() said no to s, which a reservation holds: does it say yes
 * once the job's own FLEX reservation is out of the way? */
static bool fits_in_own(const struct planner *pl, uint32_t i, const struct need *n,
			const struct seg *s)
{
	struct seg t;

	if (seg_blocked(pl, i, s))
		return false;
	t = *s;
	t.blocked = 0;
	return need_fits(n, &t);
}

/* Earliest t >= now at which the node could host the share over [t, t+limit)
 * (limit 0: forever); BF_NEVER_T when none starts by the horizon. */
static time_t lone_fit(const struct planner *pl, uint32_t i, const struct share *sh, uint32_t limit)
{
	const struct line *l = &pl->lines[i];
	struct need n = need_of(&pl->nodes[i], sh);
	time_t cs = l->s[0].t;

	for (uint32_t k = 0; k < l->n; k++) {
		bool is_last = k + 1 == l->n;

		if (cs > pl->horizon)
			return BF_NEVER_T;
		if (!need_fits(&n, &l->s[k])
		    && !(l->s[k].blocked && fits_in_own(pl, i, &n, &l->s[k]))) {
			cs = is_last ? BF_NEVER_T : l->s[k + 1].t;
			continue;
		}
		if (is_last || (limit && l->s[k + 1].t >= cs + (time_t)limit))
			return cs;
	}
	return BF_NEVER_T;
}

/* The peak use of node i over [t, t+limit) into pl->work[i]. */
static void peak_into(struct planner *pl, uint32_t i, time_t t, uint32_t limit)
{
	const struct line *l = &pl->lines[i];
	struct sel_node *w = &pl->work[i];
	time_t end = limit ? t + (time_t)limit : BF_NEVER_T;
	struct seg pk = {0};

	for (uint32_t k = line_at(l, t); k < l->n && l->s[k].t < end; k++) {
		const struct seg *s = &l->s[k];

		pk.cpus = s->cpus > pk.cpus ? s->cpus : pk.cpus;
		pk.mem = s->mem > pk.mem ? s->mem : pk.mem;
		pk.gpus |= s->gpus;
		pk.excl |= s->excl;
		if (s->blocked && seg_blocked(pl, i, s))
			pk.excl = 1;
	}
	*w = pl->nodes[i];
	w->cpus_used = (uint16_t)(pk.cpus < w->cpus ? pk.cpus : w->cpus);
	w->cpus_shared = 0; /* planned as if held whole: the timeline counts them */
	w->mem_used = pk.mem;
	w->gpus_used = pk.gpus;
	w->is_exclusive_used = pk.excl != 0;
	w->is_usable = true;
}

/* The first time after t at which any usable node's use changes. */
static time_t next_change(const struct planner *pl, time_t t)
{
	time_t best = BF_NEVER_T;

	for (uint32_t i = 0; i < pl->n; i++) {
		const struct line *l = &pl->lines[i];
		uint32_t k;

		if (!pl->is_ok[i] || pl->fit[i] == BF_NEVER_T)
			continue;
		k = line_at(l, t) + 1;
		if (k < l->n && l->s[k].t < best)
			best = l->s[k].t;
		if (pl->fit[i] > t && pl->fit[i] < best)
			best = pl->fit[i];
	}
	return best;
}

/* The k-th smallest (0-based) of v[0..n), reordering v (quickselect). */
static time_t nth_smallest(time_t *v, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		time_t pivot = v[lo + (hi - lo) / 2];
		uint32_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				time_t t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* The k-th smallest (1-based) lone fit of the usable nodes; BF_NEVER_T when
 * fewer than k nodes could ever host the job. */
static time_t kth_fit(struct planner *pl, uint32_t k)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < pl->n; i++)
		if (pl->is_ok[i] && pl->fit[i] != BF_NEVER_T)
			pl->kth[m++] = pl->fit[i];
	if (!k)
		k = 1;
	if (m < k)
		return BF_NEVER_T;
	return nth_smallest(pl->kth, m, k - 1);
}

/* bf_busy_nodes: the nodes in use over the window (pl->work) first, each
 * group in base's order (NULL: index order). */
static const uint32_t *busy_first(struct planner *pl, const uint32_t *base)
{
	uint32_t k = 0;

	for (int pass = 0; pass < 2; pass++)
		for (uint32_t x = 0; x < pl->n; x++) {
			uint32_t i = base ? base[x] : x;
			const struct sel_node *w = &pl->work[i];
			bool is_busy = w->cpus_used || w->mem_used || w->gpus_used;

			if (is_busy == (pass == 0))
				pl->order[k++] = i;
		}
	return pl->order;
}

/* Try job j's window at t: 0 (placed in j->res), -EAGAIN, or (on the first
 * try only: later ones skip select's idle check) -ENOSPC. */
static int try_at(struct planner *pl, struct bf_job *j, time_t t, bool is_first,
		  struct bf_stats *st)
{
	struct sel_req req = j->req;
	struct sel_result res = {0};
	int r;

	for (uint32_t i = 0; i < pl->n; i++) {
		if (pl->is_ok[i] && pl->fit[i] <= t) {
			peak_into(pl, i, t, j->limit);
			continue;
		}
		/* usable but full for this window, so that select's idle
		 * check still says whether the job could ever fit */
		pl->work[i] = pl->nodes[i];
		pl->work[i].is_usable = pl->is_ok[i];
		pl->work[i].is_exclusive_used = true;
	}
	st->tried++;
	if (pl->p->is_busy_nodes)
		req.order = busy_first(pl, j->req.order);
	r = is_first ? select_place(pl->work, pl->n, &req, &res)
		     : select_try(pl->work, pl->n, &req, &res);
	if (r == 0)
		j->res = res;
	return r;
}

/* Who frees the last of j's nodes by j->start: the latest holder that ends
 * by then. */
static uint32_t after_job_of(const struct planner *pl, const struct bf_job *j)
{
	struct holder best = {0};

	for (uint32_t k = 0; k < j->res.count; k++) {
		const struct line *l = &pl->lines[j->res.nodes[k].node];

		for (uint32_t h = 0; h < l->hn; h++)
			if (l->h[h].end <= j->start && l->h[h].end > best.end)
				best = l->h[h];
	}
	return best.job_id;
}

/* Hold j's nodes over its window (it starts now or is expected later). */
static int reserve(struct planner *pl, const struct bf_job *j)
{
	time_t end = j->limit ? j->start + (time_t)j->limit : 0;

	for (uint32_t k = 0; k < j->res.count; k++) {
		const struct sel_alloc *a = &j->res.nodes[k];
		struct line *l = &pl->lines[a->node];

		if (line_apply(l, j->start, end, a, j->req.is_exclusive, false) < 0
		    || (end && line_hold(l, end, j->job_id) < 0))
			return -ENOMEM;
	}
	return 0;
}

static uint32_t nodes_needed(const struct sel_req *r, uint32_t n)
{
	uint32_t k = r->min_nodes ? r->min_nodes : 1, req = 0;

	for (uint32_t i = 0; r->is_required && i < n; i++)
		req += r->is_required[i];
	return req > k ? req : k;
}

static bool is_cacheable(const struct bf_job *j)
{
	return !j->req.is_required && !j->req.is_excluded && !j->req.gpus_total && !j->own;
}

static bool limit_covers(uint32_t a, uint32_t b)
{
	return !a || (b && a >= b);
}

/* Does the job ask at least as much as a remembered failure? */
static bool is_known_failure(const struct planner *pl, const struct bf_job *j,
			     const struct share *sh, uint32_t nodes)
{
	if (!is_cacheable(j))
		return false;
	for (uint32_t i = 0; i < pl->fail_count; i++) {
		const struct failed *f = &pl->fails[i];

		if (f->is_usable == j->is_usable && nodes >= f->nodes
		    && limit_covers(j->limit, f->limit) && sh->is_exclusive == f->sh.is_exclusive
		    && sh->is_whole_memory == f->sh.is_whole_memory
		    && !sh->mem_per_node == !f->sh.mem_per_node
		    && !sh->mem_per_cpu == !f->sh.mem_per_cpu
		    && sh->cpus_per_task >= f->sh.cpus_per_task && sh->tasks >= f->sh.tasks
		    && sh->mem_per_node >= f->sh.mem_per_node
		    && sh->mem_per_cpu >= f->sh.mem_per_cpu && sh->gpus >= f->sh.gpus)
			return true;
	}
	return false;
}

static void remember_failure(struct planner *pl, const struct bf_job *j, const struct share *sh,
			     uint32_t nodes)
{
	if (!is_cacheable(j))
		return;
	pl->fails[pl->fail_next] = (struct failed){
	    .is_usable = j->is_usable, .sh = *sh, .limit = j->limit, .nodes = nodes};
	pl->fail_next = (pl->fail_next + 1) % BF_FAILS;
	if (pl->fail_count < BF_FAILS)
		pl->fail_count++;
}

static int plan_window(struct planner *pl, struct bf_job *j, struct bf_stats *st)
{
	struct share sh = share_of(&j->req);
	uint32_t nodes = nodes_needed(&j->req, pl->n);
	time_t t;

	j->outcome = BF_NEVER;
	if (is_known_failure(pl, j, &sh, nodes))
		return 0;

	for (uint32_t i = 0; i < pl->n; i++) {
		pl->is_ok[i] = j->is_usable[i] && pl->nodes[i].is_usable
			       && !(j->req.is_excluded && j->req.is_excluded[i]);
		pl->fit[i] = pl->is_ok[i] ? lone_fit(pl, i, &sh, j->limit) : BF_NEVER_T;
	}
	t = kth_fit(pl, nodes);
	if (t == BF_NEVER_T) {
		remember_failure(pl, j, &sh, nodes);
		return 0;
	}
	for (uint32_t i = 0; j->req.is_required && i < pl->n && t != BF_NEVER_T; i++)
		if (j->req.is_required[i])
			t = pl->fit[i] > t ? pl->fit[i] : t;
	for (uint32_t tries = 0; t != BF_NEVER_T && t <= pl->horizon && tries < BF_TRIES; tries++) {
		int r = try_at(pl, j, t, tries == 0, st);

		if (r == -ENOMEM)
			return r;
		if (r == 0) {
			j->start = t;
			j->outcome = t == pl->p->now ? BF_NOW : BF_LATER;
			j->after_job = j->outcome == BF_NOW ? 0 : after_job_of(pl, j);
			return reserve(pl, j);
		}
		if (r != -EAGAIN)
			return 0; /* could never fit: BF_NEVER */
		t = next_change(pl, t);
	}
	return 0;
}

/* Mark (or unmark) the job's own FLEX reservation for seg_blocked. */
static void own_set(struct planner *pl, const struct bf_block *own, bool is_on)
{
	pl->own = is_on ? own : NULL;
	if (!own)
		return;
	pl->own_from = own->start > pl->p->now ? own->start : pl->p->now;
	for (uint32_t k = 0; k < own->node_count; k++)
		if (own->nodes[k] < pl->n)
			pl->in_own[own->nodes[k]] = is_on;
}

static int plan_job(struct planner *pl, struct bf_job *j, struct bf_stats *st)
{
	int r;

	own_set(pl, j->own, true);
	r = plan_window(pl, j, st);
	own_set(pl, j->own, false);
	return r;
}

/* Each node's timeline from the running jobs. */
static int lines_build(struct planner *pl, const struct bf_run *runs, uint32_t run_count)
{
	const struct bf_params *p = pl->p;
	time_t res = p->resolution ? p->resolution : 1;

	for (uint32_t i = 0; i < pl->n; i++) {
		const struct sel_node *nd = &pl->nodes[i];
		struct line *l = &pl->lines[i];

		if (line_grow(l) < 0)
			return -ENOMEM;
		l->s[0] = (struct seg){.t = p->now,
				       .cpus = (uint32_t)nd->cpus_used + nd->cpus_shared,
				       .mem = nd->mem_used,
				       .gpus = nd->gpus_used,
				       .excl = nd->is_exclusive_used};
		l->n = 1;
	}
	for (uint32_t r = 0; r < run_count; r++) {
		const struct bf_run *run = &runs[r];
		time_t end = run->end - run->end % res;

		if (!run->end || !run->alloc)
			continue; /* never ends: its use stays */
		if (end <= p->now)
			end = p->now + 1; /* over its limit: ending */
		for (uint32_t k = 0; k < run->alloc->count; k++) {
			const struct sel_alloc *a = &run->alloc->nodes[k];
			struct line *l;

			if (a->node >= pl->n)
				continue;
			l = &pl->lines[a->node];
			if (line_apply(l, end, 0, a, run->is_exclusive, true) < 0
			    || line_hold(l, end, run->job_id) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* Each reservation's window counted on its nodes: no job is planned into
 * it, but for a job of a FLEX one (a reservation's other jobs are not
 * planned here). */
static int lines_block(struct planner *pl)
{
	const struct bf_params *p = pl->p;

	for (uint32_t b = 0; b < p->block_count; b++) {
		const struct bf_block *bk = &p->blocks[b];
		time_t from = bk->start > p->now ? bk->start : p->now;

		if (bk->end && bk->end <= from)
			continue;
		for (uint32_t k = 0; k < bk->node_count; k++) {
			uint32_t i = bk->nodes[k], at, to;

			if (i >= pl->n)
				continue;
			if (line_range(&pl->lines[i], from, bk->end, &at, &to) < 0)
				return -ENOMEM;
			for (; at < to; at++)
				pl->lines[i].s[at].blocked++;
		}
	}
	return 0;
}

static bool user_capped(uint32_t *users, uint32_t *counts, uint32_t cap, uint32_t slots,
			uint32_t uid)
{
	uint32_t h = (uid * 2654435761u) % slots;

	if (!cap)
		return false;
	while (counts[h] && users[h] != uid)
		h = (h + 1) % slots;
	users[h] = uid;
	return ++counts[h] > cap;
}

static void planner_free(struct planner *pl)
{
	for (uint32_t i = 0; pl->lines && i < pl->n; i++) {
		free(pl->lines[i].s);
		free(pl->lines[i].h);
	}
	free(pl->lines);
	free(pl->work);
	free(pl->fit);
	free(pl->kth);
	free(pl->is_ok);
	free(pl->order);
	free(pl->in_own);
}

int bf_plan(const struct bf_params *p, const struct sel_node *nodes, uint32_t node_count,
	    const struct bf_run *runs, uint32_t run_count, struct bf_job *jobs, uint32_t job_count,
	    struct bf_stats *stats)
{
	struct planner pl = {.p = p, .nodes = nodes, .n = node_count};
	uint32_t slots = job_count * 2 + 1, tested = 0;
	_cleanup_free_ uint32_t *users = calloc(slots, sizeof(*users));
	_cleanup_free_ uint32_t *counts = calloc(slots, sizeof(*counts));
	int r = -ENOMEM;

	*stats = (struct bf_stats){0};
	bf_jobs_done(jobs, job_count);
	pl.horizon = p->now + (time_t)p->window;
	pl.lines = calloc(node_count + 1, sizeof(*pl.lines));
	pl.work = calloc(node_count + 1, sizeof(*pl.work));
	pl.fit = calloc(node_count + 1, sizeof(*pl.fit));
	pl.kth = calloc(node_count + 1, sizeof(*pl.kth));
	pl.is_ok = calloc(node_count + 1, sizeof(*pl.is_ok));
	pl.order = calloc(node_count + 1, sizeof(*pl.order));
	pl.in_own = calloc(node_count + 1, sizeof(*pl.in_own));
	if (!users || !counts || !pl.lines || !pl.work || !pl.fit || !pl.kth || !pl.is_ok
	    || !pl.order || !pl.in_own || lines_build(&pl, runs, run_count) < 0
	    || lines_block(&pl) < 0)
		goto out;
	for (uint32_t i = 0; i < job_count; i++) {
		struct bf_job *j = &jobs[i];

		if (p->max_job_test && tested >= p->max_job_test)
			break;
		if (user_capped(users, counts, p->max_job_user, slots, j->user))
			continue;
		tested++;
		if (plan_job(&pl, j, stats) < 0)
			goto out;
		stats->now_count += j->outcome == BF_NOW;
		stats->later_count += j->outcome == BF_LATER;
	}
	r = 0;
out:
	stats->tested = tested;
	planner_free(&pl);
	return r;
}

void bf_jobs_done(struct bf_job *jobs, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		sel_result_done(&jobs[i].res);
		jobs[i].outcome = BF_UNTESTED;
		jobs[i].start = 0;
		jobs[i].after_job = 0;
	}
}
