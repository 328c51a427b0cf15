/* job_info.h - a job as squeue and scontrol show job see it (struct
 * job_info of REQUEST_JOB_INFO's answer).
 */
#pragma once
#include <stdbool.h>

struct ctld;
struct job;
struct job_info;

/* Fill an info record. The strings the job holds are borrowed (valid
 * until the job changes: pack the record before returning to the loop);
 * those made here (array ranges, explanation, dependency, TRES, output
 * paths) are owned. brief: a brief record (JOB_SHOW_BRIEF,
 * job_info_brief), the strings it leaves out not made at all. Free with
 * job_info_fill_done, never job_info_done. 0 or -ENOMEM. */
int job_info_fill(const struct ctld *c, const struct job *job, bool brief, struct job_info *ret);
void job_info_fill_done(struct job_info *j);
