/* job_opt_gpu.h - the GPU options beyond --gpus and --gpus-per-node
 * (job_opt_gpu.c): --gpus-per-task, --gpus-per-socket, --cpus-per-gpu,
 * --ntasks-per-gpu, --gpu-bind, --gres-flags, and Slurm's client-side
 * checks of how they combine.
 */
#pragma once

struct job_opts;
struct job_opt_err;
struct job_desc;
struct job_env;

#define GPU_PARSER(fn) int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)
GPU_PARSER(job_opt_p_gpus_per_task);
GPU_PARSER(job_opt_p_gpus_per_socket);
GPU_PARSER(job_opt_p_cpus_per_gpu);
GPU_PARSER(job_opt_p_ntasks_per_gpu);
GPU_PARSER(job_opt_p_ntasks_per_tres); /* sbatch's other name of --ntasks-per-gpu */
GPU_PARSER(job_opt_p_gpu_bind);
GPU_PARSER(job_opt_p_gres_flags);
#undef GPU_PARSER

/* After every option is in: Slurm's checks of the GPU options together
 * (its texts and exit codes), and the task count --gpus with
 * --gpus-per-task or --ntasks-per-gpu implies. 0 or -EINVAL (e filled). */
int job_opt_verify_gpu(struct job_opts *o, struct job_opt_err *e);

/* The request's GPU fields from o (after job_opt_verify_gpu). 0 or -ENOMEM. */
int job_opt_fill_gpu(const struct job_opts *o, struct job_desc *d);

/* Slurm's echoes of the GPU options in a job's environment
 * (SLURM_GPUS_PER_TASK, SLURM_GPU_BIND, ...): srun reads them back inside
 * the job, the step supervisors read SLURM_GPU_BIND. 0 or -ENOMEM. */
int job_opt_gpu_env(const struct job_opts *o, struct job_env *e);
