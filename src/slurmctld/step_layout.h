/* step_layout.h - where a job step's tasks go inside its job's allocation,
 * as a pure function (no controller state), so it is unit-tested.
 *
 * Input: the job's nodes in job order, each with the cpus, memory and GPUs
 * the job holds there and what running steps hold of them; the request
 * (tasks, nodes, cpus per task, tasks per node, -w/-x, memory, GPUs,
 * --overlap). Output: the step's nodes (job order) with tasks, cpus,
 * memory and GPU indexes.
 *
 * Placement as Slurm 22.05: nodes are taken in job order, required ones
 * first, until they hold the tasks (the fewest nodes when only -n is
 * given; all of the job's nodes when neither -n nor -N is). Each chosen
 * node runs at least one task. Task counts per node are dealt round-robin
 * up to each node's free cpus / cpus_per_task and then numbered in block
 * order (Slurm's _task_layout_block): cpus 3,1 with -n4 -> 3,1; 4,4 with
 * -N2 -n4 -> 2,2; 1,3 with -n4 -> 1,3.
 *
 * Task ids follow the node level of -m: block numbers them node by node;
 * cyclic deals them one by one round-robin over the step's nodes (the same
 * counts as block), skipping a node once it holds its count; plane=N deals
 * blocks of N ids round-robin, each node taking at most N a round up to
 * what it can hold (so the counts follow the planes: -N2 -n6 plane=4 ->
 * 4,2); arbitrary puts task i on the node the request lists i-th (a node
 * listed more often than it can hold tasks does not fit).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "common/task_map.h"

struct step_avail {	    /* one node of the job, as steps see it */
	uint16_t cpus;	    /* the job's cpus there */
	uint64_t mem;	    /* the job's memory there, MB; 0: not limited */
	uint64_t gpus;	    /* the job's GPU index mask there */
	uint16_t cpus_held; /* by running steps that are not --overlap */
	uint64_t gpus_held; /* by running steps that asked for GPUs */
	bool is_required;   /* -w */
	bool is_excluded;   /* -x */
};

enum step_gpu_mode {
	STEP_GPUS_ALL,	 /* nothing asked: every GPU of the job there, shared */
	STEP_GPUS_NONE,	 /* --gres=none */
	STEP_GPUS_COUNT, /* gres/gpu:N per node, held until the step ends */
	STEP_GPUS_PER_TASK, /* --gpus-per-task: tasks x N on each node, held */
	STEP_GPUS_TOTAL,    /* --gpus=N: dealt one by one over the step's nodes, held */
};

struct step_layout_req {
	uint32_t num_tasks;	       /* NO_VAL: one per node (or ntasks_per_node per node) */
	uint32_t min_nodes, max_nodes; /* NO_VAL: see above; max NO_VAL with min: = min */
	uint16_t cpus_per_task;	       /* NO_VAL16 or 0: 1 */
	uint16_t ntasks_per_node;      /* NO_VAL16 or 0: not given */
	uint64_t mem_per_node;	       /* MB, NO_VAL64: not given */
	uint64_t mem_per_cpu;	       /* MB, NO_VAL64: not given */
	enum step_gpu_mode gpu_mode;
	uint16_t gpus_per_node; /* STEP_GPUS_COUNT */
	uint16_t gpus_per_task; /* STEP_GPUS_PER_TASK */
	uint32_t gpus_total;	/* STEP_GPUS_TOTAL */
	bool is_overlap;	/* --overlap: ignores and holds no cpus/GPUs */
	enum task_dist dist;
	uint16_t plane_size;	  /* TASK_DIST_PLANE: >= 1 */
	const uint32_t *arb_node; /* TASK_DIST_ARBITRARY: job node of each of
				   * num_tasks tasks (those nodes are required) */
};

struct step_place {	   /* one node of the step */
	uint32_t job_node; /* index into the job's nodes */
	uint32_t tasks;
	uint16_t cpus; /* tasks * cpus_per_task */
	uint64_t mem;  /* MB, 0: not limited */
	uint64_t gpus; /* GPU index mask */
};

struct step_layout {
	struct step_place *nodes; /* job order */
	uint32_t count;
	uint32_t *node_of; /* per task: index into nodes */
	uint32_t num_tasks;
	uint32_t num_cpus;
};

/* Place req on the job's nodes[0..n). Returns 0 and fills *ret (free with
 * step_layout_done), or:
 * -EAGAIN  it fits once running steps end (ESLURM_NODES_BUSY),
 * -ENOSPC  it can never fit in this job: more tasks x cpus than the job
 *          has, too many GPUs or memory (Requested node configuration is
 *          not available),
 * -ERANGE  more nodes asked (or required) than the job has, or min > max
 *          (Node count specification invalid),
 * -EINVAL  fewer tasks than nodes, or a zero count (Task count
 *          specification invalid).
 * *ret is written only on success. */
int step_layout_place(const struct step_avail *nodes, uint32_t n, const struct step_layout_req *req,
		      struct step_layout *ret);
void step_layout_done(struct step_layout *l);
