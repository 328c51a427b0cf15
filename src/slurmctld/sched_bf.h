/* sched_bf.h - sched/backfill in the controller.
 *
 * Every bf_interval seconds (SchedulerType=sched/backfill, bf_interval not
 * -1) the loop runs a main pass, copies the jobs it left waiting for
 * Priority or Resources, with the nodes and the running jobs
 * (sched_snap.c), and hands the copy to a thread that plans it
 * (backfill.c). The loop goes on answering meanwhile. When the plan is
 * back, the loop records every job's expected start and nodes (StartTime,
 * SchedNodeList, squeue --start) and starts the jobs the plan says may
 * start now, unless an allocation happened since the copy (the plan is
 * then stale: its starts wait for the next cycle, run at once, once per
 * bf_interval).
 */
#pragma once
#include <stdint.h>

struct ctld;

int sched_bf_init(struct ctld *c);
void sched_bf_fini(struct ctld *c); /* waits for a plan in progress */
/* Run one cycle now, planning on the loop (unit tests, the benchmark):
 * 0 or a negative code; *ret_plan_usec (may be NULL): the part the
 * daemon does on its thread. */
int sched_bf_cycle_sync(struct ctld *c, uint64_t *ret_plan_usec);
