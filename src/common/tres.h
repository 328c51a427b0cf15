/* tres.h - the one builder of TRES strings ("cpu=2,mem=200M,node=1,billing=2,
 * gres/gpu=2"), for jobs, steps, nodes, partitions and accounting rows.
 *
 * Entries come in Slurm's TRES id order (cpu, mem, node, billing, then
 * gres/gpu) and, as Slurm prints them, an entry whose count is 0 is left
 * out: a node's CfgTRES has no node=, a step's TRES no billing=, a job
 * without memory no mem=.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

struct tres {
	uint32_t cpus;
	uint64_t mem_mb;
	uint32_t nodes;
	uint32_t billing;
	uint64_t gpus;
	const char *gpu_type; /* NULL: untyped; else also gres/gpu:TYPE=gpus */
};

#define TRES_TYPE_MAX 64

/* The string (malloc'd), or NULL when out of memory. "" when all are 0. */
char *tres_string(const struct tres *t);

/* The one GPU type of a Gres= string ("gpu:a100:4" -> "a100"), copied
 * into buf; NULL when its GPUs are untyped, of several types, or the
 * type does not fit. */
const char *tres_gpu_type(const char *gres, char *buf, size_t len);
