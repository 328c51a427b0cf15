/* job_gpu.h - a job's GPU request as the scheduler uses it, resolved
 * from what was submitted (--gres=gpu, --gpus, --gpus-per-node,
 * --gpus-per-task, --gpus-per-socket, --ntasks-per-gpu, --cpus-per-gpu,
 * --mem-per-gpu), and the GPU types of the nodes.
 *
 * A node's GPUs are numbered in the order of its Gres= entries
 * ("gpu:a100:2,gpu:v100:2": 0-1 are a100, 2-3 v100), which is also the
 * order of gres.conf's lines for it (the index is the device file's
 * position). Each distinct type of the cluster gets an id (1..); every
 * node keeps the mask of its GPUs of each type, so a typed request costs
 * one AND per node.
 */
#pragma once
#include <stdint.h>

#include "common/tres.h"

struct ctld;
struct job_desc;

#define GPU_TYPES_MAX 8 /* distinct GPU types a cluster may name */

struct job_gpu {
	uint16_t per_node;	  /* --gres=gpu:N / --gpus-per-node, or per socket x sockets */
	uint32_t total;		  /* --gpus */
	uint16_t per_task;	  /* --gpus-per-task */
	uint16_t ntasks_per_gpu;  /* --ntasks-per-gpu */
	uint16_t cpus_per_gpu;	  /* --cpus-per-gpu */
	uint64_t mem_per_gpu;	  /* MB, --mem-per-gpu */
	char type[TRES_TYPE_MAX]; /* "" untyped; one type for all of them */
};

/* The request of d (NULL: none). 0, or -ESLURM_INVALID_GRES for a
 * malformed count, two different types, or two counts Slurm refuses
 * together (--gpus-per-task with --ntasks-per-gpu, --gpus-per-node with
 * --gpus, --gpus-per-socket without --sockets-per-node). */
int job_gpu_parse(const struct job_desc *d, struct job_gpu *ret);

/* DefCpuPerGPU and DefMemPerGPU of the job's partition (pc, may be NULL),
 * else of conf, into g, for a job that asks for GPUs and gave no cpus per
 * task nor per GPU (no memory at all), as Slurm applies them. */
struct sl_conf;
struct conf_part;
void job_gpu_defaults(const struct sl_conf *conf, const struct conf_part *pc,
		      const struct job_desc *d, struct job_gpu *g);

/* The id of type in the cluster's table: 0 for "" (any GPU), -1 when no
 * node has GPUs of that type. */
int job_gpu_type_id(const struct ctld *c, const char *type);

/* Rebuild the cluster's type table and every node's per-type masks from
 * the nodes' Gres= (after the node table is built or rebuilt). Types past
 * GPU_TYPES_MAX are logged and left out (requests for them are refused). */
void job_gpu_types_build(struct ctld *c);
