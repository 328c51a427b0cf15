/* test_sched.c - the main scheduler against a job table built in memory
 * (lib/ctld_fixture.c): no event loop, no journal, no accounting store.
 * Priority order, Slurm's pending reasons, holds, begin times,
 * dependencies, node charging, what a start sends, GPUs, down nodes.
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

#include "common/conf.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
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

/* n tasks of one cpu each in partition part (NULL: default). */
static struct job *submit_tasks(struct ctld_fixture *f, uint32_t n, const char *part)
{
	struct job_desc *d = fixture_desc();

	d->num_tasks = n;
	d->partition = part ? strdup(part) : NULL;
	return fixture_submit(f, d);
}

/* A one-cpu job that depends ("afterok" and the like) on job first. */
static struct job *submit_after(struct ctld_fixture *f, const char *type, const struct job *first)
{
	struct job_desc *d = fixture_desc();
	char dep[64];

	snprintf(dep, sizeof(dep), "%s:%u", type, first->job_id);
	d->dependency = strdup(dep);
	return fixture_submit(f, d);
}

static uint32_t base(const struct job *job)
{
	return job->state & JOB_STATE_BASE;
}

static void test_a_job_on_idle_nodes_starts_and_is_launched(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = submit_tasks(f, 2, NULL);
	const struct sent_msg *m;

	assert_int_equal(base(job), JOB_PENDING);
	f->changed = 0;
	job_sched_pass(&f->c);
	assert_int_equal(base(job), JOB_RUNNING);
	assert_string_equal(job->nodes, "n1");
	assert_string_equal(job->batch_host, "n1");
	assert_int_equal(job->alloc.total_cpus, 2);
	assert_true(job->start_time > 0);
	assert_int_equal(job->end_time, job->start_time + 60 * 60); /* MaxTime=60 */
	/* charged to the node, journaled (hook), launched on the batch host */
	assert_int_equal(node_find(&f->c, "n1")->cpus_used, 2);
	assert_int_equal(node_find(&f->c, "n1")->mem_used, 200);
	assert_true(f->changed >= 1);
	assert_int_equal(fixture_count(f, REQUEST_BATCH_JOB_LAUNCH, job->job_id), 1);
	m = fixture_last(f, REQUEST_BATCH_JOB_LAUNCH);
	assert_int_equal(m->port, 7001);
}

static void test_jobs_start_in_priority_order_and_a_blocked_one_holds_back_the_rest(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *big = submit_tasks(f, 12, NULL); /* the whole partition */
	struct job *wait = submit_tasks(f, 12, NULL);
	struct job *small = submit_tasks(f, 1, NULL);

	assert_true(big->priority > wait->priority);
	assert_true(wait->priority > small->priority);
	job_sched_pass(&f->c);
	assert_int_equal(base(big), JOB_RUNNING);
	assert_string_equal(big->nodes, "n[1-3]");
	assert_int_equal(base(wait), JOB_PENDING);
	assert_int_equal(wait->reason, WAIT_RESOURCES);
	/* it would not fit either, and it may not pass the job before it */
	assert_int_equal(base(small), JOB_PENDING);
	assert_int_equal(small->reason, WAIT_PRIORITY);
	assert_int_equal(fixture_count(f, REQUEST_BATCH_JOB_LAUNCH, 0), 1);
}

static void test_another_partition_is_not_blocked(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *big = submit_tasks(f, 12, NULL);
	struct job *wait = submit_tasks(f, 12, NULL);
	struct job *gpu = submit_tasks(f, 1, "gpu");

	job_sched_pass(&f->c);
	assert_int_equal(base(big), JOB_RUNNING);
	assert_int_equal(wait->reason, WAIT_RESOURCES);
	assert_int_equal(base(gpu), JOB_RUNNING);
	assert_string_equal(gpu->nodes, "g1");
}

static void test_a_finished_job_frees_its_nodes_for_the_next(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *big = submit_tasks(f, 12, NULL);
	struct job *next = submit_tasks(f, 12, NULL);
	struct complete_batch_msg done = {.job_id = 0, .job_rc = 0};

	job_sched_pass(&f->c);
	assert_int_equal(base(next), JOB_PENDING);
	done.job_id = big->job_id;
	assert_int_equal(job_end_complete(&f->c, &done), 0);
	assert_int_equal(node_find(&f->c, "n2")->cpus_used, 0);
	job_sched_pass(&f->c);
	assert_int_equal(base(next), JOB_RUNNING);
	assert_int_equal(node_find(&f->c, "n2")->cpus_used, 4);
}

static void test_held_and_later_jobs_wait_with_their_reason(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	struct job *held, *later;

	d->flags |= JOB_DESC_HOLD;
	held = fixture_submit(f, d);
	d = fixture_desc();
	d->begin_time = time(NULL) + 3600;
	later = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_int_equal(held->priority, 0);
	assert_int_equal(held->reason, WAIT_HELD_USER);
	assert_int_equal(base(held), JOB_PENDING);
	assert_int_equal(later->reason, WAIT_TIME);
	assert_int_equal(base(later), JOB_PENDING);
	assert_int_equal(fixture_count(f, REQUEST_BATCH_JOB_LAUNCH, 0), 0);
}

static void test_a_dependency_holds_a_job_until_it_is_met(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *first = submit_tasks(f, 1, NULL);
	struct job *after = submit_after(f, "afterok", first);
	struct complete_batch_msg done = {.job_rc = 0};

	job_sched_pass(&f->c);
	assert_int_equal(base(first), JOB_RUNNING);
	assert_int_equal(base(after), JOB_PENDING);
	assert_int_equal(after->reason, WAIT_DEPENDENCY);
	done.job_id = first->job_id;
	assert_int_equal(job_end_complete(&f->c, &done), 0);
	job_sched_pass(&f->c);
	assert_int_equal(base(after), JOB_RUNNING);
}

static void test_a_failed_dependency_is_never_satisfied(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *first = submit_tasks(f, 1, NULL);
	struct job *after = submit_after(f, "afterok", first);
	struct job *any = submit_after(f, "afterany", first);
	struct complete_batch_msg done = {.job_rc = 1 << 8}; /* exit 1 */

	job_sched_pass(&f->c);
	done.job_id = first->job_id;
	assert_int_equal(job_end_complete(&f->c, &done), 0);
	assert_int_equal(base(first), JOB_FAILED);
	job_sched_pass(&f->c);
	assert_int_equal(base(after), JOB_PENDING);
	assert_int_equal(after->reason, WAIT_DEP_INVALID);
	assert_int_equal(base(any), JOB_RUNNING); /* afterany: any end will do */
}

static void test_gpus_are_given_by_index_and_not_twice(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	struct job *a, *b, *c3;

	d->partition = strdup("gpu");
	d->tres_per_node = strdup("gres/gpu:3");
	a = fixture_submit(f, d);
	d = fixture_desc();
	d->partition = strdup("gpu");
	d->tres_per_node = strdup("gres/gpu:1");
	b = fixture_submit(f, d);
	d = fixture_desc();
	d->partition = strdup("gpu");
	d->tres_per_node = strdup("gres/gpu:1");
	c3 = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_int_equal(base(a), JOB_RUNNING);
	assert_int_equal(base(b), JOB_RUNNING);
	assert_int_equal(a->alloc.nodes[0].gpus, 0x7);
	assert_int_equal(b->alloc.nodes[0].gpus, 0x8);
	assert_int_equal(base(c3), JOB_PENDING);
	assert_int_equal(c3->reason, WAIT_RESOURCES);
}

static void test_a_drained_node_gets_no_new_job(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job;

	node_find(&f->c, "n1")->state |= NODE_STATE_DRAIN;
	job = submit_tasks(f, 1, NULL);
	job_sched_pass(&f->c);
	assert_int_equal(base(job), JOB_RUNNING);
	assert_string_equal(job->nodes, "n2");
}

static void test_a_submit_that_can_never_fit_is_refused(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	struct job *job = NULL;

	d->tres_per_node = strdup("gres/gpu:1"); /* no GPU in the default partition */
	assert_int_equal(fixture_try_submit(f, d, &job), -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
	assert_int_equal(f->c.job_count, 0);
}

/* default_queue_depth: a pass after an event tests the queue's head only;
 * the pass over every job (sched_interval) reaches the rest. */
static void test_an_event_pass_tests_only_the_head_of_the_queue(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *big = submit_tasks(f, 12, NULL);
	struct job *wait = submit_tasks(f, 12, NULL);
	struct job *wait2 = submit_tasks(f, 12, NULL);
	struct job *gpu = submit_tasks(f, 1, "gpu");

	f->c.conf->sched_queue_depth = 2;
	job_sched_pass(&f->c);
	assert_int_equal(base(big), JOB_RUNNING);
	assert_int_equal(wait->reason, WAIT_RESOURCES);
	assert_int_equal(wait2->last_sched_eval, 0); /* not reached */
	assert_int_equal(base(gpu), JOB_PENDING);
	assert_int_equal(gpu->last_sched_eval, 0);
	job_sched_pass_all(&f->c);
	assert_int_equal(wait2->reason, WAIT_PRIORITY);
	assert_int_equal(base(gpu), JOB_RUNNING);
}

/* partition_job_depth: each partition's first jobs only; sched_max_job_start:
 * a pass starts at most that many jobs. */
static void test_partition_depth_and_max_job_start_bound_a_pass(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *a = submit_tasks(f, 4, NULL);
	struct job *b = submit_tasks(f, 4, NULL);
	struct job *gpu = submit_tasks(f, 1, "gpu");
	struct job *gpu2 = submit_tasks(f, 1, "gpu");

	f->c.conf->sched_part_depth = 1;
	job_sched_pass_all(&f->c);
	assert_int_equal(base(a), JOB_RUNNING);
	assert_int_equal(base(b), JOB_PENDING);
	assert_int_equal(base(gpu), JOB_RUNNING);
	assert_int_equal(base(gpu2), JOB_PENDING);
	f->c.conf->sched_part_depth = 0;
	f->c.conf->sched_max_job_start = 1;
	job_sched_pass_all(&f->c);
	assert_int_equal(base(b), JOB_RUNNING);
	assert_int_equal(base(gpu2), JOB_PENDING);
	job_sched_pass(&f->c);
	assert_int_equal(base(gpu2), JOB_RUNNING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_a_job_on_idle_nodes_starts_and_is_launched, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_jobs_start_in_priority_order_and_a_blocked_one_holds_back_the_rest, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_another_partition_is_not_blocked, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_a_finished_job_frees_its_nodes_for_the_next, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_held_and_later_jobs_wait_with_their_reason, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_a_dependency_holds_a_job_until_it_is_met, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_a_failed_dependency_is_never_satisfied, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_gpus_are_given_by_index_and_not_twice, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_a_drained_node_gets_no_new_job, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_an_event_pass_tests_only_the_head_of_the_queue,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_partition_depth_and_max_job_start_bound_a_pass,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_a_submit_that_can_never_fit_is_refused, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
