/* test_parse_mem.c - --mem grammar and TRES memory formatting. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/parse_mem.h"

static const struct {
	const char *in;
	uint64_t mb;
} good[] = {
    {"0", 0},
    {"100", 100},
    {"100M", 100},
    {"100m", 100},
    {"100MB", 100},
    {"100mb", 100},
    {"4G", 4096},
    {"4gB", 4096},
    {"2T", 2097152},
    {"2tb", 2097152},
    {"512K", 1},
    {"1K", 1},
    {"1024K", 1},
    {"1025k", 2},
    {"0K", 0},
    {"007", 7},
    {"9223372036854775807", INT64_MAX},
};

static void test_good_sizes_parse_to_megabytes(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		uint64_t mb = 7;

		assert_int_equal(mem_str2mb(good[i].in, &mb), 0);
		assert_int_equal(mb, good[i].mb);
	}
}

static const char *const bad[] = {
    "",
    "abc",
    "M",
    "-1",
    "+1",
    " 1",
    "1 ",
    "1.5G",
    "100B",
    "100P",
    "100X",
    "100MM",
    "100MBB",
    "100Bm",
    "1G2",
    "0x10",
    "9223372036854775808",
    "9007199254740993G", /* overflows once scaled */
};

static void test_bad_sizes_are_rejected_and_output_untouched(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint64_t mb = 7;

		assert_int_equal(mem_str2mb(bad[i], &mb), -EINVAL);
		assert_int_equal(mb, 7);
	}
	assert_int_equal(mem_str2mb(NULL, NULL), -EINVAL);
}

static const struct {
	uint64_t mb;
	const char *out;
} printed[] = {
    {0, "0"},	     {1, "1M"},		 {100, "100M"},	     {300, "300M"},
    {400, "400M"},   {512, "512M"},	 {1000, "1000M"},    {1024, "1G"},
    {1536, "1.50G"}, {2048, "2G"},	 {2560, "2.50G"},    {3000, "3000M"},
    {4000, "4000M"}, {4096, "4G"},	 {8000, "8000M"},    {16000, "16000M"},
    {1048576, "1T"}, {1572864, "1.50T"}, {1073741824, "1P"}, {1099511627776ull, "1?"},
};

static void test_megabytes_print_as_tres_strings(void **state)
{
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(printed); i++)
		assert_string_equal(mem_mb2str(printed[i].mb, buf, sizeof(buf)), printed[i].out);
}

static void test_huge_values_print_without_undefined_behaviour(void **state)
{
	char buf[64];

	(void)state;
	assert_non_null(mem_mb2str(UINT64_MAX, buf, sizeof(buf)));
	assert_non_null(mem_mb2str(UINT64_MAX - 1, buf, sizeof(buf)));
	assert_string_equal(mem_mb2str(4000, buf, 3), "40");
}

static void test_whole_units_round_trip(void **state)
{
	static const char *const forms[] = {"1G", "2T", "4000M", "3G"};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		uint64_t mb;

		assert_int_equal(mem_str2mb(forms[i], &mb), 0);
		assert_string_equal(mem_mb2str(mb, buf, sizeof(buf)), forms[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good_sizes_parse_to_megabytes),
	    cmocka_unit_test(test_bad_sizes_are_rejected_and_output_untouched),
	    cmocka_unit_test(test_megabytes_print_as_tres_strings),
	    cmocka_unit_test(test_huge_values_print_without_undefined_behaviour),
	    cmocka_unit_test(test_whole_units_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
