/* env.h - the environment the tasks run with: the job's, each
 * task's own variables, the job's umask.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/job_env.h"

struct stepd;

/* Does gres.conf name GPU device files on this node (GPU variables are
 * exported only then)? */
bool env_has_gpu_files(const struct stepd *s);
/* This node as job_env sees it (the cluster name only for a step). */
struct job_env_node env_node(const struct stepd *s);
/* SLURM_UMASK as submitted (octal), else 022. */
mode_t env_umask(char *const *env, uint32_t env_count);
/* The job's environment from the launch (s->env). 0 or -errno. */
int env_setup(struct stepd *s);
/* Before a task's child is made: its own variables (SLURM_PROCID ...),
 * and SLURM_TASK_PID with room for the child's pid, which env_task_pid()
 * writes in. 0 or -errno. */
int env_task(struct stepd *s, uint32_t ltid);
/* In the task's child (a vfork child: it allocates nothing): its pid into
 * SLURM_TASK_PID's room. */
void env_task_pid(struct stepd *s, pid_t pid);
/* NAME's value in the environment the job or step was launched with
 * (srun's or sbatch's, before the stepd's own variables), or NULL. */
const char *env_launch_get(const struct stepd *s, const char *name);
