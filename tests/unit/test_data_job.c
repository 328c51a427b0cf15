/* test_data_job.c - one job_info in memory through the v0.0.38 job
 * serializer: member types, nulls for NO_VAL, state and reason names,
 * job_resources of a running job, escapes of what users wrote, and YAML
 * carrying the same values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/data_job.h"
#include "common/data_out.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"

static struct job_info running_job(void)
{
	return (struct job_info){
	    .job_id = 42,
	    .array_task_id = NO_VAL,
	    .name = "a \"q\"/b\nc",
	    .user_id = 1000,
	    .user_name = "alice",
	    .group_name = "staff",
	    .nice = NICE_OFFSET - 5,
	    .job_state = JOB_RUNNING,
	    .state_reason = WAIT_NO_REASON,
	    .time_limit = INFINITE,
	    .time_min = NO_VAL,
	    .start_time = 1700000000,
	    .partition = "debug",
	    .nodes = "n[1-2]",
	    .num_nodes = 2,
	    .num_cpus = 6,
	    .num_tasks = NO_VAL,
	    .cpus_per_task = NO_VAL16,
	    .ntasks_per_node = NO_VAL16,
	    .pn_min_memory = MEM_PER_CPU | 100,
	    .cpus_per_node = "4,2",
	    .tres_alloc_str = "cpu=6,mem=600M,node=2,billing=6",
	    .gres_detail = "gpu:1(IDX:0);gpu:2(IDX:0-1)",
	    .shared = NO_VAL16,
	    .batch_flag = 1,
	};
}

static char *json_of(const struct job_info *j)
{
	struct dout *d = dout_new(DOUT_JSON);
	data_job_record(d, NULL, j);
	assert_int_equal(dout_error(d), 0);
	char *s = dout_steal(d, NULL);
	dout_free(d);
	return s;
}

static void has(const char *doc, const char *member)
{
	if (!strstr(doc, member))
		fail_msg("no %s in\n%s", member, doc);
}

static void test_types_and_nulls(void **state)
{
	(void)state;
	struct job_info j = running_job();
	char *s = json_of(&j);
	has(s, "\n  \"job_id\": 42,\n");
	has(s, "\n  \"array_task_id\": null,\n");
	has(s, "\n  \"time_limit\": null,\n");
	has(s, "\n  \"time_minimum\": 0,\n");
	has(s, "\n  \"tasks\": null,\n");
	has(s, "\n  \"cpus_per_task\": null,\n");
	has(s, "\n  \"tasks_per_node\": 0,\n");
	has(s, "\n  \"nice\": -5,\n");
	has(s, "\n  \"batch_flag\": true,\n");
	has(s, "\n  \"job_state\": \"RUNNING\",\n");
	has(s, "\n  \"state_reason\": \"None\",\n");
	has(s, "\n  \"memory_per_node\": null,\n");
	has(s, "\n  \"memory_per_cpu\": 100,\n");
	has(s, "\n  \"billable_tres\": 6.0,\n");
	has(s, "\n  \"shared\": null,\n");
	has(s, "\n  \"start_time\": 1700000000,\n");
	has(s, "\n  \"group_name\": \"staff\",\n");
	has(s, "\n  \"name\": \"a \\\"q\\\"\\/b\\nc\",\n");
	has(s, "\n  \"gres_detail\": [\n    \"gpu:1(IDX:0)\",\n    \"gpu:2(IDX:0-1)\"\n  ],\n");
	has(s, "\n  \"account\": \"\",\n"); /* NULL strings are "" */
	/* the last member closes the record */
	has(s, "\n  \"current_working_directory\": \"\"\n}\n");
	free(s);
}

static void test_resources(void **state)
{
	(void)state;
	struct job_info j = running_job();
	char *s = json_of(&j);
	has(s, "\"job_resources\": {\n    \"nodes\": \"n[1-2]\",\n"
	       "    \"allocated_cores\": 6,\n    \"allocated_hosts\": 2,\n");
	has(s, "\"nodename\": \"n1\",\n        \"cpus_used\": 4,\n"
	       "        \"memory_used\": 0,\n        \"memory_allocated\": 400\n");
	has(s, "\"nodename\": \"n2\",\n        \"cpus_used\": 2,\n"
	       "        \"memory_used\": 0,\n        \"memory_allocated\": 200\n");
	free(s);

	j.job_state = JOB_PENDING; /* nothing held: an empty object */
	j.state_reason = WAIT_HELD_USER;
	j.priority = 0;
	s = json_of(&j);
	has(s, "\n  \"job_resources\": {\n  },\n");
	has(s, "\n  \"state_reason\": \"JobHeldUser\",\n");
	has(s, "\n  \"job_state\": \"PENDING\",\n");
	free(s);
}

static bool keep_none(const struct job_info *j, void *arg)
{
	(void)j;
	(void)arg;
	return false;
}

static void test_document(void **state)
{
	(void)state;
	struct job_info jobs[2] = {running_job(), running_job()};
	jobs[1].job_id = 43;
	struct job_info_msg m = {.count = 2, .jobs = jobs};
	char *argv[] = {"squeue", "--json"};
	struct dout *d = dout_new(DOUT_JSON);
	data_jobs_doc(d, &m, NULL, NULL, 2, argv);
	const char *s = dout_text(d, NULL);
	has(s, "{\n  \"meta\": {\n    \"plugin\": {\n      \"type\": \"openapi\\/v0.0.38\",\n");
	has(s, "\"command\": [\n      \"squeue\",\n      \"--json\"\n    ]\n  },\n"
	       "  \"errors\": [\n  ],\n  \"jobs\": [\n    {\n");
	has(s, "\"job_id\": 43,");
	dout_free(d);

	d = dout_new(DOUT_JSON);
	data_jobs_doc(d, &m, keep_none, NULL, 0, NULL);
	s = dout_text(d, NULL);
	has(s, "\"jobs\": [\n  ]\n}\n");
	dout_free(d);
}

static void test_yaml(void **state)
{
	(void)state;
	struct job_info j = running_job();
	struct dout *d = dout_new(DOUT_YAML);
	data_job_record(d, NULL, &j);
	assert_int_equal(dout_error(d), 0);
	const char *s = dout_text(d, NULL);
	has(s, "job_id: 42\n");
	has(s, "array_task_id: null\n");
	has(s, "job_state: RUNNING\n");
	dout_free(d);
}

/* The job table through its template gives the text of the member by
 * member path, for jobs of every kind (test_data_out covers the types). */
static void test_template_document(void **state)
{
	(void)state;
	struct job_info jobs[3] = {running_job(), running_job(), {.job_id = 7}};
	jobs[1].job_state = JOB_PENDING;
	jobs[1].state_reason = WAIT_HELD_USER;
	jobs[1].array_job_id = 40;
	jobs[1].array_task_id = 2;
	jobs[1].time_limit = 30;
	jobs[1].name = NULL;
	struct job_info_msg m = {.count = 3, .jobs = jobs};
	char *text[2];

	for (int t = 0; t < 2; t++) {
		struct dout *d = dout_new(DOUT_JSON);

		dout_set_templates(d, t == 0);
		data_jobs_doc(d, &m, NULL, NULL, 0, NULL);
		assert_int_equal(dout_error(d), 0);
		text[t] = dout_steal(d, NULL);
		dout_free(d);
	}
	assert_string_equal(text[0], text[1]);
	free(text[0]);
	free(text[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_types_and_nulls),
	    cmocka_unit_test(test_resources),
	    cmocka_unit_test(test_document),
	    cmocka_unit_test(test_yaml),
	    cmocka_unit_test(test_template_document),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
