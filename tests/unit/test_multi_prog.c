/* test_multi_prog.c - srun --multi-prog's configuration file: ranks,
 * ranges, "*", %t/%o, quotes, comments, extra arguments, bad lines.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/multi_prog.h"

/* The man page's example. */
static const char silly[] = "###########\n"
			    "# srun -n8 -l --multi-prog silly.conf\n"
			    "4-6       hostname\n"
			    "1,7       echo  task:%t\n"
			    "0,2-3     echo  offset:%o\n";

/* Task's argv joined by "|" ("" on an error). */
static char *joined(const char *text, uint32_t task, char *const *extra, size_t n, int *rc)
{
	static char buf[512];
	char **argv = NULL;
	unsigned line = 0;

	buf[0] = '\0';
	*rc = multi_prog_argv(text, task, extra, n, &argv, &line);
	for (size_t i = 0; *rc == 0 && argv[i]; i++) {
		if (i)
			strcat(buf, "|");
		strcat(buf, argv[i]);
	}
	multi_prog_argv_free(*rc == 0 ? argv : NULL);
	return buf;
}

static void test_the_man_page_example(void **state)
{
	static const char *const want[8] = {"echo|offset:0", "echo|task:1", "echo|offset:1",
					    "echo|offset:2", "hostname",    "hostname",
					    "hostname",	     "echo|task:7"};
	uint32_t n = 0;
	int any = 1, rc;
	unsigned line = 0;

	(void)state;
	for (uint32_t t = 0; t < 8; t++) {
		assert_string_equal(joined(silly, t, NULL, 0, &rc), want[t]);
		assert_int_equal(rc, 0);
	}
	joined(silly, 8, NULL, 0, &rc);
	assert_int_equal(rc, -ENOENT); /* no line names task 8 */
	assert_int_equal(multi_prog_check(silly, &n, &any, &line), 0);
	assert_int_equal(n, 8);
	assert_int_equal(any, 0);
}

static void test_star_quotes_and_extra_arguments(void **state)
{
	const char text[] = "0 printf '%t %o' \"a b\"\n"
			    "* echo rest-%t\n";
	char *extra[] = {"x", "y z"};
	uint32_t n = 0;
	int any = 0, rc;
	unsigned line = 0;

	(void)state;
	assert_string_equal(joined(text, 0, extra, 2, &rc), "printf|%t %o|a b|x|y z");
	assert_string_equal(joined(text, 5, NULL, 0, &rc), "echo|rest-5");
	assert_int_equal(multi_prog_check(text, &n, &any, &line), 0);
	assert_int_equal(n, 1);
	assert_int_equal(any, 1);
}

static void test_bad_lines_are_named(void **state)
{
	static const char *const bad[] = {
	    "0 true\n3-1 false\n", /* a backwards range */
	    "0 true\nx true\n",	   /* not a rank */
	    "0 true\n1\n",	   /* no program */
	    "0 true\n1, true\n",   /* an empty rank */
	};
	uint32_t n;
	int any, rc;
	unsigned line = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		line = 0;
		assert_int_equal(multi_prog_check(bad[i], &n, &any, &line), -EINVAL);
		assert_int_equal(line, 2);
	}
	joined("0 echo 'open\n", 0, NULL, 0, &rc);
	assert_int_equal(rc, -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_the_man_page_example),
	    cmocka_unit_test(test_star_quotes_and_extra_arguments),
	    cmocka_unit_test(test_bad_lines_are_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
