/* job_launch.h - send a started batch job to its first node's slurmd
 * (REQUEST_BATCH_JOB_LAUNCH); a launch that fails ends the job FAILED
 * with reason JobLaunchFailure and gives its resources back.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct ctld;
struct job;
struct sel_result;

/* "4(x2),2" as SLURM_JOB_CPUS_PER_NODE / SLURM_TASKS_PER_NODE print the
 * per-node cpus (or tasks) of an allocation; malloc'd, NULL on ENOMEM. */
char *job_counts_string(const struct sel_result *r, bool is_tasks);
/* GPU index mask -> "0,1,3"; NULL for an empty mask (or ENOMEM). */
char *job_gpu_indexes(uint64_t mask);

void job_launch(struct ctld *c, struct job *job);
