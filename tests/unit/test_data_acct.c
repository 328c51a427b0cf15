/* test_data_acct.c - sacct's dbv0.0.38 document from store rows: exit
 * codes (exited, failed, signaled, not yet), TRES lists, steps and their
 * ids, -X, escapes in names, YAML, and the schemas of the tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <cmocka.h>

#include "common/data_acct.h"
#include "common/data_out.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg_step.h"

static struct acct_step_rec steps[2];

static struct acct_job_rec job(void)
{
	steps[0] = (struct acct_step_rec){
	    .step_id = SL_BATCH_STEP,
	    .name = "batch",
	    .state = JOB_COMPLETE,
	    .exit_code = 0,
	    .kill_requid = NO_VAL,
	    .nodes = "n1",
	    .nnodes = 1,
	    .ntasks = 1,
	    .ncpus = 1,
	    .start = 1000,
	    .end = 1010,
	    .tres_alloc = "cpu=1,mem=100M,node=1",
	    .usage = {.user_usec = 1500000,
		      .sys_usec = 250000,
		      .max_rss_kb = 2048,
		      .tot_rss_kb = 2048,
		      .max_vm_kb = 4096,
		      .tot_vm_kb = 4096,
		      .ntasks = 1},
	};
	steps[1] = (struct acct_step_rec){
	    .step_id = 0,
	    .name = "hostname",
	    .state = JOB_CANCELLED,
	    .exit_code = SIGKILL,
	    .kill_requid = 0,
	    .nodes = "n[1-2]",
	    .nnodes = 2,
	    .ntasks = 2,
	    .ncpus = 2,
	    .start = 1001,
	    .end = 1009,
	    .tres_alloc = "cpu=2,mem=1G,node=2,gres/gpu=1",
	};
	return (struct acct_job_rec){
	    .job_id = 12,
	    .array_task_id = NO_VAL,
	    .name = "a\"b/c\nd",
	    .uid = 0,
	    .gid = 0,
	    .user = "root",
	    .account = "acct",
	    .partition = "debug",
	    .qos = "normal",
	    .state = JOB_FAILED,
	    .exit_code = 3 << 8,
	    .derived_ec = SIGKILL,
	    .kill_requid = NO_VAL,
	    .nodes = "n[1-2]",
	    .nnodes = 2,
	    .ncpus = 2,
	    .req_cpus = 2,
	    .req_mem_mb = 100,
	    .time_limit = 60,
	    .submit = 990,
	    .eligible = 990,
	    .start = 1000,
	    .end = 1010,
	    .work_dir = "/tmp",
	    .tres_req = "cpu=2,mem=100M,node=1,billing=2",
	    .tres_alloc = "cpu=2,mem=100M,node=2",
	    .step_count = 2,
	    .steps = steps,
	};
}

static char *doc(enum dout_kind kind, const struct acct_job_rec *j, size_t n, bool with_steps)
{
	struct dout *d = dout_new(kind);
	char *argv[] = {"sacct", "--json"};
	data_acct_jobs_doc(d, "c1", j, n, with_steps, 2, argv);
	assert_int_equal(dout_error(d), 0);
	char *s = dout_steal(d, NULL);
	dout_free(d);
	return s;
}

#define HAS(s, sub) assert_non_null(strstr((s), (sub)))

static void test_job(void **state)
{
	(void)state;
	struct acct_job_rec j = job();
	char *s = doc(DOUT_JSON, &j, 1, true);
	HAS(s, "\"type\": \"openapi\\/dbv0.0.38\"");
	HAS(s, "\"name\": \"a\\\"b\\/c\\nd\"");
	HAS(s, "\"exit_code\": {\n        \"status\": \"FAILED\",\n        \"return_code\": 3\n");
	HAS(s, "\"derived_exit_code\": {\n        \"status\": \"SIGNALED\",\n"
	       "        \"return_code\": 0,\n        \"signal\": {\n          \"signal_id\": 9,\n");
	HAS(s, "\"elapsed\": 10,");
	HAS(s, "\"limit\": 60,");
	HAS(s, "\"cluster\": \"c1\"");
	HAS(s, "\"state\": {\n        \"current\": \"FAILED\",\n");
	HAS(s, "\"kill_request_user\": null,");
	/* the job's CPU time is its finished steps' */
	HAS(s, "\"user\": {\n          \"seconds\": 1,\n          \"microseconds\": 500000\n");
	HAS(s, "\"id\": \"12.batch\"");
	HAS(s, "\"id\": \"12.0\"");
	HAS(s, "\"list\": [\n              \"n1\",\n              \"n2\"\n            ]");
	HAS(s, "\"kill_request_user\": \"root\"");
	HAS(s, "\"type\": \"gres\",\n                \"name\": \"gpu\",\n                \"id\": "
	       "1001");
	HAS(s, "\"type\": \"mem\",\n                \"name\": null,\n                \"id\": 2,\n"
	       "                \"count\": 1024\n");
	/* the batch step's peak RSS with its task and node */
	HAS(s,
	    "\"type\": \"mem\",\n                  \"name\": null,\n                  \"id\": 2,\n"
	    "                  \"count\": 2097152,\n                  \"task\": 0,\n"
	    "                  \"node\": \"n1\"\n");
	HAS(s, "\"type\": \"billing\",\n            \"name\": null,\n            \"id\": 5,\n"
	       "            \"count\": 2\n");
	free(s);
}

static void test_no_steps_and_pending(void **state)
{
	(void)state;
	struct acct_job_rec j = job();
	j.state = JOB_PENDING;
	j.start = j.end = 0;
	j.nodes = NULL;
	j.time_limit = INFINITE;
	j.array_job_id = 11;
	j.array_task_id = 3;
	char *s = doc(DOUT_JSON, &j, 1, false);
	HAS(s, "\"steps\": [\n      ],");
	HAS(s, "\"nodes\": \"None assigned\"");
	HAS(s, "\"exit_code\": {\n        \"status\": \"PENDING\",\n");
	HAS(s, "\"limit\": null,");
	HAS(s, "\"elapsed\": 0,");
	HAS(s, "\"task_id\": 3\n");
	HAS(s, "\"job_id\": 11,");
	free(s);

	s = doc(DOUT_JSON, NULL, 0, true);
	HAS(s, "\"jobs\": [\n  ]\n}\n");
	free(s);
}

static void test_yaml(void **state)
{
	(void)state;
	struct acct_job_rec j = job();
	char *s = doc(DOUT_YAML, &j, 1, true);
	HAS(s, "jobs:\n");
	HAS(s, "  job_id: 12\n");
	HAS(s, "      id: '12.batch'\n"); /* quoted: it would read back as a number */
	HAS(s, "  - '--json'\n");
	free(s);
}

static void test_schemas(void **state)
{
	(void)state;
	struct dout *d = dout_new(DOUT_JSON);
	dout_obj(d, NULL);
	data_schemas_db(d);
	dout_end(d);
	assert_int_equal(dout_error(d), 0);
	const char *s = dout_text(d, NULL);
	HAS(s, "\"dbv0.0.38_job\": {\n    \"type\": \"object\",\n");
	HAS(s, "\"dbv0.0.38_job_step\": {");
	HAS(s, "\"dbv0.0.38_tres_list\": {\n    \"type\": \"array\",\n    \"items\": {");
	HAS(s, "\"kill_request_user\": {\n        \"type\": \"string\",\n"
	       "        \"nullable\": true\n");
	dout_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_job),
	    cmocka_unit_test(test_no_steps_and_pending),
	    cmocka_unit_test(test_yaml),
	    cmocka_unit_test(test_schemas),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
