/* test_stepd_pmi.c - the PMI server's parsers: Slurm's task count lists
 * ("4(x2),3") and PMI_process_mapping of a block layout. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "slurmd/slurmstepd/pmi.h"

static void test_counts_parse(void **state)
{
	uint32_t v[8];

	(void)state;
	assert_int_equal(pmi_counts_parse("4(x2),3", v, 8), 3);
	assert_true(v[0] == 4 && v[1] == 4 && v[2] == 3);
	assert_int_equal(pmi_counts_parse("1", v, 8), 1);
	assert_int_equal(pmi_counts_parse("2,2,1(x3)", v, 8), 5);
	assert_true(v[4] == 1);
	/* malformed, or more nodes than room */
	assert_int_equal(pmi_counts_parse("4(x", v, 8), -1);
	assert_int_equal(pmi_counts_parse("4(x0)", v, 8), -1);
	assert_int_equal(pmi_counts_parse("a", v, 8), -1);
	assert_int_equal(pmi_counts_parse("4;3", v, 8), -1);
	assert_int_equal(pmi_counts_parse("1(x9)", v, 8), -1);
	assert_int_equal(pmi_counts_parse("1(x4294967295),1", v, 8), -1);
	assert_int_equal(pmi_counts_parse("", v, 8), 0);
	assert_int_equal(pmi_counts_parse(NULL, v, 8), 0);
}

static void test_mapping(void **state)
{
	static const uint32_t block[] = {4, 4}, uneven[] = {3, 1}, mixed[] = {2, 2, 2, 1, 5};
	char buf[128];

	(void)state;
	assert_int_equal(pmi_mapping(block, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "(vector,(0,2,4))");
	assert_int_equal(pmi_mapping(uneven, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "(vector,(0,1,3),(1,1,1))");
	assert_int_equal(pmi_mapping(mixed, 5, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "(vector,(0,3,2),(3,1,1),(4,1,5))");
	assert_int_equal(pmi_mapping(mixed, 5, buf, 12), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counts_parse),
	    cmocka_unit_test(test_mapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
