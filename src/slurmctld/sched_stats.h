/* sched_stats.h - the scheduler's statistics that sdiag prints (main and
 * backfill cycles). Leaf: the scheduler files record, rpc handlers read.
 */
#pragma once
#include <stdint.h>
#include <time.h>

struct ctld;

/* One main scheduling pass took usec, looked at depth jobs (of queue_len
 * pending), started `started`. */
void sched_stats_main_cycle(struct ctld *c, uint64_t usec, uint32_t depth, uint32_t queue_len,
			    uint32_t started);
/* One backfill cycle took usec (its own work, not the wait for the loop),
 * tested depth jobs (try_depth of them had a placement tried), started
 * `started` of them, at `when`. */
void sched_stats_bf_cycle(struct ctld *c, uint64_t usec, uint32_t depth, uint32_t try_depth,
			  uint32_t queue_len, uint32_t started, time_t when);
