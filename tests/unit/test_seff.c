/* test_seff.c - seff's report bytes (upstream contrib seff's format) for
 * finished, multi-node, failed, running and pending jobs and array tasks;
 * memory and time units; job id parsing and row selection; the -u table's
 * order and layout. (-S/-E are parsed by sacct_parse_time, sacct's tests.) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cli/seff_fmt.h"
#include "common/parse_time.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg_acct.h"

#define SL_BATCH 0xfffffffbu /* the batch step's id; only a label here */
#define T0	 1700000000

/* A job row with up to 2 steps, strings borrowed (never freed here). */
struct fixture {
	struct acct_job_rec job;
	struct acct_step_rec steps[2];
};

static void fixture_init(struct fixture *fx, uint32_t job_id, uint32_t state)
{
	memset(fx, 0, sizeof(*fx));
	fx->job.job_id = job_id;
	fx->job.array_task_id = NO_VAL;
	fx->job.name = "job";
	fx->job.user = "root";
	fx->job.state = state;
	fx->job.ncpus = 1;
	fx->job.nnodes = 1;
	fx->job.req_mem_mb = 100;
	fx->job.steps = fx->steps;
}

static struct acct_step_rec *add_step(struct fixture *fx, uint32_t step_id, uint64_t user_usec,
				      uint64_t sys_usec, uint64_t tot_rss_kb, uint32_t ntasks)
{
	struct acct_step_rec *s = &fx->steps[fx->job.step_count++];

	s->step_id = step_id;
	s->usage.user_usec = user_usec;
	s->usage.sys_usec = sys_usec;
	s->usage.tot_rss_kb = tot_rss_kb;
	s->usage.max_rss_kb = ntasks ? tot_rss_kb / ntasks : 0;
	s->usage.ntasks = ntasks;
	return s;
}

#define assert_prefix(s, p) assert_true(strncmp((s), (p), strlen(p)) == 0)

/* The report of fx's job at time now, as a string to free. */
static char *report(const struct fixture *fx, time_t now, bool is_per_cpu)
{
	struct seff_job s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	seff_job_from_rec(&fx->job, now, &s);
	s.cluster = "anchor";
	s.group = "root";
	s.is_mem_per_cpu = is_per_cpu;
	seff_report(f, &s);
	fclose(f);
	return buf;
}

static void test_completed_single_core_job_prints_upstream_report(void **state)
{
	struct fixture fx;
	char *out;

	(void)state;
	fixture_init(&fx, 11201, JOB_COMPLETE);
	fx.job.start = T0;
	fx.job.end = T0 + 2;
	add_step(&fx, SL_BATCH, 1200, 800, 3041, 1); /* 2.97 MB */
	out = report(&fx, T0 + 100, false);
	assert_string_equal(out, "Job ID: 11201\n"
				 "Cluster: anchor\n"
				 "User/Group: root/root\n"
				 "State: COMPLETED (exit code 0)\n"
				 "Cores: 1\n"
				 "CPU Utilized: 00:00:00\n"
				 "CPU Efficiency: 0.00% of 00:00:02 core-walltime\n"
				 "Job Wall-clock time: 00:00:02\n"
				 "Memory Utilized: 2.97 MB\n"
				 "Memory Efficiency: 2.97% of 100.00 MB\n");
	free(out);
}

static void test_multi_node_job_prints_nodes_and_cores_per_node(void **state)
{
	struct fixture fx;
	char *out;

	(void)state;
	fixture_init(&fx, 12000, JOB_COMPLETE);
	fx.job.ncpus = 8;
	fx.job.nnodes = 2;
	fx.job.req_mem_mb = 800;
	fx.job.start = T0;
	fx.job.end = T0 + 500;
	/* whole seconds 1 + 3000 + 10, micro parts 1.3 s rounded once: 3012 */
	add_step(&fx, SL_BATCH, 1400000, 0, 1024, 1);
	add_step(&fx, 0, 3000600000ull, 10300000, 409600, 8);
	out = report(&fx, T0 + 900, false);
	assert_string_equal(out, "Job ID: 12000\n"
				 "Cluster: anchor\n"
				 "User/Group: root/root\n"
				 "State: COMPLETED (exit code 0)\n"
				 "Nodes: 2\n"
				 "Cores per node: 4\n"
				 "CPU Utilized: 00:50:12\n"
				 "CPU Efficiency: 75.30% of 01:06:40 core-walltime\n"
				 "Job Wall-clock time: 00:08:20\n"
				 "Memory Utilized: 400.00 MB (estimated maximum)\n"
				 "Memory Efficiency: 50.00% of 800.00 MB (400.00 MB/node)\n");
	free(out);

	out = report(&fx, T0 + 900, true);
	assert_non_null(strstr(out, "Memory Efficiency: 50.00% of 800.00 MB (100.00 MB/core)\n"));
	free(out);
}

static void test_failed_job_shows_exit_status_high_byte(void **state)
{
	struct fixture fx;
	char *out;

	(void)state;
	fixture_init(&fx, 11210, JOB_FAILED);
	fx.job.exit_code = 3 << 8;
	fx.job.start = T0;
	fx.job.end = T0 + 90061; /* over a day */
	add_step(&fx, SL_BATCH, 90061000000ull, 0, 2048, 1);
	out = report(&fx, T0, false);
	assert_string_equal(out, "Job ID: 11210\n"
				 "Cluster: anchor\n"
				 "User/Group: root/root\n"
				 "State: FAILED (exit code 3)\n"
				 "Cores: 1\n"
				 "CPU Utilized: 1-01:01:01\n"
				 "CPU Efficiency: 100.00% of 1-01:01:01 core-walltime\n"
				 "Job Wall-clock time: 1-01:01:01\n"
				 "Memory Utilized: 2.00 MB\n"
				 "Memory Efficiency: 2.00% of 100.00 MB\n");
	free(out);

	/* killed by a signal: upstream shows only the exit byte, 0 */
	fx.job.state = JOB_CANCELLED;
	fx.job.exit_code = 9;
	out = report(&fx, T0, false);
	assert_non_null(strstr(out, "State: CANCELLED (exit code 0)\n"));
	free(out);
}

static void test_running_job_ends_with_the_warning(void **state)
{
	struct fixture fx;
	char *out;

	(void)state;
	fixture_init(&fx, 11230, JOB_RUNNING);
	fx.job.req_mem_mb = 500;
	fx.job.start = T0;
	out = report(&fx, T0 + 9, false);
	assert_string_equal(out,
			    "Job ID: 11230\n"
			    "Cluster: anchor\n"
			    "User/Group: root/root\n"
			    "State: RUNNING\n"
			    "Cores: 1\n"
			    "CPU Utilized: 00:00:00\n"
			    "CPU Efficiency: 0.00% of 00:00:09 core-walltime\n"
			    "Job Wall-clock time: 00:00:09\n"
			    "Memory Utilized: 0.00 MB (estimated maximum)\n"
			    "Memory Efficiency: 0.00% of 500.00 MB (500.00 MB/node)\n"
			    "WARNING: Efficiency statistics may be misleading for RUNNING jobs.\n");
	free(out);
}

static void test_pending_job_prints_the_short_form(void **state)
{
	struct fixture fx;
	char *out;

	(void)state;
	fixture_init(&fx, 11240, JOB_PENDING);
	fx.job.ncpus = 4;
	out = report(&fx, T0, false);
	assert_string_equal(out, "Job ID: 11240\n"
				 "Cluster: anchor\n"
				 "User/Group: root/root\n"
				 "State: PENDING\n"
				 "Cores: 1\n" /* nothing allocated yet (upstream) */
				 "Efficiency not available for jobs in the PENDING state.\n");
	free(out);
}

static void test_array_task_and_pending_tasks_name_the_array(void **state)
{
	struct fixture fx;
	char *out;

	(void)state;
	fixture_init(&fx, 11227, JOB_COMPLETE);
	fx.job.array_job_id = 11223;
	fx.job.array_task_id = 0;
	out = report(&fx, T0, false);
	assert_prefix(out, "Job ID: 11227\nArray Job ID: 11223_0\nCluster: anchor\n");
	free(out);

	fixture_init(&fx, 11223, JOB_PENDING);
	fx.job.array_job_id = 11223;
	fx.job.array_task_str = "2-5";
	out = report(&fx, T0, false);
	assert_prefix(out, "Job ID: 11223\nArray Job ID: 11223_[2-5]\n");
	free(out);
}

static void test_memory_and_time_units_follow_upstream(void **state)
{
	static const struct {
		double kb;
		const char *text;
	} mem[] = {
	    {0, "0.00 MB"},
	    {0.5, "0.50 KB"},
	    {512, "512.00 KB"},
	    {1023, "1023.00 KB"},
	    {1024, "1.00 MB"},
	    {3041, "2.97 MB"},
	    {1048575, "1024.00 MB"},
	    {1048576, "1.00 GB"},
	    {1572864, "1.50 GB"},
	    {1073741824.0, "1.00 TB"},
	    {1099511627776.0, "1.00 PB"},
	};
	static const struct {
		uint64_t secs;
		const char *text;
	} times[] = {
	    {0, "00:00:00"},	     {59, "00:00:59"},	    {3600, "01:00:00"},
	    {86399, "23:59:59"},     {86400, "1-00:00:00"}, {90061, "1-01:01:01"},
	    {864000, "10-00:00:00"},
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(mem); i++)
		assert_string_equal(seff_kbytes_str(mem[i].kb, buf, sizeof(buf)), mem[i].text);
	for (size_t i = 0; i < ARRAY_SIZE(times); i++)
		assert_string_equal(duration_str(times[i].secs, buf, sizeof(buf)), times[i].text);
}

static void test_largest_step_sum_gives_memory_utilized(void **state)
{
	struct fixture fx;
	struct seff_job s;

	(void)state;
	fixture_init(&fx, 5, JOB_COMPLETE);
	add_step(&fx, SL_BATCH, 0, 0, 5000, 1);
	add_step(&fx, 0, 0, 0, 4000, 4);
	seff_job_from_rec(&fx.job, T0, &s);
	assert_int_equal(s.mem_kb, 5000);
	assert_int_equal(s.mem_ntasks, 1);
	fx.steps[1].usage.tot_rss_kb = 6000;
	seff_job_from_rec(&fx.job, T0, &s);
	assert_int_equal(s.mem_kb, 6000);
	assert_int_equal(s.mem_ntasks, 4);
}

static void test_job_ids_parse(void **state)
{
	uint32_t job = 7, task = 7;

	(void)state;
	assert_int_equal(seff_parse_id("11201", &job, &task), 0);
	assert_int_equal(job, 11201);
	assert_int_equal(task, NO_VAL);
	assert_int_equal(seff_parse_id("11223_1", &job, &task), 0);
	assert_int_equal(job, 11223);
	assert_int_equal(task, 1);
	assert_int_equal(seff_parse_id("12.batch", &job, &task), 0);
	assert_int_equal(job, 12);
	assert_int_equal(seff_parse_id("12_3.0", &job, &task), 0);
	assert_int_equal(task, 3);
	static const char *const bad[] = {"",	 "x",	 "12_", "_3",  "12_x",	      "0",
					  "12.", "12.x", "-1",	"1 2", "99999999999", "12_3_4"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(seff_parse_id(bad[i], &job, &task), -EINVAL);
}

static void test_select_finds_jobs_tasks_and_latest_runs(void **state)
{
	struct acct_job_rec rows[6] = {0};
	const struct acct_job_rec *out[6];

	(void)state;
	/* array 20: tasks 1 (id 20), 0 (id 21), pending record; job 30 twice */
	rows[0] = (struct acct_job_rec){.job_id = 20, .array_job_id = 20, .array_task_id = 1};
	rows[1] = (struct acct_job_rec){.job_id = 21, .array_job_id = 20, .array_task_id = 0};
	rows[2] = (struct acct_job_rec){.job_id = 22, .array_job_id = 20, .array_task_id = NO_VAL};
	rows[3] = (struct acct_job_rec){.job_id = 30, .array_task_id = NO_VAL, .restart_cnt = 0};
	rows[4] = (struct acct_job_rec){.job_id = 30, .array_task_id = NO_VAL, .restart_cnt = 1};
	rows[5] = (struct acct_job_rec){.job_id = 40, .array_task_id = NO_VAL};

	assert_int_equal(seff_select(rows, 6, 20, NO_VAL, out), 3);
	assert_ptr_equal(out[0], &rows[1]);
	assert_ptr_equal(out[1], &rows[0]);
	assert_ptr_equal(out[2], &rows[2]);
	assert_int_equal(seff_select(rows, 6, 20, 1, out), 1);
	assert_ptr_equal(out[0], &rows[0]);
	assert_int_equal(seff_select(rows, 6, 21, NO_VAL, out), 1); /* a task's raw id */
	assert_ptr_equal(out[0], &rows[1]);
	assert_int_equal(seff_select(rows, 6, 30, NO_VAL, out), 1);
	assert_ptr_equal(out[0], &rows[4]);
	assert_int_equal(seff_select(rows, 6, 20, 7, out), 0);
	assert_int_equal(seff_select(rows, 6, 99, NO_VAL, out), 0);
}

static char *table(const struct acct_job_rec *rows, size_t n, size_t *ret_count)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret_count = seff_user_table(f, "alice", T0, T0 + 7 * 86400, rows, n);
	fclose(f);
	return buf;
}

static void test_user_table_puts_worst_over_allocation_first(void **state)
{
	struct fixture fx[5];
	struct acct_job_rec rows[5];
	size_t count;
	char *out;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	/* 100: 4 cores 1 h, 1 core-h used, 4 GiB asked 1 GiB used: 3 + 3 */
	fixture_init(&fx[0], 100, JOB_COMPLETE);
	fx[0].job.name = "a_very_long_job_name_indeed";
	fx[0].job.ncpus = 4;
	fx[0].job.req_mem_mb = 4096;
	fx[0].job.start = T0 + 60;
	fx[0].job.end = T0 + 60 + 3600;
	add_step(&fx[0], SL_BATCH, 3600000000ull, 0, 1048576, 1);
	/* 101: 1 core fully used for 2 h, 100M asked 3M used: ~0.19 */
	fixture_init(&fx[1], 101, JOB_FAILED);
	fx[1].job.start = T0;
	fx[1].job.end = T0 + 7200;
	add_step(&fx[1], SL_BATCH, 7000000000ull, 200000000, 3041, 1);
	/* 102: array task 99_3, 2 cores idle 30 min, no memory request: 1.0 */
	fixture_init(&fx[2], 102, JOB_TIMEOUT);
	fx[2].job.array_job_id = 99;
	fx[2].job.array_task_id = 3;
	fx[2].job.ncpus = 2;
	fx[2].job.req_mem_mb = 0;
	fx[2].job.start = T0;
	fx[2].job.end = T0 + 1800;
	/* 103 still running, 104 cancelled before it started: left out */
	fixture_init(&fx[3], 103, JOB_RUNNING);
	fx[3].job.start = T0;
	fixture_init(&fx[4], 104, JOB_CANCELLED);
	fx[4].job.end = T0 + 5;
	for (int i = 0; i < 5; i++)
		rows[i] = fx[i].job;

	out = table(rows, 5, &count);
	assert_int_equal(count, 3);
	assert_string_equal(
	    out, "Finished jobs of alice from 2023-11-14T22:13:20 to 2023-11-21T22:13:20, most "
		 "over-allocated first:\n"
		 "JobID  JobName               State       Elapsed  CPUs  CPUEff  ReqMem  MaxMem  "
		 "MemEff  IdleCore-h  UnusedGB-h\n"
		 "-----  --------------------  ---------  --------  ----  ------  ------  ------  "
		 "------  ----------  ----------\n"
		 "100    a_very_long_job_nam+  COMPLETED  01:00:00     4   25.0%   4.00G   1.00G  "
		 " 25.0%        3.00        3.00\n"
		 "99_3   job                   TIMEOUT    00:30:00     2    0.0%       0       0  "
		 "     -        1.00        0.00\n"
		 "101    job                   FAILED     02:00:00     1  100.0%    100M   2.97M  "
		 "  3.0%        0.00        0.19\n"
		 "Hint: worst first by IdleCore-h + UnusedGB-h (unused core-hours + unused memory "
		 "GiB-hours); shrink -c/-n where CPUEff is low, --mem where MemEff is low.\n");
	free(out);

	out = table(&rows[3], 2, &count);
	assert_int_equal(count, 0);
	assert_string_equal(out, "No finished jobs for alice in that window.\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_completed_single_core_job_prints_upstream_report),
	    cmocka_unit_test(test_multi_node_job_prints_nodes_and_cores_per_node),
	    cmocka_unit_test(test_failed_job_shows_exit_status_high_byte),
	    cmocka_unit_test(test_running_job_ends_with_the_warning),
	    cmocka_unit_test(test_pending_job_prints_the_short_form),
	    cmocka_unit_test(test_array_task_and_pending_tasks_name_the_array),
	    cmocka_unit_test(test_memory_and_time_units_follow_upstream),
	    cmocka_unit_test(test_largest_step_sum_gives_memory_utilized),
	    cmocka_unit_test(test_job_ids_parse),
	    cmocka_unit_test(test_select_finds_jobs_tasks_and_latest_runs),
	    cmocka_unit_test(test_user_table_puts_worst_over_allocation_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
