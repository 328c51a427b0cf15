/* part_access.h - who may put a job in a partition, and which of its size
 * limits a job breaks (Slurm 22.05's partition access rules).
 *
 * Pure functions over the configured partition record, so that they are
 * unit-tested without a controller.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct conf_part;

struct part_access {
	uid_t submit_uid;  /* who sent the request (munge) */
	uid_t uid;	   /* whom the job runs as */
	const gid_t *gids; /* the job user's groups, primary included */
	uint32_t ngids;
	const char *account; /* NULL: none */
	const char *qos;
	uint32_t slurm_user_id; /* SlurmUser: an admin, like root */
};

/* Is name one of the comma-separated words of list? An unset list or the
 * word "ALL" holds every name; a NULL name is in no set list. */
bool part_list_has(const char *list, const char *name);

/* 0 when a may use p, else Slurm's code: -ESLURM_ACCESS_DENIED (RootOnly:
 * only root or SlurmUser submit there), -ESLURM_USER_ID_MISSING
 * (DisableRootJobs and the job runs as root),
 * -ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP (AllowGroups; jobs of
 * root and SlurmUser pass), -ESLURM_INVALID_ACCOUNT (AllowAccounts, or
 * DenyAccounts when AllowAccounts is unset), -ESLURM_INVALID_QOS
 * (AllowQos, or DenyQos when AllowQos is unset; root's jobs pass). */
int part_access_check(const struct conf_part *p, const struct part_access *a);

/* The job's request against the partition's size limits. */
struct part_request {
	uint32_t min_nodes, max_nodes; /* max 0: no maximum */
	uint32_t time_limit;	       /* minutes, INFINITE */
	uint32_t cpus_per_node;	       /* the most cpus the job needs on one node */
	uint64_t mem_per_node;	       /* MB, 0: not asked (or the whole node) */
	uint64_t mem_per_cpu;	       /* MB, 0: not asked */
};

/* 0 when r is within p's MaxNodes, MaxTime, MaxCPUsPerNode, MaxMemPerNode
 * and MaxMemPerCPU (node_count: the nodes p has), else Slurm's code:
 * -ESLURM_INVALID_NODE_COUNT, -ESLURM_INVALID_TIME_LIMIT,
 * -ESLURM_TOO_MANY_REQUESTED_CPUS or -ESLURM_INVALID_TASK_MEMORY. */
int part_limits_check(const struct conf_part *p, uint32_t node_count, const struct part_request *r);
