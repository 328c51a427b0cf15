/* test_license_spec.c - the license lists of slurm.conf's Licenses= and of
 * -L/--licenses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/license_spec.h"
#include "common/macros.h"

static void test_names_and_counts(void **state)
{
	struct license_item *it = NULL;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(license_spec_parse("matlab:2,fluent,ansys*3", 0, &it, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(it[0].name, "matlab");
	assert_int_equal(it[0].count, 2);
	assert_string_equal(it[1].name, "fluent");
	assert_int_equal(it[1].count, 1);
	assert_string_equal(it[2].name, "ansys");
	assert_int_equal(it[2].count, 3);
	free(it);
}

static void test_a_name_twice_adds_up(void **state)
{
	struct license_item *it = NULL;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(license_spec_parse("a:2,b,a:3", 0, &it, &n), 0);
	assert_int_equal(n, 2);
	assert_true(!strcmp(it[0].name, "a") && it[0].count == 5);
	assert_true(!strcmp(it[1].name, "b") && it[1].count == 1);
	free(it);
}

static void test_zero_only_where_allowed(void **state)
{
	struct license_item *it = NULL;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(license_spec_parse("a:0", 1, &it, &n), 0);
	assert_int_equal(it[0].count, 0);
	free(it);
	assert_int_equal(license_spec_parse("a:0", 0, &it, &n), -EINVAL);
	assert_null(it);
	assert_int_equal(n, 0);
}

static void test_bad_lists_are_refused(void **state)
{
	static const char *const bad[] = {
	    "",
	    ",",
	    "a,",
	    ",a",
	    "a:",
	    "a:x",
	    "a:1x",
	    "a:-1",
	    "a b",
	    "a;b",
	    "a|b",
	    "a:1:2",
	    "a:100000001",
	    ":3",
	    "a\n",
	    "0123456789012345678901234567890123456789012345678901234567890123456789",
	};
	struct license_item *it = NULL;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(license_spec_parse(NULL, 0, &it, &n), -EINVAL);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (license_spec_parse(bad[i], 0, &it, &n) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_null(it);
	}
}

static void test_too_many_names(void **state)
{
	char buf[LICENSE_LIST_MAX * 8 + 16] = "";
	struct license_item *it = NULL;
	uint32_t n = 0;
	size_t len = 0;

	(void)state;
	for (int i = 0; i <= LICENSE_LIST_MAX; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%sl%d", i ? "," : "", i);
	assert_int_equal(license_spec_parse(buf, 0, &it, &n), -EINVAL);
	*strrchr(buf, ',') = '\0';
	assert_int_equal(license_spec_parse(buf, 0, &it, &n), 0);
	assert_int_equal(n, LICENSE_LIST_MAX);
	free(it);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_and_counts),
	    cmocka_unit_test(test_a_name_twice_adds_up),
	    cmocka_unit_test(test_zero_only_where_allowed),
	    cmocka_unit_test(test_bad_lists_are_refused),
	    cmocka_unit_test(test_too_many_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
