/* job_prio.c - see job_prio.h. */
#include "job_prio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "assoc.h"
#include "assoc_usage.h"
#include "common/conf.h"
#include "common/conf_prio.h"
#include "common/gres_detect.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "ctld.h"
#include "fair_tree.h"
#include "job.h"
#include "node.h"
#include "part.h"
#include "prio_multifactor.h"

/* What every job's factors are relative to. */
struct prio_cluster {
	struct prio_weights w;
	struct prio_tres_weight tres[PRIO_TRES_MAX];
	uint32_t cpus, nodes;
	double mem, gpus;
	uint32_t max_part_factor, max_qos_prio;
};

struct prio_ctx {
	time_t last_calc; /* last PriorityCalcPeriod pass, 0: at the next tick */
	struct assoc_usage usage;
	/* cluster_of()'s answer and what it depends on */
	struct prio_cluster cluster;
	const struct sl_conf *cluster_conf; /* NULL: not computed */
	uint32_t cluster_nodes, cluster_parts;
	time_t cluster_assoc_update;
	time_t tree_assoc_update; /* the association tree Fair Tree last saw */
};

uint32_t job_nice_priority(uint32_t base, uint32_t nice)
{
	int64_t p = (int64_t)base;

	if (nice != NO_VAL)
		p -= (int64_t)nice - (int64_t)NICE_OFFSET; /* --nice=N lowers it by N */
	return p < 1 ? 1 : p > (int64_t)TOP_PRIORITY ? TOP_PRIORITY : (uint32_t)p;
}

bool job_prio_is_multifactor(const struct ctld *c)
{
	return c->conf && c->conf->priority_type
	       && strcaseeq(c->conf->priority_type, "priority/multifactor");
}

static void cluster_compute(const struct ctld *c, struct prio_cluster *s)
{
	const struct sl_conf *conf = c->conf;
	int n;

	*s = (struct prio_cluster){
	    .w = {.age = conf->prio_weight_age,
		  .assoc = conf->prio_weight_assoc,
		  .fairshare = conf->prio_weight_fairshare,
		  .job_size = conf->prio_weight_job_size,
		  .partition = conf->prio_weight_partition,
		  .qos = conf->prio_weight_qos,
		  .max_age_secs = conf->prio_max_age < UINT32_MAX / 60 ? conf->prio_max_age * 60u
								       : UINT32_MAX, /* UNLIMITED */
		  .is_favor_small = conf->prio_favor_small,
		  .flags = conf->prio_flags},
	    .nodes = c->node_count,
	};
	n = conf_prio_tres_parse(conf->prio_weight_tres, s->tres, PRIO_TRES_MAX);
	s->w.tres_count = n > 0 ? (uint32_t)n : 0; /* checked when the file was read */
	for (uint32_t i = 0; i < s->w.tres_count; i++)
		s->w.tres[i] = s->tres[i].weight;
	for (uint32_t i = 0; i < c->node_count; i++) {
		s->cpus += c->nodes[i].cfg->cpus;
		s->mem += (double)c->nodes[i].cfg->real_memory;
		s->gpus += (double)gres_count(c->nodes[i].cfg->gres, "gpu");
	}
	for (uint32_t i = 0; i < c->part_count; i++)
		if (c->parts[i].cfg->priority_job_factor > s->max_part_factor)
			s->max_part_factor = c->parts[i].cfg->priority_job_factor;
	for (uint32_t i = 0; i < c->assoc.qos_count; i++)
		if (c->assoc.qos[i] && c->assoc.qos[i]->priority > s->max_qos_prio)
			s->max_qos_prio = c->assoc.qos[i]->priority;
}

/* The cluster's totals and the weights, kept while the configuration,
 * the node and partition tables and the QOS are the same (a submission
 * does not add up every node again). */
static void cluster_of(const struct ctld *c, struct prio_cluster *s)
{
	struct prio_ctx *x = c->prio;

	if (!x) {
		cluster_compute(c, s);
		return;
	}
	if (x->cluster_conf != c->conf || x->cluster_nodes != c->node_count
	    || x->cluster_parts != c->part_count
	    || x->cluster_assoc_update != c->assoc.last_update) {
		cluster_compute(c, &x->cluster);
		x->cluster_conf = c->conf;
		x->cluster_nodes = c->node_count;
		x->cluster_parts = c->part_count;
		x->cluster_assoc_update = c->assoc.last_update;
	}
	*s = x->cluster;
}

static uint32_t job_cpus(const struct job *job)
{
	uint32_t req = job->num_tasks * (job->cpus_per_task ? job->cpus_per_task : 1);

	if (job->alloc.count)
		return job->alloc.total_cpus;
	return req < job->min_nodes ? job->min_nodes : req;
}

/* The job's amount of one TRES of PriorityWeightTRES, and the cluster's. */
static void tres_of(const struct prio_cluster *s, const struct job *job, const char *name,
		    double *count, double *total)
{
	uint32_t nodes = job->alloc.count ? job->alloc.count : job->min_nodes;
	double cpus = job_cpus(job);

	*count = *total = 0;
	if (!strcmp(name, "cpu") || !strcmp(name, "billing")) {
		*count = cpus;
		*total = s->cpus;
	} else if (!strcmp(name, "mem")) {
		*count = job->mem_per_cpu ? (double)job->mem_per_cpu * cpus
					  : (double)job->mem_per_node * nodes;
		*total = s->mem;
	} else if (!strcmp(name, "node")) {
		*count = nodes;
		*total = s->nodes;
	} else if (!strcmp(name, "gres/gpu")) {
		*count = job->gpus_total ? job->gpus_total : (double)job->gpus_per_node * nodes;
		*total = s->gpus;
	}
}

/* Where the job's age counts from: its submission with ACCRUE_ALWAYS,
 * else the time it became eligible (0 while it is not). */
static time_t age_start(const struct prio_cluster *s, const struct job *job, time_t now)
{
	if (s->w.flags & PRIO_FLAG_ACCRUE_ALWAYS)
		return job->submit_time;
	if (!job->priority || job->reason == WAIT_DEPENDENCY || !job->eligible_time
	    || job->eligible_time > now)
		return 0;
	return job->eligible_time;
}

static void input_of(const struct ctld *c, const struct prio_cluster *s, const struct job *job,
		     time_t now, struct prio_input *in)
{
	const struct part *p = job->partition ? part_find(c, job->partition) : NULL;
	const struct assoc *a = assoc_of_job(c, job);
	const struct qos *q = qos_of_job(c, job);

	*in = (struct prio_input){
	    .now = now,
	    .age_start = age_start(s, job, now),
	    .cpus = job_cpus(job),
	    .min_nodes = job->alloc.count ? job->alloc.count : job->min_nodes,
	    .time_limit = job->time_limit,
	    .part_max_time = p ? p->cfg->max_time : INFINITE,
	    .cluster_cpus = s->cpus,
	    .cluster_nodes = s->nodes,
	    .part_job_factor = p ? p->cfg->priority_job_factor : 0,
	    .max_part_job_factor = s->max_part_factor,
	    .qos_priority = q ? q->priority : 0,
	    .max_qos_priority = s->max_qos_prio,
	    .fs_factor = a ? a->fs_factor : 0, /* no association: no fairshare */
	    .nice = job->desc ? job->desc->nice : NO_VAL,
	};
	for (uint32_t i = 0; i < s->w.tres_count; i++)
		tres_of(s, job, s->tres[i].name, &in->tres_count[i], &in->tres_total[i]);
}

void job_prio_factors(const struct ctld *c, const struct job *job, time_t now,
		      struct prio_weights *w, struct prio_factors *ret)
{
	struct prio_cluster s;
	struct prio_input in;

	cluster_of(c, &s);
	input_of(c, &s, job, now, &in);
	prio_mf_factors(&s.w, &in, ret);
	*w = s.w;
}

uint32_t job_next_priority(struct ctld *c, struct job *job)
{
	struct prio_weights w;
	struct prio_factors f;

	if (job_prio_is_multifactor(c)) {
		job->prio_time = time(NULL);
		job_prio_factors(c, job, job->prio_time, &w, &f);
		return f.priority;
	}
	if (!c->lowest_prio || c->lowest_prio > TOP_PRIORITY)
		c->lowest_prio = TOP_PRIORITY;
	if (c->lowest_prio > 1)
		c->lowest_prio--;
	return job_nice_priority(c->lowest_prio, job && job->desc ? job->desc->nice : NO_VAL);
}

/* Every pending job again (only_recovered: those not weighed since the
 * controller started, prio_time 0). */
static void prio_recalc(struct ctld *c, time_t now, bool only_recovered)
{
	struct prio_cluster s;
	bool is_running_too, is_changed = false;

	if (!job_prio_is_multifactor(c))
		return;
	cluster_of(c, &s);
	is_running_too = s.w.flags & PRIO_FLAG_CALCULATE_RUNNING;
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];
		struct prio_input in;
		struct prio_factors f;

		if (!job->priority || job->is_prio_fixed)
			continue; /* held, or set by an administrator */
		if (only_recovered && job->prio_time)
			continue; /* weighed at submit in this run: kept until the next period */
		if (!job_is_pending(job) && !(is_running_too && job_is_running(job)))
			continue;
		input_of(c, &s, job, now, &in);
		prio_mf_factors(&s.w, &in, &f);
		if ((s.w.flags & PRIO_FLAG_INCR_ONLY) && f.priority < job->priority)
			continue; /* never lowered */
		job->prio_time = now;
		if (f.priority != job->priority) {
			job->priority = f.priority;
			job_info_touch(job);
			is_changed = true;
		}
	}
	if (is_changed) /* derived: recomputed after a restart, so not journaled */
		c->job_last_update = now;
}

void job_prio_recalc(struct ctld *c, time_t now)
{
	prio_recalc(c, now, false);
}

static struct prio_ctx *ctx_of(struct ctld *c)
{
	if (!c->prio)
		c->prio = calloc(1, sizeof(*c->prio));
	return c->prio;
}

void job_prio_timer(struct ctld *c, time_t now)
{
	struct prio_ctx *x;
	time_t period;
	bool is_first;

	if (!job_prio_is_multifactor(c) || !(x = ctx_of(c)))
		return;
	if (x->cluster_conf != c->conf)
		x->cluster_conf = NULL; /* reconfigured: a later conf may reuse the address */
	assoc_usage_tick(c, &x->usage, now);
	period = (time_t)c->conf->prio_calc_period * 60;
	if (x->last_calc && now >= x->last_calc && now - x->last_calc < period) {
		if (x->tree_assoc_update != c->assoc.last_update) { /* sacctmgr changed it */
			x->tree_assoc_update = c->assoc.last_update;
			if (fair_tree_compute(&c->assoc) < 0)
				error("priority: out of memory computing fairshare");
		}
		return;
	}
	is_first = !x->last_calc;
	x->tree_assoc_update = c->assoc.last_update;
	x->last_calc = now;
	assoc_usage_decay_all(c, &x->usage, now);
	if (fair_tree_compute(&c->assoc) < 0)
		error("priority: out of memory computing fairshare");
	/* The first pass (the first tick) weighs the recovered jobs; one
	 * submitted since the start keeps what it was given at submit until
	 * the next period, as if the pass had run before it came. */
	prio_recalc(c, now, is_first);
	if (c->assoc.assoc_count) {
		int r =
		    assoc_usage_save(&c->assoc, x->usage.last_decay, c->conf->state_save_location);

		if (r < 0)
			error("priority: cannot save %s/%s: %s", c->conf->state_save_location,
			      ASSOC_USAGE_FILE, strerror(-r));
	}
}

int job_prio_start(struct ctld *c)
{
	struct prio_ctx *x = ctx_of(c);

	if (!x)
		return -ENOMEM;
	if (!c->is_clean_start
	    && assoc_usage_load(&x->usage, c->conf->state_save_location) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

void job_prio_stop(struct ctld *c)
{
	if (!c->prio)
		return;
	if (job_prio_is_multifactor(c) && c->assoc.assoc_count)
		assoc_usage_save(&c->assoc, c->prio->usage.last_decay,
				 c->conf->state_save_location);
	assoc_usage_done(&c->prio->usage);
	free(c->prio);
	c->prio = NULL;
}

int job_prio_cmp(const void *a, const void *b)
{
	const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

static uint32_t tier_of(const struct ctld *c, const struct job *job)
{
	const struct part *p = job->partition ? part_find(c, job->partition) : NULL;

	return p ? p->cfg->priority_tier : 0;
}

/* A job's sort keys next to it: the sort reads no job record. */
struct tiered {
	uint32_t tier, priority, job_id;
	time_t submit_time;
	struct job *job;
};

static int cmp_tier(const void *a, const void *b)
{
	const struct tiered *x = a, *y = b;

	if (x->tier != y->tier)
		return x->tier > y->tier ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->submit_time != y->submit_time)
		return x->submit_time < y->submit_time ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

static struct tiered tiered_of(const struct ctld *c, struct job *job, const uint32_t *one_tier)
{
	uint32_t tier = one_tier ? *one_tier : tier_of(c, job);

	return (struct tiered){tier, job->priority, job->job_id, job->submit_time, job};
}

/* The PriorityTier every partition has, if they all have one: no lookup a job. */
static const uint32_t *one_tier(const struct ctld *c, uint32_t *ret)
{
	*ret = c->part_count ? c->parts[0].cfg->priority_tier : 0;
	for (uint32_t i = 1; i < c->part_count; i++)
		if (c->parts[i].cfg->priority_tier != *ret)
			return NULL;
	return ret;
}

/* Sift v[i] down a heap whose root is the last in order (the worst kept). */
static void worst_heap_down(struct tiered *v, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;

		if (l < n && cmp_tier(&v[l], &v[w]) > 0)
			w = l;
		if (r < n && cmp_tier(&v[r], &v[w]) > 0)
			w = r;
		if (w == i)
			return;
		struct tiered t = v[i];

		v[i] = v[w];
		v[w] = t;
		i = w;
	}
}

size_t job_prio_sort_top(const struct ctld *c, struct job **jobs, size_t n, size_t k)
{
	size_t keep = k < n ? k : n;
	struct tiered *v = keep ? malloc(keep * sizeof(*v)) : NULL;
	uint32_t tier;
	const uint32_t *same = one_tier(c, &tier);

	if (!keep)
		return 0;
	if (!v) { /* out of memory: priority order, without tiers */
		qsort(jobs, n, sizeof(*jobs), job_prio_cmp);
		return keep;
	}
	for (size_t i = 0; i < keep; i++) /* each job's tier looked up once */
		v[i] = tiered_of(c, jobs[i], same);
	if (keep < n) { /* the best keep of n: a heap with the worst kept on top */
		for (size_t i = keep / 2; i-- > 0;)
			worst_heap_down(v, keep, i);
		for (size_t i = keep; i < n; i++) {
			struct tiered t = tiered_of(c, jobs[i], same);

			if (cmp_tier(&t, &v[0]) < 0) {
				v[0] = t;
				worst_heap_down(v, keep, 0);
			}
		}
	}
	qsort(v, keep, sizeof(*v), cmp_tier);
	for (size_t i = 0; i < keep; i++)
		jobs[i] = v[i].job;
	free(v);
	return keep;
}

void job_prio_sort(const struct ctld *c, struct job **jobs, size_t n)
{
	job_prio_sort_top(c, jobs, n, n);
}
