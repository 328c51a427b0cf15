/* test_acct_rec.c - a job's accounting row as sacct shows it: pending,
 * running, every final state with its batch step (the reference's exit
 * codes: 0:0 on a cancelled or timed-out job, 0:15 on its batch step,
 * SIG_OOM on both for OUT_OF_MEMORY), srun steps with their usage and
 * DerivedExitCode, a requeued run, array meta records, interactive jobs,
 * requested versus allocated resources, the reservation and its ResvID.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg.h"
#include "slurmctld/acct_rec.h"
#include "slurmctld/ctld.h"
#include "slurmctld/job.h"
#include "slurmctld/resv.h"
#include "slurmctld/step.h"

#define T0	  1700000000
#define EXITED(n) ((uint32_t)(n) << 8)

/* A one-node batch job on n1: 1 task, 2 cpus and 200 MB there. */
static struct job *job_new_batch(uint32_t state)
{
	struct job *job = calloc(1, sizeof(*job));

	assert_non_null(job);
	job->desc = calloc(1, sizeof(*job->desc));
	assert_non_null(job->desc);
	job->desc->name = strdup("ok_job");
	job->desc->script = strdup("#!/bin/sh\ntrue\n");
	job->desc->work_dir = strdup("/tmp");
	job->desc->account = strdup("root");
	job->job_id = 42;
	job->array_task_id = NO_VAL;
	job->uid = 1000;
	job->gid = 1001;
	job->user_name = strdup("alice");
	job->partition = strdup("cpu-queue");
	job->state = state;
	job->time_limit = 60;
	job->min_nodes = job->max_nodes = 1;
	job->num_tasks = 1;
	job->cpus_per_task = 2;
	job->mem_per_node = 200;
	job->submit_time = T0;
	job->eligible_time = T0 + 1;
	if (state == JOB_PENDING)
		return job;
	job->start_time = T0 + 2;
	job->end_time = T0 + 3602; /* the time limit's end while running */
	job->alloc.nodes = calloc(1, sizeof(*job->alloc.nodes));
	assert_non_null(job->alloc.nodes);
	job->alloc.nodes[0] = (struct sel_alloc){.node = 0, .cpus = 2, .tasks = 1, .mem = 200};
	job->alloc.count = 1;
	job->alloc.total_cpus = 2;
	job->nodes = strdup("n1");
	job->batch_host = strdup("n1");
	return job;
}

static void job_end_as(struct job *job, uint32_t base, uint32_t exit_code)
{
	job->state = base;
	job->exit_code = exit_code;
	job->end_time = T0 + 10;
	assert_int_equal(job_set_batch_usage(job, &(struct acct_usage){.user_usec = 1500000,
									 .sys_usec = 500000,
									 .max_rss_kb = 3044,
									 .tot_rss_kb = 3044,
									 .max_vm_kb = 5512,
									 .tot_vm_kb = 5512,
									 .ntasks = 1}),
			 0);
}

/* An srun step on n1-n2 (job nodes need not match: the row copies it). */
static struct step *step_add(struct job *job, uint32_t id, uint32_t state, uint32_t exit_code,
			     time_t start)
{
	struct step *s;

	job->steps = realloc(job->steps, (job->step_count + 1) * sizeof(*job->steps));
	assert_non_null(job->steps);
	s = &job->steps[job->step_count++];
	*s = (struct step){
	    .step_id = id,
	    .name = strdup("hostname"),
	    .state = state,
	    .nodes = calloc(2, sizeof(*s->nodes)),
	    .node_count = 2,
	    .nodes_str = strdup("n[1-2]"),
	    .num_tasks = 4,
	    .num_cpus = 4,
	    .start_time = start,
	    .end_time = state == JOB_RUNNING ? 0 : start + 1,
	    .exit_code = exit_code,
	    .kill_requid = NO_VAL,
	    .usage = {.user_usec = 7, .max_rss_kb = 100, .ntasks = 4},
	    .max_rss_node = strdup("n2"),
	    .max_vm_node = strdup("n1"),
	};
	s->nodes[0].mem = s->nodes[1].mem = 512;
	return s;
}

static void expect_step(const struct acct_step_rec *s, uint32_t id, uint32_t state,
			uint32_t exit_code)
{
	assert_int_equal(s->step_id, id);
	assert_int_equal(s->state, state);
	assert_int_equal(s->exit_code, exit_code);
}

static const struct ctld ctld;

static void test_pending_job_shows_its_request(void **state)
{
	struct job *job = job_new_batch(JOB_PENDING);
	struct acct_job_rec r;

	(void)state;
	job->min_nodes = 2;
	job->num_tasks = 3;
	job->cpus_per_task = 1;
	job->mem_per_node = 0;
	job->mem_per_cpu = 100;
	assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
	assert_int_equal(r.state, JOB_PENDING);
	assert_null(r.nodes);
	assert_int_equal(r.nnodes, 2);
	assert_int_equal(r.ncpus, 3);
	assert_int_equal(r.req_cpus, 3);
	assert_int_equal(r.req_nodes, 2);
	assert_int_equal(r.req_mem_mb, 300); /* 100 MB per cpu x 3 */
	assert_int_equal(r.mem_per_cpu, 1);
	assert_int_equal(r.start, 0);
	assert_int_equal(r.end, 0);
	assert_int_equal(r.eligible, T0 + 1);
	assert_int_equal(r.kill_requid, NO_VAL);
	assert_int_equal(r.array_task_id, NO_VAL);
	assert_null(r.tres_alloc);
	assert_string_equal(r.tres_req, "cpu=3,mem=300M,node=2,billing=3");
	assert_string_equal(r.name, "ok_job");
	assert_string_equal(r.user, "alice");
	assert_string_equal(r.account, "root");
	assert_string_equal(r.partition, "cpu-queue");
	assert_string_equal(r.work_dir, "/tmp");
	assert_null(r.comment);
	assert_null(r.qos);
	assert_int_equal(r.step_count, 0);
	acct_job_rec_done(&r);
	job_free(job);
}

static void test_running_job_and_steps_have_no_end(void **state)
{
	struct job *job = job_new_batch(JOB_RUNNING);
	struct acct_job_rec r;

	(void)state;
	step_add(job, 0, JOB_COMPLETE, EXITED(5), T0 + 3);
	step_add(job, 1, JOB_RUNNING, 0, T0 + 5);
	assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
	assert_int_equal(r.state, JOB_RUNNING);
	assert_int_equal(r.end, 0);
	assert_string_equal(r.nodes, "n1");
	assert_int_equal(r.nnodes, 1);
	assert_int_equal(r.ncpus, 2);
	assert_int_equal(r.req_mem_mb, 200);
	assert_string_equal(r.tres_alloc, "cpu=2,mem=200M,node=1,billing=2");
	assert_int_equal(r.derived_ec, EXITED(5));
	assert_int_equal(r.step_count, 3);
	expect_step(&r.steps[0], SL_BATCH_STEP, JOB_RUNNING, 0);
	assert_string_equal(r.steps[0].name, "batch");
	assert_string_equal(r.steps[0].nodes, "n1");
	assert_int_equal(r.steps[0].ncpus, 2);
	assert_int_equal(r.steps[0].ntasks, 1);
	assert_int_equal(r.steps[0].start, T0 + 2);
	assert_int_equal(r.steps[0].end, 0);
	assert_string_equal(r.steps[0].tres_alloc, "cpu=2,mem=200M,node=1");
	expect_step(&r.steps[1], 0, JOB_COMPLETE, EXITED(5));
	assert_int_equal(r.steps[1].end, T0 + 4);
	assert_string_equal(r.steps[1].nodes, "n[1-2]");
	assert_string_equal(r.steps[1].tres_alloc, "cpu=4,mem=1G,node=2");
	assert_string_equal(r.steps[1].max_rss_node, "n2");
	assert_string_equal(r.steps[1].max_vm_node, "n1");
	assert_int_equal(r.steps[1].usage.max_rss_kb, 100);
	assert_int_equal(r.steps[1].ntasks, 4);
	assert_int_equal(r.steps[1].kill_requid, NO_VAL);
	expect_step(&r.steps[2], 1, JOB_RUNNING, 0);
	assert_int_equal(r.steps[2].end, 0);
	acct_job_rec_done(&r);
	job_free(job);
}

/* A GPU job: its TRES, its .batch row and a step's all say gres/gpu
 * (one builder for all three, common/tres.c). */
static void test_gpu_job_and_steps_carry_gres_gpu(void **state)
{
	struct job *job = job_new_batch(JOB_RUNNING);
	struct acct_job_rec r;
	struct step *s;

	(void)state;
	job->gpus_per_node = 2;
	job->alloc.nodes[0].gpus = 0x5; /* GPUs 0 and 2 */
	s = step_add(job, 0, JOB_COMPLETE, 0, T0 + 3);
	s->nodes[0].gpus = 0x1;
	s->nodes[1].gpus = 0x3;
	assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
	assert_string_equal(r.tres_req, "cpu=2,mem=200M,node=1,billing=2,gres/gpu=2");
	assert_string_equal(r.tres_alloc, "cpu=2,mem=200M,node=1,billing=2,gres/gpu=2");
	assert_string_equal(r.steps[0].tres_alloc, "cpu=2,mem=200M,node=1,gres/gpu=2");
	assert_string_equal(r.steps[1].tres_alloc, "cpu=4,mem=1G,node=2,gres/gpu=3");
	acct_job_rec_done(&r);
	job_free(job);
}

/* The reference's rows (sacct_P_format_steps.txt), ours for OOM. */
static void test_final_states_of_job_and_batch_step(void **state)
{
	static const struct {
		const char *what;
		uint32_t base;
		uint32_t exit_code; /* wait status the stepd reported */
		bool is_cancelled, is_timed_out;
		uint32_t job_exit, batch_state, batch_exit, kill_requid;
	} cases[] = {
	    {"completed", JOB_COMPLETE, 0, false, false, 0, JOB_COMPLETE, 0, NO_VAL},
	    {"exit 3", JOB_FAILED, EXITED(3), false, false, EXITED(3), JOB_FAILED, EXITED(3),
	     NO_VAL},
	    {"killed by a signal", JOB_FAILED, 9, false, false, 9, JOB_FAILED, 9, NO_VAL},
	    {"cancelled", JOB_CANCELLED, 15, true, false, 0, JOB_CANCELLED, 15, 0},
	    {"timeout", JOB_TIMEOUT, 15, false, true, 0, JOB_CANCELLED, 15, NO_VAL},
	    {"timeout, script exits 0", JOB_TIMEOUT, 0, false, true, 0, JOB_COMPLETE, 0, NO_VAL},
	    /* its srun's step was killed first: the script ends with srun's code */
	    {"timeout, script exits 143", JOB_TIMEOUT, EXITED(143), false, true, 0, JOB_CANCELLED,
	     EXITED(143), NO_VAL},
	    {"cancelled, script exits 1", JOB_CANCELLED, EXITED(1), true, false, 0, JOB_CANCELLED,
	     EXITED(1), 0},
	    {"out of memory", JOB_OOM, 9, false, false, 253, JOB_OOM, 253, NO_VAL},
	    {"node fail", JOB_NODE_FAIL, 0, false, false, 0, JOB_NODE_FAIL, 0, NO_VAL},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct job *job = job_new_batch(JOB_RUNNING);
		struct acct_job_rec r;

		job_end_as(job, cases[i].base, cases[i].exit_code);
		job->is_cancelled = cases[i].is_cancelled;
		job->is_timed_out = cases[i].is_timed_out;
		job->cancelled_by = 0;
		assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
		if (r.state != cases[i].base || r.exit_code != cases[i].job_exit
		    || r.kill_requid != cases[i].kill_requid || r.step_count != 1
		    || r.steps[0].state != cases[i].batch_state
		    || r.steps[0].exit_code != cases[i].batch_exit)
			fail_msg("%s: job %u exit %u requid %u, batch %u exit %u", cases[i].what,
				 r.state, r.exit_code, r.kill_requid,
				 r.step_count ? r.steps[0].state : 99,
				 r.step_count ? r.steps[0].exit_code : 99);
		assert_int_equal(r.end, T0 + 10);
		assert_int_equal(r.steps[0].end, T0 + 10);
		assert_int_equal(r.steps[0].usage.user_usec, 1500000);
		assert_string_equal(r.steps[0].max_rss_node, "n1");
		assert_string_equal(r.steps[0].max_vm_node, "n1");
		acct_job_rec_done(&r);
		job_free(job);
	}
}

static void test_cancelled_while_pending_names_who(void **state)
{
	struct job *job = job_new_batch(JOB_PENDING);
	struct acct_job_rec r;

	(void)state;
	job->state = JOB_CANCELLED;
	job->cancelled_by = 1000;
	job->start_time = job->end_time = T0 + 5;
	assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
	assert_int_equal(r.state, JOB_CANCELLED);
	assert_int_equal(r.kill_requid, 1000);
	assert_int_equal(r.end, T0 + 5);
	assert_int_equal(r.step_count, 0); /* it never ran: no batch step */
	assert_null(r.tres_alloc);
	acct_job_rec_done(&r);
	job_free(job);
}

static void test_completing_job_is_still_running(void **state)
{
	struct job *job = job_new_batch(JOB_RUNNING);
	struct acct_job_rec r;

	(void)state;
	job->state = JOB_CANCELLED | JOB_COMPLETING;
	job->is_cancelled = true;
	assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
	assert_int_equal(r.state, JOB_RUNNING);
	assert_int_equal(r.end, 0);
	assert_int_equal(r.kill_requid, NO_VAL);
	assert_int_equal(r.steps[0].state, JOB_RUNNING);
	assert_int_equal(r.steps[0].end, 0);
	acct_job_rec_done(&r);
	job_free(job);
}

static void test_requeued_run_ends_requeued_and_keeps_only_its_steps(void **state)
{
	struct job *job = job_new_batch(JOB_RUNNING);
	struct acct_job_rec r;

	(void)state;
	job->restart_cnt = 1;
	step_add(job, 0, JOB_COMPLETE, 0, T0 - 100); /* the run before the first requeue */
	step_add(job, 1, JOB_CANCELLED, 9, T0 + 4);
	assert_int_equal(acct_rec_requeued(&ctld, job, T0 + 50, &r), 0);
	assert_int_equal(r.state, JOB_RUNNING | JOB_REQUEUE);
	assert_int_equal(r.restart_cnt, 1);
	assert_int_equal(r.end, T0 + 50);
	assert_int_equal(r.step_count, 2);
	expect_step(&r.steps[0], SL_BATCH_STEP, JOB_CANCELLED, 0);
	assert_int_equal(r.steps[0].end, T0 + 50);
	expect_step(&r.steps[1], 1, JOB_CANCELLED, 9);
	assert_int_equal(r.derived_ec, 9);
	acct_job_rec_done(&r);
	job_free(job);
}

static void test_array_meta_record_lists_pending_tasks(void **state)
{
	struct job *job = job_new_batch(JOB_PENDING);
	struct acct_job_rec r;

	(void)state;
	job->array_job_id = job->job_id;
	job->array_pending = calloc(4, sizeof(uint32_t));
	assert_non_null(job->array_pending);
	for (uint32_t i = 0; i < 4; i++)
		job->array_pending[i] = i + 2;
	job->array_pending_count = 4;
	assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
	assert_int_equal(r.array_job_id, 42);
	assert_int_equal(r.array_task_id, NO_VAL);
	assert_string_equal(r.array_task_str, "2-5");
	acct_job_rec_done(&r);

	/* a task split off: its own id, no task list */
	free(job->array_pending);
	job->array_pending = NULL;
	job->array_pending_count = 0;
	job->job_id = 43;
	job->array_task_id = 1;
	assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
	assert_int_equal(r.array_job_id, 42);
	assert_int_equal(r.array_task_id, 1);
	assert_null(r.array_task_str);
	acct_job_rec_done(&r);
	job_free(job);
}

static void test_interactive_job_has_no_batch_step(void **state)
{
	struct job *job = job_new_batch(JOB_RUNNING);
	struct acct_job_rec r;

	(void)state;
	free(job->desc->script);
	job->desc->script = NULL;
	job->desc->alloc_host = strdup("127.0.0.1");
	job->desc->alloc_port = 40000;
	step_add(job, 0, JOB_OOM, 9, T0 + 2);
	job_end_as(job, JOB_COMPLETE, 0);
	assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
	assert_int_equal(r.state, JOB_COMPLETE);
	assert_int_equal(r.step_count, 1);
	expect_step(&r.steps[0], 0, JOB_OOM, 253);
	acct_job_rec_done(&r);
	job_free(job);
}

static void test_cancelled_step_names_who(void **state)
{
	struct job *job = job_new_batch(JOB_RUNNING);
	struct acct_job_rec r;
	struct step *s;

	(void)state;
	s = step_add(job, 0, JOB_CANCELLED, 9, T0 + 3);
	s->kill_requid = 1000;
	s->nodes[0].mem = s->nodes[1].mem = 0;
	assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
	assert_int_equal(r.steps[1].kill_requid, 1000);
	assert_string_equal(r.steps[1].tres_alloc, "cpu=4,node=2"); /* no memory: no mem= */
	acct_job_rec_done(&r);
	job_free(job);
}

/* A pending job's ResvID is its reservation's now; a started one keeps
 * the one it started in, after the reservation is gone too. */
static void test_the_reservation_and_its_id(void **state)
{
	struct resv rv = {.name = "maint", .id = 5};
	struct ctld c = {.resvs = &rv, .resv_count = 1};
	struct job *job = job_new_batch(JOB_PENDING);
	struct acct_job_rec r;

	(void)state;
	assert_int_equal(acct_rec_from_job(&c, job, &r), 0);
	assert_null(r.resv_name);
	assert_int_equal(r.resv_id, 0);
	acct_job_rec_done(&r);
	job->desc->reservation = strdup("maint");
	assert_int_equal(acct_rec_from_job(&c, job, &r), 0);
	assert_string_equal(r.resv_name, "maint");
	assert_int_equal(r.resv_id, 5);
	acct_job_rec_done(&r);
	job->resv_id = 3; /* it started in an earlier "maint" */
	assert_int_equal(acct_rec_from_job(&ctld, job, &r), 0);
	assert_string_equal(r.resv_name, "maint");
	assert_int_equal(r.resv_id, 3);
	acct_job_rec_done(&r);
	job_free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pending_job_shows_its_request),
	    cmocka_unit_test(test_the_reservation_and_its_id),
	    cmocka_unit_test(test_running_job_and_steps_have_no_end),
	    cmocka_unit_test(test_gpu_job_and_steps_carry_gres_gpu),
	    cmocka_unit_test(test_final_states_of_job_and_batch_step),
	    cmocka_unit_test(test_cancelled_while_pending_names_who),
	    cmocka_unit_test(test_completing_job_is_still_running),
	    cmocka_unit_test(test_requeued_run_ends_requeued_and_keeps_only_its_steps),
	    cmocka_unit_test(test_array_meta_record_lists_pending_tasks),
	    cmocka_unit_test(test_interactive_job_has_no_batch_step),
	    cmocka_unit_test(test_cancelled_step_names_who),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
