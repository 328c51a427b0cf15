/* test_conn_limit.c - the caps of an RPC listener (conn_limit.h): the
 * connection cap from RLIMIT_NOFILE, requests per user counted and given
 * back, the buffered-bytes cap that only refuses large frames, the
 * budgets of reply bytes not yet taken (per user and in all); and the
 * unsigned reply for unauthenticated peers (frame_build_unsigned), which
 * no munged is needed to build and no reader takes as authenticated.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/conn_limit.h"
#include "common/errprintf.h"
#include "common/frame.h"
#include "common/limits.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/sl_errno.h"

static void test_max_open_keeps_a_reserve_and_a_ceiling(void **state)
{
	(void)state;
	assert_int_equal(conn_limit_max_open(1024), 1024 - CONN_LIMIT_NOFILE_RESERVE);
	assert_int_equal(conn_limit_max_open(20000), CONN_LIMIT_OPEN_MAX);
	assert_int_equal(conn_limit_max_open(1u << 20), CONN_LIMIT_OPEN_MAX);
	assert_int_equal(conn_limit_max_open(100), 50); /* tiny limits: half */
	assert_int_equal(conn_limit_max_open(1), 1);
	assert_int_equal(conn_limit_max_open(0), 1);
	assert_int_equal(conn_limit_max_per_uid(1024), 256);
	assert_int_equal(conn_limit_max_per_uid(2), 1);
	assert_true(conn_limit_max_buffered(64u << 20) == (size_t)256 << 20);
	assert_true(conn_limit_max_buffered(1u << 30) == (size_t)4 << 30);
	assert_true(conn_limit_max_buffered(1024) == (size_t)256 << 20);
}

static void test_is_full_at_max_open(void **state)
{
	struct conn_limit l = {.max_open = 2};

	(void)state;
	assert_false(conn_limit_is_full(&l));
	l.open = 1;
	assert_false(conn_limit_is_full(&l));
	l.open = 2;
	assert_true(conn_limit_is_full(&l));
}

static void test_requests_per_uid_are_capped_and_given_back(void **state)
{
	struct conn_limit l = {.max_per_uid = 2};

	(void)state;
	assert_int_equal(conn_limit_uid_take(&l, 1000), 0);
	assert_int_equal(conn_limit_uid_take(&l, 1000), 0);
	assert_int_equal(conn_limit_uid_take(&l, 1000), -EAGAIN);
	assert_int_equal(conn_limit_uid_count(&l, 1000), 2); /* the refusal counted nothing */
	/* another user is not held by the first one's flood */
	assert_int_equal(conn_limit_uid_take(&l, 1001), 0);
	assert_int_equal(conn_limit_uid_count(&l, 1001), 1);
	conn_limit_uid_put(&l, 1000);
	assert_int_equal(conn_limit_uid_take(&l, 1000), 0);
	conn_limit_uid_put(&l, 1000);
	conn_limit_uid_put(&l, 1000);
	assert_int_equal(conn_limit_uid_count(&l, 1000), 0);
	conn_limit_uid_put(&l, 1000); /* one too many: ignored */
	assert_int_equal(conn_limit_uid_count(&l, 1000), 0);
	assert_int_equal(conn_limit_uid_count(&l, 1001), 1);
	conn_limit_uid_put(&l, 1001);
	assert_int_equal(l.nuids, 0);
	conn_limit_done(&l);
}

static void test_many_users_grow_the_table(void **state)
{
	struct conn_limit l = {.max_per_uid = 1};

	(void)state;
	for (uid_t u = 1; u <= 100; u++)
		assert_int_equal(conn_limit_uid_take(&l, u), 0);
	for (uid_t u = 1; u <= 100; u++) {
		assert_int_equal(conn_limit_uid_count(&l, u), 1);
		assert_int_equal(conn_limit_uid_take(&l, u), -EAGAIN);
	}
	for (uid_t u = 100; u >= 1; u--)
		conn_limit_uid_put(&l, u);
	assert_int_equal(l.nuids, 0);
	conn_limit_done(&l);
	assert_null(l.uids);
}

static void test_no_per_uid_cap_when_zero(void **state)
{
	struct conn_limit l = {0};

	(void)state;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(conn_limit_uid_take(&l, 42), 0);
	assert_int_equal(conn_limit_uid_count(&l, 42), 1000);
	conn_limit_done(&l);
}

static void test_buffer_cap_refuses_only_large_frames(void **state)
{
	struct conn_limit l = {.max_buffered = 1u << 20};

	(void)state;
	/* a large, authenticated frame fills the budget */
	assert_true(conn_limit_buffer(&l, 0, 1u << 20));
	/* a small frame is not refused: they are bounded by max_open */
	assert_true(conn_limit_buffer(&l, 0, 200));
	assert_true(l.buffered == (1u << 20) + 200);
	/* a second large one is */
	assert_false(conn_limit_buffer(&l, 0, SL_FRAME_PREAUTH + 1));
	/* its bytes given back on close */
	assert_true(conn_limit_buffer(&l, SL_FRAME_PREAUTH + 1, 0));
	assert_true(conn_limit_buffer(&l, 1u << 20, 0));
	assert_true(conn_limit_buffer(&l, 200, 0));
	assert_true(l.buffered == 0);
}

static void test_unread_reply_bytes_count_per_user_and_in_all(void **state)
{
	struct conn_limit l = {.max_out_per_uid = 100, .max_out = 250};
	uid_t a = 1000, b = 1001;

	(void)state;
	assert_int_equal(conn_limit_uid_take(&l, a), 0);
	assert_int_equal(conn_limit_uid_take(&l, a), 0);
	assert_int_equal(conn_limit_uid_take(&l, b), 0);
	/* two replies of a's, written whole, then partly taken by the socket */
	conn_limit_out(&l, &a, 0, 60);
	conn_limit_out(&l, &a, 0, 60);
	assert_true(conn_limit_uid_out(&l, a) == 120);
	assert_true(conn_limit_uid_is_over_out(&l, a));
	assert_false(conn_limit_uid_is_over_out(&l, b)); /* b is not held to a's */
	conn_limit_out(&l, &a, 60, 40);
	assert_true(conn_limit_uid_out(&l, a) == 100);
	assert_false(conn_limit_uid_is_over_out(&l, a)); /* at the budget is not over it */
	/* root's reply (not counted per user) and b's fill the total */
	conn_limit_out(&l, NULL, 0, 100);
	assert_false(conn_limit_is_over_out(&l));
	conn_limit_out(&l, &b, 0, 51);
	assert_true(l.out == 251);
	assert_true(conn_limit_is_over_out(&l));
	assert_false(conn_limit_uid_is_over_out(&l, b));
	/* everything given back: the table empties once each request is put */
	conn_limit_out(&l, &a, 40, 0);
	conn_limit_out(&l, &a, 60, 0);
	conn_limit_out(&l, &b, 51, 0);
	conn_limit_out(&l, NULL, 100, 0);
	assert_true(l.out == 0 && conn_limit_uid_out(&l, a) == 0);
	conn_limit_uid_put(&l, a);
	conn_limit_uid_put(&l, a);
	conn_limit_uid_put(&l, b);
	assert_int_equal(l.nuids, 0);
	assert_true(conn_limit_uid_out(&l, a) == 0); /* no entry: nothing */
	conn_limit_done(&l);
}

static void test_no_reply_budget_when_zero(void **state)
{
	struct conn_limit l = {0};
	uid_t a = 1000;

	(void)state;
	assert_int_equal(conn_limit_uid_take(&l, a), 0);
	conn_limit_out(&l, &a, 0, (size_t)1 << 40);
	assert_false(conn_limit_uid_is_over_out(&l, a));
	assert_false(conn_limit_is_over_out(&l));
	conn_limit_out(&l, &a, (size_t)1 << 40, 0);
	conn_limit_uid_put(&l, a);
	conn_limit_done(&l);
}

static void test_an_unsigned_reply_is_readable_but_never_authenticated(void **state)
{
	struct rc_msg m = {.rc = SLURM_PROTOCOL_AUTHENTICATION_ERROR};
	struct pack_buf out = {0};
	struct sl_error err = {""};
	struct frame f;
	uid_t uid;
	gid_t gid;

	(void)state;
	/* no munged anywhere: building it must not need one */
	assert_int_equal(frame_build_unsigned(RESPONSE_SLURM_RC, &m, &out), 0);
	assert_true(out.len > 4);
	assert_int_equal(frame_parse(out.data + 4, out.len - 4, &f), 0);
	assert_int_equal(f.type, RESPONSE_SLURM_RC);
	assert_null(f.cred);
	assert_int_equal(frame_verify(&f, "/nonexistent/munge.socket", &uid, &gid, &err),
			 -SLURM_PROTOCOL_AUTHENTICATION_ERROR);
	assert_non_null(strstr(err.text, "missing credential"));
	frame_done(&f);
	pack_buf_done(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_max_open_keeps_a_reserve_and_a_ceiling),
	    cmocka_unit_test(test_is_full_at_max_open),
	    cmocka_unit_test(test_requests_per_uid_are_capped_and_given_back),
	    cmocka_unit_test(test_many_users_grow_the_table),
	    cmocka_unit_test(test_no_per_uid_cap_when_zero),
	    cmocka_unit_test(test_buffer_cap_refuses_only_large_frames),
	    cmocka_unit_test(test_unread_reply_bytes_count_per_user_and_in_all),
	    cmocka_unit_test(test_no_reply_budget_when_zero),
	    cmocka_unit_test(test_an_unsigned_reply_is_readable_but_never_authenticated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
