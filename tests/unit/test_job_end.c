/* test_job_end.c - how jobs end, against a job table built in memory
 * (lib/ctld_fixture.c): batch completion by exit status, cancel of pending
 * and running jobs, time limits, launch failure, lost nodes (requeue or
 * NODE_FAIL), scontrol requeue, interactive allocations ending. Each end
 * gives the resources back and tells the journal/accounting hooks.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_cancel.h"
#include "slurmctld/job_end.h"
#include "slurmctld/job_sched.h"
#include "slurmctld/node.h"

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

static uint32_t base(const struct job *job)
{
	return job->state & JOB_STATE_BASE;
}

/* A running batch job of n one-cpu tasks. */
static struct job *running(struct ctld_fixture *f, uint32_t n)
{
	struct job_desc *d = fixture_desc();
	struct job *job;

	d->num_tasks = n;
	job = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_int_equal(base(job), JOB_RUNNING);
	return job;
}

static void complete(struct ctld_fixture *f, struct job *job, uint32_t status)
{
	struct complete_batch_msg m = {.job_id = job->job_id, .job_rc = status};

	assert_int_equal(job_end_complete(&f->c, &m), 0);
}

static void test_exit_status_decides_the_final_state(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *ok = running(f, 2), *bad = running(f, 1), *sig = running(f, 1);

	complete(f, ok, 0);
	complete(f, bad, 3 << 8);
	complete(f, sig, SIGKILL);
	assert_int_equal(ok->state, JOB_COMPLETE);
	assert_int_equal(bad->state, JOB_FAILED);
	assert_int_equal(bad->reason, FAIL_EXIT_CODE);
	assert_int_equal(bad->exit_code, 3 << 8);
	assert_int_equal(sig->state, JOB_FAILED);
	assert_int_equal(sig->reason, FAIL_SIGNAL);
	assert_true(ok->end_time >= ok->start_time);
	/* every cpu is back */
	for (uint32_t i = 0; i < f->c.node_count; i++)
		assert_int_equal(f->c.nodes[i].cpus_used, 0);
}

static void test_a_second_completion_changes_nothing(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	time_t end;

	complete(f, job, 0);
	end = job->end_time;
	f->changed = 0;
	complete(f, job, 1 << 8); /* a retry from the stepd */
	assert_int_equal(job->state, JOB_COMPLETE);
	assert_int_equal(job->end_time, end);
	assert_int_equal(f->changed, 0);
}

static void test_an_unknown_job_completion_is_refused(void **state)
{
	struct ctld_fixture *f = *state;
	struct complete_batch_msg m = {.job_id = 4242};

	assert_int_equal(job_end_complete(&f->c, &m), -ESLURM_INVALID_JOB_ID);
}

static void test_cancel_of_a_pending_job_ends_it_at_once(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	struct job *job;

	d->flags |= JOB_DESC_HOLD;
	job = fixture_submit(f, d);
	assert_int_equal(job_cancel_signal(&f->c, job, SIGKILL, 0, 1000), 0);
	assert_int_equal(job->state, JOB_CANCELLED);
	assert_int_equal(job->cancelled_by, 1000);
	assert_int_equal(fixture_count(f, 0, job->job_id), 0); /* no node to tell */
	/* a signal other than KILL to a pending job is refused */
	job = fixture_submit(f, fixture_desc());
	assert_int_equal(job_cancel_signal(&f->c, job, SIGUSR1, 0, 0), -ESLURM_JOB_PENDING);
}

static void test_cancel_of_a_running_job_waits_for_its_node(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	const struct sent_msg *m;

	assert_int_equal(job_cancel_signal(&f->c, job, SIGKILL, 0, 0), 0);
	assert_int_equal(job->state, JOB_CANCELLED | JOB_COMPLETING);
	m = fixture_last(f, REQUEST_TERMINATE_JOB);
	assert_non_null(m);
	assert_int_equal(m->job_id, job->job_id);
	assert_int_equal(m->step_id, SL_ALL_STEPS);
	assert_int_equal(node_find(&f->c, "n1")->cpus_used, 1); /* until the node says so */
	assert_int_equal(job_cancel_signal(&f->c, job, SIGKILL, 0, 0), -ESLURM_ALREADY_DONE);
	complete(f, job, SIGTERM); /* the script died of it */
	assert_int_equal(job->state, JOB_CANCELLED);
	assert_int_equal(node_find(&f->c, "n1")->cpus_used, 0);
}

static void test_other_signals_go_to_the_running_job(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	const struct sent_msg *m;

	assert_int_equal(job_cancel_signal(&f->c, job, SIGUSR1, 0, 0), 0);
	m = fixture_last(f, REQUEST_SIGNAL_TASKS);
	assert_non_null(m);
	assert_int_equal(m->sig_or_reason, SIGUSR1);
	assert_int_equal(base(job), JOB_RUNNING);
}

static void test_cancel_targets_name_array_tasks(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	struct job *meta;
	char target[32];

	d->array_spec = strdup("1-4");
	d->flags |= JOB_DESC_HOLD;
	meta = fixture_submit(f, d);
	assert_int_equal(meta->array_pending_count, 4);
	snprintf(target, sizeof(target), "%u_[2-3]", meta->job_id);
	assert_int_equal(job_cancel_target(&f->c, target, SIGKILL, 0, 0), 0);
	assert_int_equal(meta->array_pending_count, 2);
	assert_int_equal(job_cancel_target(&f->c, "99999", SIGKILL, 0, 0), -ESLURM_INVALID_JOB_ID);
	assert_int_equal(job_cancel_target(&f->c, "12x", SIGKILL, 0, 0), -ESLURM_INVALID_JOB_ID);
	/* someone else's job */
	snprintf(target, sizeof(target), "%u", meta->job_id);
	meta->uid = 4321;
	assert_int_equal(job_cancel_target(&f->c, target, SIGKILL, 0, 1234), -ESLURM_ACCESS_DENIED);
	assert_int_equal(meta->array_pending_count, 2);
}

static void test_a_job_past_its_time_limit_ends_timeout(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);

	job_end_time_limits(&f->c, job->end_time - 1);
	assert_int_equal(job->state, JOB_RUNNING);
	job_end_time_limits(&f->c, job->end_time);
	assert_int_equal(job->state, JOB_TIMEOUT | JOB_COMPLETING);
	assert_int_equal(fixture_count(f, REQUEST_KILL_TIMELIMIT, job->job_id), 1);
	job_end_time_limits(&f->c, job->end_time + 5); /* asked once only */
	assert_int_equal(fixture_count(f, REQUEST_KILL_TIMELIMIT, job->job_id), 1);
	complete(f, job, SIGTERM);
	assert_int_equal(job->state, JOB_TIMEOUT);
	assert_int_equal(job->reason, FAIL_TIMEOUT);
}

static void test_a_failed_launch_ends_the_job(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = fixture_submit(f, fixture_desc());

	job_sched_pass(&f->c);
	fixture_deliver(f, -ESLURMD_EXECVE_FAILED);
	assert_int_equal(job->state, JOB_FAILED);
	assert_int_equal(job->reason, FAIL_LAUNCH);
	assert_int_equal(node_find(&f->c, "n1")->cpus_used, 0);
}

/* A launch that never reached the node (slurmd restarting) is tried
 * again, as Slurm requeues it; it does not fail the job. */
static void test_a_launch_lost_on_the_way_is_tried_again(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = fixture_submit(f, fixture_desc());

	job_sched_pass(&f->c);
	fixture_deliver(f, -SLURM_COMMUNICATIONS_CONNECTION_ERROR);
	assert_int_equal(job->state, JOB_PENDING);
	assert_int_equal(job->restart_cnt, 1);
	assert_true(job->eligible_time > time(NULL));
	assert_int_equal(node_find(&f->c, "n1")->cpus_used, 0);
}

static void test_a_lost_node_requeues_or_fails_its_jobs(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	struct job *again = running(f, 4), *gone;

	d->requeue = 0; /* --no-requeue */
	d->num_tasks = 4;
	gone = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_string_equal(again->nodes, "n1");
	assert_string_equal(gone->nodes, "n2");
	job_end_node_down(&f->c, (uint32_t)(node_find(&f->c, "n1") - f->c.nodes));
	job_end_node_down(&f->c, (uint32_t)(node_find(&f->c, "n2") - f->c.nodes));
	assert_int_equal(again->state, JOB_PENDING);
	assert_int_equal(again->restart_cnt, 1);
	assert_null(again->nodes);
	assert_int_equal(f->requeued, 1); /* its run ends REQUEUED in accounting */
	assert_int_equal(gone->state, JOB_NODE_FAIL);
	assert_int_equal(gone->reason, FAIL_DOWN_NODE);
}

static void test_requeue_of_a_running_job_comes_back_pending(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	uint32_t prio = job->priority;

	assert_int_equal(job_end_requeue(&f->c, job, false, 0, true), 0);
	assert_int_equal(job->state, JOB_PENDING | JOB_COMPLETING | JOB_REQUEUE);
	assert_false(job_is_pending(job)); /* not schedulable while completing */
	complete(f, job, SIGTERM);
	assert_int_equal(job->state, JOB_PENDING);
	assert_int_equal(job->restart_cnt, 1);
	assert_true(job->priority < prio); /* a new place at the end of the queue */
	job_sched_pass(&f->c);
	assert_int_equal(base(job), JOB_RUNNING);
}

static void test_an_interactive_job_ends_at_once_and_its_client_is_told(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	const struct sent_msg *m;
	struct job *job;

	free(d->script);
	d->script = NULL;
	d->alloc_host = strdup("127.0.0.1");
	d->alloc_port = 7777;
	job = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_int_equal(base(job), JOB_RUNNING);
	assert_int_equal(fixture_count(f, REQUEST_BATCH_JOB_LAUNCH, 0), 0);
	m = fixture_last(f, RESPONSE_RESOURCE_ALLOCATION); /* the grant */
	assert_non_null(m);
	assert_int_equal(m->port, 7777);
	assert_int_equal(job_cancel_signal(&f->c, job, SIGKILL, 0, 0), 0);
	assert_int_equal(job->state, JOB_CANCELLED); /* no script to wait for */
	assert_int_equal(fixture_count(f, REQUEST_TERMINATE_JOB, job->job_id), 1);
	m = fixture_last(f, SRUN_JOB_COMPLETE);
	assert_non_null(m);
	assert_int_equal(m->sig_or_reason, SRUN_END_CANCELLED);
	assert_int_equal(job_end_requeue(&f->c, job, false, 0, true), -ESLURM_BATCH_ONLY);
}

/* The timer's checks go through one view of the table a turn: the jobs
 * not pending and the pending allocations, never the pending batch jobs;
 * outside a turn every job. */
static void test_the_timer_view_holds_what_its_checks_need(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	struct job_desc *d = fixture_desc();
	struct job *held, *alloc;
	struct job *const *v;
	uint32_t n;

	d->flags |= JOB_DESC_HOLD;
	held = fixture_submit(f, d);
	d = fixture_desc();
	free(d->script);
	d->script = NULL;
	d->alloc_host = strdup("127.0.0.1");
	d->alloc_port = 7777;
	d->flags |= JOB_DESC_HOLD;
	alloc = fixture_submit(f, d);
	assert_int_equal(base(held), JOB_PENDING);
	assert_int_equal(base(alloc), JOB_PENDING);
	job_view_take(&f->c);
	v = job_view(&f->c, &n);
	assert_int_equal(n, 2);
	assert_ptr_equal(v[0], job);
	assert_ptr_equal(v[1], alloc);
	job_end_time_limits(&f->c, job->end_time); /* through the view */
	assert_int_equal(job->state, JOB_TIMEOUT | JOB_COMPLETING);
	job_view_drop(&f->c);
	v = job_view(&f->c, &n);
	assert_int_equal(n, 3);
	assert_ptr_equal(v[1], held);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_exit_status_decides_the_final_state),
	    T(test_a_second_completion_changes_nothing),
	    T(test_an_unknown_job_completion_is_refused),
	    T(test_cancel_of_a_pending_job_ends_it_at_once),
	    T(test_cancel_of_a_running_job_waits_for_its_node),
	    T(test_other_signals_go_to_the_running_job),
	    T(test_cancel_targets_name_array_tasks),
	    T(test_a_job_past_its_time_limit_ends_timeout),
	    T(test_a_failed_launch_ends_the_job),
	    T(test_a_launch_lost_on_the_way_is_tried_again),
	    T(test_a_lost_node_requeues_or_fails_its_jobs),
	    T(test_requeue_of_a_running_job_comes_back_pending),
	    T(test_an_interactive_job_ends_at_once_and_its_client_is_told),
	    T(test_the_timer_view_holds_what_its_checks_need),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
