/* backfill.h - sched/backfill's planner as a pure function (no I/O, no
 * controller state): given the nodes with their current use, the running
 * jobs with their expected ends, and the pending jobs in priority order,
 * say for each pending job whether it starts now, when and where it is
 * expected to start, or that it cannot start within the window.
 *
 * Each node has a timeline of its use from now on (cpus, memory, GPU
 * indexes, exclusive holders), built from the running jobs' ends. Jobs are
 * taken in priority order; each gets the earliest window [start,
 * start+limit) where select_place() fits it on the use at its peak over the
 * window, and that use is then reserved on its nodes. A job that fits now
 * therefore never takes what an earlier (higher-priority) job was promised:
 * it may start ("backfill") only if it ends before, or runs beside, every
 * reservation made before it. The caller starts the BF_NOW jobs.
 *
 * Times are seconds. A running job's end is rounded down to the resolution
 * (never before now + 1); a limit of 0 is "no time limit" (it never ends).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "select.h"

enum bf_outcome {
	BF_UNTESTED, /* not reached (bf_max_job_test, per-user cap) */
	BF_NOW,	     /* fits now without delaying any earlier job: start it */
	BF_LATER,    /* expected start, nodes reserved */
	BF_NEVER,    /* no start found within the window */
};

struct bf_run { /* a running job: what it holds, until when */
	uint32_t job_id;
	time_t end; /* expected end; 0 = never (no time limit) */
	const struct sel_result *alloc;
	bool is_exclusive;
};

struct bf_block;

struct bf_job { /* a pending job, in priority order */
	uint32_t job_id;
	uint32_t user;	       /* for max_job_user */
	struct sel_req req;    /* is_required/is_excluded belong to the caller */
	const bool *is_usable; /* per node: in its partition and up (caller's) */
	uint32_t limit;	       /* seconds; 0 = no time limit */
	const struct bf_block *own; /* its reservation when FLEX: open to it (NULL: none) */
	/* results */
	enum bf_outcome outcome;
	time_t start;	       /* BF_NOW: now; BF_LATER: the estimate */
	struct sel_result res; /* BF_NOW/BF_LATER: the nodes (free with sel_result_done) */
	uint32_t after_job;    /* the job whose end lets it start (0: none) */
};

struct bf_block { /* nodes no planned job may use in [start, end): a reservation
		   * (but its own jobs, when it is FLEX) */
	time_t start, end;     /* end 0: it never ends */
	const uint32_t *nodes; /* node indexes */
	uint32_t node_count;
};

struct bf_params {
	time_t now;
	const struct bf_block *blocks; /* reservations (none: NULL, 0) */
	uint32_t block_count;
	uint32_t window;       /* seconds looked ahead (bf_window) */
	uint32_t resolution;   /* seconds (bf_resolution), >= 1 */
	uint32_t max_job_test; /* jobs tested at most (0: all) */
	uint32_t max_job_user; /* jobs of one user tested at most (0: all) */
	bool is_busy_nodes;    /* prefer nodes already in use (bf_busy_nodes) */
};

struct bf_stats {
	uint32_t tested;      /* jobs tested (depth) */
	uint32_t tried;	      /* placements tried */
	uint32_t now_count;   /* BF_NOW */
	uint32_t later_count; /* BF_LATER */
};

/* Plan jobs[0..job_count) (their results are written, old ones freed) on
 * nodes[0..node_count) (current use) with runs[0..run_count). Returns 0 or
 * -ENOMEM (then every job not yet planned stays BF_UNTESTED). */
int bf_plan(const struct bf_params *p, const struct sel_node *nodes, uint32_t node_count,
	    const struct bf_run *runs, uint32_t run_count, struct bf_job *jobs, uint32_t job_count,
	    struct bf_stats *stats);
/* Free the results of jobs[0..n). */
void bf_jobs_done(struct bf_job *jobs, uint32_t n);
