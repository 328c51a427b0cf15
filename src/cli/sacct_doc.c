/* sacct_doc.c - sacct --json / --yaml (see sacct_doc.h), streamed to stdout.
 *
 * The -j selection is applied to shallow copies of the rows (the strings
 * stay the caller's), so the serializer shared with slurmrestd only sees
 * what to write.
 */
#include "cli/sacct_doc.h"

#include <errno.h>
#include <stdlib.h>

#include "cli/sacct_opt.h"
#include "common/data_acct.h"
#include "common/macros.h"
#include "common/msg_acct.h"

/* The rows to write: copies of the shown jobs, each with a fresh array of
 * copies of its shown steps. */
struct shown {
	struct acct_job_rec *jobs;
	size_t count;
};

static void shown_done(struct shown *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->jobs[i].steps);
	free(s->jobs);
}

static int select_rows(struct shown *out, const struct sacct_sel *sels, size_t n_sels,
		       const struct acct_job_rec *jobs, size_t count, bool with_steps)
{
	out->jobs = calloc(count ? count : 1, sizeof(*out->jobs));
	if (!out->jobs)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++) {
		const struct acct_job_rec *j = &jobs[i];
		struct acct_job_rec *c = &out->jobs[out->count];
		bool job_shown = sacct_job_shown(sels, n_sels, j);

		*c = *j;
		c->steps = NULL;
		c->step_count = 0;
		if (with_steps && j->step_count) {
			c->steps = calloc(j->step_count, sizeof(*c->steps));
			if (!c->steps)
				return -ENOMEM;
		}
		for (uint32_t k = 0; c->steps && k < j->step_count; k++)
			if (sacct_step_shown(sels, n_sels, j, &j->steps[k]))
				c->steps[c->step_count++] = j->steps[k];
		if (job_shown || c->step_count)
			out->count++;
		else
			free(c->steps);
	}
	return 0;
}

int sacct_print_doc(FILE *out, enum dout_kind kind, const char *cluster,
		    const struct sacct_sel *sels, size_t n_sels, const struct acct_job_rec *jobs,
		    size_t count, bool with_steps, int argc, char **argv)
{
	struct shown s = { 0 };
	struct dout *d = NULL;
	int r = select_rows(&s, sels, n_sels, jobs, count, with_steps);

	if (r == 0 && !(d = dout_new(kind)))
		r = -ENOMEM;
	if (r == 0) {
		/* streamed: 5,000 jobs with steps are some 80 MB of JSON */
		dout_set_sink(d, out);
		data_acct_jobs_doc(d, cluster, s.jobs, s.count, with_steps, argc, argv);
		if (dout_flush(d) < 0)
			r = ferror(out) ? -EIO : -ENOMEM;
	}
	dout_free(d);
	shown_done(&s);
	return r;
}
