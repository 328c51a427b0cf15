/* srun_dist.h - the node level of srun's -m as the step request needs it:
 * SLURM_HOSTFILE and -m arbitrary turned into the node of each task.
 *
 * As Slurm's srun: SLURM_HOSTFILE, when -w is not given, is the node list
 * and makes the distribution arbitrary; with -m arbitrary, task i runs on
 * the i-th host of the list (-w or the file, repeats kept), -n defaults to
 * the list's length (the allocation's SLURM_NTASKS does not count) and a
 * shorter -n takes the list's first hosts; -m arbitrary without a list is
 * block.
 */
#pragma once

struct srun_opts;
struct job_opt_err;

/* Before job_opt_verify: SLURM_HOSTFILE as -w (a file name, read there)
 * when -w is not given. 0 or -ENOMEM. */
int srun_dist_hostfile(struct srun_opts *s, char *const *envp);
/* After job_opt_verify (-w read and counted): s->task_nodes, the unique
 * -w, -n and -N of an arbitrary layout. 0, -ENOMEM or a job_opt error. */
int srun_dist_arbitrary(struct srun_opts *s, struct job_opt_err *e);
