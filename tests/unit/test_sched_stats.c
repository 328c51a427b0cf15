/* test_sched_stats.c - what sdiag counts: jobs submitted, started,
 * completed (whatever the exit code), canceled, counted once however often
 * a job changes; main and backfill cycles; RPC rows by type and by user;
 * the reset. Against a job table built in memory (lib/ctld_fixture.c).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/job_states.h"
#include "common/msg.h"
#include "common/msg_stats.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_cancel.h"
#include "slurmctld/job_end.h"
#include "slurmctld/job_sched.h"
#include "slurmctld/sched_stats.h"

static int setup(void **state)
{
	struct ctld_fixture *f = fixture_new(NULL);

	sched_stats_reset(time(NULL) - 1);
	assert_int_equal(sched_stats_start(&f->c, time(NULL) - 1), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture_free(*state);
	return 0;
}

static struct stats_info_msg fill(struct ctld_fixture *f)
{
	struct stats_info_msg m;

	assert_int_equal(sched_stats_fill(&f->c, time(NULL), &m), 0);
	return m;
}

static void test_jobs_are_counted_once_per_run(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *ok = fixture_submit(f, fixture_desc());
	struct job *bad = fixture_submit(f, fixture_desc());
	struct job *gone;
	struct stats_info_msg m;

	job_sched_pass(&f->c);
	job_sched_pass(&f->c);			  /* changes again: not counted again */
	gone = fixture_submit(f, fixture_desc()); /* no pass: it stays pending */
	assert_int_equal(job_cancel_signal(&f->c, gone, SIGKILL, 0, 0), 0);
	assert_null(gone->nodes);
	assert_int_equal(
	    job_end_complete(&f->c, &(struct complete_batch_msg){.job_id = ok->job_id}), 0);
	assert_int_equal(job_end_complete(&f->c, &(struct complete_batch_msg){.job_id = bad->job_id,
									      .job_rc = 3 << 8}),
			 0);
	m = fill(f);
	assert_int_equal(m.jobs_submitted, 3);
	assert_int_equal(m.jobs_started, 2);   /* cancelled while pending: never started */
	assert_int_equal(m.jobs_completed, 2); /* an exit code of 3 is still "completed" */
	assert_int_equal(m.jobs_canceled, 1);
	assert_int_equal(m.jobs_failed, 0);
	stats_info_msg_free(&m);
}

static void test_cycles_and_means(void **state)
{
	struct ctld_fixture *f = *state;
	struct stats_info_msg m;

	sched_stats_main_cycle(&f->c, 100, 4, 10, 1);
	sched_stats_main_cycle(&f->c, 300, 6, 8, 0);
	sched_stats_bf_cycle(&f->c, 1000, 5, 4, 7, 2, 1234);
	m = fill(f);
	assert_int_equal(m.sched_last, 300);
	assert_int_equal(m.sched_max, 300);
	assert_int_equal(m.sched_cycles, 2);
	assert_int_equal(m.sched_sum, 400);
	assert_int_equal(m.sched_depth_sum, 10);
	assert_int_equal(m.sched_queue_len, 8);
	assert_int_equal(m.bf_cycles, 1);
	assert_int_equal(m.bf_jobs_total, 2);
	assert_int_equal(m.bf_jobs_since_reset, 2);
	assert_int_equal(m.bf_last_depth, 5);
	assert_int_equal(m.bf_last_depth_try, 4);
	assert_int_equal(m.bf_when_last, 1234);
	stats_info_msg_free(&m);
	/* reset: all to zero but the backfilled jobs since start */
	sched_stats_reset(time(NULL));
	m = fill(f);
	assert_int_equal(m.sched_cycles, 0);
	assert_int_equal(m.bf_cycles, 0);
	assert_int_equal(m.bf_jobs_since_reset, 0);
	assert_int_equal(m.bf_jobs_total, 2);
	stats_info_msg_free(&m);
}

static void test_rpc_rows_by_type_and_user(void **state)
{
	struct ctld_fixture *f = *state;
	struct stats_info_msg m;

	sched_stats_reset(time(NULL));
	sched_stats_rpc(REQUEST_SUBMIT_BATCH_JOB, 0, 10);
	sched_stats_rpc(REQUEST_SUBMIT_BATCH_JOB, 1001, 30);
	sched_stats_rpc(REQUEST_JOB_INFO, 1001, 5);
	m = fill(f);
	assert_int_equal(m.rpc_type_count, 2);
	assert_int_equal(m.rpc_types[0].id, REQUEST_SUBMIT_BATCH_JOB);
	assert_int_equal(m.rpc_types[0].count, 2);
	assert_int_equal(m.rpc_types[0].time_us, 40);
	assert_int_equal(m.rpc_user_count, 2);
	assert_int_equal(m.rpc_users[1].id, 1001);
	assert_int_equal(m.rpc_users[1].count, 2);
	assert_int_equal(m.rpc_users[1].time_us, 35);
	stats_info_msg_free(&m);
	/* a full user table drops new users, never old counts */
	for (uint32_t uid = 2000; uid < 3000; uid++)
		sched_stats_rpc(REQUEST_JOB_INFO, uid, 1);
	sched_stats_rpc(REQUEST_JOB_INFO, 1001, 1);
	m = fill(f);
	assert_true(m.rpc_user_count < 1000);
	assert_int_equal(m.rpc_users[1].count, 3);
	assert_int_equal(m.rpc_types[1].count, 1002);
	stats_info_msg_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_jobs_are_counted_once_per_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cycles_and_means, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rpc_rows_by_type_and_user, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
