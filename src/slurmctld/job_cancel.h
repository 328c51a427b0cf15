/* job_cancel.h - scancel (REQUEST_KILL_JOB) and signals to whole jobs. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ctld;
struct job;

/* uid owns the job or is an admin. */
bool job_cancel_may_touch(const struct ctld *c, const struct job *job, uid_t uid);
/* Signal sig (SIGKILL: cancel) to the job by uid (not checked here). A
 * pending job cancelled ends at once; a running one is asked to stop and
 * shows CANCELLED+COMPLETING until its node reports back. Other signals go
 * to the running job's processes (flags: KILL_JOB_BATCH and the like). 0,
 * ESLURM_ALREADY_DONE, ESLURM_JOB_PENDING (a signal to a pending job). */
int job_cancel_signal(struct ctld *c, struct job *job, uint16_t sig, uint16_t flags, uid_t by);
/* Cancel a running job for a preemptor: as a cancel by SlurmUser, ending
 * PREEMPTED instead of CANCELLED. 0 or ESLURM_ALREADY_DONE. */
int job_cancel_preempt(struct ctld *c, struct job *job);
/* scancel's target s: "12" (a job, or a whole array), "12_3",
 * "12_[1-3,7]", each checked for uid. An array task not started yet is
 * only dropped from its meta record. The first error is returned (the
 * other tasks are still tried): ESLURM_INVALID_JOB_ID, ESLURM_ACCESS_DENIED,
 * ... */
int job_cancel_target(struct ctld *c, const char *s, uint16_t sig, uint16_t flags, uid_t uid);
