/* test_node_reconcile.c - what a node says it runs against what the
 * controller believes (slurmctld/node_reconcile.c), on a job table built
 * in memory (lib/ctld_fixture.c): ghost jobs end or are requeued after the
 * launch grace, orphans are killed on their node, a job told to stop ends
 * when its node has no trace of it, an unkillable one drains the node;
 * completions keep the end time the node reported; a launch that finds a
 * leftover stepd is retried, not failed.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_cancel.h"
#include "slurmctld/job_end.h"
#include "slurmctld/job_sched.h"
#include "slurmctld/node.h"
#include "slurmctld/node_ping.h"
#include "slurmctld/node_reconcile.h"

#define LATER 100 /* seconds after the start: past the launch grace */

static int setup(void **state)
{
	*state = fixture_new("UnkillableStepTimeout=60\n");
	return 0;
}

static int teardown(void **state)
{
	fixture_free(*state);
	return 0;
}

static struct job *running(struct ctld_fixture *f, uint16_t requeue)
{
	struct job_desc *d = fixture_desc();
	struct job *job;

	d->requeue = requeue;
	job = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_int_equal(job->state, JOB_RUNNING);
	fixture_clear(f); /* the launch answered */
	return job;
}

static struct node *node_of(struct ctld_fixture *f, const struct job *job)
{
	return &f->c.nodes[job->alloc.nodes[0].node];
}

static void reconcile(struct ctld_fixture *f, struct node *n, const struct node_step_ref *refs,
		      uint32_t count, time_t asked)
{
	node_reconcile(&f->c, n, refs, count, asked);
}

static void test_a_job_its_node_does_not_list_ends_node_fail_after_the_grace(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 0);
	struct node *n = node_of(f, job);

	reconcile(f, n, NULL, 0, job->start_time + 1); /* its launch may be in flight */
	assert_int_equal(job->state, JOB_RUNNING);
	/* asked again once BatchStartTimeout + MessageTimeout (10 + 10) passed */
	assert_int_equal(n->recheck_time, job->start_time + 20);
	node_ping_rechecks(&f->c, job->start_time + 19);
	assert_int_equal(fixture_count(f, REQUEST_PING, 0), 0);
	node_ping_rechecks(&f->c, job->start_time + 20);
	assert_int_equal(fixture_count(f, REQUEST_PING, 0), 1);
	assert_int_equal(n->recheck_time, 0);
	fixture_clear(f);
	reconcile(f, n, NULL, 0, job->start_time + LATER);
	assert_int_equal(job->state, JOB_NODE_FAIL);
	assert_int_equal(job->reason, FAIL_DOWN_NODE);
	assert_int_equal(n->cpus_used, 0);
}

static void test_a_requeueable_lost_job_goes_back_to_pending(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	time_t start = job->start_time;

	reconcile(f, node_of(f, job), NULL, 0, start + LATER);
	assert_int_equal(job->state, JOB_PENDING);
	assert_int_equal(job->restart_cnt, 1);
	assert_int_equal(f->requeued, 1);
}

static void test_job_requeue_0_makes_a_lost_job_end_node_fail(void **state)
{
	struct ctld_fixture *f = fixture_new("JobRequeue=0\n");
	struct job *dflt = running(f, NO_VAL16), *asked = running(f, 1);

	(void)state;
	reconcile(f, node_of(f, dflt), NULL, 0, dflt->start_time + LATER);
	assert_int_equal(dflt->state, JOB_NODE_FAIL);
	assert_int_equal(asked->state, JOB_PENDING); /* --requeue wins */
	fixture_free(f);
}

static void test_a_listed_job_or_one_whose_completion_waits_keeps_running(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *a = running(f, 0), *b = running(f, 0);
	struct node_step_ref refs[] = {
	    {b->job_id, SL_BATCH_STEP, NODE_STEP_DONE},
	    {a->job_id, SL_BATCH_STEP, 0},
	};

	assert_ptr_equal(node_of(f, a), node_of(f, b));
	reconcile(f, node_of(f, a), refs, 2, a->start_time + LATER);
	assert_int_equal(a->state, JOB_RUNNING);
	assert_int_equal(b->state, JOB_RUNNING);
	assert_int_equal(fixture_count(f, REQUEST_TERMINATE_JOB, 0), 0);
}

static void test_what_the_node_runs_that_we_do_not_is_killed_there(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 0);
	struct node_step_ref refs[] = {
	    {job->job_id, SL_BATCH_STEP, 0},
	    {999, SL_BATCH_STEP, 0},		  /* unknown */
	    {job->job_id, 7, 0},		  /* a step we do not have */
	    {998, SL_BATCH_STEP, NODE_STEP_DONE}, /* over: its report is on its way */
	};
	const struct sent_msg *m = NULL;

	reconcile(f, node_of(f, job), refs, 4, job->start_time + LATER);
	assert_int_equal(job->state, JOB_RUNNING);
	assert_int_equal(fixture_count(f, REQUEST_TERMINATE_JOB, 999), 1);
	assert_int_equal(fixture_count(f, REQUEST_TERMINATE_JOB, 998), 0);
	assert_int_equal(fixture_count(f, REQUEST_TERMINATE_JOB, job->job_id), 1);
	for (uint32_t i = 0; i < f->nsent; i++)
		if (f->sent[i].job_id == job->job_id)
			m = &f->sent[i];
	assert_non_null(m);
	assert_int_equal(m->type, REQUEST_TERMINATE_JOB);
	assert_int_equal(m->step_id, 7);
	assert_int_equal(m->sig_or_reason, SIGKILL);
}

static void test_a_cancelled_job_its_node_has_no_trace_of_ends_at_once(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 0);

	assert_int_equal(job_cancel_signal(&f->c, job, SIGKILL, 0, 0), 0);
	assert_int_equal(job->state, JOB_CANCELLED | JOB_COMPLETING);
	/* the node answers the terminate: no stepd, no completion there */
	fixture_deliver(f, -ESLURM_INVALID_JOB_ID);
	assert_int_equal(job->state, JOB_CANCELLED);
	assert_int_equal(node_of(f, job)->cpus_used, 0);
}

static void test_a_cancelled_job_the_node_does_not_list_ends_on_its_report(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 0);
	struct node_step_ref done = {job->job_id, SL_BATCH_STEP, NODE_STEP_DONE};

	assert_int_equal(job_cancel_signal(&f->c, job, SIGKILL, 0, 0), 0);
	fixture_clear(f);
	/* its completion waits in the spool: wait for it */
	reconcile(f, node_of(f, job), &done, 1, job->start_time + LATER);
	assert_int_equal(job->state, JOB_CANCELLED | JOB_COMPLETING);
	reconcile(f, node_of(f, job), NULL, 0, job->start_time + LATER);
	assert_int_equal(job->state, JOB_CANCELLED);
}

static void test_a_job_still_there_past_unkillable_step_timeout_drains_its_node(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 0);
	struct node *n = node_of(f, job);
	struct node_step_ref live = {job->job_id, SL_BATCH_STEP, 0};
	time_t t = job->start_time + LATER;

	assert_int_equal(job_cancel_signal(&f->c, job, SIGKILL, 0, 0), 0);
	fixture_clear(f);
	reconcile(f, n, &live, 1, t);
	/* the kill may have been lost (slurmd restarting): sent again */
	assert_int_equal(fixture_count(f, REQUEST_TERMINATE_JOB, job->job_id), 1);
	reconcile(f, n, &live, 1, t + 59);
	assert_int_equal(fixture_count(f, REQUEST_TERMINATE_JOB, job->job_id), 2);
	assert_int_equal(job->state, JOB_CANCELLED | JOB_COMPLETING);
	assert_false(n->state & NODE_STATE_DRAIN);
	reconcile(f, n, &live, 1, t + 60);
	assert_int_equal(job->state, JOB_CANCELLED);
	assert_true(n->state & NODE_STATE_DRAIN);
	assert_string_equal(n->reason, "Kill task failed");
}

static void test_a_completion_keeps_the_end_time_its_node_reported(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *a = running(f, 0), *b = running(f, 0);
	struct complete_batch_msg m = {.job_id = a->job_id};

	a->start_time -= 50;
	m.end_time = a->start_time + 3;
	assert_int_equal(job_end_complete(&f->c, &m), 0);
	assert_int_equal(a->state, JOB_COMPLETE);
	assert_int_equal(a->end_time, a->start_time + 3);
	/* a time from the future (or none) is the arrival */
	m = (struct complete_batch_msg){.job_id = b->job_id, .end_time = time(NULL) + 3600};
	assert_int_equal(job_end_complete(&f->c, &m), 0);
	assert_true(b->end_time <= time(NULL));
}

static void test_a_launch_finding_a_leftover_stepd_is_retried_not_failed(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	struct job *job = fixture_submit(f, d);

	job_sched_pass(&f->c);
	assert_int_equal(job->state, JOB_RUNNING);
	fixture_deliver(f, -ESLURMD_STEP_EXISTS);
	assert_int_equal(job->state, JOB_PENDING);
	assert_true(job->eligible_time > time(NULL));
	assert_int_equal(job->restart_cnt, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		test_a_job_its_node_does_not_list_ends_node_fail_after_the_grace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_a_requeueable_lost_job_goes_back_to_pending, setup,
					    teardown),
	    cmocka_unit_test(test_job_requeue_0_makes_a_lost_job_end_node_fail),
	    cmocka_unit_test_setup_teardown(
		test_a_listed_job_or_one_whose_completion_waits_keeps_running, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_what_the_node_runs_that_we_do_not_is_killed_there,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_a_cancelled_job_its_node_has_no_trace_of_ends_at_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_a_cancelled_job_the_node_does_not_list_ends_on_its_report, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_a_job_still_there_past_unkillable_step_timeout_drains_its_node, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_a_completion_keeps_the_end_time_its_node_reported,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_a_launch_finding_a_leftover_stepd_is_retried_not_failed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
