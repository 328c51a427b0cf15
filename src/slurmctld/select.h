/* select.h - select/cons_tres placement as a pure function (no I/O, no
 * controller state), so the scheduler's decisions are unit-tested.
 *
 * Each node has cpus (sockets x cores x threads; a "cpu" is a hardware
 * thread as Slurm counts it, allocated by whole cores), memory and GPUs
 * with indexes. A request asks for nodes, tasks, cpus per task, tasks per
 * node, memory per node or per cpu, GPUs per node or per job, exclusive
 * nodes, required and excluded nodes. The result says, per chosen node,
 * how many cpus, how much memory and which GPU indexes the job gets.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#define SEL_MAX_GPUS 64

struct sel_node {                /* static description + current use */
	uint16_t sockets, cores_per_socket, threads_per_core;
	uint16_t cpus;                 /* sockets * cores * threads */
	uint64_t real_memory;          /* MB */
	uint16_t gpus;                 /* configured GPUs (indexes 0..gpus-1) */
	bool is_usable;                /* up, not drained, in the partition... */
	/* in use by running jobs */
	uint16_t cpus_used;            /* multiple of threads_per_core */
	uint32_t cpus_shared;          /* cpus of jobs sharing cores (OverSubscribe), summed */
	uint64_t mem_used;             /* MB */
	uint64_t gpus_used;            /* bitmask of GPU indexes in use */
	bool is_exclusive_used;        /* held whole by an --exclusive job */
	const uint64_t *gpu_type_mask; /* [type - 1]: the GPUs of each type (sel_req.gpu_type);
					* NULL: untyped GPUs only */
};

/* -C/--constraint beyond a plain per-node filter (which the caller folds
 * into is_excluded): arrays indexed [alternative or term][node]. */
struct sel_feat {
	uint32_t alt_count;	     /* matching OR "[a|b]": every chosen node satisfies
				      * the same alternative (tried in order); 0 none */
	const bool *const *alt_ok;
	uint32_t count_n;	     /* counts "a*2": at least count_need[t] chosen nodes
				      * satisfy term t */
	const bool *const *count_ok;
	const uint32_t *count_need;
	uint32_t count_sum;	     /* the job needs at least this many nodes */
};

struct sel_req {
	uint32_t min_nodes, max_nodes;  /* max 0 = min */
	uint32_t num_tasks;             /* 0: one per node (min_nodes) */
	uint16_t cpus_per_task;         /* >= 1 */
	uint16_t ntasks_per_node;       /* 0: not given */
	uint64_t mem_per_node;          /* MB; 0 with mem_per_cpu 0 = no memory asked */
	uint64_t mem_per_cpu;           /* MB */
	uint16_t gpus_per_node;         /* --gres=gpu:N / --gpus-per-node */
	uint32_t gpus_total;            /* --gpus=N, spread over the nodes */
	uint16_t gpus_per_task;         /* --gpus-per-task: tasks x N on each node */
	uint16_t ntasks_per_gpu;        /* --ntasks-per-gpu: one GPU per N tasks on each node */
	uint16_t cpus_per_gpu;          /* --cpus-per-gpu: at least N cpus per GPU a node gives */
	uint64_t mem_per_gpu;           /* MB per GPU a node gives (--mem-per-gpu); 0 none */
	uint8_t gpu_type;               /* 0: any GPU; else only gpu_type_mask[gpu_type - 1] */
	uint16_t share;                 /* OverSubscribe: >= 2 shares cores with up to this
					 * many jobs each; 0 or 1 takes cores of its own */
	uint16_t min_cpus;              /* --mincpus: each chosen node gives at least this many */
	uint16_t ntasks_per_socket;     /* at most this many tasks per socket of a node; 0 none */
	bool is_exclusive;
	bool is_whole_memory;           /* no memory asked and no default: all of each node (--mem=0) */
	const bool *is_required;        /* per node: -w (NULL none) */
	const bool *is_excluded;        /* per node: -x (NULL none) */
	const struct sel_feat *feat;    /* NULL: none */
	const uint32_t *order;		/* node indexes in the order to try them (a
					 * permutation of 0..n-1: Weight, then config
					 * order); NULL = index order */
};

struct sel_alloc {                /* one chosen node */
	uint32_t node;                 /* index into the node array */
	uint16_t cpus;
	uint16_t tasks;
	uint64_t mem;                  /* MB */
	uint64_t gpus;                 /* bitmask of GPU indexes */
};

struct sel_result {
	struct sel_alloc *nodes;       /* node order (ascending index) */
	uint32_t count;
	uint32_t total_cpus;
	/* how the request was placed (select_charge/release follow them; not
	 * kept across a controller restart, which charges cores of their own) */
	uint16_t share;                /* the request's share */
	bool is_exclusive;             /* whole nodes */
};

/* Place req on nodes[0..n). Returns 0 and fills *ret (free with
 * sel_result_done), -EAGAIN when it does not fit now but would on idle
 * usable nodes (wait: Resources), -ENOSPC when it could never fit on
 * these nodes even if all were idle (PartitionConfig / Requested node
 * configuration is not available). Nodes are tried in req->order (index
 * order when NULL; best fit later); a node's cpus are given whole cores,
 * task by task. The result lists the chosen nodes in index order.
 * Details:
 * - max_nodes 0 means exactly min_nodes: for -n without -N pass
 *   max_nodes = num_tasks (or any large value; it is capped at n).
 * - required nodes count towards min_nodes (min = max(min, #required));
 *   a required node that is excluded or not usable is -ENOSPC.
 * - every chosen node runs at least one task: num_tasks (when given)
 *   below the node count, mem_per_node with mem_per_cpu, gpus_per_node
 *   with gpus_total, or cpus_per_task 0 are -EINVAL (clients trim first).
 * - exclusive: cpus = all the node's cpus, mem = mem_per_node, or
 *   mem_per_cpu * all cpus, or 0 when no memory was asked; every GPU of
 *   the node, as Slurm gives an exclusive job all of a node's GRES.
 * - share >= 2 (OverSubscribe=YES with -s, FORCE): the job's cpus come
 *   from select_free_cpus() and count in cpus_shared; memory and GPUs are
 *   never shared.
 * - GPUs on a node: gpus_per_node, or its tasks x gpus_per_task, or its
 *   tasks / ntasks_per_gpu rounded up, or its share of gpus_total (only
 *   of type gpu_type when set); the node's cpus are at least its GPUs x
 *   cpus_per_gpu, its memory its GPUs x mem_per_gpu when no other memory
 *   was asked.
 * - feat: alternatives are tried in order, the first that fits wins
 *   (-EAGAIN when one would fit on idle nodes, else -ENOSPC); counted
 *   terms take the first nodes in order that satisfy them (kept like
 *   required nodes), and raise min_nodes to their sum.
 * *ret is written only on success. */
int select_place(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
		 struct sel_result *ret);
/* select_place() without the idle check: -EAGAIN whenever it does not fit
 * now, even if it never could (backfill's many tries; it checks once). */
int select_try(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
	       struct sel_result *ret);
void sel_result_done(struct sel_result *r);

/* The cpus nd has for a request of that share: a job that shares cores
 * (share >= 2) sees each core not held by a job of its own share times,
 * less what sharing jobs hold; any other sees the cores no job holds. */
uint32_t select_free_cpus(const struct sel_node *nd, uint16_t share);

/* Apply or release an allocation on the node array (the scheduler's
 * bookkeeping); r->share decides which of the cpus counters it goes to,
 * and r->is_exclusive (an OverSubscribe=EXCLUSIVE partition's job) holds
 * the nodes whole as is_exclusive does. */
void select_charge(struct sel_node *nodes, const struct sel_result *r, bool is_exclusive);
void select_release(struct sel_node *nodes, const struct sel_result *r, bool is_exclusive);

/* "4(x2),2" as SLURM_JOB_CPUS_PER_NODE / SLURM_TASKS_PER_NODE print the
 * per-node cpus (or tasks) of an allocation; malloc'd, NULL on ENOMEM. */
char *select_counts_string(const struct sel_result *r, bool is_tasks);
/* GPU index mask -> "0,1,3" (CUDA_VISIBLE_DEVICES); NULL for an empty mask
 * (or ENOMEM). */
char *select_gpu_list(uint64_t mask);
