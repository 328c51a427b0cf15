/* job_prio.h - priority/basic: each new job one lower than the last, moved
 * by its nice value; the scheduler's order.
 */
#pragma once
#include <stdint.h>

struct ctld;

#define TOP_PRIORITY 0xffff0000u /* the first job's; then one lower each */

/* base lowered by the job's nice value (NICE_OFFSET based, NO_VAL none),
 * kept within 1..TOP_PRIORITY. */
uint32_t job_nice_priority(uint32_t base, uint32_t nice);
/* The next job's priority (each one lower than the last), with its nice
 * value applied. */
uint32_t job_next_priority(struct ctld *c, uint32_t nice);
/* qsort of struct job *: highest priority first, then lowest id. */
int job_prio_cmp(const void *a, const void *b);
