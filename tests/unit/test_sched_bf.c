/* test_sched_bf.c - backfill on the in-memory controller (lib/ctld_fixture.c):
 * a cycle starts the short job behind a blocked head job, not the long one,
 * and records the expected starts, nodes and the job they wait for; a held
 * job keeps its estimate, one no longer planned loses it; sched/builtin and bf_interval=-1 plan
 * nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/job_states.h"
#include "common/msg.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_sched.h"
#include "slurmctld/sched_bf.h"

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

/* nodes x tasks one-cpu tasks for minutes, on nodelist (NULL: anywhere). */
static struct job *submit(struct ctld_fixture *f, uint32_t nodes, uint32_t tasks, uint32_t minutes,
			  const char *nodelist)
{
	struct job_desc *d = fixture_desc();

	d->min_nodes = d->max_nodes = nodes;
	d->num_tasks = tasks;
	d->time_limit = minutes;
	d->req_nodes = nodelist ? strdup(nodelist) : NULL;
	return fixture_submit(f, d);
}

/* n1 busy 30 min; the head job wants n[1-3]; a 10-min job fits on n2 before
 * the head starts; a 60-min one does not. */
static void test_cycle_starts_the_short_job(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *a = submit(f, 1, 4, 30, "n1"), *head, *shrt, *lng;

	job_sched_pass(&f->c);
	assert_true(job_is_running(a));
	head = submit(f, 3, 12, 30, NULL);
	shrt = submit(f, 1, 4, 10, NULL);
	lng = submit(f, 1, 4, 60, NULL);
	job_sched_pass(&f->c);
	assert_int_equal(head->reason, WAIT_RESOURCES);
	assert_int_equal(shrt->reason, WAIT_PRIORITY);
	assert_int_equal(sched_bf_cycle_sync(&f->c, NULL), 0);
	assert_true(job_is_running(shrt));
	assert_int_equal(shrt->sched_by, JOB_SCHED_BF);
	assert_string_equal(shrt->nodes, "n2");
	assert_true(job_is_pending(head) && job_is_pending(lng));
	/* the head's start: the end of a, rounded down to bf_resolution (60) */
	assert_int_equal(head->sched_start, a->end_time - a->end_time % 60);
	assert_string_equal(head->sched_nodes, "n[1-3]");
	assert_int_equal(head->sched_after, a->job_id);
	assert_int_equal(head->sched_by, JOB_SCHED_BF_PLAN);
	/* the long job goes after the head job's window */
	assert_true(lng->sched_start >= head->sched_start + 30 * 60);
	assert_int_equal(lng->reason, WAIT_PRIORITY);
}

/* A held job keeps its last estimate (Slurm's start_time, which squeue
 * sorts by); a job no longer planned (here: its partition went down) loses
 * it. */
static void test_estimates_of_held_and_unplanned_jobs(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *head, *other;
	time_t start;

	submit(f, 1, 4, 30, "n1");
	job_sched_pass(&f->c);
	head = submit(f, 3, 12, 30, NULL);
	other = submit(f, 3, 12, 30, NULL);
	assert_int_equal(sched_bf_cycle_sync(&f->c, NULL), 0);
	start = head->sched_start;
	assert_true(start != 0 && other->sched_start > start);
	head->priority = 0; /* held */
	assert_int_equal(sched_bf_cycle_sync(&f->c, NULL), 0);
	assert_int_equal(head->sched_start, start);
	assert_string_equal(head->sched_nodes, "n[1-3]");
	/* with the head held, the other one goes first */
	assert_int_equal(other->sched_start, start);
	other->eligible_time = time(NULL) + 3600; /* --begin: not planned now */
	assert_int_equal(sched_bf_cycle_sync(&f->c, NULL), 0);
	assert_int_equal(other->sched_start, 0);
	assert_null(other->sched_nodes);
}

static void test_builtin_and_disabled_plan_nothing(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *head, *shrt;

	submit(f, 1, 4, 30, "n1");
	job_sched_pass(&f->c);
	head = submit(f, 3, 12, 30, NULL);
	shrt = submit(f, 1, 4, 10, NULL);
	free(f->c.conf->scheduler_type);
	f->c.conf->scheduler_type = strdup("sched/builtin");
	assert_int_equal(sched_bf_cycle_sync(&f->c, NULL), 0);
	assert_true(job_is_pending(shrt));
	assert_int_equal(head->sched_start, 0);
	free(f->c.conf->scheduler_type);
	f->c.conf->scheduler_type = strdup("sched/backfill");
	f->c.conf->bf_interval = -1;
	assert_int_equal(sched_bf_cycle_sync(&f->c, NULL), 0);
	assert_true(job_is_pending(shrt));
	f->c.conf->bf_interval = 30;
	assert_int_equal(sched_bf_cycle_sync(&f->c, NULL), 0);
	assert_true(job_is_running(shrt));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_cycle_starts_the_short_job, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_estimates_of_held_and_unplanned_jobs, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_builtin_and_disabled_plan_nothing, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
