/* test_auth_munge.c - what a munge failure is called and returned: the
 * credential's faults are authentication errors, the local munged's are
 * ESLURM_AUTH_NET_ERROR (never "invalid credential"); the retry schedule
 * stays within its budget; a munged that is not there is named, with its
 * socket, after a few quick tries, and a second call right after tries once.
 * No munged runs here: a socket path that does not exist stands for a
 * stopped one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/auth_munge.h"
#include "common/errprintf.h"
#include "common/frame.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/sl_errno.h"

#define NO_MUNGED "/nonexistent/test_auth_munge/munge.socket"

static const struct {
	munge_err_t e;
	int code;
	bool is_local;
	bool is_transient;
	const char *says; /* in the text */
} expected[] = {
    {EMUNGE_SNAFU, -ESLURM_AUTH_NET_ERROR, true, false, "munged"},
    {EMUNGE_BAD_ARG, -ESLURM_AUTH_BADARG, true, false, "argument"},
    {EMUNGE_BAD_LENGTH, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "too long"},
    {EMUNGE_OVERFLOW, -ESLURM_AUTH_NET_ERROR, true, false, "overflow"},
    {EMUNGE_NO_MEMORY, -ENOMEM, true, false, "memory"},
    {EMUNGE_SOCKET, -ESLURM_AUTH_NET_ERROR, true, true, "munged unreachable"},
    {EMUNGE_TIMEOUT, -ESLURM_AUTH_NET_ERROR, true, true, "munged timed out"},
    {EMUNGE_BAD_CRED, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "malformed"},
    {EMUNGE_BAD_VERSION, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "version"},
    {EMUNGE_BAD_CIPHER, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "cipher"},
    {EMUNGE_BAD_MAC, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "MAC"},
    {EMUNGE_BAD_ZIP, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "compression"},
    {EMUNGE_BAD_REALM, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "realm"},
    {EMUNGE_CRED_INVALID, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "invalid"},
    {EMUNGE_CRED_EXPIRED, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "expired"},
    {EMUNGE_CRED_REWOUND, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "rewound"},
    {EMUNGE_CRED_REPLAYED, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "replayed"},
    {EMUNGE_CRED_UNAUTHORIZED, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, false, false, "not meant"},
};

static unsigned ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned)((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000);
}

static void test_every_munge_error_maps_to_its_code_and_words(void **state)
{
	(void)state;
	assert_int_equal(ARRAY_SIZE(expected), EMUNGE_CRED_UNAUTHORIZED);
	for (size_t i = 0; i < ARRAY_SIZE(expected); i++) {
		struct auth_munge_cause c = auth_munge_cause(expected[i].e);

		assert_int_equal(c.code, expected[i].code);
		assert_int_equal(c.is_local, expected[i].is_local);
		assert_int_equal(c.is_transient, expected[i].is_transient);
		assert_non_null(strstr(c.what, expected[i].says));
		/* a local failure is never called a bad credential */
		if (c.is_local) {
			assert_int_not_equal(c.code, -SLURM_PROTOCOL_AUTHENTICATION_ERROR);
			assert_null(strstr(c.what, "credential"));
		}
	}
}

static void test_an_unknown_munge_error_is_a_local_failure(void **state)
{
	struct auth_munge_cause c = auth_munge_cause((munge_err_t)99);

	(void)state;
	assert_int_equal(c.code, -ESLURM_AUTH_NET_ERROR);
	assert_true(c.is_local);
	assert_false(c.is_transient);
	assert_string_equal(sl_strerror(c.code), "Failed to connect to authentication agent");
}

static void test_retries_pause_10_50_200_ms_within_the_budget(void **state)
{
	static const struct {
		unsigned tries_done, elapsed_ms;
		int pause;
	} rows[] = {
	    {0, 0, -1}, /* nothing tried yet: nothing to retry */
	    {1, 0, 10},	   {2, 11, 50}, {3, 62, 200}, {4, 263, -1}, /* three retries are all */
	    {1, 295, -1},  /* libmunge already took the budget: no pause past it */
	    {3, 101, -1},  /* 101 + 200 > 300 */
	    {3, 100, 200}, /* ends exactly at the budget */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		assert_int_equal(auth_munge_backoff_ms(rows[i].tries_done, rows[i].elapsed_ms),
				 rows[i].pause);
}

/* Sign (or decode) through a munged that is not there: fails with
 * EMUNGE_SOCKET and no output; returns how long it took. */
static unsigned call_no_munged(bool is_decode, struct sl_error *err)
{
	struct timespec t0;
	char *cred = (char *)1;
	void *payload = (void *)1;
	int len = -1;
	munge_err_t e;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (is_decode)
		e = auth_munge_decode(NO_MUNGED, "MUNGE:abc:", &payload, &len, NULL, NULL, err);
	else
		e = auth_munge_encode(NO_MUNGED, "x", 1, &cred, err);
	assert_int_equal(e, EMUNGE_SOCKET);
	assert_null(is_decode ? payload : (void *)cred);
	assert_non_null(strstr(err->text, NO_MUNGED)); /* munged's socket is named */
	return ms_since(&t0);
}

/* The two calls share the thread's memory of munged: keep them in order. */
static void test_a_missing_munged_is_named_and_retried_then_tried_once(void **state)
{
	struct sl_error err = {""};
	unsigned ms;

	(void)state;
	ms = call_no_munged(false, &err);
	assert_non_null(strstr(err.text, "cannot sign: munged unreachable"));
	assert_non_null(strstr(err.text, "4 tries"));
	assert_true(ms >= 260 && ms < 1000);

	/* right after: one try, no pauses, the same words */
	ms = call_no_munged(true, &err);
	assert_non_null(strstr(err.text, "cannot check the credential: munged unreachable"));
	assert_null(strstr(err.text, "tries"));
	assert_true(ms < 100);
}

static void test_a_frame_that_cannot_be_signed_says_so_with_a_local_code(void **state)
{
	struct rc_msg m = {.rc = 0};
	struct pack_buf out = {0};
	struct sl_error err = {""};

	(void)state;
	assert_int_equal(frame_build(RESPONSE_SLURM_RC, &m, NO_MUNGED, &out, &err),
			 -ESLURM_AUTH_NET_ERROR);
	assert_non_null(strstr(err.text, NO_MUNGED));
	assert_null(strstr(err.text, "invalid"));
	pack_buf_done(&out);
}

static void test_a_missing_credential_is_refused_without_asking_munged(void **state)
{
	struct frame_auth a;
	struct sl_error err = {""};

	(void)state;
	assert_int_equal(frame_cred_decode(NULL, NO_MUNGED, &a, &err),
			 -SLURM_PROTOCOL_AUTHENTICATION_ERROR);
	assert_string_equal(err.text, "missing credential");
	assert_int_equal(frame_cred_decode("", NO_MUNGED, &a, &err),
			 -SLURM_PROTOCOL_AUTHENTICATION_ERROR);
	assert_string_equal(err.text, "missing credential");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_munge_error_maps_to_its_code_and_words),
	    cmocka_unit_test(test_an_unknown_munge_error_is_a_local_failure),
	    cmocka_unit_test(test_retries_pause_10_50_200_ms_within_the_budget),
	    cmocka_unit_test(test_a_missing_munged_is_named_and_retried_then_tried_once),
	    cmocka_unit_test(test_a_frame_that_cannot_be_signed_says_so_with_a_local_code),
	    cmocka_unit_test(test_a_missing_credential_is_refused_without_asking_munged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
