/* acct_rec.h - a job's accounting row (struct acct_job_rec, msg_acct.h),
 * with its batch step and srun steps, built from the controller's job.
 *
 * Pure: reads the job and its steps, allocates the row's strings, nothing
 * else; the accounting module (acct.c) queues what it returns. The states,
 * exit codes and TRES strings are those sacct shows for Slurm 22.05 (see
 * tests/reference/sacct_*).
 */
#pragma once
#include <time.h>

struct acct_job_rec;
struct ctld;
struct job;

/* Fill *ret (zeroed first; free with acct_job_rec_done) with the job's
 * current run. Returns 0, or -ENOMEM with *ret empty. */
int acct_rec_from_job(const struct ctld *c, const struct job *job, struct acct_job_rec *ret);

/* The row of the run that is requeued at now: as acct_rec_from_job, but
 * ended at now with state (its base | JOB_REQUEUE), which sacct shows as
 * REQUEUED; a batch step still running ends CANCELLED at now. Call before
 * the job is reset to PENDING. */
int acct_rec_requeued(const struct ctld *c, const struct job *job, time_t now,
		      struct acct_job_rec *ret);
