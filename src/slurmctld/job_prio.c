/* job_prio.c - see job_prio.h. */
#include "job_prio.h"

#include "common/macros.h"
#include "common/msg.h"
#include "ctld.h"
#include "job.h"

uint32_t job_nice_priority(uint32_t base, uint32_t nice)
{
	int64_t p = (int64_t)base;

	if (nice != NO_VAL)
		p -= (int64_t)nice - (int64_t)NICE_OFFSET; /* --nice=N lowers it by N */
	return p < 1 ? 1 : p > (int64_t)TOP_PRIORITY ? TOP_PRIORITY : (uint32_t)p;
}

uint32_t job_next_priority(struct ctld *c, uint32_t nice)
{
	if (!c->lowest_prio || c->lowest_prio > TOP_PRIORITY)
		c->lowest_prio = TOP_PRIORITY;
	if (c->lowest_prio > 1)
		c->lowest_prio--;
	return job_nice_priority(c->lowest_prio, nice);
}

int job_prio_cmp(const void *a, const void *b)
{
	const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}
