/* test_msg_prio.c - the priority factor messages: values survive the
 * wire, hostile counts are refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/msg.h"
#include "common/pack.h"

#define VER PROTOCOL_VERSION

static void test_factors_round_trip(void **state)
{
	char *names[] = {"cpu", "gres/gpu"};
	double weights[] = {100, 0.5}, tres[] = {0.25, 1};
	struct prio_job_factors j = {.job_id = 7,
				     .user_id = 1000,
				     .partition = "debug",
				     .priority = 900,
				     .nice = 0x80000064u,
				     .age = 0.5,
				     .job_size = 0.375,
				     .part = 0.25,
				     .tres_count = 2,
				     .tres = tres};
	struct prio_factors_resp r = {.w_age = 6000,
				      .w_job_size = 800,
				      .tres_count = 2,
				      .tres_names = names,
				      .tres_weights = weights,
				      .count = 1,
				      .jobs = &j};
	struct pack_buf b = {0};
	struct prio_factors_resp *got = NULL;

	(void)state;
	msg_lookup(RESPONSE_PRIORITY_FACTORS)->pack(&r, &b, VER);
	assert_int_equal(b.err, 0);
	assert_int_equal(
	    msg_unpack_body(RESPONSE_PRIORITY_FACTORS, b.data, b.len, VER, (void **)&got), 0);
	assert_int_equal(got->w_age, 6000);
	assert_string_equal(got->tres_names[1], "gres/gpu");
	assert_true(got->tres_weights[1] == 0.5);
	assert_int_equal(got->count, 1);
	assert_int_equal(got->jobs[0].priority, 900);
	assert_string_equal(got->jobs[0].partition, "debug");
	assert_null(got->jobs[0].account);
	assert_true(got->jobs[0].job_size == 0.375 && got->jobs[0].tres[0] == 0.25);
	assert_int_equal(got->jobs[0].nice, 0x80000064u);
	msg_free(msg_lookup(RESPONSE_PRIORITY_FACTORS), got);
	pack_buf_done(&b);
}

static void test_hostile_counts_are_refused(void **state)
{
	struct pack_buf b = {0};
	void *m = (void *)1;

	(void)state;
	/* a request claiming a billion job ids in 8 bytes */
	pack_u32(&b, 1000000000u);
	pack_u32(&b, 0);
	assert_true(msg_unpack_body(REQUEST_PRIORITY_FACTORS, b.data, b.len, VER, &m) < 0);
	assert_null(m);
	pack_buf_done(&b);
	/* a response with more TRES names than any configuration has */
	b = (struct pack_buf){0};
	for (int i = 0; i < 7; i++)
		pack_u32(&b, 0);
	pack_u32(&b, 65);
	for (int i = 0; i < 65; i++)
		pack_str(&b, "cpu");
	m = (void *)1;
	assert_true(msg_unpack_body(RESPONSE_PRIORITY_FACTORS, b.data, b.len, VER, &m) < 0);
	assert_null(m);
	pack_buf_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_factors_round_trip),
	    cmocka_unit_test(test_hostile_counts_are_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
