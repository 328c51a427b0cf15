/* step_ping.c - is the srun of each running step still there?
 *
 * A stepd notices its srun going away (its I/O connection breaks) and
 * kills the tasks, which completes the step. An srun killed after the
 * step was created but before any stepd started leaves nobody to notice:
 * the step would hold its cpus for the rest of the job. So every
 * STEP_PING_INTERVAL seconds the controller sends SRUN_PING to the srun of
 * each running step (one call in flight per step); when srun cannot be
 * reached the step is cancelled: its nodes get a terminate (a stepd that
 * did start kills its tasks) and its cpus are free at once.
 */
#include "step_ping.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/job_states.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "step.h"

#define STEP_PING_INTERVAL 5 /* seconds */

struct ping_arg {
	struct ctld *c;
	uint32_t job_id, step_id;
};

static void srun_gone(struct ctld *c, struct job *job, struct step *s, int rc)
{
	info("StepId=%u.%u: srun at %s:%u cannot be reached (%s), cancelling the step",
	     job->job_id, s->step_id, s->srun_host, s->srun_port, sl_strerror(rc));
	s->is_cancelled = true;
	step_send_nodes(c, job, s, REQUEST_TERMINATE_JOB, SIGKILL);
	step_end(c, s, JOB_CANCELLED, time(NULL));
}

static void ping_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	struct ping_arg *a = arg;
	struct job *job = job_find(a->c, a->job_id);
	struct step *s = job ? step_find(job, a->step_id) : NULL;

	(void)msg;
	if (rc == 0 && type != RESPONSE_SLURM_RC)
		rc = -SLURM_UNEXPECTED_MSG_ERROR;
	if (s && step_is_running(s)) {
		if (rc < 0)
			srun_gone(a->c, job, s, rc);
		else
			s->last_srun_ping = time(NULL);
	}
	free(a);
}

void step_ping_sruns(struct ctld *c, time_t now)
{
	uint32_t n;
	struct job *const *jobs = job_view(c, &n);

	for (uint32_t j = 0; j < n; j++) {
		struct job *job = jobs[j];

		if (!job->step_count || !job_is_running(job) || job_is_finished(job))
			continue;
		for (uint32_t i = 0; i < job->step_count; i++) {
			struct step *s = &job->steps[i];
			struct srun_notice_msg m = {.job_id = job->job_id, .step_id = s->step_id};
			struct ping_arg *a;
			int r;

			if (!step_is_running(s) || !s->srun_host || !s->srun_port)
				continue;
			if (!s->last_srun_ping)
				s->last_srun_ping = s->start_time;
			if (now - s->last_srun_ping < STEP_PING_INTERVAL)
				continue;
			a = malloc(sizeof(*a));
			if (!a)
				return;
			*a = (struct ping_arg){c, job->job_id, s->step_id};
			r = ctld_send(c, s->srun_host, s->srun_port, SRUN_PING, &m, job->uid,
				      ping_done_cb, a);
			if (r < 0) {
				free(a);
				srun_gone(c, job, s, r);
				continue;
			}
			/* in flight: no other ping until this one surely ended */
			s->last_srun_ping = now + (time_t)c->conf->message_timeout + 1;
		}
	}
}
