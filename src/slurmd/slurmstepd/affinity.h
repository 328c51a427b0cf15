/* affinity.h - task/affinity: each local task of a step pinned to CPUs
 * (sched_setaffinity in the child, before exec) as srun's --cpu-bind,
 * -m/--distribution (the socket level), --ntasks-per-socket and
 * --hint=nomultithread ask, within the CPUs the step may use (its
 * cpuset with ConstrainCores, else the stepd's own affinity). The CPU
 * topology is the kernel's (/sys/devices/system/cpu/cpuN/topology).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stepd;

/* Work out every local task's CPUs (TaskPlugin=task/affinity and a
 * binding asked for). 0, or -errno; a binding that cannot be met is an
 * error line for the user and no binding. */
int affinity_init(struct stepd *s);
/* In task ltid's child: bind it, and with verbose print Slurm's
 * "cpu-bind=MASK - <node>, task ..." line on its stderr. */
void affinity_apply(const struct stepd *s, uint32_t ltid);
void affinity_free(struct stepd *s); /* NULL-safe */
/* The cores task ltid is bound to, as core indexes of this machine (its
 * (socket, core) pairs in order: what gres.conf's Cores= numbers), a mask
 * of those below 64; 0 when the task is not bound. */
uint64_t affinity_task_cores(const struct stepd *s, uint32_t ltid);

/* One CPU of the step: its id and the kernel's socket and core ids. */
struct affinity_cpu {
	int cpu, socket, core;
};

/* The binding, parsed from SLURM_CPU_BIND and friends (unit tests). */
enum affinity_type {
	AFF_NONE,
	AFF_THREADS,
	AFF_CORES,
	AFF_SOCKETS,
	AFF_MAP_CPU,
	AFF_MASK_CPU,
};

struct affinity_req {
	enum affinity_type type;
	bool is_verbose, is_socket_cyclic, is_nomultithread;
	uint32_t cpus_per_task, ntasks_per_socket; /* 0: not given */
	const char *list;			   /* map_cpu:/mask_cpu: list */
};

/* --cpu-bind's value ("verbose,cores", "map_cpu:0,2"); 0 or -EINVAL. */
int affinity_parse_bind(const char *v, struct affinity_req *ret);
/* The CPUs (ids, up to 1024) of task ltid of ntasks, from the step's
 * CPUs cpus[n] sorted by id; 0 or -EINVAL (nothing left to bind to). */
int affinity_task_cpus(const struct affinity_req *r, const struct affinity_cpu *cpus, size_t n,
		       uint32_t ltid, uint32_t ntasks, uint64_t mask[16]);
