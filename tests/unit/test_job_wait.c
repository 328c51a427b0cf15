/* test_job_wait.c - waits on job states: answered from the job hook when
 * the jobs get there (or end elsewhere), at once for unknown or invisible
 * jobs, TIMEOUT at the timeout; the caps; REQUEST_JOB_WAIT's counts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/job_states.h"
#include "common/limits.h"
#include "common/msg.h"
#include "common/msg_wait.h"
#include "common/pack.h"
#include "common/sl_errno.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_wait.h"

struct answer {
	int calls;
	struct job_wait_job jobs[4];
	uint32_t count;
};

static void on_done(void *arg, const struct job_wait_resp *resp)
{
	struct answer *a = arg;

	a->calls++;
	a->count = resp->count;
	for (uint32_t i = 0; i < resp->count && i < 4; i++)
		a->jobs[i] = resp->jobs[i];
}

static int setup(void **state)
{
	struct ctld_fixture *f = fixture_new("PrivateData=jobs\n");

	assert_int_equal(job_wait_init(&f->c), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct ctld_fixture *f = *state;

	job_wait_fini(&f->c);
	fixture_free(f);
	return 0;
}

static struct job *new_job(struct ctld_fixture *f, uid_t uid)
{
	struct job *job = fixture_submit(f, fixture_desc());

	job->uid = uid;
	return job;
}

static void set_state(struct ctld_fixture *f, struct job *job, uint32_t state, uint32_t status)
{
	job->state = state;
	job->exit_code = status;
	job_changed(&f->c, job);
}

static void test_a_wait_is_answered_when_the_job_gets_there(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = new_job(f, 1000);
	uint32_t ids[] = {job->job_id};
	struct job_wait_req m = {.job_ids = ids, .job_id_count = 1,
				 .states = 1u << JOB_RUNNING, .timeout_s = 60};
	struct answer a = {0};
	struct job_waiter *w;

	assert_int_equal(job_wait_start(&f->c, &m, 1000, on_done, &a, &w), 0);
	assert_non_null(w);
	assert_int_equal(job_wait_count(&f->c), 1);
	set_state(f, job, JOB_PENDING, 0); /* a change, not there yet */
	assert_int_equal(a.calls, 0);
	set_state(f, job, JOB_RUNNING, 0);
	assert_int_equal(a.calls, 1);
	assert_int_equal(a.jobs[0].result, JOB_WAIT_REACHED);
	assert_int_equal(a.jobs[0].state, JOB_RUNNING);
	assert_int_equal(job_wait_count(&f->c), 0);
	/* ended before it ran: it will not get there */
	a = (struct answer){0};
	job = new_job(f, 1000);
	ids[0] = job->job_id;
	assert_int_equal(job_wait_start(&f->c, &m, 1000, on_done, &a, &w), 0);
	set_state(f, job, JOB_CANCELLED | JOB_COMPLETING, 0);
	assert_int_equal(a.calls, 0); /* its nodes not released yet */
	set_state(f, job, JOB_CANCELLED, 0);
	assert_int_equal(a.calls, 1);
	assert_int_equal(a.jobs[0].result, JOB_WAIT_ENDED);
}

static void test_any_and_all_of_a_set(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *j1 = new_job(f, 1000), *j2 = new_job(f, 1000);
	uint32_t ids[] = {j1->job_id, j2->job_id};
	struct job_wait_req m = {.job_ids = ids, .job_id_count = 2, .timeout_s = 60};
	struct answer any = {0}, all = {0};
	struct job_waiter *w;

	assert_int_equal(job_wait_start(&f->c, &m, 1000, on_done, &any, &w), 0);
	m.flags = JOB_WAIT_ALL;
	assert_int_equal(job_wait_start(&f->c, &m, 1000, on_done, &all, &w), 0);
	set_state(f, j2, JOB_FAILED, 3 << 8);
	assert_int_equal(any.calls, 1);
	assert_int_equal(any.jobs[0].result, JOB_WAIT_PENDING);
	assert_int_equal(any.jobs[1].result, JOB_WAIT_REACHED);
	assert_int_equal(job_wait_exit_code(any.jobs[1].exit_code), 3);
	assert_int_equal(all.calls, 0);
	set_state(f, j1, JOB_COMPLETE, 0);
	assert_int_equal(all.calls, 1);
	assert_int_equal(all.jobs[0].result, JOB_WAIT_REACHED);
}

static void test_unknown_and_invisible_jobs_are_answered_at_once(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = new_job(f, 1000);
	uint32_t ids[] = {999999, job->job_id};
	struct job_wait_req m = {.job_ids = ids, .job_id_count = 2, .timeout_s = 60,
				 .flags = JOB_WAIT_ALL};
	struct answer a = {0};
	struct job_waiter *w;

	/* PrivateData=jobs: uid 2000 may not see uid 1000's job */
	assert_int_equal(job_wait_start(&f->c, &m, 2000, on_done, &a, &w), 0);
	assert_null(w);
	assert_int_equal(a.calls, 1);
	assert_int_equal(a.jobs[0].result, JOB_WAIT_UNKNOWN);
	assert_int_equal(a.jobs[1].result, JOB_WAIT_UNKNOWN);
	assert_int_equal(a.jobs[1].state, 0);
}

static void test_the_timeout_answers_what_is_not_done(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = new_job(f, 1000);
	uint32_t ids[] = {job->job_id};
	struct job_wait_req m = {.job_ids = ids, .job_id_count = 1, .timeout_s = 5};
	struct answer a = {0};
	struct job_waiter *w;

	assert_int_equal(job_wait_start(&f->c, &m, 1000, on_done, &a, &w), 0);
	job_wait_timeout(w);
	assert_int_equal(a.calls, 1);
	assert_int_equal(a.jobs[0].result, JOB_WAIT_TIMEOUT);
	/* timeout 0: answered at once */
	m.timeout_s = 0;
	assert_int_equal(job_wait_start(&f->c, &m, 1000, on_done, &a, &w), 0);
	assert_null(w);
	assert_int_equal(a.calls, 2);
}

static void test_waits_are_capped_per_user_and_cancelled_ones_free_room(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = new_job(f, 1000);
	uint32_t ids[] = {job->job_id};
	struct job_wait_req m = {.job_ids = ids, .job_id_count = 1, .timeout_s = 60};
	struct job_waiter *w[SL_WAIT_PER_UID_MAX], *extra;
	struct answer a = {0};

	for (int i = 0; i < SL_WAIT_PER_UID_MAX; i++)
		assert_int_equal(job_wait_start(&f->c, &m, 1000, on_done, &a, &w[i]), 0);
	assert_int_equal(job_wait_start(&f->c, &m, 1000, on_done, &a, &extra),
			 -ESLURM_WAIT_LIMIT);
	assert_int_equal(job_wait_start(&f->c, &m, 0, on_done, &a, &extra), 0); /* root: its own count */
	assert_non_null(extra);
	job_wait_cancel(extra);
	job_wait_cancel(w[3]);
	assert_int_equal(job_wait_start(&f->c, &m, 1000, on_done, &a, &w[3]), 0);
	assert_int_equal(a.calls, 0);
	set_state(f, job, JOB_COMPLETE, 0); /* one change answers them all */
	assert_int_equal(a.calls, SL_WAIT_PER_UID_MAX);
	assert_int_equal(job_wait_count(&f->c), 0);
	m.job_id_count = 0;
	assert_int_equal(job_wait_start(&f->c, &m, 1000, on_done, &a, &extra), -EINVAL);
}

static void test_the_request_caps_its_count(void **state)
{
	struct pack_buf b = {0};
	void *got = NULL;

	(void)state;
	pack_u32(&b, SL_WAIT_JOBS_MAX + 1);
	for (uint32_t i = 0; i < SL_WAIT_JOBS_MAX + 1 + 3; i++)
		pack_u32(&b, i + 1);
	assert_true(msg_unpack_body(REQUEST_JOB_WAIT, b.data, b.len, PROTOCOL_VERSION, &got) < 0);
	assert_null(got);
	pack_buf_done(&b);
	pack_u32(&b, SL_WAIT_JOBS_MAX + 1); /* a reply: one entry per asked id */
	for (uint32_t i = 0; i < (SL_WAIT_JOBS_MAX + 1) * 4; i++)
		pack_u32(&b, 0);
	assert_true(msg_unpack_body(RESPONSE_JOB_WAIT, b.data, b.len, PROTOCOL_VERSION, &got) < 0);
	pack_buf_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_a_wait_is_answered_when_the_job_gets_there, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_any_and_all_of_a_set, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_and_invisible_jobs_are_answered_at_once,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_the_timeout_answers_what_is_not_done, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_waits_are_capped_per_user_and_cancelled_ones_free_room, setup, teardown),
	    cmocka_unit_test(test_the_request_caps_its_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
