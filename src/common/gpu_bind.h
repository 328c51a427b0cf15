/* gpu_bind.h - --gpu-bind: which of a step's GPUs on a node each local
 * task sees, as Slurm 22.05's gres/gpu plugin chooses them.
 *
 * The value is a comma list: "verbose" plus at most one of "none",
 * "closest", "single:N" (N tasks share each GPU), "per_task:N" (each task
 * gets N GPUs of its own), "map_gpu:i,j*2,..." (task t gets the GPU at
 * position t of the list, repetition counts expanded, wrapping) or
 * "mask_gpu:0x1,0x6,..." (the same with hex masks). "closest" takes the
 * GPUs whose gres.conf Cores= hold a core the task is bound to. GPU numbers in
 * map_gpu/mask_gpu are the node's GPU indexes (gres.conf order), as in
 * Slurm. A binding naming GPUs the step does not have falls back to all
 * of the step's GPUs, as Slurm falls back to its usable set.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPU_BIND_MAX 64 /* GPUs per node a mask can hold */

enum gpu_bind_type {
	GPU_BIND_UNSET,	  /* nothing asked: every task sees the step's GPUs */
	GPU_BIND_NONE,	  /* "none": the same, said explicitly */
	GPU_BIND_CLOSEST, /* the GPUs nearest the task's cores (else the step's) */
	GPU_BIND_SINGLE,
	GPU_BIND_PER_TASK,
	GPU_BIND_MAP,
	GPU_BIND_MASK,
};

struct gpu_bind {
	enum gpu_bind_type type;
	bool is_verbose;
	uint32_t n;	  /* single:N, per_task:N (>= 1) */
	const char *list; /* map_gpu:/mask_gpu: list, borrowed from the parsed value */
};

/* Parse a --gpu-bind value (NULL or "" leaves GPU_BIND_UNSET). 0, or
 * -EINVAL for anything Slurm would refuse ("Invalid --gpu-bind argument"). */
int gpu_bind_parse(const char *v, struct gpu_bind *ret);

/* The GPUs (a mask of node GPU indexes) local task ltid sees, out of the
 * step's GPUs on this node (a mask; never empty when step is not).
 * closest: those of the step's GPUs whose gres.conf Cores= hold a core
 * the task is bound to (0: unknown), which closest and single:N choose
 * from, as Slurm. */
uint64_t gpu_bind_task(const struct gpu_bind *b, uint64_t step, uint64_t closest, uint32_t ltid);

/* "0,2,3": the set bits of mask as a comma list into buf (size >= 192
 * holds any 64-bit mask); "" for 0. */
void gpu_bind_list(uint64_t mask, char *buf, size_t size);
