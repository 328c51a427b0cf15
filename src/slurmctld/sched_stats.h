/* sched_stats.h - the scheduler's statistics that sdiag prints (main and
 * backfill cycles, job counters, RPC counts and times by message type and
 * by user). Leaf: the scheduler files and the dispatcher record, the
 * REQUEST_STATS_INFO handler reads and resets.
 *
 * One set per process (the controller): the counters live in this file,
 * in fixed tables (no allocation per record).
 */
#pragma once
#include <stdint.h>
#include <time.h>

struct ctld;
struct stats_info_msg;

/* One main scheduling pass took usec, looked at depth jobs (of queue_len
 * pending), started `started`. */
void sched_stats_main_cycle(struct ctld *c, uint64_t usec, uint32_t depth, uint32_t queue_len,
			    uint32_t started);
/* One backfill cycle took usec (its own work, not the wait for the loop),
 * tested depth jobs (try_depth of them had a placement tried), started
 * `started` of them, at `when`. */
void sched_stats_bf_cycle(struct ctld *c, uint64_t usec, uint32_t depth, uint32_t try_depth,
			  uint32_t queue_len, uint32_t started, time_t when);

/* At controller start: "Data since" now, and the job hook that counts
 * jobs submitted, started, completed, canceled and failed. */
int sched_stats_start(struct ctld *c, time_t now);
/* The dispatcher ran a handler for type from uid in usec. */
void sched_stats_rpc(uint16_t type, uint32_t uid, uint64_t usec);
/* sdiag's view at now (rows malloc'd: stats_info_msg_free). -ENOMEM. */
int sched_stats_fill(struct ctld *c, time_t now, struct stats_info_msg *ret);
/* sdiag -r: counters to zero, "Data since" now (backfilled jobs since
 * start are kept, as Slurm keeps them). */
void sched_stats_reset(time_t now);
