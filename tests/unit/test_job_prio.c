/* test_job_prio.c - the multifactor glue on an in-memory controller
 * (n[1-3] in cpu, g1 with 4 GPUs in gpu: 4 nodes, 16 CPUs), and
 * priority/basic left as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg.h"
#include "ctld_fixture.h"
#include "slurmctld/assoc.h"
#include "slurmctld/job.h"
#include "slurmctld/job_prio.h"
#include "slurmctld/prio_multifactor.h"

#define MF                                                                                         \
	"PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\n"                          \
	"PriorityWeightPartition=1000\nPriorityWeightTRES=cpu=1600,gres/gpu=400\n"

static struct job *submit(struct ctld_fixture *f, const char *part, uint32_t tasks, uint32_t nice)
{
	struct job_desc *d = fixture_desc();

	if (part)
		d->partition = strdup(part);
	d->num_tasks = tasks;
	d->nice = nice;
	return fixture_submit(f, d);
}

static void test_basic_stays_submit_order_with_nice(void **state)
{
	struct ctld_fixture *f = fixture_new(NULL);
	struct job *a, *b;

	(void)state;
	a = submit(f, NULL, 1, NO_VAL);
	b = submit(f, NULL, 1, NICE_OFFSET + 10);
	assert_int_equal(a->priority, TOP_PRIORITY - 1);
	assert_int_equal(b->priority, TOP_PRIORITY - 2 - 10);
	job_prio_recalc(&f->c, time(NULL)); /* nothing under basic */
	assert_int_equal(a->priority, TOP_PRIORITY - 1);
	fixture_free(f);
}

static void test_multifactor_at_submit(void **state)
{
	struct ctld_fixture *f = fixture_new(MF);
	struct job *a, *b;
	struct prio_weights w;
	struct prio_factors pf;

	(void)state;
	a = submit(f, NULL, 1, NO_VAL);
	/* size (1/4 + 1/16)/2 = 0.15625, partition 1/1, cpu 1/16 x 1600 */
	assert_int_equal(a->priority, 156 + 1000 + 100);
	b = submit(f, NULL, 4, NICE_OFFSET + 6);
	/* size (1/4 + 4/16)/2 = 0.25: 250 + 1000 + 400 - 6 */
	assert_int_equal(b->priority, 1644);
	job_prio_factors(&f->c, b, b->prio_time, &w, &pf);
	assert_int_equal(pf.priority, b->priority);
	assert_float_equal(pf.tres[0], 0.25, 1e-9);
	assert_float_equal(pf.tres[1], 0, 1e-9); /* no GPUs asked */
	assert_int_equal(pf.nice, 6);
	fixture_free(f);
}

static void test_recalc_keeps_held_and_admin_set(void **state)
{
	struct ctld_fixture *f = fixture_new(MF);
	struct job *a, *held, *fixed;
	time_t now = time(NULL);

	(void)state;
	a = submit(f, NULL, 1, NO_VAL);
	held = submit(f, NULL, 1, NO_VAL);
	fixed = submit(f, NULL, 1, NO_VAL);
	held->priority = 0;
	fixed->priority = 5;
	fixed->is_prio_fixed = true;
	a->priority = 77; /* stale: recomputed */
	job_prio_recalc(&f->c, now + 10);
	assert_int_equal(a->priority, 1256);
	assert_int_equal(a->prio_time, now + 10);
	assert_int_equal(held->priority, 0);
	assert_int_equal(fixed->priority, 5);
	fixture_free(f);
}

static void test_incr_only_never_lowers(void **state)
{
	struct ctld_fixture *f = fixture_new(MF "PriorityFlags=INCR_ONLY\n");
	struct job *a = submit(f, NULL, 1, NO_VAL), *b = submit(f, NULL, 1, NO_VAL);

	(void)state;
	a->priority = 5000; /* above what it computes to: kept */
	b->priority = 5;    /* below: raised */
	job_prio_recalc(&f->c, time(NULL));
	assert_int_equal(a->priority, 5000);
	assert_int_equal(b->priority, 1256);
	fixture_free(f);
}

static void test_timer_recomputes_each_calc_period(void **state)
{
	struct ctld_fixture *f = fixture_new(MF "PriorityCalcPeriod=2\n");
	struct job *a;
	time_t now = time(NULL);

	(void)state;
	a = submit(f, NULL, 1, NO_VAL);
	job_prio_timer(&f->c, now); /* the first tick computes */
	a->priority = 77;
	job_prio_timer(&f->c, now + 119); /* within PriorityCalcPeriod: nothing */
	assert_int_equal(a->priority, 77);
	job_prio_timer(&f->c, now + 120);
	assert_int_equal(a->priority, 1256);
	job_prio_stop(&f->c);
	fixture_free(f);
}

/* Fair Tree runs each calculation period and as soon as the association
 * tree changes (sacctmgr), not every second otherwise. */
static void test_fair_tree_follows_the_association_tree(void **state)
{
	struct ctld_fixture *f = fixture_new(MF);
	struct assoc a[3] = {
	    {.id = 1, .acct = "root", .shares_raw = 1},
	    {.id = 2,
	     .parent = &a[0],
	     .acct = "root",
	     .user = "u1",
	     .shares_raw = 1,
	     .usage_raw = 10},
	    {.id = 3, .parent = &a[0], .acct = "root", .user = "u2", .shares_raw = 1},
	};
	struct assoc *v[3] = {&a[0], &a[1], &a[2]};
	time_t now = time(NULL);

	(void)state;
	f->c.assoc = (struct assoc_table){.assocs = v, .assoc_count = 3, .last_update = 1};
	job_prio_timer(&f->c, now);
	assert_float_equal(a[2].fs_factor, 1.0, 1e-9); /* no usage: first */
	assert_float_equal(a[1].fs_factor, 0.5, 1e-9);
	a[2].usage_raw = 100; /* usage alone waits for the period */
	job_prio_timer(&f->c, now + 1);
	assert_float_equal(a[2].fs_factor, 1.0, 1e-9);
	a[1].shares_raw = 100; /* a change of the tree does not */
	f->c.assoc.last_update = 2;
	job_prio_timer(&f->c, now + 2);
	assert_float_equal(a[1].fs_factor, 1.0, 1e-9);
	assert_float_equal(a[2].fs_factor, 0.5, 1e-9);
	job_prio_stop(&f->c);
	f->c.assoc = (struct assoc_table){0};
	fixture_free(f);
}

static void test_sort_by_tier_then_priority(void **state)
{
	struct ctld_fixture *f = fixture_new("PartitionName=hi Nodes=n1 PriorityTier=2\n");
	struct job *a, *b, *c, *v[3];

	(void)state;
	a = submit(f, NULL, 1, NO_VAL);
	b = submit(f, NULL, 1, NO_VAL);
	c = submit(f, "hi", 1, NO_VAL); /* lowest priority, highest tier */
	v[0] = b, v[1] = a, v[2] = c;
	job_prio_sort(&f->c, v, 3);
	assert_ptr_equal(v[0], c);
	assert_ptr_equal(v[1], a);
	assert_ptr_equal(v[2], b);
	fixture_free(f);
}

/* The head of the order alone is the head of the whole sort. */
static void test_sort_top_is_the_head_of_the_sort(void **state)
{
	struct ctld_fixture *f = fixture_new("PartitionName=hi Nodes=n1 PriorityTier=2\n");
	struct job *all[40], *v[40];

	(void)state;
	srand(7);
	for (int i = 0; i < 40; i++) {
		all[i] = submit(f, i % 5 == 0 ? "hi" : NULL, 1, NO_VAL);
		all[i]->priority = 1 + (uint32_t)(rand() % 6); /* ties: submit time, id */
	}
	job_prio_sort(&f->c, all, 40);
	for (size_t k = 0; k <= 41; k += 7) {
		for (int i = 0; i < 40; i++)
			v[i] = all[(i * 17) % 40]; /* another order */
		assert_int_equal(job_prio_sort_top(&f->c, v, 40, k), k < 40 ? k : 40);
		for (size_t i = 0; i < k && i < 40; i++)
			assert_ptr_equal(v[i], all[i]);
	}
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic_stays_submit_order_with_nice),
	    cmocka_unit_test(test_sort_top_is_the_head_of_the_sort),
	    cmocka_unit_test(test_multifactor_at_submit),
	    cmocka_unit_test(test_recalc_keeps_held_and_admin_set),
	    cmocka_unit_test(test_incr_only_never_lowers),
	    cmocka_unit_test(test_timer_recomputes_each_calc_period),
	    cmocka_unit_test(test_fair_tree_follows_the_association_tree),
	    cmocka_unit_test(test_sort_by_tier_then_priority),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
