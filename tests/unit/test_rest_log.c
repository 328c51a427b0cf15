/* test_rest_log.c - a request's words cannot forge log lines: control
 * bytes are escaped by the logger (log_escape), and slurmrestd's request
 * lines are rate-limited (req_log). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/log.h"
#include "slurmrestd/req_log.h"

static void test_escape_control_bytes(void **state)
{
	const char in[] = "a\nb\r\x1b[31m\tc\x7f";
	char out[64];
	size_t n;

	(void)state;
	n = log_escape(out, sizeof(out), in, sizeof(in) - 1);
	assert_string_equal(out, "a\\x0ab\\x0d\\x1b[31m\tc\\x7f");
	assert_int_equal(n, strlen(out));
	assert_int_equal(log_escape(NULL, 0, in, sizeof(in) - 1), n);
}

/* A cut never leaves half an escape. */
static void test_escape_truncates_whole(void **state)
{
	char out[4];

	(void)state;
	assert_int_equal(log_escape(out, sizeof(out), "ab\n", 3), 6);
	assert_string_equal(out, "ab");
	assert_int_equal(log_escape(out, sizeof(out), "abc", 3), 3);
	assert_string_equal(out, "abc");
}

static size_t count_lines(const char *path, const char *word)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, word))
			n++;
	fclose(f);
	return n;
}

/* A %0A in a path is one line in the log, not two; and a flood of
 * request lines writes REQ_LOG_BURST a second and counts the rest. */
static void test_request_lines(void **state)
{
	char path[] = "/tmp/test_rest_log.XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(log_init("t", LOG_LEVEL_INFO, path, 1), 0);
	req_log(LOG_LEVEL_ERROR, "peer: GET %s: refused", "/x\n[2026-01-01T00:00:00.000] forged");
	assert_int_equal(count_lines(path, "forged"), 1);
	assert_int_equal(count_lines(path, "] forged"), 1); /* the quoted one only */
	assert_int_equal(count_lines(path, "/x\\x0a["), 1);
	for (int i = 0; i < 5 * REQ_LOG_BURST; i++)
		req_log(LOG_LEVEL_INFO, "flood %d", i);
	/* the loop takes well under a second; at most two windows */
	assert_true(count_lines(path, "flood") <= 2 * REQ_LOG_BURST);
	assert_true(count_lines(path, "flood") >= REQ_LOG_BURST - 1);
	log_fini();
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escape_control_bytes),
	    cmocka_unit_test(test_escape_truncates_whole),
	    cmocka_unit_test(test_request_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
