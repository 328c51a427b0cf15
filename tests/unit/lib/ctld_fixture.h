/* ctld_fixture.h - a controller built in memory for unit tests: nodes and
 * partitions from a slurm.conf text, an empty job table, no event loop, no
 * journal, no accounting store. What the controller would send to slurmds
 * and clients is recorded (ctld->send) instead, and the replies are
 * delivered when the test says so, as the loop would.
 *
 * The cluster: n[1-3] (4 cpus, 4000 MB each) in partition "cpu" (default),
 * g1 (4 cpus, 4 GPUs) in "gpu"; all registered and idle.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/rpc_async.h"
#include "slurmctld/ctld.h"

struct job;
struct job_desc;

struct sent_msg {
	uint16_t type;
	char host[64];
	uint16_t port;
	uint32_t job_id, step_id; /* of the message, when it names them */
	uint16_t sig_or_reason;	  /* signal_job_msg.signal, srun_notice_msg.reason */
	rpc_async_done_fn *done;  /* NULL once delivered */
	void *arg;
};

struct ctld_fixture {
	char dir[64];
	struct ctld c;
	struct sent_msg sent[512];
	uint32_t nsent;
	uint32_t changed, requeued; /* job_changed() / job_requeued() calls seen */
	uint64_t recorded_upto;	    /* is_recorded: seq <= this (0: nothing) */
};

/* extra: slurm.conf lines added to the default text (NULL: none). */
struct ctld_fixture *fixture_new(const char *extra);
/* Delivers what is still in flight (rc 0), then frees everything. */
void fixture_free(struct ctld_fixture *f);
/* Unregister every job hook but the fixture's own (a counting hook), as
 * before a second durable_init(), which registers its hook again. */
void fixture_hooks_reset(struct ctld_fixture *f);

/* A batch job request with Slurm's "not given" defaults and a script;
 * opts (NULL: none) is applied by the caller afterwards. Owned by the
 * caller until submitted. */
struct job_desc *fixture_desc(void);
/* Build and commit (id, priority, table) a job from desc (taken); fails
 * the test when refused. */
struct job *fixture_submit(struct ctld_fixture *f, struct job_desc *desc);
/* The same, returning the refusal code instead (desc freed then). */
int fixture_try_submit(struct ctld_fixture *f, struct job_desc *desc, struct job **ret);

/* How many recorded messages of type (0: any) are for job_id (0: any). */
uint32_t fixture_count(const struct ctld_fixture *f, uint16_t type, uint32_t job_id);
/* The last recorded message of type, NULL if none. */
const struct sent_msg *fixture_last(const struct ctld_fixture *f, uint16_t type);
/* Answer every message still in flight: rc 0 with RESPONSE_SLURM_RC {0}
 * when rc is 0, else the error (as a failed connect). */
void fixture_deliver(struct ctld_fixture *f, int rc);
/* Forget what was recorded (after delivering it). */
void fixture_clear(struct ctld_fixture *f);
