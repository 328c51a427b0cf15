/* test_job_hooks.c - the job_changed() observers of job.c: hooks run in
 * registration order, a ninth is refused, job_seq_is_recorded() holds with
 * no hooks at all, and job_hooks_clear() forgets them (the next
 * job_hook_add() starts a fresh registry). On a bare struct ctld, without
 * the fixture, so nothing else is registered.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "slurmctld/ctld.h"
#include "slurmctld/job.h"

static char order[16];
static struct job a_job; /* what changed: any job */
static size_t norder;

static void changed_a(struct ctld *c, struct job *job)
{
	(void)c;
	(void)job;
	order[norder++] = 'a';
}

static void changed_b(struct ctld *c, struct job *job)
{
	(void)c;
	(void)job;
	order[norder++] = 'b';
}

static const struct job_hook hook_a = {.changed = changed_a};
static const struct job_hook hook_b = {.changed = changed_b};

static bool never_recorded(const struct ctld *c, uint64_t seq)
{
	(void)c;
	(void)seq;
	return false;
}

static const struct job_hook unrecorded = {.is_recorded = never_recorded};

static void test_hooks_run_in_registration_order(void **state)
{
	struct ctld c = {0};

	(void)state;
	norder = 0;
	assert_true(job_seq_is_recorded(&c, 1)); /* no hooks: nothing waits */
	job_changed(&c, &a_job); /* no hooks: the update time, the kept record */
	assert_int_not_equal(c.job_last_update, 0);
	assert_int_equal(job_hook_add(&c, &hook_b), 0);
	assert_int_equal(job_hook_add(&c, &hook_a), 0);
	assert_int_equal(job_hook_add(&c, &unrecorded), 0);
	job_changed(&c, &a_job);
	assert_int_equal(norder, 2);
	assert_memory_equal(order, "ba", 2);
	assert_false(job_seq_is_recorded(&c, 1));
	job_hooks_clear(&c);
	assert_null(c.job_hooks);
	assert_true(job_seq_is_recorded(&c, 1));
	job_hooks_clear(&c); /* twice is harmless */
}

static void test_a_ninth_hook_is_refused_and_clear_makes_room(void **state)
{
	struct ctld c = {0};

	(void)state;
	norder = 0;
	for (int i = 0; i < 8; i++)
		assert_int_equal(job_hook_add(&c, &hook_a), 0);
	assert_int_equal(job_hook_add(&c, &hook_b), -ENOSPC);
	job_changed(&c, &a_job);
	assert_int_equal(norder, 8);
	assert_memory_equal(order, "aaaaaaaa", 8);
	job_hooks_clear(&c);
	assert_int_equal(job_hook_add(&c, &hook_b), 0);
	job_changed(&c, &a_job);
	assert_int_equal(norder, 9);
	assert_int_equal(order[8], 'b');
	job_hooks_clear(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hooks_run_in_registration_order),
	    cmocka_unit_test(test_a_ninth_hook_is_refused_and_clear_makes_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
