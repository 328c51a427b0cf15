/* test_job_info_brief.c - a brief job record (JOB_SHOW_BRIEF) is the full
 * one with the strings job_info_brief() clears left out, nothing else:
 * for jobs in every shape the controller lists (held, pending on a
 * dependency or for resources, running, GPU, array, an output pattern,
 * a comment), the packed brief record equals the packed full record
 * once job_info_brief() has cleared it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/msg.h"
#include "common/msg_family.h"
#include "common/pack.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_info.h"
#include "slurmctld/job_sched.h"

static int setup(void **state)
{
	*state = fixture_new(NULL);
	return 0;
}

static int teardown(void **state)
{
	fixture_free(*state);
	return 0;
}

/* job as one packed record of a reply, brief or full-then-cleared. */
static void pack_one(struct ctld_fixture *f, const struct job *job, bool brief,
		     struct pack_buf *ret)
{
	struct job_info j;
	struct job_info_msg m = {.count = 1, .jobs = &j};

	assert_int_equal(job_info_fill(&f->c, job, brief, time(NULL), &j), 0);
	if (!brief) {
		/* what the brief record leaves out, set here: the check
		 * below would pass on a field both happen to leave NULL */
		assert_non_null(j.std_out);
		assert_non_null(j.tres_req_str);
	}
	{
		struct job_info shown = j;

		if (!brief)
			job_info_brief(&shown);
		m.jobs = &shown;
		job_info_msg_pack(&m, ret, PROTOCOL_VERSION);
	}
	job_info_fill_done(&j);
}

static void test_a_brief_record_is_the_full_one_cleared(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d;
	struct job *first;

	d = fixture_desc(); /* runs: a node's 4 cpus */
	d->num_tasks = 4;
	d->std_out = strdup("/tmp/out-%j-%N.txt");
	d->comment = strdup("a comment");
	first = fixture_submit(f, d);
	d = fixture_desc(); /* held */
	d->flags |= JOB_DESC_HOLD;
	fixture_submit(f, d);
	d = fixture_desc(); /* waits on the first */
	if (asprintf(&d->dependency, "afterok:%u", first->job_id) < 0)
		fail();
	fixture_submit(f, d);
	d = fixture_desc(); /* a GPU job in the gpu partition */
	d->partition = strdup("gpu");
	d->tres_per_node = strdup("gres/gpu:2");
	fixture_submit(f, d);
	d = fixture_desc(); /* an array, throttled */
	d->array_spec = strdup("1-6%2");
	fixture_submit(f, d);
	d = fixture_desc(); /* every cpu of the partition: waits for resources */
	d->num_tasks = 12;
	d->time_limit = 30;
	fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_true(f->c.job_count >= 6);
	for (uint32_t i = 0; i < f->c.job_count; i++) {
		struct pack_buf full = {0}, brief = {0};

		pack_one(f, f->c.jobs[i], false, &full);
		pack_one(f, f->c.jobs[i], true, &brief);
		if (full.len != brief.len || memcmp(full.data, brief.data, full.len) != 0)
			fail_msg("JobId=%u: the brief record differs from the full one cleared",
				 f->c.jobs[i]->job_id);
		assert_true(brief.len > 0);
		pack_buf_done(&full);
		pack_buf_done(&brief);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_a_brief_record_is_the_full_one_cleared, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
