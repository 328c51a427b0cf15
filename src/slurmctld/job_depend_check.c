/* job_depend_check.c - the controller's side of job dependencies: what
 * job_depend.c asks about other jobs, answered from the job table, and
 * the per-job calls made at submit, on each scheduling pass and for
 * display.
 */
#include "job_depend_check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/errprintf.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_array.h"
#include "job_depend.h"

struct deps_ctx {
	struct ctld *c;
	const struct job *self;
};

static void view_of(const struct job *j, struct job_depend_job *ret)
{
	*ret = (struct job_depend_job){
	    .state = j->state,
	    .start_time = j->start_time,
	    .exit_status = (int)j->exit_code,
	};
}

static bool dep_job(void *arg, uint32_t job_id, uint32_t task_id, struct job_depend_job *ret)
{
	struct deps_ctx *x = arg;
	struct job *j;
	bool is_pending;

	if (task_id == NO_VAL) {
		j = job_find(x->c, job_id);
		if (!j)
			return false;
		view_of(j, ret);
		return true;
	}
	j = job_array_find_task(x->c, job_id, task_id, &is_pending);
	if (!j)
		return false;
	view_of(j, ret);
	if (is_pending)
		*ret = (struct job_depend_job){.state = JOB_PENDING};
	return true;
}

static bool dep_array(void *arg, uint32_t array_id, struct job_depend_array *ret)
{
	struct deps_ctx *x = arg;
	bool found = false;

	*ret = (struct job_depend_array){0};
	for (uint32_t i = 0; i < x->c->job_count; i++) {
		const struct job *j = x->c->jobs[i];

		if (j->array_job_id != array_id)
			continue;
		found = true;
		ret->total += j->array_pending_count;
		ret->pending += j->array_pending_count;
		if (j->array_task_id == NO_VAL)
			continue; /* the meta record itself is not a task yet */
		ret->total++;
		if (job_is_pending(j))
			ret->pending++;
		else if (job_is_finished(j) && !(j->state & JOB_COMPLETING)) {
			bool ok = (j->state & JOB_STATE_BASE) == JOB_COMPLETE
				  && WIFEXITED((int)j->exit_code)
				  && WEXITSTATUS((int)j->exit_code) == 0;

			if (ok)
				ret->done_ok++;
			else
				ret->done_notok++;
		}
		if (j->start_time > ret->last_start)
			ret->last_start = j->start_time;
	}
	return found;
}

static bool dep_singleton_busy(void *arg)
{
	struct deps_ctx *x = arg;
	const struct job *self = x->self;
	const char *name = self->desc && self->desc->name ? self->desc->name : "";

	for (uint32_t i = 0; i < x->c->job_count; i++) {
		const struct job *j = x->c->jobs[i];

		if (j == self || j->job_id > self->job_id || j->uid != self->uid
		    || job_is_finished(j))
			continue;
		if (streq(j->desc && j->desc->name ? j->desc->name : "", name))
			return true;
	}
	return false;
}

int job_depend_check_submit(struct ctld *c, struct job *job, char **ret_msg)
{
	struct deps_ctx x = {c, job};
	struct job_depend_ops ops = {dep_job, dep_array, dep_singleton_busy, &x};
	struct sl_error err = {{0}};
	int r;

	if (!job->desc || !job->desc->dependency || !*job->desc->dependency)
		return 0;
	r = job_depend_parse(job->desc->dependency, 0, &job->depend, &err);
	if (r == 0)
		r = job_depend_validate(job->depend, &ops, job->job_id, job->array_job_id, &err);
	if (r < 0) {
		*ret_msg = err.text[0] ? strdup(err.text) : NULL;
		job->depend = job_depend_free(job->depend);
		return -ESLURM_DEPENDENCY;
	}
	return 0;
}

enum job_state_reason job_depend_check_now(struct ctld *c, struct job *job, time_t now)
{
	struct deps_ctx x = {c, job};
	struct job_depend_ops ops = {dep_job, dep_array, dep_singleton_busy, &x};
	uint32_t task = job->array_job_id && !job_is_array_meta(job) ? job->array_task_id : NO_VAL;

	if (!job->depend && job->desc && job->desc->dependency && *job->desc->dependency) {
		/* recovered from the journal: parse again (states start over) */
		struct sl_error err;

		if (job_depend_parse(job->desc->dependency, 0, &job->depend, &err) < 0)
			return WAIT_DEP_INVALID;
	}
	if (!job->depend)
		return WAIT_NO_REASON;
	return job_depend_reason(job_depend_evaluate(job->depend, &ops, task, now));
}

char *job_depend_check_text(const struct job *job)
{
	char *s = NULL;

	if (!job->depend || job_depend_format(job->depend, &s) < 0)
		return NULL;
	return s;
}
