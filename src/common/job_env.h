/* job_env.h - the environment of a batch script and of the tasks of a
 * job step (srun), as Slurm 22.05 builds them.
 *
 * A struct job_env is a growing, NULL-terminated "NAME=value" array ready
 * for execve(), with a hash index of the names: building an environment
 * of n variables (a hostile launch may carry a million) is linear; a name
 * given twice keeps its first position and its last value.
 *
 * job_env_batch() starts from the environment submitted with the job and
 * sets (overriding) every SLURM_* variable the reference sets for a batch
 * script: job id, name, nodes, counts, memory, partition, account, QOS,
 * user, submit host and dir, array ids, GPUs, node identity.
 * SLURM_TASK_PID is left to the caller, who knows the pid.
 *
 * A step's task gets srun's environment (the launch's env already holds
 * the job and step variables srun sets) plus what slurmstepd adds per node
 * (job_env_step) and per task (job_env_step_task).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macros.h"

struct batch_launch_msg;
struct launch_tasks_msg;

struct job_env {
	char **v;      /* NULL-terminated once anything was added */
	size_t n, cap; /* entries, allocated slots */
	size_t *idx;   /* hash of names: slot holds position + 1, 0 empty */
	size_t idx_cap; /* slots, a power of two, at least twice n */
};

/* What the node that runs the script contributes. */
struct job_env_node {
	const char *node_name;   /* SLURMD_NODENAME, SLURM_TOPOLOGY_ADDR */
	const char *host_name;   /* HOSTNAME; NULL: left as submitted */
	const char *conf_path;   /* SLURM_CONF */
	const char *ctld_addr;   /* SLURM_WORKING_CLUSTER's address; NULL: not set */
	const char *cluster_name; /* steps: SLURM_WORKING_CLUSTER's cluster (batch: the msg's) */
	uint16_t ctld_port;
	bool has_gpu_files;      /* gres.conf names device files: GPU variables exported */
};

void job_env_done(struct job_env *e); /* frees the contents; the struct may be reused */
/* The NULL-terminated array alone, for the caller to free (strv_free); e
 * is left empty. NULL when nothing was added. */
char **job_env_take_v(struct job_env *e, size_t *ret_n);
/* Set name to the formatted value, replacing an existing entry. 0 or -ENOMEM. */
int job_env_set(struct job_env *e, const char *name, const char *fmt, ...) _printf_(3, 4);
/* Append a "NAME=value" string as given (replacing the same NAME); -EINVAL
 * when it has no '='. */
int job_env_put(struct job_env *e, const char *entry);
/* The value of name, borrowed; NULL when unset. */
const char *job_env_get(const struct job_env *e, const char *name);
void job_env_unset(struct job_env *e, const char *name);

/* Fill e (empty or not) with m->env and then the batch variables.
 * Returns 0 or -ENOMEM (e then holds a partial list; job_env_done it). */
int job_env_batch(struct job_env *e, const struct batch_launch_msg *m,
		  const struct job_env_node *node);

/* Fill e (empty or not) with m->env and then what the stepd adds for the
 * step on this node: SLURMD_NODENAME, SLURM_NODEID, SLURM_CPUS_ON_NODE,
 * SLURM_GTIDS, SLURM_TOPOLOGY_ADDR(_PATTERN), SLURM_CONF,
 * SLURM_WORKING_CLUSTER and, with node->has_gpu_files and m->gpus, the
 * GPU variables. 0 or -ENOMEM (e then holds a partial list). */
int job_env_step(struct job_env *e, const struct launch_tasks_msg *m,
		 const struct job_env_node *node);
/* The per-task variables of local task local_id (< m->ntasks_here):
 * SLURM_PROCID (its gtid) and SLURM_LOCALID. 0, -EINVAL or -ENOMEM. */
int job_env_step_task(struct job_env *e, const struct launch_tasks_msg *m, uint32_t local_id);

/* Resource limits a job takes from the submitting shell (Slurm's
 * SLURM_RLIMIT_<NAME>, PropagateResourceLimits). */
struct job_env_rlimit {
	const char *name; /* "NOFILE": SLURM_RLIMIT_NOFILE */
	int resource;	  /* RLIMIT_NOFILE */
};
extern const struct job_env_rlimit job_env_rlimits[];
extern const size_t job_env_rlimits_count;

/* Set SLURM_RLIMIT_<NAME> for each limit to the caller's soft limit, in
 * decimal (unlimited: RLIM_INFINITY as an unsigned number, as Slurm);
 * "U<n>" for those the comma list forced names (--propagate: "ALL",
 * "NONE" or names; NULL none), which the nodes apply whatever their
 * PropagateResourceLimits. 0 or -ENOMEM. */
int job_env_set_rlimits(struct job_env *e, const char *forced);
/* Is v a --propagate list Slurm takes: ALL, NONE or limit names in
 * capitals, comma separated? On false, *bad is the first bad name's
 * offset in v. */
bool job_env_rlimit_list_ok(const char *v, size_t *bad);
/* Is the limit name (without prefix, "NOFILE") to be propagated under
 * PropagateResourceLimits=propagate (NULL or "ALL": every one; "NONE":
 * none) and PropagateResourceLimitsExcept=except (NULL: none)? */
bool job_env_rlimit_is_propagated(const char *name, const char *propagate, const char *except);
/* Parse a SLURM_RLIMIT_* value: "<n>" or "U<n>" (the user asked for it
 * with --propagate: propagated whatever the configuration says).
 * 0 or -EINVAL. */
int job_env_rlimit_parse(const char *v, uint64_t *ret, bool *ret_is_forced);
