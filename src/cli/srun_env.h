/* srun_env.h - the environment srun sends with its tasks: its own
 * environment filtered by --export, then the job and step variables
 * (reference srun_n4_l_env.txt minus what slurmstepd adds per node and
 * task: SLURMD_NODENAME, SLURM_NODEID, SLURM_PROCID, SLURM_LOCALID,
 * SLURM_GTIDS, SLURM_CPUS_ON_NODE, SLURM_TASK_PID, SLURM_TOPOLOGY_*,
 * SLURM_CONF, SLURM_WORKING_CLUSTER, GPU variables).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct job_env;
struct srun_opts;
struct step_create_resp;

struct srun_env_ctx {
	bool in_alloc;		  /* running inside an existing allocation */
	const char *comm_host;	  /* srun's address (SLURM_SRUN_COMM_HOST, ..._IPADDR) */
	uint16_t comm_port;	  /* srun's notice port */
	const char *cluster_name; /* SLURM_CLUSTER_NAME */
	const char *submit_dir;	  /* srun's cwd */
	const char *submit_host;  /* short host name */
	unsigned umask;		  /* srun's umask */
	int nice;		  /* srun's nice value */
};

/* Copy envp into e as --export (NULL or ALL: everything; NONE: SLURM_*
 * only; a list: the named NAME or NAME=value entries, ALL merging
 * everything, plus every SLURM_*). 0 or -ENOMEM. */
int srun_env_export(struct job_env *e, const char *export_env, char *const *envp);

/* Add the job and step variables of the created step r. 0 or -ENOMEM. */
int srun_env_step(struct job_env *e, const struct srun_opts *o, const struct step_create_resp *r,
		  const struct srun_env_ctx *c);
