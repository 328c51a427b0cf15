/* test_job_states.c - job state and reason names as Slurm 22.05 prints
 * them: base states, flag precedence, compact codes, reasons, parsing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/job_states.h"
#include "common/macros.h"

static const struct {
	uint32_t state;
	const char *lng, *cmp;
} display[] = {
    {JOB_PENDING, "PENDING", "PD"},
    {JOB_RUNNING, "RUNNING", "R"},
    {JOB_SUSPENDED, "SUSPENDED", "S"},
    {JOB_COMPLETE, "COMPLETED", "CD"},
    {JOB_CANCELLED, "CANCELLED", "CA"},
    {JOB_FAILED, "FAILED", "F"},
    {JOB_TIMEOUT, "TIMEOUT", "TO"},
    {JOB_NODE_FAIL, "NODE_FAIL", "NF"},
    {JOB_PREEMPTED, "PREEMPTED", "PR"},
    {JOB_BOOT_FAIL, "BOOT_FAIL", "BF"},
    {JOB_DEADLINE, "DEADLINE", "DL"},
    {JOB_OOM, "OUT_OF_MEMORY", "OOM"},
    {JOB_RUNNING | JOB_COMPLETING, "COMPLETING", "CG"},
    {JOB_CANCELLED | JOB_COMPLETING, "COMPLETING", "CG"},
    {JOB_COMPLETING | JOB_STAGE_OUT, "COMPLETING", "CG"},
    {JOB_RUNNING | JOB_STAGE_OUT, "STAGE_OUT", "SO"},
    {JOB_RUNNING | JOB_CONFIGURING, "CONFIGURING", "CF"},
    {JOB_RUNNING | JOB_RESIZING, "RESIZING", "RS"},
    {JOB_PENDING | JOB_REQUEUE, "REQUEUED", "RQ"},
    {JOB_PENDING | JOB_REQUEUE_FED, "REQUEUE_FED", "RF"},
    {JOB_PENDING | JOB_REQUEUE_HOLD, "REQUEUE_HOLD", "RH"},
    {JOB_PENDING | JOB_SPECIAL_EXIT, "SPECIAL_EXIT", "SE"},
    {JOB_RUNNING | JOB_STOPPED, "STOPPED", "ST"},
    {JOB_PENDING | JOB_REVOKED, "REVOKED", "RV"},
    {JOB_PENDING | JOB_RESV_DEL_HOLD, "RESV_DEL_HOLD", "RD"},
    {JOB_RUNNING | JOB_SIGNALING, "SIGNALING", "SI"},
    {JOB_RUNNING | JOB_LAUNCH_FAILED, "RUNNING", "R"}, /* no display of its own */
    {0x7f, "?", "?"},
};

static void test_states_print_as_slurm(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(display); i++) {
		assert_string_equal(job_state_string(display[i].state), display[i].lng);
		assert_string_equal(job_state_compact(display[i].state), display[i].cmp);
	}
}

static void test_every_reason_has_a_name(void **state)
{
	(void)state;
	for (int r = 0; r < _JOB_REASON_MAX; r++) {
		const char *s = job_reason_string((enum job_state_reason)r);

		assert_non_null(s);
		assert_string_not_equal(s, "?");
	}
	assert_string_equal(job_reason_string(_JOB_REASON_MAX), "?");
}

static void test_reason_names(void **state)
{
	static const struct {
		enum job_state_reason r;
		const char *name;
	} names[] = {
	    {WAIT_NO_REASON, "None"},
	    {WAIT_PRIORITY, "Priority"},
	    {WAIT_RESOURCES, "Resources"},
	    {WAIT_DEPENDENCY, "Dependency"},
	    {WAIT_HELD, "JobHeldAdmin"},
	    {WAIT_HELD_USER, "JobHeldUser"},
	    {WAIT_ARRAY_TASK_LIMIT, "JobArrayTaskLimit"},
	    {WAIT_PART_CONFIG, "PartitionConfig"},
	    {WAIT_DEP_INVALID, "DependencyNeverSatisfied"},
	    {WAIT_NODE_NOT_AVAIL, "ReqNodeNotAvail"},
	    {FAIL_EXIT_CODE, "NonZeroExitCode"},
	    {FAIL_TIMEOUT, "TimeLimit"},
	    {FAIL_OOM, "OutOfMemory"},
	    {FAIL_DEADLINE, "DeadLine"},
	    {WAIT_HELD_LAUNCH_FAILED, "launch failed requeued held"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		assert_string_equal(job_reason_string(names[i].r), names[i].name);
}

static void test_state_names_parse_both_ways(void **state)
{
	uint32_t v = 12345;

	(void)state;
	for (size_t i = 0; i + 1 < ARRAY_SIZE(display); i++) {
		uint32_t want = display[i].state, got = 0;

		if (want & JOB_STATE_FLAGS) { /* the first flag is what it shows */
			assert_int_equal(job_state_from_string(display[i].lng, &got), 0);
			assert_true(want & got);
			continue;
		}
		assert_int_equal(job_state_from_string(display[i].lng, &got), 0);
		assert_int_equal(got, want);
		assert_int_equal(job_state_from_string(display[i].cmp, &got), 0);
		assert_int_equal(got, want);
	}
	assert_int_equal(job_state_from_string("pd", &v), 0);
	assert_int_equal(v, JOB_PENDING);
	assert_int_equal(job_state_from_string("Completing", &v), 0);
	assert_int_equal(v, JOB_COMPLETING);
	v = 12345;
	assert_int_equal(job_state_from_string("PEND", &v), -EINVAL);
	assert_int_equal(job_state_from_string("", &v), -EINVAL);
	assert_int_equal(job_state_from_string(NULL, &v), -EINVAL);
	assert_int_equal(v, 12345);
	assert_non_null(strstr(job_state_names(), "PENDING,RUNNING,SUSPENDED,COMPLETED"));
}

static void test_finished_states(void **state)
{
	(void)state;
	assert_false(job_state_is_finished(JOB_PENDING));
	assert_false(job_state_is_finished(JOB_RUNNING | JOB_COMPLETING));
	assert_false(job_state_is_finished(JOB_SUSPENDED));
	assert_true(job_state_is_finished(JOB_COMPLETE));
	assert_true(job_state_is_finished(JOB_CANCELLED | JOB_COMPLETING));
	assert_true(job_state_is_finished(JOB_OOM));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_states_print_as_slurm),
	    cmocka_unit_test(test_every_reason_has_a_name),
	    cmocka_unit_test(test_reason_names),
	    cmocka_unit_test(test_state_names_parse_both_ways),
	    cmocka_unit_test(test_finished_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
