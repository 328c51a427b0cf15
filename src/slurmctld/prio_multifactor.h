/* prio_multifactor.h - priority/multifactor's factors and sum, computed
 * from plain inputs (no controller state; the glue in job_prio.c fills
 * them from a job, its partition and the cluster).
 *
 * As Slurm 22.05's priority/multifactor: every factor lies in 0..1 (unless
 * a PriorityFlags=NO_NORMAL_* flag keeps the raw value), the priority is
 * site + sum(weight x factor) + sum(TRES weight x TRES factor) - nice,
 * truncated to an integer, at least 1.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/conf_prio.h" /* PRIO_FLAG_*, PRIO_TRES_MAX */

/* The configuration side (slurm.conf Priority*). */
struct prio_weights {
	uint32_t age, assoc, fairshare, job_size, partition, qos;
	uint32_t max_age_secs; /* PriorityMaxAge */
	bool is_favor_small;   /* PriorityFavorSmall */
	uint32_t flags;	       /* PRIO_FLAG_* */
	uint32_t tres_count;
	double tres[PRIO_TRES_MAX]; /* weights, in PriorityWeightTRES order */
};

/* One job's inputs. */
struct prio_input {
	time_t now;
	time_t age_start; /* submit (ACCRUE_ALWAYS) or eligible time; 0: not accruing */
	uint32_t cpus;	  /* requested (or allocated) CPUs */
	uint32_t min_nodes;
	uint32_t time_limit;	/* minutes; NO_VAL: the partition's */
	uint32_t part_max_time; /* minutes, INFINITE */
	uint32_t cluster_cpus, cluster_nodes;
	uint32_t part_job_factor, max_part_job_factor; /* PriorityJobFactor */
	uint32_t qos_priority, max_qos_priority;       /* 0, 0 without a QOS */
	double fs_factor;			       /* Fair Tree's, 0 without association */
	uint32_t nice;				       /* NICE_OFFSET based; NO_VAL none */
	double tres_count[PRIO_TRES_MAX];	       /* the job's, per weight entry */
	double tres_total[PRIO_TRES_MAX];	       /* the cluster's */
};

/* Normalized factors (what sprio -n prints) and the result. */
struct prio_factors {
	double age, assoc, fairshare, job_size, partition, qos;
	double tres[PRIO_TRES_MAX];
	int64_t nice;	   /* the amount subtracted (nice - NICE_OFFSET) */
	uint32_t priority; /* the sum, >= 1 */
};

void prio_mf_factors(const struct prio_weights *w, const struct prio_input *in,
		     struct prio_factors *ret);
/* Each factor times its weight (sprio's columns). */
double prio_mf_weighted_tres(const struct prio_weights *w, const struct prio_factors *f);
