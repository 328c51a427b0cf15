/* test_msg_stats.c - the sdiag messages: every field and row survives a
 * round trip, a row count past the limit or past the bytes is refused,
 * and every truncation is refused without a leak.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/msg.h"
#include "common/msg_stats.h"
#include "common/msg_types.h"
#include "common/pack.h"

static struct stats_rpc types[] = {{4003, 5, 1234}, {2035, 1, 99}};
static struct stats_rpc users[] = {{0, 6, 1333}, {1001, 2, 50}};

static struct stats_info_msg sample(void)
{
	return (struct stats_info_msg){
	    .now = 1796201540,
	    .since = 1796200042,
	    .job_states_ts = 1796201516,
	    .bf_when_last = 1796201526,
	    .server_threads = 3,
	    .dbd_queue = 2,
	    .jobs_submitted = 11258,
	    .jobs_started = 6139,
	    .jobs_completed = 6108,
	    .jobs_canceled = 5103,
	    .jobs_failed = 7,
	    .jobs_pending = 1,
	    .jobs_running = 2,
	    .sched_last = 4670,
	    .sched_max = 160932,
	    .sched_cycles = 731,
	    .sched_queue_len = 3,
	    .sched_sum = 731ull * 20593,
	    .sched_depth_sum = 731ull * 69,
	    .bf_jobs_total = 294,
	    .bf_jobs_since_reset = 290,
	    .bf_cycles = 30,
	    .bf_last = 1129,
	    .bf_max = 1336771,
	    .bf_last_depth = 5,
	    .bf_last_depth_try = 4,
	    .bf_queue_len = 3,
	    .bf_table_size = 8,
	    .bf_sum = 30ull * 484146,
	    .bf_depth_sum = 480,
	    .bf_depth_try_sum = 420,
	    .bf_queue_len_sum = 90,
	    .bf_table_size_sum = 180,
	    .gettimeofday_latency = 20,
	    .rpc_type_count = 2,
	    .rpc_user_count = 2,
	    .rpc_types = types,
	    .rpc_users = users,
	};
}

static void test_every_field_and_row_round_trips(void **state)
{
	struct stats_info_msg in = sample(), *out = NULL;
	struct pack_buf b = {0};
	const struct msg_type *t = msg_lookup(RESPONSE_STATS_INFO);

	(void)state;
	assert_non_null(t);
	t->pack(&in, &b, PROTOCOL_VERSION);
	assert_int_equal(b.err, 0);
	assert_int_equal(
	    msg_unpack_body(RESPONSE_STATS_INFO, b.data, b.len, PROTOCOL_VERSION, (void **)&out),
	    0);
	assert_memory_equal(out->rpc_types, types, sizeof(types));
	assert_memory_equal(out->rpc_users, users, sizeof(users));
	{
		struct stats_rpc *ot = out->rpc_types, *ou = out->rpc_users;

		out->rpc_types = in.rpc_types; /* compare the scalars in one go */
		out->rpc_users = in.rpc_users;
		assert_memory_equal(out, &in, sizeof(in));
		out->rpc_types = ot;
		out->rpc_users = ou;
	}
	msg_free(t, out);
	pack_buf_done(&b);
}

static void test_request_round_trips(void **state)
{
	struct stats_info_req in = {.command = STATS_CMD_RESET}, *out = NULL;
	struct pack_buf b = {0};

	(void)state;
	msg_lookup(REQUEST_STATS_INFO)->pack(&in, &b, PROTOCOL_VERSION);
	assert_int_equal(
	    msg_unpack_body(REQUEST_STATS_INFO, b.data, b.len, PROTOCOL_VERSION, (void **)&out), 0);
	assert_int_equal(out->command, STATS_CMD_RESET);
	msg_free(msg_lookup(REQUEST_STATS_INFO), out);
	pack_buf_done(&b);
}

/* A hostile row count: over STATS_RPC_MAX, or more rows than bytes. */
static void test_row_counts_are_bounded(void **state)
{
	struct stats_info_msg in = {0};
	struct pack_buf b = {0};
	void *out = (void *)1;
	size_t at;

	(void)state;
	msg_lookup(RESPONSE_STATS_INFO)->pack(&in, &b, PROTOCOL_VERSION);
	at = b.len - 8; /* the two row counts are the last 8 bytes */
	for (int i = 0; i < 2; i++) {
		uint32_t bad = i ? STATS_RPC_MAX + 1 : 3; /* 3 rows, no bytes for them */
		uint8_t *copy = malloc(b.len);

		memcpy(copy, b.data, b.len);
		memcpy(copy + at, &bad, 4); /* either byte order is wrong */
		assert_true(
		    msg_unpack_body(RESPONSE_STATS_INFO, copy, b.len, PROTOCOL_VERSION, &out) < 0);
		assert_null(out);
		free(copy);
	}
	pack_buf_done(&b);
}

static void test_every_truncation_is_refused(void **state)
{
	struct stats_info_msg in = sample();
	struct pack_buf b = {0};

	(void)state;
	msg_lookup(RESPONSE_STATS_INFO)->pack(&in, &b, PROTOCOL_VERSION);
	for (size_t n = 0; n < b.len; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		void *out = (void *)1;

		memcpy(copy, b.data, n);
		assert_true(msg_unpack_body(RESPONSE_STATS_INFO, copy, n, PROTOCOL_VERSION, &out)
			    < 0);
		assert_null(out);
		free(copy);
	}
	pack_buf_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_field_and_row_round_trips),
	    cmocka_unit_test(test_request_round_trips),
	    cmocka_unit_test(test_row_counts_are_bounded),
	    cmocka_unit_test(test_every_truncation_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
