/* test_rest_job_parse.c - slurmrestd's request bodies -> job messages
 * (src/slurmrestd/job_parse.c): every field lands where sbatch/scontrol
 * put it; bad JSON, unknown fields, wrong types and ranges are refused
 * with the field named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "slurmrestd/job_parse.h"

static int submit(const char *body, struct job_desc *d, char *err)
{
	return job_parse_submit(body, strlen(body), d, err, 256);
}

static void test_submit_fields(void **state)
{
	const char *body =
	    "{\"script\":\"#!/bin/sh\\ntrue\\n\",\"job\":{\"name\":\"j\",\"partition\":\"debug\","
	    "\"nodes\":\"2-3\",\"tasks\":4,\"cpus_per_task\":\"2\",\"time_limit\":10,"
	    "\"current_working_directory\":\"/tmp\",\"standard_output\":\"/tmp/o\","
	    "\"environment\":{\"A\":\"1\",\"B\":\"x=y\"},\"hold\":true,\"nice\":-5,"
	    "\"memory_per_node\":100,\"required_nodes\":[\"n1\",\"n2\"],\"argv\":[\"a\",\"b\"],"
	    "\"requeue\":false,\"comment\":null,\"tres_per_task\":\"gres:gpu:2\","
	    "\"tres_per_socket\":\"gres:gpu:1\"}}";
	struct job_desc d;
	char err[256];

	(void)state;
	assert_int_equal(submit(body, &d, err), 0);
	assert_string_equal(d.script, "#!/bin/sh\ntrue\n");
	assert_string_equal(d.name, "j");
	assert_string_equal(d.partition, "debug");
	assert_int_equal(d.min_nodes, 2);
	assert_int_equal(d.max_nodes, 3);
	assert_int_equal(d.num_tasks, 4);
	assert_int_equal(d.cpus_per_task, 2);
	assert_int_equal(d.time_limit, 10);
	assert_string_equal(d.work_dir, "/tmp");
	assert_string_equal(d.std_out, "/tmp/o");
	assert_int_equal(d.env_count, 2);
	assert_string_equal(d.env[0], "A=1");
	assert_string_equal(d.env[1], "B=x=y");
	assert_true(d.flags & JOB_DESC_HOLD);
	assert_int_equal(d.nice, NICE_OFFSET - 5);
	assert_int_equal(d.mem_per_node, 100);
	assert_int_equal(d.mem_per_cpu, NO_VAL64);
	assert_string_equal(d.req_nodes, "n1,n2");
	assert_int_equal(d.argc, 2);
	assert_string_equal(d.argv[1], "b");
	assert_int_equal(d.requeue, 0);
	assert_null(d.comment);
	assert_int_equal(d.ntasks_per_node, NO_VAL16);
	assert_string_equal(d.tres_per_task, "gres:gpu:2"); /* the controller reads Slurm's form */
	assert_string_equal(d.tres_per_socket, "gres:gpu:1");
	job_desc_done(&d);
}

static void test_environment_as_array(void **state)
{
	struct job_desc d;
	char err[256];

	(void)state;
	assert_int_equal(submit("{\"script\":\"x\",\"job\":{\"environment\":[\"A=1\",\"B=\"]}}", &d,
				err),
			 0);
	assert_int_equal(d.env_count, 2);
	assert_string_equal(d.env[1], "B=");
	job_desc_done(&d);
	assert_int_equal(submit("{\"script\":\"x\",\"job\":{\"environment\":[\"NOEQUALS\"]}}", &d,
				err),
			 -ESLURM_REST_INVALID_JOBS_DESC);
	assert_non_null(strstr(err, "environment[0]"));
	job_desc_done(&d);
}

static void test_refusals_name_the_field(void **state)
{
	static const struct {
		const char *body;
		int code;
		const char *words;
	} cases[] = {
	    {"{\"script\":\"x\",\"job\":{", -ESLURM_REST_FAIL_PARSING, "Unable to parse JSON"},
	    {"", -ESLURM_REST_INVALID_JOBS_DESC, "empty"},
	    {"[]", -ESLURM_REST_INVALID_JOBS_DESC, "object"},
	    {"{\"script\":\"x\",\"job\":{\"nope\":1}}", -ESLURM_REST_INVALID_JOBS_DESC, "\"nope\""},
	    {"{\"script\":\"x\",\"job\":{},\"what\":1}", -ESLURM_REST_INVALID_JOBS_DESC, "\"what\""},
	    {"{\"script\":\"x\"}", -ESLURM_REST_INVALID_JOBS_DESC, "\"job\""},
	    {"{\"job\":{}}", -ESLURM_REST_INVALID_JOBS_DESC, "\"script\""},
	    {"{\"script\":\"x\",\"job\":{\"tasks\":-1}}", -ESLURM_REST_INVALID_JOBS_DESC, "tasks"},
	    {"{\"script\":\"x\",\"job\":{\"tasks\":4294967295}}", -ESLURM_REST_INVALID_JOBS_DESC,
	     "tasks"},
	    {"{\"script\":\"x\",\"job\":{\"cpus_per_task\":70000}}", -ESLURM_REST_INVALID_JOBS_DESC,
	     "cpus_per_task"},
	    {"{\"script\":\"x\",\"job\":{\"name\":5}}", -ESLURM_REST_INVALID_JOBS_DESC, "name"},
	    {"{\"script\":\"x\",\"job\":{\"nodes\":\"3-1\"}}", -ESLURM_REST_INVALID_JOBS_DESC,
	     "nodes"},
	    {"{\"script\":\"x\",\"job\":{\"hold\":\"yes\"}}", -ESLURM_REST_INVALID_JOBS_DESC, "hold"},
	    {"{\"script\":\"x\",\"job\":{\"environment\":{\"A\":1}}}", -ESLURM_REST_INVALID_JOBS_DESC,
	     "environment"},
	    {"{\"script\":\"x\",\"job\":{\"name\":\"a\\u0000b\"}}", -ESLURM_REST_FAIL_PARSING,
	     "not allowed"},
	    {"{\"script\":\"x\",\"script\":\"y\",\"job\":{}}", -ESLURM_REST_FAIL_PARSING, "duplicate"},
	    {"{\"script\":\"x\",\"jobs\":[{}]}", -ESLURM_REST_INVALID_JOBS_DESC, "heterogeneous"},
	};
	struct job_desc d;
	char err[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int r = submit(cases[i].body, &d, err);

		if (r != cases[i].code || !strstr(err, cases[i].words))
			fail_msg("case %zu (%s): %d \"%s\"", i, cases[i].body, r, err);
		job_desc_done(&d);
	}
}

static void test_update(void **state)
{
	struct update_job_msg m;
	char err[256];
	const char *b1 = "{\"job\":{\"time_limit\":5,\"name\":\"n\",\"hold\":true}}";
	const char *b2 = "{\"priority\":7,\"partition\":\"p\"}";
	const char *b3 = "{\"job\":{\"comment\":\"c\"}}";

	(void)state;
	assert_int_equal(job_parse_update(b1, strlen(b1), "12", &m, err, sizeof(err)), 0);
	assert_string_equal(m.sjob_id, "12");
	assert_int_equal(m.time_limit, 5);
	assert_string_equal(m.name, "n");
	assert_int_equal(m.priority, 0);
	assert_int_equal(m.hold_user, 1);
	assert_int_equal(m.nice, NO_VAL);
	msg_lookup(REQUEST_UPDATE_JOB)->free(&m);
	assert_int_equal(job_parse_update(b2, strlen(b2), "12_3", &m, err, sizeof(err)), 0);
	assert_int_equal(m.priority, 7);
	assert_string_equal(m.partition, "p");
	assert_int_equal(m.time_limit, NO_VAL);
	msg_lookup(REQUEST_UPDATE_JOB)->free(&m);
	assert_int_equal(job_parse_update(b3, strlen(b3), "12", &m, err, sizeof(err)),
			 -ESLURM_REST_INVALID_JOBS_DESC);
	assert_non_null(strstr(err, "\"comment\""));
	msg_lookup(REQUEST_UPDATE_JOB)->free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_submit_fields),
	    cmocka_unit_test(test_environment_as_array),
	    cmocka_unit_test(test_refusals_name_the_field),
	    cmocka_unit_test(test_update),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
