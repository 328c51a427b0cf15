/* job_cancel.c - scancel and other signals to jobs: which jobs a target
 * names ("12", "12_3", "12_[1-3,7]", a whole array), who may touch them,
 * and what a signal does to each; see job_cancel.h.
 *
 * A pending job cancelled ends CANCELLED at once; a running batch job is
 * told to stop and shows CANCELLED+COMPLETING until its node reports
 * back; an interactive one ends at once. Other signals go to the running
 * job's processes.
 */
#include "job_cancel.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_array.h"
#include "job_end.h"
#include "step.h"

int job_cancel_signal(struct ctld *c, struct job *job, uint16_t sig, uint16_t flags, uid_t by)
{
	time_t now = time(NULL);

	if (job_is_finished(job) || (job->state & JOB_COMPLETING))
		return -ESLURM_ALREADY_DONE;
	if (job_is_pending(job)) {
		if (sig != SIGKILL)
			return -ESLURM_JOB_PENDING;
		job->state = JOB_CANCELLED;
		job->reason = WAIT_NO_REASON;
		job->start_time = job->end_time = now;
		job->cancelled_by = by;
		job_changed(c, job);
		info("JobId=%u cancelled while pending by uid %u", job->job_id, (unsigned)by);
		job_end_notify_client(c, job, SRUN_END_CANCELLED); /* a waiting salloc/srun */
		ctld_sched_request(c);
		return 0;
	}
	if (sig != SIGKILL) {
		job_end_send_signal(c, job, REQUEST_SIGNAL_TASKS, sig, flags);
		return 0;
	}
	if (job_is_interactive(job)) { /* no script to report: ends now */
		job->cancelled_by = by;
		info("JobId=%u cancelled by uid %u", job->job_id, (unsigned)by);
		job_end_alloc(c, job, JOB_CANCELLED, WAIT_NO_REASON, REQUEST_TERMINATE_JOB,
			      SRUN_END_CANCELLED);
		return 0;
	}
	job->is_cancelled = true;
	job->cancelled_by = by;
	job->state = JOB_CANCELLED | JOB_COMPLETING;
	info("JobId=%u cancelled by uid %u", job->job_id, (unsigned)by);
	job_end_send_signal(c, job, REQUEST_TERMINATE_JOB, SIGKILL, flags);
	step_job_ending(c, job, JOB_CANCELLED, SRUN_END_CANCELLED);
	job_changed(c, job);
	return 0;
}

int job_cancel_preempt(struct ctld *c, struct job *job)
{
	if (!job_is_running(job) || (job->state & JOB_COMPLETING))
		return -ESLURM_ALREADY_DONE;
	if (job_is_interactive(job)) { /* no script to report: ends now */
		job_end_alloc(c, job, JOB_PREEMPTED, WAIT_NO_REASON, REQUEST_TERMINATE_JOB,
			      SRUN_END_CANCELLED);
		return 0;
	}
	job->is_cancelled = true; /* the batch script's report ends it PREEMPTED */
	job->state = JOB_PREEMPTED | JOB_COMPLETING;
	job_end_send_signal(c, job, REQUEST_TERMINATE_JOB, SIGKILL, 0);
	step_job_ending(c, job, JOB_CANCELLED, SRUN_END_CANCELLED);
	job_changed(c, job);
	return 0;
}

bool job_cancel_may_touch(const struct ctld *c, const struct job *job, uid_t uid)
{
	return uid == job->uid || ctld_is_admin(c, uid);
}

/* Cancel or signal one task of an array: a task not started yet is only
 * dropped from its meta record. */
static int kill_array_task(struct ctld *c, uint32_t array_id, uint32_t task, uint16_t sig,
			   uint16_t flags, uid_t uid)
{
	bool is_pending;
	struct job *job = job_array_find_task(c, array_id, task, &is_pending);

	if (!job)
		return -ESLURM_INVALID_JOB_ID;
	if (!job_cancel_may_touch(c, job, uid))
		return -ESLURM_ACCESS_DENIED;
	if (!is_pending)
		return job_cancel_signal(c, job, sig, flags, uid);
	if (sig != 9)
		return -ESLURM_JOB_PENDING;
	job_array_drop_pending(job, task);
	if (!job_is_array_meta(job) && job->array_task_id == NO_VAL)
		return job_cancel_signal(c, job, sig, flags,
					 uid); /* nothing left: the record ends */
	job_changed(c, job);
	return 0;
}

/* "12" (a job, or a whole array), "12_3", "12_[1-3,7]". */
int job_cancel_target(struct ctld *c, const char *s, uint16_t sig, uint16_t flags, uid_t uid)
{
	char *end;
	unsigned long id = strtoul(s ? s : "", &end, 10);
	struct job *job;
	int r = 0, first = 0;

	if (!s || end == s || id == 0 || id > UINT32_MAX)
		return -ESLURM_INVALID_JOB_ID;
	if (*end == '_') {
		const char *list = end + 1;
		uint32_t *ids = NULL, n = 0, throttle;
		_cleanup_free_ char *copy = strdup(list);
		size_t len = copy ? strlen(copy) : 0;

		if (!copy)
			return -ENOMEM;
		if (len >= 2 && copy[0] == '[' && copy[len - 1] == ']') {
			copy[len - 1] = '\0';
			memmove(copy, copy + 1, len - 1);
		}
		if (job_array_parse(copy, c->conf->max_array_size, &ids, &n, &throttle) < 0)
			return -ESLURM_INVALID_JOB_ID;
		for (uint32_t i = 0; i < n; i++) {
			r = kill_array_task(c, (uint32_t)id, ids[i], sig, flags, uid);
			if (r < 0 && !first)
				first = r;
		}
		free(ids);
		return first;
	}
	if (*end)
		return -ESLURM_INVALID_JOB_ID;
	job = job_find(c, (uint32_t)id);
	if (!job)
		return -ESLURM_INVALID_JOB_ID;
	if (!job_cancel_may_touch(c, job, uid))
		return -ESLURM_ACCESS_DENIED;
	if (job->array_job_id != id)
		return job_cancel_signal(c, job, sig, flags, uid);
	/* the whole array: every task record, then the meta record */
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *t = c->jobs[i];

		if (t->array_job_id == id && t != job && !job_is_finished(t))
			job_cancel_signal(c, t, sig, flags, uid);
	}
	if (sig == 9 && job_is_array_meta(job))
		job->array_pending_count = 0; /* tasks not started never will */
	r = job_is_finished(job) ? 0 : job_cancel_signal(c, job, sig, flags, uid);
	return r == -ESLURM_ALREADY_DONE ? 0 : r;
}
