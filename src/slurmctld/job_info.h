/* job_info.h - a job as squeue and scontrol show job see it (struct
 * job_info of REQUEST_JOB_INFO's answer).
 */
#pragma once

struct ctld;
struct job;
struct job_info;

/* Fill an info record (owned strings; job_info_done frees them).
 * 0 or -ENOMEM. */
int job_info_fill(const struct ctld *c, const struct job *job, struct job_info *ret);
