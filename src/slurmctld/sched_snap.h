/* sched_snap.h - a copy of what backfill plans on (nodes and their use,
 * running jobs' allocations and expected ends, pending jobs' requests),
 * taken on the loop so that backfill.c can plan on another thread while
 * the loop goes on. The copy shares nothing with the controller.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "backfill.h"

struct ctld;
struct job;

struct sched_snap {
	struct bf_params params;
	struct sel_node *nodes; /* current use; is_usable: the node is up */
	uint32_t node_count;
	struct bf_run *runs;
	struct sel_result *run_allocs; /* copies the runs point to */
	uint32_t run_count;
	struct bf_job *jobs; /* the pending jobs given, in their order */
	uint32_t job_count;
	bool *part_usable; /* part_count rows of node_count */
	void **flags;	   /* the jobs' -w/-x arrays and -C's sel_feat blocks */
	uint32_t *order;   /* node order (Weight), NULL: index order */
	uint32_t flag_count;
	struct bf_block *blocks; /* the reservations (params.blocks) */
	uint32_t *block_nodes;	 /* their node indexes, copied */
	/* what the plan is only good for: c->alloc_gen, c->nodes */
	uint64_t alloc_gen;
	const void *nodes_id;
};

/* Copy c's nodes and running jobs, and pending[0..n) (priority order; the
 * first bf_max_job_test of them when there is no per-user cap) as
 * backfill jobs; params from SchedulerParameters with now. A pending job
 * whose request cannot be built (bad -w names) is left out. *ret or
 * -ENOMEM. */
int sched_snap_take(struct ctld *c, struct job *const *pending, uint32_t n, time_t now,
		    struct sched_snap **ret);
struct sched_snap *sched_snap_free(struct sched_snap *s); /* NULL-safe, NULL */
