/* test_path_pattern.c - every letter, widths, %%, escapes, unknown letters
 * and the work dir prefix, against what Slurm 22.05 produced
 * (reference/output_file_naming.txt, scontrol_show_job_array_*.txt). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/path_pattern.h"

static const struct path_pattern_job plain = {
	.job_id = 128,
	.array_job_id = 0,
	.array_task_id = NO_VAL,
	.step_id = PATH_PATTERN_STEP_BATCH,
	.job_name = "namey",
	.node_name = "vm",
	.user_name = "root",
};

static const struct path_pattern_job task7 = {
	.job_id = 11236,
	.array_job_id = 11234,
	.array_task_id = 17,
	.step_id = PATH_PATTERN_STEP_BATCH,
	.job_name = "namey",
	.node_name = "vm",
	.user_name = "alice",
};

static const struct {
	const char *pattern;
	const struct path_pattern_job *job;
	const char *want;
} cases[] = {
	/* the reference's own file names */
	{ "out-%j-%A-%a-%x-%N-%u.txt", &plain, "out-128-128-4294967294-namey-vm-root.txt" },
	{ "out-%j-%A-%a-%x-%N.txt", &task7, "out-11236-11234-17-namey-vm.txt" },
	{ "arr-%A_%a.out", &task7, "arr-11234_17.out" },
	{ "arr-%A_%a.out", &plain, "arr-128_4294967294.out" },
	/* each letter */
	{ "%j", &plain, "128" },
	{ "%J", &plain, "128" },
	{ "%s", &plain, "batch" },
	{ "%A", &plain, "128" },
	{ "%A", &task7, "11234" },
	{ "%a", &task7, "17" },
	{ "%b", &task7, "7" },
	{ "%N", &plain, "vm" },
	{ "%n", &plain, "0" },
	{ "%t", &plain, "0" },
	{ "%u", &task7, "alice" },
	{ "%x", &plain, "namey" },
	/* widths: zero padding on numbers, capped at 10, ignored on text */
	{ "%4j", &plain, "0128" },
	{ "%1j", &plain, "128" },
	{ "%0j", &plain, "128" },
	{ "%10j", &plain, "0000000128" },
	{ "%12j", &plain, "0000000128" },
	{ "%99999999999999999999j", &plain, "0000000128" },
	{ "%3a", &task7, "017" },
	{ "%3n.%2t", &plain, "000.00" },
	{ "%6A", &task7, "011234" },
	{ "%5x", &plain, "namey" },
	{ "%8N", &plain, "vm" },
	{ "%4s", &plain, "batch" },
	{ "%4J", &plain, "0128" },
	/* %% and what is not ours */
	{ "%%", &plain, "%" },
	{ "100%%-%j", &plain, "100%-128" },
	{ "%%j", &plain, "%j" },
	{ "%%%j", &plain, "%128" },
	{ "%q", &plain, "%q" },
	{ "%5q-%j", &plain, "%5q-128" },
	{ "%r%S", &plain, "%r%S" },
	{ "end%", &plain, "end%" },
	{ "end%12", &plain, "end%12" },
	{ "no-letters", &plain, "no-letters" },
	/* a backslash turns expansion off and is itself dropped */
	{ "a\\%j", &plain, "a%j" },
	{ "a\\\\b%j", &plain, "a\\b%j" },
	{ "/abs/%j.out", &plain, "/abs/128.out" },
};

static void test_every_letter_expands_as_slurm(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *got = NULL;

		assert_int_equal(path_pattern_expand(cases[i].pattern, cases[i].job, &got), 0);
		if (strcmp(got, cases[i].want) != 0)
			fail_msg("%s: got '%s', want '%s'", cases[i].pattern, got, cases[i].want);
		free(got);
	}
}

static void test_relative_paths_go_under_the_work_dir(void **state)
{
	struct path_pattern_job j = plain;
	char *got = NULL;

	(void)state;
	j.work_dir = "/home/u/run";
	assert_int_equal(path_pattern_expand("slurm-%j.out", &j, &got), 0);
	assert_string_equal(got, "/home/u/run/slurm-128.out");
	free(got);
	j.work_dir = "/home/u/run/";
	assert_int_equal(path_pattern_expand("sub/%x.err", &j, &got), 0);
	assert_string_equal(got, "/home/u/run/sub/namey.err");
	free(got);
	assert_int_equal(path_pattern_expand("/tmp/%j", &j, &got), 0);
	assert_string_equal(got, "/tmp/128");
	free(got);
	assert_int_equal(path_pattern_expand("lit\\%j", &j, &got), 0);
	assert_string_equal(got, "/home/u/run/lit%j");
	free(got);
}

static void test_missing_names_print_null_and_empty_patterns_fail(void **state)
{
	struct path_pattern_job j = plain;
	char *got = (char *)"untouched";

	(void)state;
	j.job_name = NULL;
	assert_int_equal(path_pattern_expand("%x", &j, &got), 0);
	assert_string_equal(got, "(null)");
	free(got);
	got = (char *)"untouched";
	assert_int_equal(path_pattern_expand("", &j, &got), -EINVAL);
	assert_int_equal(path_pattern_expand(NULL, &j, &got), -EINVAL);
	assert_string_equal(got, "untouched");
}

static void test_numbered_steps_show_in_J_and_s(void **state)
{
	struct path_pattern_job j = plain;
	char *got = NULL;

	(void)state;
	j.step_id = 3;
	assert_int_equal(path_pattern_expand("%J-%s-%2s", &j, &got), 0);
	assert_string_equal(got, "128.3-3-03");
	free(got);
}

static void test_default_patterns_are_slurms(void **state)
{
	char *got = NULL;

	(void)state;
	assert_string_equal(path_pattern_default_stdout(false), "slurm-%j.out");
	assert_string_equal(path_pattern_default_stdout(true), "slurm-%A_%a.out");
	assert_int_equal(path_pattern_expand(path_pattern_default_stdout(true), &task7, &got), 0);
	assert_string_equal(got, "slurm-11234_17.out");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_letter_expands_as_slurm),
		cmocka_unit_test(test_relative_paths_go_under_the_work_dir),
		cmocka_unit_test(test_missing_names_print_null_and_empty_patterns_fail),
		cmocka_unit_test(test_numbered_steps_show_in_J_and_s),
		cmocka_unit_test(test_default_patterns_are_slurms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
