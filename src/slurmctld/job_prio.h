/* job_prio.h - job priorities: priority/basic (each new job one lower than
 * the last, moved by its nice value) or priority/multifactor (factors from
 * prio_multifactor.c, fairshare from fair_tree.c over the usage of
 * assoc_usage.c), and the scheduler's order.
 *
 * Under multifactor every pending job's priority is computed at submit,
 * release and requeue, and again for all of them every PriorityCalcPeriod
 * (with running ones under PriorityFlags=CALCULATE_RUNNING). A held job
 * stays 0; a priority set by an administrator stays as set.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct job;
struct prio_factors;
struct prio_weights;

#define TOP_PRIORITY 0xffff0000u /* the first job's; then one lower each */

/* base lowered by the job's nice value (NICE_OFFSET based, NO_VAL none),
 * kept within 1..TOP_PRIORITY. */
uint32_t job_nice_priority(uint32_t base, uint32_t nice);
/* A new, released or requeued job's priority: priority/basic's next one
 * (each lower than the last, its nice applied) or multifactor's now
 * (job->prio_time set). */
uint32_t job_next_priority(struct ctld *c, struct job *job);
/* qsort of struct job *: highest priority first, then lowest id. */
int job_prio_cmp(const void *a, const void *b);
/* The scheduler's order as Slurm's: partition PriorityTier (highest
 * first), then priority, submit time, job id. */
void job_prio_sort(const struct ctld *c, struct job **jobs, size_t n);
/* The first k of that order, sorted, in jobs[0..k) (what jobs[k..n)
 * holds after is unspecified): O(n log k). Returns how many are sorted (min(k, n)). */
size_t job_prio_sort_top(const struct ctld *c, struct job **jobs, size_t n, size_t k);

bool job_prio_is_multifactor(const struct ctld *c);
/* The weights in force and one job's factors now (sprio). */
void job_prio_factors(const struct ctld *c, const struct job *job, time_t now,
		      struct prio_weights *w, struct prio_factors *ret);
/* Recompute every pending job (and running ones with CALCULATE_RUNNING)
 * now; held and administrator-set priorities are kept. */
void job_prio_recalc(struct ctld *c, time_t now);
/* The 1 s timer: usage charged; each PriorityCalcPeriod usage decayed,
 * Fair Tree and every job's priority computed again, usage saved; Fair
 * Tree also as soon as the association tree changes. */
void job_prio_timer(struct ctld *c, time_t now);
/* Start: load the saved usage. Shutdown: save it, free the state. */
int job_prio_start(struct ctld *c);
void job_prio_stop(struct ctld *c);
