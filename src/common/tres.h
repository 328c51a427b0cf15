/* tres.h - the one builder of TRES strings ("cpu=2,mem=200M,node=1,billing=2,
 * gres/gpu=2"), for jobs, steps, nodes, partitions and accounting rows.
 *
 * Entries come in Slurm's TRES id order (cpu, mem, node, billing, then
 * gres/gpu) and, as Slurm prints them, an entry whose count is 0 is left
 * out: a node's CfgTRES has no node=, a step's TRES no billing=, a job
 * without memory no mem=.
 */
#pragma once
#include <stdint.h>

struct tres {
	uint32_t cpus;
	uint64_t mem_mb;
	uint32_t nodes;
	uint32_t billing;
	uint64_t gpus;
};

/* The string (malloc'd), or NULL when out of memory. "" when all are 0. */
char *tres_string(const struct tres *t);
