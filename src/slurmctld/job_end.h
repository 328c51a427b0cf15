/* job_end.h - how jobs end: the batch script's completion, interactive
 * allocations ending (client done, cancel, time limit, node failure),
 * time limits and --signal warnings, failed launches, lost nodes and
 * requeue. Every way out goes through one place that sets the final state,
 * gives the resources back, ends the steps left and sends the mails.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/job_states.h"

struct complete_batch_msg;
struct ctld;
struct job;

/* The client answered nothing: no SRUN_JOB_COMPLETE for it (job_end_alloc). */
#define ALLOC_NO_NOTICE ((uint16_t)0xfffe)

/* REQUEST_COMPLETE_BATCH_SCRIPT: final state from the wait status, the
 * OOM flag and why we asked it to stop (cancel, time limit). A retry, or
 * a report from a run that was requeued off a failed node, changes
 * nothing. 0 or ESLURM_INVALID_JOB_ID. */
int job_end_complete(struct ctld *c, const struct complete_batch_msg *m);
/* A job we asked to stop (COMPLETING) will not report from its batch host
 * (why: logged): it ends now as if its script had been killed there
 * (CANCELLED, TIMEOUT, or back to PENDING for a requeue). */
void job_end_no_trace(struct ctld *c, struct job *job, const char *why);
/* The job's node lost it (node DOWN, or the node does not run it any
 * more): requeued when it may be, else NODE_FAIL (reason NodeDown). */
void job_end_node_lost(struct ctld *c, struct job *job, uint32_t node_index, time_t now);
/* The batch launch failed: FAILED, reason JobLaunchFailure. */
void job_end_launch_failed(struct ctld *c, struct job *job);
/* The Prolog failed on node node_index: the node drains ("Prolog
 * error"); a batch job goes back to PENDING, held (launch failed requeued
 * held), as Slurm's, or fails when it may not be requeued (--no-requeue,
 * JobRequeue=0) unless PrologFlags=ForceRequeueOnFail; an interactive
 * job is cancelled. */
void job_end_prolog_failed(struct ctld *c, struct job *job, uint32_t node_index);
/* The batch launch did not get through (a communication error), or found
 * a slurmstepd of an earlier run of the job still on the node: whatever
 * started there is told to stop and the job goes back to PENDING, tried
 * again a few seconds later (not FAILED). */
void job_end_launch_retry(struct ctld *c, struct job *job);
/* End a running interactive job now with final state base and reason why:
 * REQUEST_TERMINATE_JOB or REQUEST_KILL_TIMELIMIT (kill_type, 0: none) to
 * all its nodes, its running steps end, resources are released, mails go
 * out, and the client gets SRUN_JOB_COMPLETE with srun_reason
 * (SRUN_END_*; ALLOC_NO_NOTICE: nothing). */
void job_end_alloc(struct ctld *c, struct job *job, uint32_t base, enum job_state_reason why,
		   uint16_t kill_type, uint16_t srun_reason);
/* SRUN_JOB_COMPLETE {job, SL_ALL_STEPS, srun_reason} to an interactive
 * job's client (nothing for a batch job); failures are only logged. */
void job_end_notify_client(struct ctld *c, const struct job *job, uint16_t srun_reason);
/* A COMPLETING job still on node node_index: its kill again
 * (REQUEST_KILL_TIMELIMIT after a time limit, else REQUEST_TERMINATE_JOB),
 * to that node only; one lost to a slurmd restart is not waited for. */
void job_end_resend_kill(struct ctld *c, struct job *job, uint32_t node_index);
/* type (REQUEST_SIGNAL_TASKS / _TERMINATE_JOB / _KILL_TIMELIMIT) with
 * SL_ALL_STEPS to the job's nodes. */
void job_end_send_signal(struct ctld *c, struct job *job, uint16_t type, uint16_t sig,
			 uint16_t flags);
/* From the timer: --signal warnings before the time limit, then running
 * jobs past their limit end TIMEOUT (batch: when the node reports). */
void job_end_time_limits(struct ctld *c, time_t now);
/* A node went DOWN: its jobs are requeued (unless --no-requeue) or end
 * NODE_FAIL with reason NodeDown. */
void job_end_node_down(struct ctld *c, uint32_t node_index);
/* scontrol requeue[hold]: a running job is stopped and comes back PENDING
 * when its node reports; a finished one comes back at once. */
int job_end_requeue(struct ctld *c, struct job *job, bool hold, uid_t by, bool is_admin);
