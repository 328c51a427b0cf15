/* job_alloc.h - interactive allocations: salloc, and srun outside an
 * allocation, once requested (rpc_alloc.c) and until they end (job_end.c).
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
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct alloc_response;
struct ctld;
struct job;

/* The job was just started (RUNNING, resources charged): send the
 * grant to its client instead of launching anything. Nothing is sent when
 * the reply to the allocation request carries it (is_grant_sent). */
void job_alloc_grant(struct ctld *c, struct job *job);
/* The allocation as the client sees it (strings owned by resp; free with
 * msg_free). 0 or -ENOMEM. */
int job_alloc_response_fill(const struct job *job, struct alloc_response *resp);
/* A pending interactive job ends CANCELLED by uid (its client gave up or
 * is gone). */
void job_alloc_cancel_pending(struct ctld *c, struct job *job, uid_t by, time_t now);
/* From the timer: SRUN_PING every 5 s (one in flight per job; a client
 * that cannot be reached loses its job), SRUN_TIMEOUT a minute before the
 * time limit, the grant again for running jobs recovered from the journal. */
void job_alloc_timer(struct ctld *c, time_t now);
