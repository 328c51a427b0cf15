/* job_info.h - a job as squeue and scontrol show job see it (struct
 * job_info of REQUEST_JOB_INFO's answer).
 */
#pragma once
#include <stdbool.h>
#include <time.h>

struct ctld;
struct job;
struct job_info;
struct pack_buf;

/* Fill an info record. The strings the job holds are borrowed (valid
 * until the job changes: pack the record before returning to the loop);
 * those made here (array ranges, explanation, dependency, TRES, output
 * paths) are owned. brief: a brief record (JOB_SHOW_BRIEF,
 * job_info_brief), the strings it leaves out not made at all. now: the
 * time the listing is made (a pending job's AccrueTime shows once its
 * EligibleTime is past). Free with
 * job_info_fill_done, never job_info_done. 0 or -ENOMEM. */
int job_info_fill(const struct ctld *c, const struct job *job, bool brief, time_t now,
		  struct job_info *ret);
void job_info_fill_done(struct job_info *j);

/* Appends the job's record to b, packed as in RESPONSE_JOB_INFO. A brief
 * one is kept with the job and copied again while nothing it shows
 * changed (job_info_touch, c->job_info_epoch, its EligibleTime passing);
 * with c->is_job_info_checked every kept one is compared with a fresh
 * one and a difference logged as an error. 0 or -errno. */
int job_info_pack_job(const struct ctld *c, struct job *job, bool brief, time_t now,
		      struct pack_buf *b);
