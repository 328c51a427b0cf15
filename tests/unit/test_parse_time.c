/* test_parse_time.c - time limit grammar and Slurm's duration formats. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/parse_time.h"

static const struct {
	const char *in;
	uint32_t secs;
	uint32_t mins;
} good[] = {
    {"0", 0, 0},
    {"5", 300, 5},
    {"90", 5400, 90},
    {"1:30", 90, 2}, /* minutes round up */
    {"0:1", 1, 1},
    {"0:0", 0, 0},
    {"1:75", 135, 3}, /* fields are not range checked */
    {"1:00:00", 3600, 60},
    {"01:02:03", 3723, 63},
    {"2-0", 172800, 2880},
    {"1-2", 93600, 1560},
    {"1-2:3", 93780, 1563},
    {"1-02:03:04", 93784, 1564},
    {"3-", 259200, 4320},
    {"-1", INFINITE, INFINITE},
    {"INFINITE", INFINITE, INFINITE},
    {"unlimited", INFINITE, INFINITE},
    {"Unlimited", INFINITE, INFINITE},
    {"49710-6:28:13", 4294967293u, 71582789}, /* largest value below NO_VAL */
};

static void test_good_time_limits_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		uint32_t secs = 7, mins = 7;

		assert_int_equal(time_str2secs(good[i].in, &secs), 0);
		assert_int_equal(secs, good[i].secs);
		assert_int_equal(time_str2mins(good[i].in, &mins), 0);
		assert_int_equal(mins, good[i].mins);
	}
}

static const char *const bad[] = {
    "",
    "garbage",
    "1h",
    " 5",
    "5 ",
    "+5",
    "-5",
    "--1",
    "1--2",
    "1-2-3",
    "1:2:3:4",
    "1-2:3:4:5",
    ":5",
    "5:",
    "1::2",
    "1:2-3",
    "1-:2",
    "-",
    ":",
    "1.5",
    "0x10",
    "infinite1",
    "99999999999",
    "49710-6:28:14", /* NO_VAL */
    "49710-6:28:15", /* INFINITE written out */
};

static void test_bad_time_limits_are_rejected_and_output_untouched(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint32_t v = 7;

		assert_int_equal(time_str2secs(bad[i], &v), -EINVAL);
		assert_int_equal(time_str2mins(bad[i], &v), -EINVAL);
		assert_int_equal(v, 7);
	}
	assert_int_equal(time_str2secs(NULL, NULL), -EINVAL);
}

static const struct {
	uint32_t mins;
	const char *out;
} mins_out[] = {
    {0, "00:00:00"},
    {3, "00:03:00"},
    {10, "00:10:00"},
    {60, "01:00:00"},
    {1439, "23:59:00"},
    {1440, "1-00:00:00"},
    {2 * 1440 + 61, "2-01:01:00"},
    {INFINITE, "UNLIMITED"},
    {NO_VAL, "NONE"},
    {4294967293u, "2982616-04:13:00"},
};

static void test_minutes_print_as_scontrol_limits(void **state)
{
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(mins_out); i++)
		assert_string_equal(mins2time_str(mins_out[i].mins, buf, sizeof(buf)),
				    mins_out[i].out);
}

static const struct {
	uint32_t secs;
	const char *hms;
	const char *elapsed;
} secs_out[] = {
    {0, "00:00:00", "0:00"},
    {8, "00:00:08", "0:08"},
    {59, "00:00:59", "0:59"},
    {60, "00:01:00", "1:00"},
    {600, "00:10:00", "10:00"},
    {3599, "00:59:59", "59:59"},
    {3600, "01:00:00", "1:00:00"},
    {86399, "23:59:59", "23:59:59"},
    {86400, "1-00:00:00", "1-00:00:00"},
    {10 * 86400 + 3661, "10-01:01:01", "10-01:01:01"},
    {INFINITE, "UNLIMITED", "UNLIMITED"},
};

static void test_seconds_print_as_scontrol_and_squeue(void **state)
{
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(secs_out); i++) {
		assert_string_equal(secs2time_str(secs_out[i].secs, buf, sizeof(buf)),
				    secs_out[i].hms);
		assert_string_equal(secs2elapsed_str(secs_out[i].secs, buf, sizeof(buf)),
				    secs_out[i].elapsed);
	}
}

static void test_parsed_limits_print_back_the_same(void **state)
{
	static const char *const forms[] = {"00:03:00", "1-00:00:00", "2-01:01:00", "UNLIMITED"};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		uint32_t mins;

		assert_int_equal(time_str2mins(forms[i], &mins), 0);
		assert_string_equal(mins2time_str(mins, buf, sizeof(buf)), forms[i]);
	}
}

static void test_printers_truncate_like_snprintf(void **state)
{
	char buf[5];

	(void)state;
	assert_string_equal(mins2time_str(1440, buf, sizeof(buf)), "1-00");
	assert_string_equal(secs2elapsed_str(3600, buf, sizeof(buf)), "1:00");
	assert_string_equal(time_to_iso(0, buf, sizeof(buf)), "Unkn");
	assert_ptr_equal(time_to_iso(0, buf, 0), buf);
}

static void test_timestamps_print_iso_in_local_time(void **state)
{
	char buf[32];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	assert_string_equal(time_to_iso(0, buf, sizeof(buf)), "Unknown");
	assert_string_equal(time_to_iso(1796200325, buf, sizeof(buf)), "2026-12-02T08:32:05");
	setenv("TZ", "Europe/Berlin", 1);
	tzset();
	assert_string_equal(time_to_iso(1796200325, buf, sizeof(buf)), "2026-12-02T09:32:05");
	unsetenv("TZ");
	tzset();
}

/* SLURM_TIME_FORMAT: standard, relative, or a strftime format. */
static void test_slurm_time_format(void **state)
{
	time_t now = 1796216400; /* Wed 2026-12-02 13:00:00 UTC */
	char buf[64];
	static const struct {
		long delta;
		const char *want;
	} rel[] = {
	    {0, "13:00:00"},
	    {-13 * 3600, "00:00:00"},
	    {-13 * 3600 - 1, "Ystday 23:59"},
	    {-37 * 3600, "Ystday 00:00"},
	    {-61 * 3600, "30 Nov 00:00"},
	    {11 * 3600, "Tomorr 00:00"},
	    {12 * 3600 + 86400, "Fri 01:00"},
	    {6 * 86400, "Tue 13:00"},
	    {7 * 86400, "9 Dec 13:00"},
	    {-400L * 86400, "28 Oct 2025"},
	    {30L * 86400, "1 Jan 2027"},
	};

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	assert_string_equal(time_str_fmt(now, now, NULL, buf, sizeof(buf)), "2026-12-02T13:00:00");
	assert_string_equal(time_str_fmt(now, now, "standard", buf, sizeof(buf)),
			    "2026-12-02T13:00:00");
	assert_string_equal(time_str_fmt(now, now, "%a %T", buf, sizeof(buf)), "Wed 13:00:00");
	assert_string_equal(time_str_fmt(0, now, "relative", buf, sizeof(buf)), "Unknown");
	assert_string_equal(time_str_fmt(now, now, "%p", buf, 3), "PM");
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		time_str_fmt(now + rel[i].delta, now, "relative", buf, sizeof(buf));
		if (strcmp(buf, rel[i].want))
			fail_msg("relative %ld: got '%s', want '%s'", rel[i].delta, buf,
				 rel[i].want);
	}
	setenv("SLURM_TIME_FORMAT", "%Y/%m/%d", 1);
	assert_string_equal(time_display(now, buf, sizeof(buf)), "2026/12/02");
	assert_string_equal(time_to_iso(now, buf, sizeof(buf)),
			    "2026-12-02T13:00:00");  /* daemons */
	setenv("SLURM_TIME_FORMAT", "nopercent", 1); /* refused: the standard form */
	assert_string_equal(time_display(now, buf, sizeof(buf)), "2026-12-02T13:00:00");
	unsetenv("SLURM_TIME_FORMAT");
	assert_string_equal(time_display(now, buf, sizeof(buf)), "2026-12-02T13:00:00");
	unsetenv("TZ");
	tzset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good_time_limits_parse),
	    cmocka_unit_test(test_bad_time_limits_are_rejected_and_output_untouched),
	    cmocka_unit_test(test_minutes_print_as_scontrol_limits),
	    cmocka_unit_test(test_seconds_print_as_scontrol_and_squeue),
	    cmocka_unit_test(test_parsed_limits_print_back_the_same),
	    cmocka_unit_test(test_printers_truncate_like_snprintf),
	    cmocka_unit_test(test_timestamps_print_iso_in_local_time),
	    cmocka_unit_test(test_slurm_time_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
