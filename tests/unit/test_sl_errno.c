/* test_sl_errno.c - the error table is complete, sorted, and says what
 * Slurm 22.05 says.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/sl_errno.h"

static void test_every_code_has_a_message(void **state)
{
	(void)state;
	assert_true(sl_errno_codes_len > 100);
	for (unsigned i = 0; i < sl_errno_codes_len; i++) {
		const char *t = sl_strerror(sl_errno_codes[i]);

		assert_non_null(t);
		assert_true(strlen(t) > 0);
		assert_null(strstr(t, "Unknown error"));
	}
}

static void test_codes_are_sorted_and_unique(void **state)
{
	(void)state;
	for (unsigned i = 1; i < sl_errno_codes_len; i++)
		assert_true(sl_errno_codes[i - 1] < sl_errno_codes[i]);
	assert_true(sl_errno_codes[0] >= 1000);
}

static const struct {
	int code;
	const char *text;
} known[] = {
    {SLURM_UNEXPECTED_MSG_ERROR, "Unexpected message received"},
    {SLURM_PROTOCOL_VERSION_ERROR, "Incompatible versions of client and server code"},
    {SLURM_PROTOCOL_AUTHENTICATION_ERROR, "Protocol authentication error"},
    {SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR,
     "Unable to contact slurm controller (connect failure)"},
    {SLURM_NO_CHANGE_IN_DATA, "Data has not changed since time specified"},
    {ESLURM_INVALID_PARTITION_NAME, "Invalid partition name specified"},
    {ESLURM_ACCESS_DENIED, "Access/permission denied"},
    {ESLURM_USER_ID_MISSING, "Invalid user id"},
    {ESLURM_INVALID_JOB_ID, "Invalid job id specified"},
    {ESLURM_INVALID_NODE_NAME, "Invalid node name specified"},
    {ESLURM_ALREADY_DONE, "Job/step already completing or completed"},
    {ESLURM_INVALID_NODE_STATE, "Invalid node state specified"},
    {ESLURM_INVALID_TIME_LIMIT, "Requested time limit is invalid (missing or exceeds some limit)"},
    {ESLURM_JOB_NOT_PENDING, "Job is no longer pending execution"},
    {ESLURM_MISSING_TIME_LIMIT, "Time limit specification required, but not provided"},
    {ESLURM_AUTH_NET_ERROR, "Failed to connect to authentication agent"},
};

static void test_known_codes_have_slurm_texts(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		assert_string_equal(sl_strerror(known[i].code), known[i].text);
		assert_string_equal(sl_strerror(-known[i].code), known[i].text);
	}
}

static const struct {
	int code;
	int number;
} numbers[] = {
    {SLURM_PROTOCOL_INSANE_MSG_LENGTH, 1008},
    {SLURM_PROTOCOL_INSUFFICIENT_SPACE, 1008},
    {SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR, 1800},
    {SLURM_NO_CHANGE_IN_DATA, 1900},
    {ESLURM_ACCESS_DENIED, 2002},
    {ESLURM_USER_ID_MISSING, 2010},
    {ESLURM_INVALID_JOB_ID, 2017},
    {ESLURM_INVALID_NODE_NAME, 2018},
    {ESLURM_INVALID_NODE_STATE, 2028},
    {ESLURM_ACCOUNTING_POLICY, 2050},
    {ESLURM_INVALID_TIME_LIMIT, 2051},
    {ESLURM_INVALID_QOS, 2066},
    {ESLURM_INVALID_GRES, 2072},
    {ESLURM_PARTITION_DOWN, 2101},
    {ESLURMD_EXECVE_FAILED, 4020},
    {ESLURM_AUTH_CRED_INVALID, 6000},
};

static void test_codes_keep_slurm_numbers(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++)
		assert_int_equal(numbers[i].code, numbers[i].number);
}

static void test_errno_values_use_strerror(void **state)
{
	(void)state;
	assert_string_equal(sl_strerror(ENOENT), strerror(ENOENT));
	assert_string_equal(sl_strerror(-EINVAL), strerror(EINVAL));
	assert_string_equal(sl_strerror(0), "No error");
}

static void test_unknown_codes_say_unknown_error_n(void **state)
{
	(void)state;
	assert_string_equal(sl_strerror(1999), "Unknown error 1999");
	assert_string_equal(sl_strerror(-2041), "Unknown error 2041");
	assert_string_equal(sl_strerror(INT_MIN), "Unknown error 2147483648");
	assert_string_equal(sl_strerror(INT_MAX), "Unknown error 2147483647");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_code_has_a_message),
	    cmocka_unit_test(test_codes_are_sorted_and_unique),
	    cmocka_unit_test(test_known_codes_have_slurm_texts),
	    cmocka_unit_test(test_codes_keep_slurm_numbers),
	    cmocka_unit_test(test_errno_values_use_strerror),
	    cmocka_unit_test(test_unknown_codes_say_unknown_error_n),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
