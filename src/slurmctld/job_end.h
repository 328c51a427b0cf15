/* job_end.h - how jobs end: the batch script's completion, cancel and
 * signal requests, time limits, failed launches; and the job timer
 * (time limits, MinJobAge purge, periodic scheduling).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/job_states.h"

struct complete_batch_msg;
struct ctld;
struct job;

/* REQUEST_COMPLETE_BATCH_SCRIPT: final state from the wait status, the
 * OOM flag and why we asked it to stop (cancel, time limit). */
int job_end_complete(struct ctld *c, const struct complete_batch_msg *m);
void job_end_launch_failed(struct ctld *c, struct job *job);
/* job_alloc.c: final state now (resources released, journaled, mails). */
void job_end_finish(struct ctld *c, struct job *job, uint32_t base, enum job_state_reason why);
/* type (REQUEST_SIGNAL_TASKS / _TERMINATE_JOB / _KILL_TIMELIMIT) with
 * SL_ALL_STEPS to the job's nodes. */
void job_end_send_signal(struct ctld *c, struct job *job, uint16_t type, uint16_t sig);
/* scancel: a pending job ends CANCELLED at once; a running one is asked
 * to stop and shows CANCELLED+COMPLETING until its node reports back.
 * Other signals go to the running job's processes. */
int job_end_signal(struct ctld *c, struct job *job, uint16_t sig, uint16_t flags, uid_t by);

int job_timer_start(struct ctld *c);
void job_timer_stop(struct ctld *c);

/* A node went DOWN: its jobs are requeued (unless --no-requeue) or end
 * NODE_FAIL with reason NodeDown. */
void job_end_node_down(struct ctld *c, uint32_t node_index);
/* scontrol requeue[hold]: a running job is stopped and comes back PENDING
 * when its node reports; a finished one comes back at once. */
int job_end_requeue(struct ctld *c, struct job *job, bool hold, uid_t by, bool is_admin);
