/* test_api_client.c - src/api on its own (linked with slcommon only): a
 * reply unwrapped into the code the caller gets, the calls' error paths
 * with no controller to reach, and the user and group name lookups.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/acct_client.h"
#include "api/ctld_fetch.h"
#include "api/id_name.h"
#include "api/job_fetch.h"
#include "common/conf.h"
#include "common/msg.h"
#include "common/sl_errno.h"

static struct rc_msg *rc_new(uint32_t rc)
{
	struct rc_msg *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->rc = rc;
	return m;
}

/* The wanted type is handed back untouched; an RC carrying an error is
 * that error; an RC of 0 or any other type where a message was wanted is
 * "unexpected", never read as the wanted one. */
static void test_unwrap(void **state)
{
	struct rc_msg *keep = rc_new(ESLURM_INVALID_JOB_ID);

	(void)state;
	assert_int_equal(ctld_fetch_unwrap(RESPONSE_SLURM_RC, keep, RESPONSE_SLURM_RC), 0);
	assert_int_equal(keep->rc, ESLURM_INVALID_JOB_ID); /* still ours */
	free(keep);
	assert_int_equal(
	    ctld_fetch_unwrap(RESPONSE_SLURM_RC, rc_new(ESLURM_INVALID_JOB_ID), RESPONSE_JOB_INFO),
	    -ESLURM_INVALID_JOB_ID);
	assert_int_equal(ctld_fetch_unwrap(RESPONSE_SLURM_RC, rc_new(0), RESPONSE_JOB_INFO),
			 -SLURM_UNEXPECTED_MSG_ERROR);
	assert_int_equal(ctld_fetch_unwrap(RESPONSE_JOB_INFO,
					   calloc(1, sizeof(struct job_info_msg)),
					   RESPONSE_NODE_INFO),
			 -SLURM_UNEXPECTED_MSG_ERROR);
	assert_int_equal(ctld_fetch_unwrap(RESPONSE_SLURM_RC, NULL, RESPONSE_JOB_INFO),
			 -SLURM_UNEXPECTED_MSG_ERROR);
}

/* No controller to name: each call says it cannot contact one, leaves
 * the caller's result alone and gives the request back as it was. */
static void test_calls_without_controller(void **state)
{
	struct sl_conf conf = {0};
	struct job_info_req jreq = {.show_flags = 0x1, .after_job_id = 7};
	struct job_info_msg *jobs = (struct job_info_msg *)&conf;
	struct acct_query_req areq = {0};
	struct acct_rows rows = {.count = 3};
	struct empty_msg ping = {0};
	void *m = &conf;

	(void)state;
	assert_int_equal(ctld_fetch(&conf, REQUEST_PING, &ping, RESPONSE_SLURM_RC, &m),
			 -SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR);
	assert_ptr_equal(m, &conf);
	assert_int_equal(job_fetch_all(&conf, &jreq, &jobs),
			 -SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR);
	assert_ptr_equal(jobs, (struct job_info_msg *)&conf);
	assert_int_equal(jreq.show_flags, 0x1);
	assert_int_equal(jreq.after_job_id, 7);
	assert_int_equal(acct_client_fetch(&conf, &areq, &rows),
			 -SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR);
	assert_int_equal(rows.count, 3);
}

/* Names come from a cache of the last lookups: asked again, the same
 * answer, known or not, and root's names are root's. */
static void test_id_names_are_remembered(void **state)
{
	char a[64] = "", b[64] = "";

	(void)state;
	assert_true(id_name_uid(0, a, sizeof(a)));
	assert_string_equal(a, "root");
	assert_true(id_name_uid(0, b, sizeof(b)));
	assert_string_equal(b, "root");
	assert_true(id_name_gid(0, a, sizeof(a)));
	assert_string_equal(a, "root");
	/* uid 16 shares root's slot: each keeps its own answer */
	strcpy(a, "unchanged");
	for (int i = 0; i < 2; i++) {
		assert_false(id_name_uid(4000000016u, a, sizeof(a)));
		assert_string_equal(a, "unchanged");
		assert_false(id_name_gid(4000000016u, a, sizeof(a)));
		assert_string_equal(a, "unchanged");
	}
	assert_true(id_name_uid(0, b, 3)); /* truncated to the buffer */
	assert_string_equal(b, "ro");
}

/* A name or the number of an existing id; anything else is refused and
 * the result left alone. */
static void test_ids_of_names(void **state)
{
	uint32_t id = 42;

	(void)state;
	assert_true(id_name_uid_of("root", &id));
	assert_int_equal(id, 0);
	id = 42;
	assert_true(id_name_uid_of("0", &id));
	assert_int_equal(id, 0);
	assert_true(id_name_gid_of("0", &id));
	assert_int_equal(id, 0);
	id = 42;
	assert_false(id_name_uid_of("", &id));
	assert_false(id_name_uid_of("no-such-user-here", &id));
	assert_false(id_name_uid_of("0x", &id));
	assert_false(id_name_uid_of("4000000016", &id));
	assert_false(id_name_gid_of("no-such-group-here", &id));
	assert_int_equal(id, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unwrap),
	    cmocka_unit_test(test_calls_without_controller),
	    cmocka_unit_test(test_id_names_are_remembered),
	    cmocka_unit_test(test_ids_of_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
