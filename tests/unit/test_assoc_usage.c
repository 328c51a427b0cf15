/* test_assoc_usage.c - usage decay, charging up the tree, reset
 * boundaries, and the assoc_usage file across a restart. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf_prio.h"
#include "common/macros.h"
#include "ctld_fixture.h"
#include "slurmctld/assoc.h"
#include "slurmctld/assoc_usage.h"

struct tree {
	struct assoc a[3]; /* root <- acct <- user */
	struct assoc *ap[3];
	struct qos q;
	struct qos *qp[1];
	struct assoc_table t;
};

static void tree_init(struct tree *x)
{
	*x = (struct tree){0};
	for (int i = 0; i < 3; i++) {
		x->a[i].id = (uint32_t)i + 1;
		x->a[i].parent = i ? &x->a[i - 1] : NULL;
		x->ap[i] = &x->a[i];
	}
	x->q = (struct qos){.id = 7, .usage_factor = 1};
	x->qp[0] = &x->q;
	x->t =
	    (struct assoc_table){.assocs = x->ap, .assoc_count = 3, .qos = x->qp, .qos_count = 1};
}

static void test_decay_halves_per_half_life(void **state)
{
	(void)state;
	assert_float_equal(assoc_usage_decay(600, 600), 0.5, 1e-12);
	assert_float_equal(assoc_usage_decay(600, 1200), 0.25, 1e-12);
	assert_float_equal(assoc_usage_decay(0, 1e6), 1, 0); /* no half-life: no decay */
	/* per-second steps compound to the same as one step */
	double v = 1;
	for (int i = 0; i < 600; i++)
		v *= assoc_usage_decay(600, 1);
	assert_float_equal(v, 0.5, 1e-9);
}

static void test_charge_goes_to_every_parent_and_qos(void **state)
{
	struct tree x;

	(void)state;
	tree_init(&x);
	assoc_usage_add(&x.a[2], &x.q, 100);
	assoc_usage_add(&x.a[1], NULL, 10); /* the account's own jobs */
	assert_float_equal(x.a[2].usage_raw, 100, 0);
	assert_float_equal(x.a[1].usage_raw, 110, 0);
	assert_float_equal(x.a[0].usage_raw, 110, 0);
	assert_float_equal(x.q.usage_raw, 100, 0);
	assoc_usage_scale(&x.t, 0.5);
	assert_float_equal(x.a[0].usage_raw, 55, 0);
	assert_float_equal(x.q.usage_raw, 50, 0);
}

static void test_reset_boundaries(void **state)
{
	struct tm tm = {.tm_year = 2026 - 1900,
			.tm_mon = 4,
			.tm_mday = 14,
			.tm_hour = 15,
			.tm_isdst = -1}; /* Thursday 14 May 2026 15:00 */
	time_t t = mktime(&tm), r;
	struct tm got;

	(void)state;
	assert_int_equal(assoc_usage_next_reset(PRIO_RESET_NONE, t), 0);
	assert_int_equal(assoc_usage_next_reset(PRIO_RESET_NOW, t), 0);
	r = assoc_usage_next_reset(PRIO_RESET_DAILY, t);
	localtime_r(&r, &got);
	assert_true(got.tm_mday == 15 && got.tm_hour == 0 && got.tm_mon == 4);
	r = assoc_usage_next_reset(PRIO_RESET_WEEKLY, t);
	localtime_r(&r, &got);
	assert_true(got.tm_wday == 0 && got.tm_mday == 17 && got.tm_hour == 0);
	r = assoc_usage_next_reset(PRIO_RESET_MONTHLY, t);
	localtime_r(&r, &got);
	assert_true(got.tm_mon == 5 && got.tm_mday == 1);
	r = assoc_usage_next_reset(PRIO_RESET_QUARTERLY, t);
	localtime_r(&r, &got);
	assert_true(got.tm_mon == 6 && got.tm_mday == 1);
	r = assoc_usage_next_reset(PRIO_RESET_YEARLY, t);
	localtime_r(&r, &got);
	assert_true(got.tm_year == 2027 - 1900 && got.tm_mon == 0 && got.tm_mday == 1);
}

static void test_file_survives_a_restart_and_waits_for_the_table(void **state)
{
	char dir[] = "/tmp/test_assoc_usage.XXXXXX", path[128];
	struct assoc_table empty = {0};
	struct assoc_usage u = {0};
	struct tree x, y;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	tree_init(&x);
	assoc_usage_add(&x.a[2], &x.q, 1234.5);
	assert_int_equal(assoc_usage_save(&x.t, 1700000000, dir), 0);

	tree_init(&y); /* the next controller */
	assert_int_equal(assoc_usage_load(&u, dir), 0);
	assert_int_equal(u.pending_count, 4);
	assert_int_equal(u.last_decay, 1700000000); /* the downtime decays too */
	assoc_usage_apply_pending(&u, &empty);	    /* table not loaded yet: kept */
	assert_int_equal(u.pending_count, 4);
	assoc_usage_apply_pending(&u, &y.t);
	assert_null(u.pending);
	assert_float_equal(y.a[2].usage_raw, 1234.5, 0);
	assert_float_equal(y.a[0].usage_raw, 1234.5, 0);
	assert_float_equal(y.q.usage_raw, 1234.5, 0);

	/* a damaged file is refused whole; no file is no usage */
	snprintf(path, sizeof(path), "%s/%s", dir, ASSOC_USAGE_FILE);
	f = fopen(path, "r+");
	assert_non_null(f);
	fseek(f, 30, SEEK_SET);
	fputc('X', f);
	fclose(f);
	assert_int_equal(assoc_usage_load(&u, dir), -EINVAL);
	assert_null(u.pending);
	f = fopen(path, "w");
	fclose(f);
	assert_int_equal(assoc_usage_load(&u, dir), -EINVAL); /* empty */
	unlink(path);
	assert_int_equal(assoc_usage_load(&u, dir), 0);
	assert_null(u.pending);
	rmdir(dir);
}

/* Decay once per pass for the time since the last one; the first pass
 * only starts the clock; charges wait for the association of a job. */
static void test_decay_pass_on_a_controller(void **state)
{
	struct ctld_fixture *f = fixture_new("PriorityDecayHalfLife=10\n"); /* minutes */
	struct assoc_usage u = {0};
	struct tree x;
	time_t now = 1700000000;

	(void)state;
	tree_init(&x);
	f->c.assoc = x.t;
	assoc_usage_add(&x.a[2], &x.q, 1000);
	assoc_usage_decay_all(&f->c, &u, now);
	assert_float_equal(x.a[2].usage_raw, 1000, 0);
	assoc_usage_decay_all(&f->c, &u, now + 600);
	assert_float_equal(x.a[2].usage_raw, 500, 1e-9);
	assert_float_equal(x.a[0].usage_raw, 500, 1e-9);
	assert_float_equal(x.q.usage_raw, 500, 1e-9);
	assert_int_equal(u.last_decay, now + 600);
	assoc_usage_decay_all(&f->c, &u, now + 300); /* the clock went back: nothing */
	assert_float_equal(x.a[2].usage_raw, 500, 1e-9);
	assert_false(assoc_usage_tick(&f->c, &u, now + 601)); /* starts the charge clock */
	f->c.assoc = (struct assoc_table){0};
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decay_halves_per_half_life),
	    cmocka_unit_test(test_charge_goes_to_every_parent_and_qos),
	    cmocka_unit_test(test_reset_boundaries),
	    cmocka_unit_test(test_file_survives_a_restart_and_waits_for_the_table),
	    cmocka_unit_test(test_decay_pass_on_a_controller),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
