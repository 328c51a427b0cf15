/* test_scontrol_step.c - "scontrol show step": records and messages.
 *
 * Hand-built step records (times in UTC) must print as Slurm 22.05's
 * slurm_sprint_job_step_info() lays them out, in both the multi-line and
 * the -o form, and the list printer must pick steps by "12", "12.0",
 * "12.batch" and "14_3.1" with scontrol's words when nothing matches.
 */
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

#include "cli/scontrol_show.h"
#include "cli/scontrol_step.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"

static const struct scontrol_show_opts multi = {.slurmd_port = 6818};
static const struct scontrol_show_opts oneline = {.one_liner = true, .slurmd_port = 6818};

static time_t utc(int h, int mi, int s)
{
	struct tm tm = {
	    .tm_year = 126, .tm_mon = 11, .tm_mday = 2, .tm_hour = h, .tm_min = mi, .tm_sec = s};

	return timegm(&tm);
}

static struct step_info steps[3];
static struct step_info_msg msg = {.steps = steps, .count = 3};

static void reference_steps(void)
{
	steps[0] = (struct step_info){.job_id = 12,
				      .step_id = SL_BATCH_STEP,
				      .array_task_id = NO_VAL,
				      .name = "batch",
				      .partition = "debug",
				      .nodes = "n1",
				      .tres_alloc_str = "cpu=1,mem=100M,node=1",
				      .state = JOB_RUNNING,
				      .start_time = utc(12, 59, 0),
				      .time_limit = INFINITE,
				      .num_nodes = 1,
				      .num_cpus = 1,
				      .num_tasks = 1};
	steps[1] = (struct step_info){.job_id = 12,
				      .step_id = 0,
				      .array_task_id = NO_VAL,
				      .name = "hostname",
				      .partition = "debug",
				      .nodes = "n[1-2]",
				      .tres_alloc_str = "cpu=4,mem=400M,node=2",
				      .srun_host = "vm",
				      .srun_pid = 12345,
				      .state = JOB_RUNNING,
				      .start_time = utc(13, 0, 0),
				      .time_limit = INFINITE,
				      .num_nodes = 2,
				      .num_cpus = 4,
				      .num_tasks = 4};
	steps[2] = steps[1];
	steps[2].job_id = 15;
	steps[2].step_id = 1;
	steps[2].array_job_id = 14;
	steps[2].array_task_id = 3;
	steps[2].user_id = 1000;
	steps[2].nodes = "n3";
	steps[2].name = "sleep";
	steps[2].time_limit = 90;
	steps[2].num_cpus = 1;
	steps[2].num_tasks = 1;
	steps[2].tres_alloc_str = NULL;
}

static char *render(const char *id, const struct scontrol_show_opts *o, int want_r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(scontrol_step_print(out, &msg, id, o, 0), want_r);
	fclose(out);
	return buf;
}

static void check(const char *id, const struct scontrol_show_opts *o, int want_r, const char *want)
{
	char *got = render(id, o, want_r);

	assert_string_equal(got, want);
	free(got);
}

static const char step12_0[] = "StepId=12.0 UserId=0 StartTime=2026-12-02T13:00:00 "
			       "TimeLimit=UNLIMITED\n"
			       "   State=RUNNING Partition=debug NodeList=n[1-2]\n"
			       "   Nodes=2 CPUs=4 Tasks=4 Name=hostname Network=(null)\n"
			       "   TRES=cpu=4,mem=400M,node=2\n"
			       "   ResvPorts=(null)\n"
			       "   CPUFreqReq=Default Dist=Block\n"
			       "   SrunHost:Pid=vm:12345\n"
			       "\n";

static void test_step_record(void **state)
{
	(void)state;
	reference_steps();
	check("12.0", &multi, 0, step12_0);
	check("12.0", &oneline, 0,
	      "StepId=12.0 UserId=0 StartTime=2026-12-02T13:00:00 TimeLimit=UNLIMITED "
	      "State=RUNNING Partition=debug NodeList=n[1-2] Nodes=2 CPUs=4 Tasks=4 "
	      "Name=hostname Network=(null) TRES=cpu=4,mem=400M,node=2 ResvPorts=(null) "
	      "CPUFreqReq=Default Dist=Block SrunHost:Pid=vm:12345\n");
}

static void test_batch_and_array_steps(void **state)
{
	(void)state;
	reference_steps();
	check("12.batch", &multi, 0,
	      "StepId=12.batch UserId=0 StartTime=2026-12-02T12:59:00 TimeLimit=UNLIMITED\n"
	      "   State=RUNNING Partition=debug NodeList=n1\n"
	      "   Nodes=1 CPUs=1 Tasks=1 Name=batch Network=(null)\n"
	      "   TRES=cpu=1,mem=100M,node=1\n"
	      "   ResvPorts=(null)\n"
	      "   CPUFreqReq=Default\n"
	      "   SrunHost:Pid=(null):0\n"
	      "\n");
	check("14_3.1", &oneline, 0,
	      "StepId=14_3.1 UserId=1000 StartTime=2026-12-02T13:00:00 TimeLimit=01:30:00 "
	      "State=RUNNING Partition=debug NodeList=n3 Nodes=1 CPUs=1 Tasks=1 Name=sleep "
	      "Network=(null) TRES=(null) ResvPorts=(null) CPUFreqReq=Default Dist=Block "
	      "SrunHost:Pid=vm:12345\n");
}

static void test_job_picks_all_its_steps(void **state)
{
	char *got;

	(void)state;
	reference_steps();
	got = render("12", &multi, 0);
	assert_non_null(strstr(got, "StepId=12.batch "));
	assert_non_null(strstr(got, step12_0));
	assert_null(strstr(got, "StepId=14_3.1"));
	free(got);
	got = render(NULL, &oneline, 0);
	assert_non_null(strstr(got, "StepId=14_3.1 "));
	free(got);
}

static void test_not_found_and_empty(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	reference_steps();
	check("12.5", &multi, -ENOENT, "Job step 12.5 not found\n");
	check("14_4.1", &multi, -ENOENT, "Job step 14_4.1 not found\n");
	check("99", &multi, -ENOENT, "Job step 99.4294967294 not found\n");
	msg.count = 0;
	check(NULL, &multi, 0, "No job steps in the system\n");
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	assert_int_equal(scontrol_step_print(out, &msg, "12.0", &multi, 1), -ENOENT);
	fclose(out);
	assert_string_equal(buf, ""); /* -Q */
	free(buf);
}

static void test_id_parse(void **state)
{
	struct scontrol_step_id id;

	(void)state;
	scontrol_step_id_parse("12", &id);
	assert_true(id.job_id == 12 && id.array_id == NO_VAL && id.step_id == NO_VAL);
	scontrol_step_id_parse("12_7.3", &id);
	assert_true(id.job_id == 12 && id.array_id == 7 && id.step_id == 3);
	scontrol_step_id_parse("12.batch", &id);
	assert_true(id.job_id == 12 && id.step_id == SL_BATCH_STEP);
	scontrol_step_id_parse(NULL, &id);
	assert_true(id.job_id == NO_VAL && id.step_id == NO_VAL);
	scontrol_step_id_parse("junk", &id);
	assert_true(id.job_id == 0);
}

static int setup(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_step_record),
	    cmocka_unit_test(test_batch_and_array_steps),
	    cmocka_unit_test(test_job_picks_all_its_steps),
	    cmocka_unit_test(test_not_found_and_empty),
	    cmocka_unit_test(test_id_parse),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
