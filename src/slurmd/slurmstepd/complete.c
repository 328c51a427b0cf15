/* complete.c - REQUEST_COMPLETE_BATCH_SCRIPT (batch) or
 * REQUEST_STEP_COMPLETE (a step's node) to the controller, with the
 * usage totals of usage.c.
 *
 * First the report is kept in the spool, "<socket>.done" (stepd_proto.h,
 * 3.), locked for as long as this stepd lives; then the socket goes, so a
 * new run of the job may start here while this report is on its way.
 * The controller may be down or restarting: the report is retried with
 * backoff (1 s, 2 s, 4 s ... capped at 30 s) for as long as it takes, and
 * the loop keeps being served meanwhile (srun's connection, for a step).
 * A reply with an error of the controller's own (2000 and up, e.g. an
 * unknown job, or SLURM_UNEXPECTED_MSG_ERROR) is final. The stepd gives
 * up when the .done file is removed (the node is being wiped) or when it
 * was told to stop (SIGTERM/SIGINT): one try, then exit, leaving the
 * file for slurmd to send.
 */
#include "complete.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"
#include "common/stepd_proto.h"
#include "loop.h"
#include "sock.h"
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

/* The report, as sent and as kept in the spool. */
struct complete_report {
	uint16_t type;
	struct complete_batch_msg batch;
	struct step_complete_msg step;
};

static void complete_build(struct stepd *s, struct complete_report *rep)
{
	time_t end = s->end_time ? s->end_time : time(NULL);

	rep->batch = (struct complete_batch_msg){
	    .job_id = s->job_id,
	    .job_rc = (uint32_t)s->status,
	    .slurm_rc = s->slurm_rc,
	    .node_name = s->node_name,
	    .is_oom = s->is_oom,
	    .end_time = end,
	};
	rep->step = (struct step_complete_msg){
	    .job_id = s->job_id,
	    .step_id = s->step_id,
	    .node_name = s->node_name,
	    .step_rc = (uint32_t)s->status,
	    .is_oom = s->is_oom,
	    .end_time = end,
	};
	usage_total(s, &rep->batch.usage);
	rep->step.usage = rep->batch.usage;
	rep->type = s->is_batch ? REQUEST_COMPLETE_BATCH_SCRIPT : REQUEST_STEP_COMPLETE;
}

static const void *complete_body(const struct complete_report *rep)
{
	return rep->type == REQUEST_COMPLETE_BATCH_SCRIPT ? (const void *)&rep->batch
							  : (const void *)&rep->step;
}

/* Write the report to s->done_path: a temporary file, locked, written,
 * synced, renamed into place, the directory synced. The lock stays with
 * s->done_fd. On failure the report is only sent (logged). */
static int complete_save(struct stepd *s, const struct complete_report *rep)
{
	_cleanup_(pack_buf_done) struct pack_buf frame = {0};
	char tmp[sizeof(s->done_path) + 8], dir[sizeof(s->done_path)];
	_cleanup_close_ int fd = -1, dfd = -1;
	int r;

	r = stepd_done_path(s->done_path, sizeof(s->done_path), s->spool_dir, s->node_name,
			    s->job_id, s->step_id);
	if (r == 0 && snprintf(tmp, sizeof(tmp), "%s.new", s->done_path) >= (int)sizeof(tmp))
		r = -ENAMETOOLONG;
	if (r == 0)
		r = stepd_frame_pack(rep->type, complete_body(rep), &frame);
	if (r < 0)
		goto fail;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		r = -errno;
	if (r == 0)
		r = stepd_write_all(fd, frame.data, frame.len);
	if (r == 0 && (fsync(fd) < 0 || rename(tmp, s->done_path) < 0))
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		goto fail;
	}
	snprintf(dir, sizeof(dir), "%s", s->done_path);
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		fsync(dfd);
	s->done_fd = TAKE_FD(fd);
	return 0;
fail:
	error("%s: cannot keep the completion in %s: %s", s->label, s->spool_dir, strerror(-r));
	s->done_path[0] = '\0';
	return r;
}

/* The controller has the report, or will never take it. */
static void complete_forget(struct stepd *s)
{
	if (s->done_path[0])
		unlink(s->done_path);
	s->done_path[0] = '\0';
	if (s->done_fd >= 0)
		close(s->done_fd);
	s->done_fd = -1;
}

static bool complete_was_wiped(const struct stepd *s)
{
	return s->done_path[0] && access(s->done_path, F_OK) < 0 && errno == ENOENT;
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
	struct complete_report rep;
	unsigned delay = 1;
	int r;

	complete_log_usage(s);
	complete_build(s, &rep);
	complete_save(s, &rep);
	sock_close(s); /* slurmd now finds the .done file, not a running job */
	for (;;) {
		r = rpc_call_ctld_rc(s->conf, rep.type, complete_body(&rep));
		if (r == 0) {
			verbose("JobId=%u: completion accepted", s->job_id);
			complete_forget(s);
			return;
		}
		if (s->is_stopping) {
			error("JobId=%u: stopped by a signal, completion left to slurmd: %s",
			      s->job_id, sl_strerror(r));
			return;
		}
		if (!complete_is_retryable(r)) {
			error("JobId=%u: completion refused: %s", s->job_id, sl_strerror(r));
			complete_forget(s);
			return;
		}
		if (complete_was_wiped(s)) {
			error("JobId=%u: %s was removed, giving up the completion", s->job_id,
			      s->done_path);
			return;
		}
		error("JobId=%u: cannot report completion: %s; retrying in %u s", s->job_id,
		      sl_strerror(r), delay);
		complete_wait(s, delay);
		delay = delay * 2 > COMPLETE_BACKOFF_MAX ? COMPLETE_BACKOFF_MAX : delay * 2;
	}
}
