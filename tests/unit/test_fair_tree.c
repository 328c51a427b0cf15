/* test_fair_tree.c - Fair Tree ranks against hand-computed trees. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "slurmctld/assoc.h"
#include "slurmctld/assoc_usage.h"
#include "slurmctld/fair_tree.h"

#define MAXA 16

struct tree {
	struct assoc a[MAXA];
	struct assoc *ptr[MAXA];
	struct assoc_table t;
};

/* parent: an index into the tree, -1 for root */
static struct assoc *add(struct tree *x, int parent, const char *acct, const char *user,
			 uint32_t shares, double usage)
{
	uint32_t i = x->t.assoc_count++;
	struct assoc *a = &x->a[i];

	*a = (struct assoc){.id = i + 1,
			    .parent = parent < 0 ? NULL : &x->a[parent],
			    .acct = (char *)acct,
			    .user = (char *)user,
			    .shares_raw = shares,
			    .usage_raw = usage};
	x->ptr[i] = a;
	x->t.assocs = x->ptr;
	return a;
}

static void test_two_accounts_rank_users_by_account_first(void **state)
{
	struct tree x = {0};
	struct assoc *a, *b, *u1, *u2, *u3, *u4;

	(void)state;
	add(&x, -1, "root", NULL, 1, 40);
	a = add(&x, 0, "a", NULL, 1, 10);
	b = add(&x, 0, "b", NULL, 1, 30);
	u1 = add(&x, 1, "a", "u1", 1, 10);
	u2 = add(&x, 1, "a", "u2", 1, 0);
	u3 = add(&x, 2, "b", "u3", 1, 10);
	u4 = add(&x, 2, "b", "u4", 1, 20);
	assert_int_equal(fair_tree_compute(&x.t), 0);
	assert_float_equal(a->level_fs, 2.0, 1e-9); /* 0.5 / 0.25 */
	assert_float_equal(b->level_fs, 0.5 / 0.75, 1e-9);
	assert_true(isinf(u2->level_fs)); /* no usage */
	assert_float_equal(u1->level_fs, 0.5, 1e-9);
	assert_float_equal(u3->level_fs, 1.5, 1e-9);
	assert_float_equal(u4->level_fs, 0.75, 1e-9);
	/* a's users above b's, whatever their own level */
	assert_float_equal(u2->fs_factor, 1.0, 1e-9);
	assert_float_equal(u1->fs_factor, 0.75, 1e-9);
	assert_float_equal(u3->fs_factor, 0.5, 1e-9);
	assert_float_equal(u4->fs_factor, 0.25, 1e-9);
}

static void test_tied_accounts_merge_and_tied_users_share_rank(void **state)
{
	struct tree x = {0};
	struct assoc *u1, *u2, *u3, *u4;

	(void)state;
	add(&x, -1, "root", NULL, 1, 20);
	add(&x, 0, "a", NULL, 1, 10);
	add(&x, 0, "b", NULL, 1, 10);
	u1 = add(&x, 1, "a", "u1", 1, 5);
	u2 = add(&x, 1, "a", "u2", 1, 5);
	u3 = add(&x, 2, "b", "u3", 1, 10);
	u4 = add(&x, 2, "b", "u4", 1, 0);
	assert_int_equal(fair_tree_compute(&x.t), 0);
	assert_float_equal(u4->fs_factor, 1.0, 1e-9);  /* rank 4 */
	assert_float_equal(u1->fs_factor, 0.75, 1e-9); /* tied at 1.0: both rank 3 */
	assert_float_equal(u2->fs_factor, 0.75, 1e-9);
	assert_float_equal(u3->fs_factor, 0.25, 1e-9); /* rank 1 */
}

/* A user tied with a sibling account shares its rank with the account's
 * first user; the ranks after them go on counting down. */
static void test_user_tied_with_an_account(void **state)
{
	struct tree x = {0};
	struct assoc *u0, *u1, *u2;

	(void)state;
	add(&x, -1, "root", NULL, 1, 20);
	add(&x, 0, "a", NULL, 1, 10);	      /* 0.5 / 0.5 = 1 */
	u0 = add(&x, 0, "root", "u0", 1, 10); /* 1 as well */
	u1 = add(&x, 1, "a", "u1", 1, 10);
	u2 = add(&x, 1, "a", "u2", 1, 0);
	assert_int_equal(fair_tree_compute(&x.t), 0);
	assert_float_equal(u0->fs_factor, 1.0, 1e-9);	  /* rank 3 */
	assert_float_equal(u2->fs_factor, 1.0, 1e-9);	  /* tied with u0: rank 3 */
	assert_float_equal(u1->fs_factor, 1 / 3.0, 1e-9); /* rank 1 */
}

static void test_zero_usage_and_dormant_accounts(void **state)
{
	struct tree x = {0};
	struct assoc *a, *c, *u1, *u2, *u3;

	(void)state;
	add(&x, -1, "root", NULL, 1, 100);
	a = add(&x, 0, "a", NULL, 2, 0);
	add(&x, 0, "b", NULL, 1, 100);
	c = add(&x, 0, "c", NULL, 1, 0); /* dormant: no users */
	u1 = add(&x, 1, "a", "u1", 1, 0);
	u2 = add(&x, 2, "b", "u2", 1, 60);
	u3 = add(&x, 2, "b", "u3", 1, 40);
	assert_int_equal(fair_tree_compute(&x.t), 0);
	assert_true(isinf(a->level_fs));
	assert_true(isinf(c->level_fs));
	assert_float_equal(u1->fs_factor, 1.0, 1e-9);	  /* rank 3 of 3 */
	assert_float_equal(u3->fs_factor, 2 / 3.0, 1e-9); /* 0.5 / 0.4 = 1.25 */
	assert_float_equal(u2->fs_factor, 1 / 3.0, 1e-9); /* 0.5 / 0.6 */
}

static void test_fairshare_parent_and_deleted(void **state)
{
	struct tree x = {0};
	struct assoc *p, *u1, *u2, *u3, *u4, *gone;

	(void)state;
	add(&x, -1, "root", NULL, 1, 40);
	add(&x, 0, "a", NULL, 1, 30);
	add(&x, 0, "b", NULL, 1, 10);
	p = add(&x, 1, "p", NULL, INFINITE, 30); /* Fairshare=parent */
	u1 = add(&x, 3, "p", "u1", 1, 10);
	u2 = add(&x, 3, "p", "u2", 1, 20);
	u3 = add(&x, 1, "a", "u3", 1, 0);
	u4 = add(&x, 2, "b", "u4", 1, 10);
	gone = add(&x, 2, "b", "u5", 1, 0);
	gone->is_deleted = true;
	assert_int_equal(fair_tree_compute(&x.t), 0);
	assert_float_equal(u4->fs_factor, 1.0, 1e-9); /* b: 0.5 / 0.25 first */
	assert_float_equal(u3->fs_factor, 0.75, 1e-9);
	assert_float_equal(u1->fs_factor, 0.5, 1e-9); /* among a's: (1/3) / (1/3) */
	assert_float_equal(u2->fs_factor, 0.25, 1e-9);
	assert_float_equal(p->level_fs, 0, 1e-9);     /* skipped */
	assert_float_equal(gone->fs_factor, 0, 1e-9); /* not counted */
}

static void test_no_shares_user_gets_zero_and_empty_table(void **state)
{
	struct tree x = {0};
	struct assoc *u1, *u2;

	(void)state;
	assert_int_equal(fair_tree_compute(&x.t), 0);
	add(&x, -1, "root", NULL, 1, 0);
	u1 = add(&x, 0, "root", "u1", 0, 0);
	u2 = add(&x, 0, "root", "u2", 1, 5);
	assert_int_equal(fair_tree_compute(&x.t), 0);
	assert_float_equal(u1->fs_factor, 0, 1e-9);
	assert_float_equal(u2->fs_factor, 1.0, 1e-9);
}

/* Two accounts with Fairshare 70 and 30 competing for one resource:
 * whoever ranks higher runs the next second; with decayed usage the split
 * of recent usage converges to the shares. */
static void test_seventy_thirty_converges(void **state)
{
	struct tree x = {0};
	struct assoc *a, *b, *ua, *ub;

	(void)state;
	add(&x, -1, "root", NULL, 1, 0);
	a = add(&x, 0, "a", NULL, 70, 0);
	b = add(&x, 0, "b", NULL, 30, 0);
	ua = add(&x, 1, "a", "ua", 1, 0);
	ub = add(&x, 2, "b", "ub", 1, 0);
	for (int t = 0; t < 20000; t++) {
		assert_int_equal(fair_tree_compute(&x.t), 0);
		assoc_usage_scale(&x.t, assoc_usage_decay(3600, 1));
		assoc_usage_add(ua->fs_factor >= ub->fs_factor ? ua : ub, NULL, 1);
	}
	assert_float_equal(a->usage_raw / (a->usage_raw + b->usage_raw), 0.7, 0.01);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_accounts_rank_users_by_account_first),
	    cmocka_unit_test(test_tied_accounts_merge_and_tied_users_share_rank),
	    cmocka_unit_test(test_user_tied_with_an_account),
	    cmocka_unit_test(test_zero_usage_and_dormant_accounts),
	    cmocka_unit_test(test_fairshare_parent_and_deleted),
	    cmocka_unit_test(test_no_shares_user_gets_zero_and_empty_table),
	    cmocka_unit_test(test_seventy_thirty_converges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
