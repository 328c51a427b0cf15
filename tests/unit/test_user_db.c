/* test_user_db.c - who a uid is, asked of NSS: the name, the group's name
 * and every group; the cache on a loop: unknown first, fetched by its
 * thread, then served from memory until reconfigure forgets it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "slurmctld/user_db.h"

static void test_fetch_root(void **state)
{
	struct user_info u;
	bool has_0 = false;

	(void)state;
	assert_int_equal(user_db_fetch(0, 0, &u), 0);
	assert_true(u.is_found);
	assert_string_equal(u.name, "root");
	assert_string_equal(u.gid_name, "root");
	assert_true(u.ngids >= 1);
	for (uint32_t i = 0; i < u.ngids; i++)
		has_0 |= u.gids[i] == 0;
	assert_true(has_0);
	user_info_done(&u);
	assert_null(u.name);
}

static void test_fetch_unknown_uid(void **state)
{
	struct user_info u;

	(void)state;
	assert_int_equal(user_db_fetch(4123456789u, 4123456789u, &u), 0);
	assert_false(u.is_found);
	assert_null(u.name);
	assert_null(u.gid_name);
	assert_int_equal(u.ngids, 0);
	user_info_done(&u);
}

/* Run the loop until (uid, gid) is known, for at most ~5 s. */
static const struct user_info *wait_known(struct event_base *base, struct user_db *db, uid_t uid,
					  gid_t gid)
{
	const struct user_info *u = NULL;

	for (int i = 0; i < 500 && !(u = user_db_get(db, uid, gid)); i++) {
		struct timeval tv = {0, 10000};

		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	return u;
}

static void test_cache_on_a_loop(void **state)
{
	struct event_base *base = event_base_new();
	const struct user_info *u, *again;
	struct user_db *db;

	(void)state;
	assert_non_null(base);
	assert_int_equal(user_db_new(base, 600, &db), 0);
	assert_null(user_db_get(db, 0, 0)); /* never asked: fetched behind */
	u = wait_known(base, db, 0, 0);
	assert_non_null(u);
	assert_true(u->is_found);
	assert_string_equal(u->name, "root");
	again = user_db_get(db, 0, 0); /* fresh: the same entry, no fetch */
	assert_ptr_equal(again, u);
	user_db_flush(db); /* reconfigure: asked again */
	assert_null(user_db_get(db, 0, 0));
	assert_non_null(wait_known(base, db, 0, 0));
	user_db_free(db);
	event_base_free(base);
}

static void test_ttl_of_the_config(void **state)
{
	(void)state;
	assert_int_equal(user_db_ttl(NULL), 600);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fetch_root),
	    cmocka_unit_test(test_fetch_unknown_uid),
	    cmocka_unit_test(test_cache_on_a_loop),
	    cmocka_unit_test(test_ttl_of_the_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
