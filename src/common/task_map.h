/* task_map.h - which node of a step runs each of its tasks: the node
 * level of -m/--distribution (block, cyclic, plane=N, arbitrary) as an
 * explicit, compact list of blocks, in the form of PMI_process_mapping.
 *
 * A block (start, count, per) gives the next count * per task ids to the
 * step nodes start .. start + count - 1, per consecutive ids to each. The
 * blocks are used in order and, once all are used, again from the first
 * (MPICH's reading of PMI_process_mapping), until every task has a node:
 *   block   -N2 -n5 (3 + 2)  (0,1,3),(1,1,2)  -> 0 0 0 1 1
 *   cyclic  -N2 -n5          (0,2,1)          -> 0 1 0 1 0
 *   plane=2 -N2 -n6          (0,2,2)          -> 0 0 1 1 0 0
 * The controller builds it from its placement (step_layout.c); it travels
 * in the step's reply to srun, signed in the step credential and in each
 * launch, so every node knows the whole step's layout.
 *
 * Wire (pack.h): u32 nblocks (1..TASK_MAP_BLOCKS_MAX), then nblocks x
 * { u32 start, u32 count, u32 per }.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TASK_MAP_TASKS_MAX  65536u /* a step's tasks: the I/O stream's ids are 16 bits */
#define TASK_MAP_BLOCKS_MAX 65536u /* never more blocks than tasks */

struct pack_buf;

/* The node level of -m (SLURM_DISTRIBUTION's first word). */
enum task_dist {
	TASK_DIST_BLOCK = 0, /* also "*" and nothing given */
	TASK_DIST_CYCLIC = 1,
	TASK_DIST_PLANE = 2,
	TASK_DIST_ARBITRARY = 3,
};

struct task_block {
	uint32_t start, count, per;
};

struct task_map {
	uint32_t nblocks;
	struct task_block *blocks;
};

/* Check a whole -m value, <node>[:<socket>[:<core>]][,Pack|NoPack], node
 * block|cyclic|arbitrary|plane=N (N >= 1), socket and core
 * block|cyclic|fcyclic, "*" anywhere (Slurm's grammar; plane takes no
 * further level). 0 with *ret_dist and *ret_plane (0 unless plane), or
 * -EINVAL. */
int task_dist_parse(const char *s, enum task_dist *ret_dist, uint16_t *ret_plane);

/* The map of node_of[0..ntasks) (task -> step node), shortest repeating
 * form. 0, -EINVAL (no task), -ENOMEM; *ret written only on success. */
int task_map_build(const uint32_t *node_of, uint32_t ntasks, struct task_map *ret);
/* Fill node_of[0..ntasks) from m for a step of nnodes nodes. 0, or -EINVAL
 * for a map that names a node outside the step, has an empty block, leaves
 * a node without a task, or for 0 or over TASK_MAP_TASKS_MAX tasks. */
int task_map_expand(const struct task_map *m, uint32_t nnodes, uint32_t ntasks, uint32_t *node_of);
bool task_map_equal(const struct task_map *a, const struct task_map *b);
void task_map_done(struct task_map *m);
void task_map_pack(const struct task_map *m, struct pack_buf *b);
/* Sets b->err on a short buffer, zero or too many blocks (*m then empty). */
void task_map_unpack(struct pack_buf *b, struct task_map *m);
/* "(vector,(0,2,1),(1,1,3))" into buf; 0 or -ENOSPC. */
int task_map_string(const struct task_map *m, char *buf, size_t size);
