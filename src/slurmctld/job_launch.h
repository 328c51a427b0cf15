/* job_launch.h - send a started batch job to its first node's slurmd
 * (REQUEST_BATCH_JOB_LAUNCH); a launch that fails ends the job FAILED
 * with reason JobLaunchFailure and gives its resources back.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct ctld;
struct job;

void job_launch(struct ctld *c, struct job *job);
