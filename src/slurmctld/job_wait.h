/* job_wait.h - REQUEST_JOB_WAIT's waits: a client's request held until its
 * jobs reach a set of states, answered from the job_changed() hook (never
 * by scanning the table on a timer); a timer per wait only for its
 * timeout. What a wait is and answers: common/msg_wait.h.
 *
 * Bounded: SL_WAIT_JOBS_MAX ids a wait, SL_WAIT_PER_UID_MAX waits a user,
 * SL_WAIT_TOTAL_MAX in all (limits.h). A user waits only on the jobs
 * squeue shows them (job_is_visible: PrivateData=jobs); the others are
 * answered JOB_WAIT_UNKNOWN, as ids that do not exist.
 */
#pragma once
#include <stdint.h>
#include <sys/types.h>

struct ctld;
struct job_wait_req;
struct job_wait_resp;
struct job_waiter;

/* The answer to a wait: resp is good until done returns. Called once per
 * wait, from job_wait_start, a job hook, the wait's timer or
 * job_wait_fini; the wait is freed after. */
typedef void job_wait_done_fn(void *arg, const struct job_wait_resp *resp);

/* Registers the job hook; the state is c->job_wait. */
int job_wait_init(struct ctld *c);
/* Answers every wait with what its jobs are now (not done: TIMEOUT). */
void job_wait_fini(struct ctld *c);

/* A wait of uid on m's jobs. Done now: done() is called before it returns
 * and *ret_w is NULL. Else *ret_w is the wait, answered later. Errors:
 * -EINVAL (no job ids), -ESLURM_WAIT_LIMIT (over a cap), -ENOMEM; done()
 * is then never called. */
int job_wait_start(struct ctld *c, const struct job_wait_req *m, uid_t uid,
		   job_wait_done_fn *done, void *arg, struct job_waiter **ret_w);
/* The client went away: the wait is dropped, done() is not called. */
void job_wait_cancel(struct job_waiter *w);
/* Waits held now (sdiag, tests). */
uint32_t job_wait_count(const struct ctld *c);

/* Exposed for the unit tests (the wait's timer calls it): the timeout
 * passed, answer now. */
void job_wait_timeout(struct job_waiter *w);
