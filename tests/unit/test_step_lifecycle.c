/* test_step_lifecycle.c - job steps in the controller, against a job table
 * built in memory (lib/ctld_fixture.c): who may create one, placement
 * inside the job's allocation, ids, completion node by node, the final
 * state, scancel JOB.STEP, step time limits, steps ending with their job,
 * and finished steps leaving the job once their accounting row is written.
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
#include "slurmctld/step.h"
#include "slurmctld/step_create.h"

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

/* A running job over nodes x 4 cpus. */
static struct job *running(struct ctld_fixture *f, uint32_t nodes)
{
	struct job_desc *d = fixture_desc();
	struct job *job;

	d->min_nodes = d->max_nodes = nodes;
	d->num_tasks = nodes * 4;
	job = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_int_equal(job->state, JOB_RUNNING);
	return job;
}

static struct step_create_req req(const struct job *job, uint32_t tasks)
{
	return (struct step_create_req){
	    .job_id = job->job_id,
	    .name = "hostname",
	    .num_tasks = tasks,
	    .min_nodes = NO_VAL,
	    .max_nodes = NO_VAL,
	    .cpus_per_task = NO_VAL16,
	    .ntasks_per_node = NO_VAL16,
	    .mem_per_node = NO_VAL64,
	    .mem_per_cpu = NO_VAL64,
	    .time_limit = NO_VAL,
	    .srun_host = "127.0.0.1",
	    .srun_port = 6000,
	};
}

/* check + build + commit, as rpc_step_create does (less the credential).
 * Returns the step id, or the error. */
static int64_t create(struct ctld_fixture *f, struct job *job, const struct step_create_req *m)
{
	struct step_create_resp resp = {0};
	struct step rec, *s;
	int r = step_create_check(&f->c, job, job->uid);

	if (r == 0)
		r = step_create_build(&f->c, job, m, &rec, &resp);
	msg_lookup(RESPONSE_JOB_STEP_CREATE)->free(&resp); /* the fields only */
	if (r < 0)
		return r;
	s = step_create_commit(&f->c, job, &rec);
	assert_non_null(s);
	return s->step_id;
}

static void report(struct ctld_fixture *f, struct job *job, uint32_t step_id, const char *node,
		   uint32_t rc, int expect)
{
	struct step_complete_msg m = {
	    .job_id = job->job_id, .step_id = step_id, .node_name = (char *)node, .step_rc = rc};

	assert_int_equal(step_complete(&f->c, &m), expect);
}

static void test_steps_get_ids_in_order_and_are_journaled(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 2);
	struct step_create_req m = req(job, 2);
	uint32_t changed = f->changed;

	assert_int_equal(create(f, job, &m), 0);
	assert_int_equal(create(f, job, &m), 1);
	assert_int_equal(job->next_step_id, 2);
	assert_int_equal(job->step_count, 2);
	assert_true(f->changed >= changed + 2);
	assert_int_equal(job->steps[0].state, JOB_RUNNING);
	assert_int_equal(job->steps[0].num_tasks, 2);
	assert_string_equal(job->steps[0].name, "hostname");
}

static void test_who_and_when_may_create_a_step(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	struct job *job = running(f, 1), *pending;

	assert_int_equal(step_create_check(&f->c, NULL, 0), -ESLURM_INVALID_JOB_ID);
	assert_int_equal(step_create_check(&f->c, job, job->uid + 4321),
			 job->uid + 4321 == 0 ? 0 : -ESLURM_ACCESS_DENIED);
	d->flags |= JOB_DESC_HOLD;
	pending = fixture_submit(f, d);
	assert_int_equal(step_create_check(&f->c, pending, pending->uid), -ESLURM_JOB_PENDING);
	job_cancel_signal(&f->c, job, SIGKILL, 0, 0);
	assert_int_equal(step_create_check(&f->c, job, job->uid), -ESLURM_ALREADY_DONE);
}

static void test_steps_share_the_allocation_until_it_is_full(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	struct step_create_req all = req(job, 4), one = req(job, 1);

	assert_int_equal(create(f, job, &all), 0);
	assert_int_equal(create(f, job, &one), -ESLURM_NODES_BUSY);
	one.flags = STEP_FLAG_OVERLAP;
	assert_int_equal(create(f, job, &one), 1);
	all.num_tasks = 5; /* more than the job has */
	all.flags = STEP_FLAG_OVERLAP;
	assert_true(create(f, job, &all) < 0);
	one.flags = 0;
	one.req_nodes = "n3"; /* not the job's */
	assert_int_equal(create(f, job, &one), -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
	one.req_nodes = "nope1";
	assert_int_equal(create(f, job, &one), -ESLURM_INVALID_NODE_NAME);
	/* step 0 ends: its cpus are free for the next */
	report(f, job, 0, "n1", 0, 1);
	one.req_nodes = NULL;
	assert_int_equal(create(f, job, &one), 2);
}

static void test_a_step_ends_when_every_node_reported(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 2);
	struct step_create_req m = req(job, 8);

	assert_int_equal(create(f, job, &m), 0);
	assert_string_equal(job->steps[0].nodes_str, "n[1-2]");
	report(f, job, 0, "n1", 0, 1);
	assert_int_equal(job->steps[0].state, JOB_RUNNING);
	report(f, job, 0, "n1", 0, 0); /* a retry: ignored */
	report(f, job, 0, "n3", 0, 0); /* not a node of the step */
	report(f, job, 7, "n1", 0, 0); /* no such step */
	report(f, job, 0, "n2", 2 << 8, 1);
	assert_int_equal(job->steps[0].state, JOB_FAILED);
	assert_int_equal(job->steps[0].exit_code, 2 << 8);
	assert_true(job->steps[0].end_time > 0);
	assert_int_equal(create(f, job, &m), 1);
	report(f, job, 1, "n1", 0, 1);
	report(f, job, 1, "n2", 0, 1);
	assert_int_equal(job->steps[1].state, JOB_COMPLETE);
}

static void test_scancel_of_a_step_stops_it_and_tells_srun(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	struct step_create_req m = req(job, 1);
	struct step_signal_msg sig = {.job_id = job->job_id, .step_id = 0, .signal = SIGKILL};
	const struct sent_msg *s;

	assert_int_equal(create(f, job, &m), 0);
	sig.step_id = 5;
	assert_int_equal(step_signal(&f->c, &sig, 0), -ESLURM_INVALID_JOB_ID);
	sig.step_id = 0;
	assert_int_equal(step_signal(&f->c, &sig, job->uid + 4321),
			 job->uid + 4321 == 0 ? 0 : -ESLURM_ACCESS_DENIED);
	assert_int_equal(step_signal(&f->c, &sig, job->uid), 0);
	s = fixture_last(f, REQUEST_TERMINATE_JOB);
	assert_non_null(s);
	assert_int_equal(s->step_id, 0);
	s = fixture_last(f, SRUN_JOB_COMPLETE);
	assert_non_null(s);
	assert_int_equal(s->port, 6000);
	assert_int_equal(s->sig_or_reason, SRUN_END_CANCELLED);
	report(f, job, 0, "n1", SIGKILL, 1);
	assert_int_equal(job->steps[0].state, JOB_CANCELLED);
	assert_int_equal(job->steps[0].kill_requid, job->uid);
	assert_int_equal(job->state, JOB_RUNNING); /* the job goes on */
}

static void test_a_step_past_its_own_time_limit_ends_timeout(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	struct step_create_req m = req(job, 1);

	m.time_limit = 1;
	assert_int_equal(create(f, job, &m), 0);
	step_timer(&f->c, job->steps[0].start_time + 59);
	assert_int_equal(fixture_count(f, REQUEST_KILL_TIMELIMIT, job->job_id), 0);
	step_timer(&f->c, job->steps[0].start_time + 60);
	step_timer(&f->c, job->steps[0].start_time + 61);
	assert_int_equal(fixture_count(f, REQUEST_KILL_TIMELIMIT, job->job_id), 1);
	report(f, job, 0, "n1", SIGKILL, 1);
	assert_int_equal(job->steps[0].state, JOB_TIMEOUT);
}

static void test_running_steps_end_with_their_job(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	struct step_create_req m = req(job, 1);
	struct complete_batch_msg done = {.job_id = job->job_id};

	assert_int_equal(create(f, job, &m), 0);
	assert_int_equal(create(f, job, &m), 1);
	report(f, job, 1, "n1", 0, 1);
	fixture_clear(f);
	assert_int_equal(job_end_complete(&f->c, &done), 0);
	assert_int_equal(job->state, JOB_COMPLETE);
	assert_int_equal(job->steps[0].state, JOB_CANCELLED);
	assert_int_equal(job->steps[1].state, JOB_COMPLETE); /* already over */
	assert_int_equal(fixture_count(f, SRUN_JOB_COMPLETE, job->job_id), 1);
	/* its nodes are told to stop what is left */
	assert_int_equal(fixture_count(f, REQUEST_TERMINATE_JOB, job->job_id), 1);
}

/* PrologFlags=Contain: the extern step is on every node, holds nothing
 * against srun's steps, keeps the steps in id order, is made once per run
 * and ends COMPLETED with its job, its nodes' usage added after. */
static void test_the_extern_step_lives_and_ends_with_its_job(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 2);
	struct step_create_req all = req(job, 8);
	struct complete_batch_msg done = {.job_id = job->job_id};
	struct step_complete_msg late = {.job_id = job->job_id, .step_id = SL_EXTERN_STEP,
					 .node_name = "n2", .step_rc = 0,
					 .usage = {.user_usec = 250000}};
	struct step *x;

	assert_int_equal(step_extern_create(&f->c, job, time(NULL)), 0);
	assert_int_equal(step_extern_create(&f->c, job, time(NULL)), 0); /* once */
	assert_int_equal(job->step_count, 1);
	x = step_find(job, SL_EXTERN_STEP);
	assert_non_null(x);
	assert_string_equal(x->name, "extern");
	assert_int_equal(x->node_count, 2);
	assert_int_equal(x->num_tasks, 2);
	assert_int_equal(x->num_cpus, 8);
	/* every cpu of the job is still free for srun, and ids stay ordered */
	assert_int_equal(create(f, job, &all), 0);
	assert_int_equal(job->step_count, 2);
	assert_int_equal(job->steps[0].step_id, 0);
	assert_int_equal(job->steps[1].step_id, SL_EXTERN_STEP);
	assert_non_null(step_find(job, 0));
	report(f, job, 0, "n1", 0, 1);
	report(f, job, 0, "n2", 0, 1);
	assert_int_equal(job_end_complete(&f->c, &done), 0);
	x = step_find(job, SL_EXTERN_STEP);
	assert_int_equal(x->state, JOB_COMPLETE);
	report(f, job, SL_EXTERN_STEP, "n1", 0, 1);
	assert_int_equal(step_complete(&f->c, &late), 1);
	x = step_find(job, SL_EXTERN_STEP);
	assert_int_equal(x->state, JOB_COMPLETE);
	assert_int_equal(x->usage.user_usec, 250000);
	assert_true(step_is_over(x));
}

static void test_an_oom_step_makes_a_failing_job_out_of_memory(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	struct step_create_req m = req(job, 1);
	struct step_complete_msg oom = {.job_id = job->job_id,
					.step_id = 0,
					.node_name = "n1",
					.step_rc = SIGKILL,
					.is_oom = 1};
	struct complete_batch_msg done = {.job_id = job->job_id, .job_rc = 1 << 8};

	assert_int_equal(create(f, job, &m), 0);
	assert_int_equal(step_complete(&f->c, &oom), 1);
	assert_int_equal(job->steps[0].state, JOB_OOM);
	assert_int_equal(job_end_complete(&f->c, &done), 0);
	assert_int_equal(job->state, JOB_OOM);
}

static void test_finished_steps_leave_once_recorded(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running(f, 1);
	struct step_create_req m = req(job, 1);

	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(create(f, job, &m), i);
		report(f, job, i, "n1", 0, 1);
	}
	/* the hook saw each end; nothing is on disk yet: all stay */
	for (uint32_t i = 0; i < 3; i++)
		job->steps[i].acct_seq = i + 1;
	assert_int_equal(create(f, job, &m), 3);
	assert_int_equal(job->step_count, 4);
	f->recorded_upto = 2; /* steps 0 and 1 are written */
	assert_int_equal(create(f, job, &m), 4);
	assert_int_equal(job->step_count, 3);
	assert_int_equal(job->steps[0].step_id, 2);
	assert_int_equal(job->next_step_id, 5); /* ids never come back */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_steps_get_ids_in_order_and_are_journaled),
	    T(test_who_and_when_may_create_a_step),
	    T(test_steps_share_the_allocation_until_it_is_full),
	    T(test_a_step_ends_when_every_node_reported),
	    T(test_scancel_of_a_step_stops_it_and_tells_srun),
	    T(test_a_step_past_its_own_time_limit_ends_timeout),
	    T(test_running_steps_end_with_their_job),
	    T(test_an_oom_step_makes_a_failing_job_out_of_memory),
	    T(test_the_extern_step_lives_and_ends_with_its_job),
	    T(test_finished_steps_leave_once_recorded),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
