/* job_alloc.h - interactive allocations: salloc, and srun outside an
 * allocation (REQUEST_RESOURCE_ALLOCATION, REQUEST_COMPLETE_JOB_ALLOCATION).
 *
 * Such a job has no batch script: its client listens at
 * desc->alloc_host:alloc_port. The client gets the allocation in the reply
 * when the job starts at once, else as a later RESPONSE_RESOURCE_ALLOCATION
 * sent to that port (the grant). The job ends when the client says so
 * (complete), on cancel, time limit or node failure; there is no script
 * completion to wait for, so the final state is set at once. A client that
 * stops answering SRUN_PING loses its job (a killed salloc must not hold
 * nodes).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/job_states.h"

struct ctld;
struct job;

/* The client answered nothing: no SRUN_JOB_COMPLETE for it (job_alloc_end). */
#define ALLOC_NO_NOTICE ((uint16_t)0xfffe)

/* desc->alloc_port != 0. */
bool job_is_interactive(const struct job *job);
/* job_sched.c: job was just started (RUNNING, resources charged): send the
 * grant to its client instead of launching anything. Nothing is sent when
 * the reply to the allocation request carries it (is_grant_sent). */
void job_alloc_grant(struct ctld *c, struct job *job);
/* End a running interactive job now with final state base and reason why:
 * REQUEST_TERMINATE_JOB or REQUEST_KILL_TIMELIMIT (kill_type, 0: none) to
 * all its nodes, its running steps end, resources are released, mails go
 * out, and the client gets SRUN_JOB_COMPLETE with srun_reason
 * (SRUN_END_*; ALLOC_NO_NOTICE: nothing). */
void job_alloc_end(struct ctld *c, struct job *job, uint32_t base, enum job_state_reason why,
		   uint16_t kill_type, uint16_t srun_reason);
/* SRUN_JOB_COMPLETE {job, SL_ALL_STEPS, srun_reason} to the client;
 * failures are ignored. For a pending job cancelled by scancel, too. */
void job_alloc_notify_end(struct ctld *c, const struct job *job, uint16_t srun_reason);
/* The 1 s job timer: SRUN_PING every 5 s (one in flight per job; a client
 * that cannot be reached loses its job), SRUN_TIMEOUT a minute before the
 * time limit, the grant again for running jobs recovered from the journal. */
void job_alloc_timer(struct ctld *c, time_t now);
