/* sched_stats.c - see sched_stats.h. (Filled in by the sdiag work.) */
#include "sched_stats.h"

#include "ctld.h"

void sched_stats_main_cycle(struct ctld *c, uint64_t usec, uint32_t depth, uint32_t queue_len,
			    uint32_t started)
{
	(void)c;
	(void)usec;
	(void)depth;
	(void)queue_len;
	(void)started;
}

void sched_stats_bf_cycle(struct ctld *c, uint64_t usec, uint32_t depth, uint32_t try_depth,
			  uint32_t queue_len, uint32_t started, time_t when)
{
	(void)c;
	(void)usec;
	(void)depth;
	(void)try_depth;
	(void)queue_len;
	(void)started;
	(void)when;
}
