/* step_rec.c - step records; see step_rec.h. */
#include "step_rec.h"

#include <stdlib.h>

#include "common/job_states.h"
#include "job.h"

void step_rec_done(struct step *s)
{
	free(s->name);
	free(s->command);
	free(s->nodes);
	free(s->nodes_str);
	free(s->srun_host);
	free(s->max_rss_node);
	free(s->max_vm_node);
}

void step_job_free(struct job *job)
{
	for (uint32_t i = 0; i < job->step_count; i++)
		step_rec_done(&job->steps[i]);
	free(job->steps);
	job->steps = NULL;
	job->step_count = 0;
}

struct step *step_find(struct job *job, uint32_t step_id)
{
	uint32_t lo = 0, hi = job->step_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (job->steps[mid].step_id == step_id)
			return &job->steps[mid];
		if (job->steps[mid].step_id < step_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool step_job_had_oom(const struct job *job)
{
	for (uint32_t i = 0; i < job->step_count; i++)
		if (job->steps[i].is_oom)
			return true;
	return false;
}

bool step_is_running(const struct step *s)
{
	return s->state == JOB_RUNNING;
}

uint32_t step_running_count(const struct job *job)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < job->step_count; i++)
		n += step_is_running(&job->steps[i]);
	return n;
}

bool step_is_over(const struct step *s)
{
	return !step_is_running(s) && s->nodes_done >= s->node_count;
}

bool step_is_of_this_run(const struct job *job, const struct step *s)
{
	return job->start_time && s->start_time >= job->start_time;
}

void step_mark_recorded(struct job *job, uint64_t seq)
{
	for (uint32_t i = 0; i < job->step_count; i++) {
		struct step *s = &job->steps[i];

		if (step_is_over(s) && !s->acct_seq && step_is_of_this_run(job, s))
			s->acct_seq = seq;
	}
}
