/* complete.c - REQUEST_COMPLETE_BATCH_SCRIPT (batch) or
 * REQUEST_STEP_COMPLETE (a step's node) to the controller, with the
 * usage totals of usage.c.
 *
 * The controller may be down or restarting: the report is retried with
 * backoff (1 s, 2 s, 4 s ... capped at 30 s) for as long as it takes, and
 * the loop (the socket) keeps being served meanwhile, so slurmd still finds the job.
 * A reply with an error of the controller's own (2000 and up, e.g. an
 * unknown job, or SLURM_UNEXPECTED_MSG_ERROR) is final. The stepd gives
 * up when its socket file is removed (the node is being wiped) or when it
 * was told to stop (SIGTERM/SIGINT): one try, then exit.
 */
#include "complete.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"
#include "loop.h"
#include "stepd.h"
#include "usage.h"

#define COMPLETE_BACKOFF_MAX 30

/* Transport and protocol failures (errno values, 1001..1999) are worth a
 * retry; "unexpected message" means a controller that will never take it. */
static bool complete_is_retryable(int r)
{
	return r < 0 && -r < 2000 && -r != SLURM_UNEXPECTED_MSG_ERROR;
}

static void complete_wait(struct stepd *s, unsigned seconds)
{
	time_t end = time(NULL) + seconds, now;

	while ((now = time(NULL)) < end && !s->is_stopping)
		loop_once(s->loop, (int)(end - now) * 1000);
}

/* Send once; 0 or the error. */
static int complete_try(struct stepd *s)
{
	struct complete_batch_msg b = {
	    .job_id = s->job_id,
	    .job_rc = (uint32_t)s->status,
	    .slurm_rc = s->slurm_rc,
	    .node_name = s->node_name,
	    .is_oom = s->is_oom,
	};
	struct step_complete_msg st = {
	    .job_id = s->job_id,
	    .step_id = s->step_id,
	    .node_name = s->node_name,
	    .step_rc = (uint32_t)s->status,
	    .is_oom = s->is_oom,
	};

	usage_total(s, &b.usage);
	st.usage = b.usage;
	if (s->is_batch)
		return rpc_call_ctld_rc(s->conf, REQUEST_COMPLETE_BATCH_SCRIPT, &b);
	return rpc_call_ctld_rc(s->conf, REQUEST_STEP_COMPLETE, &st);
}

static void complete_log_usage(const struct stepd *s)
{
	struct acct_usage u;

	usage_total(s, &u);
	verbose(
	    "JobId=%u: usage: user %llu us, sys %llu us, MaxRSS %llu kB (task %u), TotRSS %llu kB, "
	    "MaxVMSize %llu kB (task %u), TotVMSize %llu kB, %u task(s)",
	    s->job_id, (unsigned long long)u.user_usec, (unsigned long long)u.sys_usec,
	    (unsigned long long)u.max_rss_kb, u.max_rss_task, (unsigned long long)u.tot_rss_kb,
	    (unsigned long long)u.max_vm_kb, u.max_vm_task, (unsigned long long)u.tot_vm_kb,
	    u.ntasks);
}

void complete_send(struct stepd *s)
{
	unsigned delay = 1;
	int r;

	complete_log_usage(s);
	for (;;) {
		r = complete_try(s);
		if (r == 0) {
			verbose("JobId=%u: completion accepted", s->job_id);
			return;
		}
		if (s->is_stopping) {
			error("JobId=%u: stopped by a signal, completion not reported: %s",
			      s->job_id, sl_strerror(r));
			return;
		}
		if (!complete_is_retryable(r)) {
			error("JobId=%u: completion refused: %s", s->job_id, sl_strerror(r));
			return;
		}
		if (s->sock_path[0] && access(s->sock_path, F_OK) < 0 && errno == ENOENT) {
			error("JobId=%u: %s was removed, giving up the completion", s->job_id,
			      s->sock_path);
			return;
		}
		error("JobId=%u: cannot report completion: %s; retrying in %u s", s->job_id,
		      sl_strerror(r), delay);
		complete_wait(s, delay);
		delay = delay * 2 > COMPLETE_BACKOFF_MAX ? COMPLETE_BACKOFF_MAX : delay * 2;
	}
}
