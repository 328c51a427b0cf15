/* prio_multifactor.c - see prio_multifactor.h. */
#include "prio_multifactor.h"

#include <math.h>

#include "common/macros.h"
#include "common/msg_job.h"

static double clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* Time since the job began to accrue age, over PriorityMaxAge. */
static double age_factor(const struct prio_weights *w, const struct prio_input *in)
{
	if (!in->age_start || in->now <= in->age_start || !w->max_age_secs)
		return 0;
	return clamp01((double)(in->now - in->age_start) / (double)w->max_age_secs);
}

/* Size relative to the cluster: nodes and CPUs averaged (favouring large
 * jobs, or small ones with PriorityFavorSmall), or with
 * SMALL_RELATIVE_TO_TIME the CPUs per minute of time limit. */
static double size_factor(const struct prio_weights *w, const struct prio_input *in)
{
	double nodes = in->cluster_nodes ? in->cluster_nodes : 1;
	double cpus = in->cluster_cpus ? in->cluster_cpus : 1;
	double js;

	if (w->flags & PRIO_FLAG_SMALL_RELATIVE_TO_TIME) {
		uint32_t limit = in->time_limit == NO_VAL ? in->part_max_time : in->time_limit;

		js = (double)in->min_nodes * cpus / nodes; /* nodes at the average size */
		if (in->cpus > js)
			js = in->cpus;
		if (limit > 0)
			js /= (double)limit;
		js /= cpus;
		return clamp01(w->is_favor_small ? 1.0 - js : js);
	}
	if (w->is_favor_small) {
		js = (nodes - in->min_nodes) / nodes;
		if (in->cpus)
			js = (js + (cpus - in->cpus) / cpus) / 2;
	} else {
		js = in->min_nodes / nodes;
		if (in->cpus)
			js = (js + in->cpus / cpus) / 2;
	}
	return clamp01(js);
}

static double ratio(uint32_t v, uint32_t max, bool is_raw)
{
	if (is_raw)
		return v;
	return max ? (double)v / (double)max : 0;
}

double prio_mf_weighted_tres(const struct prio_weights *w, const struct prio_factors *f)
{
	double sum = 0, top = 0;

	for (uint32_t i = 0; i < w->tres_count && i < PRIO_TRES_MAX; i++) {
		double v = w->tres[i] * f->tres[i];

		sum += v;
		if (v > top)
			top = v;
	}
	return (w->flags & PRIO_FLAG_MAX_TRES) ? top : sum;
}

void prio_mf_factors(const struct prio_weights *w, const struct prio_input *in,
		     struct prio_factors *ret)
{
	double sum;

	*ret = (struct prio_factors){0};
	ret->age = age_factor(w, in);
	ret->fairshare = clamp01(in->fs_factor);
	ret->job_size = size_factor(w, in);
	ret->partition = ratio(in->part_job_factor, in->max_part_job_factor,
			       w->flags & PRIO_FLAG_NO_NORMAL_PART);
	ret->qos =
	    ratio(in->qos_priority, in->max_qos_priority, w->flags & PRIO_FLAG_NO_NORMAL_QOS);
	for (uint32_t i = 0; i < w->tres_count && i < PRIO_TRES_MAX; i++) {
		if (w->flags & PRIO_FLAG_NO_NORMAL_TRES)
			ret->tres[i] = in->tres_count[i];
		else if (in->tres_total[i] > 0)
			ret->tres[i] = clamp01(in->tres_count[i] / in->tres_total[i]);
	}
	if (in->nice != NO_VAL)
		ret->nice = (int64_t)in->nice - (int64_t)NICE_OFFSET;
	sum = w->age * ret->age + w->assoc * ret->assoc + w->fairshare * ret->fairshare
	      + w->job_size * ret->job_size + w->partition * ret->partition + w->qos * ret->qos
	      + prio_mf_weighted_tres(w, ret) - (double)ret->nice;
	if (!(sum >= 1)) /* NaN too */
		sum = 1;
	if (sum > (double)(UINT32_MAX - 2))
		sum = (double)(UINT32_MAX - 2); /* below NO_VAL and INFINITE */
	ret->priority = (uint32_t)sum;
}
