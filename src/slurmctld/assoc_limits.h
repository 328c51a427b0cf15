/* assoc_limits.h - AccountingStorageEnforce: a job's association and QOS
 * at submit (DefaultAccount, DefaultQOS, refusals) and the limits on
 * running jobs (pending reasons), with the counters of running jobs and
 * their TRES per association (with its parents) and per QOS (per user).
 */
#pragma once
#include "common/job_states.h"

struct ctld;
struct job;
struct job_desc;

/* At submit or update of account/QOS, after the partition is chosen
 * (job->partition, job->user_name set): fills d->account from the user's
 * DefaultAccount and d->qos from the association's DefaultQOS (else
 * "normal") when they are not given, and sets job->assoc_id/qos_id. With
 * AccountingStorageEnforce it refuses: no association
 * (-ESLURM_INVALID_ACCOUNT), a QOS unknown or not allowed
 * (-ESLURM_INVALID_QOS), MaxSubmitJobs/GrpSubmitJobs of the association or
 * MaxSubmitJobsPerUser of the QOS reached (-ESLURM_ACCOUNTING_POLICY);
 * d and job are unchanged then. Without it nothing is refused. */
int assoc_limits_submit(struct ctld *c, struct job *job, struct job_desc *d);
/* What stops a pending job from starting under the limits
 * (AccountingStorageEnforce=limits), WAIT_NO_REASON when nothing does. */
enum job_state_reason assoc_limits_blocker(struct ctld *c, const struct job *job);
/* Register the job hook that charges a job's counters when it starts and
 * releases them when it ends, and charge the jobs running now (after the
 * journal and the table are loaded). */
int assoc_limits_init(struct ctld *c);
