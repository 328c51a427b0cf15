/* test_pack.c - wire primitives: big-endian layout, round trips, the
 * sticky error, string rules (NUL, embedded NUL, caps) and count caps.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/pack.h"
#include "common/sl_errno.h"

static void test_integers_are_big_endian(void **state)
{
	struct pack_buf b = { 0 };
	static const uint8_t want[] = { 0xab, 0x01, 0x02, 0x01, 0x02, 0x03, 0x04,
					0, 0, 0, 0, 0, 0, 0, 0x2a, 1 };

	(void)state;
	pack_u8(&b, 0xab);
	pack_u16(&b, 0x0102);
	pack_u32(&b, 0x01020304);
	pack_u64(&b, 42);
	pack_bool(&b, true);
	assert_int_equal(b.err, 0);
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	pack_buf_done(&b);
}

static void test_every_primitive_round_trips(void **state)
{
	struct pack_buf b = { 0 }, in;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32, mlen, n;
	uint64_t u64;
	bool bo;
	time_t t;
	double d;
	char *str, *nul, **v;
	void *mem;
	char *const strv[] = { "a", "bc" };

	(void)state;
	pack_u8(&b, 7);
	pack_u16(&b, 65535);
	pack_u32(&b, 4000000000u);
	pack_u64(&b, 1ull << 60);
	pack_bool(&b, false);
	pack_time(&b, -5);
	pack_double(&b, 8.14);
	pack_str(&b, "hello");
	pack_str(&b, NULL);
	pack_mem(&b, "xyz", 3);
	pack_strv(&b, strv, 2);
	in = pack_buf_view(b.data, b.len);
	unpack_u8(&in, &u8);
	unpack_u16(&in, &u16);
	unpack_u32(&in, &u32);
	unpack_u64(&in, &u64);
	unpack_bool(&in, &bo);
	unpack_time(&in, &t);
	unpack_double(&in, &d);
	unpack_str(&in, &str, 100);
	unpack_str(&in, &nul, 100);
	unpack_mem(&in, &mem, &mlen, 100);
	unpack_strv(&in, &v, &n, 10);
	assert_int_equal(in.err, 0);
	assert_int_equal(pack_remaining(&in), 0);
	assert_int_equal(u8, 7);
	assert_int_equal(u16, 65535);
	assert_int_equal(u32, 4000000000u);
	assert_true(u64 == 1ull << 60);
	assert_false(bo);
	assert_int_equal(t, -5);
	assert_true(d == 8.14);
	assert_string_equal(str, "hello");
	assert_null(nul);
	assert_int_equal(mlen, 3);
	assert_memory_equal(mem, "xyz", 3);
	assert_int_equal(n, 2);
	assert_string_equal(v[1], "bc");
	free(str);
	free(mem);
	strv_free(v, n);
	pack_buf_done(&b);
}

static void test_short_input_sets_a_sticky_error(void **state)
{
	static const uint8_t two[] = { 0, 1 };
	struct pack_buf in = pack_buf_view(two, sizeof(two));
	uint32_t u32 = 99;
	uint8_t u8 = 99;

	(void)state;
	unpack_u32(&in, &u32);
	assert_int_equal(in.err, -SLURM_PROTOCOL_INSUFFICIENT_SPACE);
	assert_int_equal(u32, 0);
	unpack_u8(&in, &u8); /* would fit, but the error is sticky */
	assert_int_equal(u8, 0);
	assert_int_equal(in.pos, 0);
}

struct bad_str {
	const char *name;
	uint8_t bytes[12];
	size_t len;
	size_t max;
	int err;
};

static void test_bad_strings_are_refused(void **state)
{
	static const struct bad_str cases[] = {
		{ "no NUL at the end", { 0, 0, 0, 2, 'a', 'b' }, 6, 100, -EBADMSG },
		{ "NUL in the middle", { 0, 0, 0, 3, 'a', 0, 0 }, 7, 100, -EBADMSG },
		{ "longer than the cap", { 0, 0, 0, 4, 'a', 'b', 'c', 0 }, 8, 3, -EMSGSIZE },
		{ "length past the end", { 0, 0, 0, 9, 'a', 0 }, 6, 100,
		  -SLURM_PROTOCOL_INSUFFICIENT_SPACE },
		{ "huge length", { 0xff, 0xff, 0xff, 0xff }, 4, 1u << 20, -EMSGSIZE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pack_buf in = pack_buf_view(cases[i].bytes, cases[i].len);
		char *s = (char *)1;

		unpack_str(&in, &s, cases[i].max);
		if (in.err != cases[i].err)
			fail_msg("%s: err %d, want %d", cases[i].name, in.err, cases[i].err);
		assert_null(s);
	}
}

static void test_counts_are_capped_by_the_bytes_left(void **state)
{
	static const uint8_t bytes[] = { 0, 0, 0, 100, 1, 2, 3, 4 };
	struct pack_buf in = pack_buf_view(bytes, sizeof(bytes));
	uint32_t n;

	(void)state;
	unpack_count(&in, &n, 1000, 4); /* 100 elements of >= 4 bytes in 4 bytes: no */
	assert_int_equal(in.err, -EMSGSIZE);
	assert_int_equal(n, 0);
}

static void test_bool_other_than_0_or_1_is_refused(void **state)
{
	static const uint8_t two[] = { 2 };
	struct pack_buf in = pack_buf_view(two, 1);
	bool v;

	(void)state;
	unpack_bool(&in, &v);
	assert_int_equal(in.err, -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers_are_big_endian),
		cmocka_unit_test(test_every_primitive_round_trips),
		cmocka_unit_test(test_short_input_sets_a_sticky_error),
		cmocka_unit_test(test_bad_strings_are_refused),
		cmocka_unit_test(test_counts_are_capped_by_the_bytes_left),
		cmocka_unit_test(test_bool_other_than_0_or_1_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
