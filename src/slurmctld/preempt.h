/* preempt.h - which running jobs a pending job must preempt to start, as a
 * pure function (no controller state), so the choice is unit-tested.
 *
 * Candidates come in the order they should go (the caller puts the lowest
 * QOS priority first, and among equals the job that started last, as
 * Slurm's preempt/qos does). They are taken one by one, their use given
 * back on a copy of the nodes, until the job fits; then any taken one the
 * job does not need after all is put back, last taken first.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "select.h"

struct preempt_cand {
	const struct sel_result *alloc; /* what it holds */
	bool is_exclusive;
};

/* On nodes[0..n) with their current use, the fewest candidates (chosen[i]
 * set) that make req fit: 0, -EAGAIN when even all of them are not enough,
 * -ENOSPC when it could never fit, -ENOMEM. */
int preempt_pick(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
		 const struct preempt_cand *cands, uint32_t count, bool *chosen);
