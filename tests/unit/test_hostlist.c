/* test_hostlist.c - expansion, compression, sorting and caps of host lists. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/hostlist.h"
#include "common/limits.h"
#include "common/macros.h"

/* Join a list with ',' for compact expectations. */
static char *joined(const struct hostlist *hl)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < hostlist_count(hl); i++)
		len += strlen(hostlist_nth(hl, i)) + 1;
	s = calloc(1, len);
	assert_non_null(s);
	for (size_t i = 0; i < hostlist_count(hl); i++) {
		if (i)
			strcat(s, ",");
		strcat(s, hostlist_nth(hl, i));
	}
	return s;
}

static const struct {
	const char *in;
	const char *hosts; /* comma-joined expansion */
} expand[] = {
    {"", ""},
    {"n1", "n1"},
    {"n[1-3]", "n1,n2,n3"},
    {"n[01-03]", "n01,n02,n03"},
    {"n[8-11]", "n8,n9,n10,n11"},
    {"n[08-11]", "n08,n09,n10,n11"},
    {"n[098-101]", "n098,n099,n100,n101"},
    {"n[1-3,5]", "n1,n2,n3,n5"},
    {"n[01-02,5,7-8]", "n01,n02,n5,n7,n8"},
    {"n[3]", "n3"},
    {"[1-3]", "1,2,3"},
    {"n[1-2],g[1-2]", "n1,n2,g1,g2"},
    {"n1 n2\tn3\nn4", "n1,n2,n3,n4"},
    {",,n1,, n2 ,", "n1,n2"},
    {"r[1-2]n[1-3]", "r1n1,r1n2,r1n3,r2n1,r2n2,r2n3"},
    {"r[1-2]n[1,3]x[0-1]", "r1n1x0,r1n1x1,r1n3x0,r1n3x1,r2n1x0,r2n1x1,r2n3x0,r2n3x1"},
    {"n[1-2]-ib", "n1-ib,n2-ib"},
    {"rack1-n[1-2]", "rack1-n1,rack1-n2"},
    {"n[3-1]x", NULL},
    {"n2,n1,n2", "n2,n1,n2"},
    {"login,n[1-2]", "login,n1,n2"},
};

static void test_expressions_expand_in_written_order(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(expand); i++) {
		struct hostlist *hl = NULL;
		int r = hostlist_new(expand[i].in, &hl);

		if (!expand[i].hosts) {
			assert_int_equal(r, -EINVAL);
			assert_null(hl);
			continue;
		}
		assert_int_equal(r, 0);
		char *s = joined(hl);
		assert_string_equal(s, expand[i].hosts);
		free(s);
		hostlist_free(hl);
	}
}

static const char *const malformed[] = {
    "n[1-3",
    "n1-3]",
    "n]",
    "n[[1-2]]",
    "n[1-[2]]",
    "n[]",
    "n[,]",
    "n[1,]",
    "n[,1]",
    "n[-1]",
    "n[1-]",
    "n[a-b]",
    "n[1-b]",
    "n[3-1]",
    "n[1--3]",
    "n[1-2-3]",
    "n[1 2]",
    "n[0x1]",
    "n[1234567890123456789]",
    "r[1-2]n[2-1]",
    "a,b[1,",
};

static void test_malformed_expressions_are_rejected(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(malformed); i++) {
		struct hostlist *hl = (struct hostlist *)0x1;

		assert_int_equal(hostlist_new(malformed[i], &hl), -EINVAL);
		assert_ptr_equal(hl, (struct hostlist *)0x1);
		assert_null(hostlist_compress(malformed[i]));
	}
}

static void test_names_longer_than_the_cap_are_rejected(void **state)
{
	char name[SL_NAME_MAX + 2], expr[SL_NAME_MAX + 16];
	struct hostlist *hl = NULL;

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(hostlist_new(name, &hl), -EINVAL);
	snprintf(expr, sizeof(expr), "%.*s[9-10]", SL_NAME_MAX - 1, name);
	assert_int_equal(hostlist_new(expr, &hl), -EINVAL); /* a9 fits, a10 does not */
	name[SL_NAME_MAX] = '\0';
	assert_int_equal(hostlist_new(name, &hl), 0);
	assert_int_equal(hostlist_count(hl), 1);
	assert_int_equal(hostlist_push_host(hl, name), 0);
	name[SL_NAME_MAX] = 'a';
	assert_int_equal(hostlist_push_host(hl, name), -EINVAL);
	assert_int_equal(hostlist_push_host(hl, ""), -EINVAL);
	assert_int_equal(hostlist_push_host(hl, NULL), -EINVAL);
	assert_int_equal(hostlist_count(hl), 2);
	hostlist_free(hl);
}

static void test_expansions_past_the_cap_are_refused_before_allocating(void **state)
{
	struct hostlist *hl = NULL;
	char expr[64];

	(void)state;
	snprintf(expr, sizeof(expr), "n[1-%d]", SL_HOSTLIST_MAX + 1);
	assert_int_equal(hostlist_new(expr, &hl), -E2BIG);
	assert_int_equal(hostlist_new("a[1-1000]b[1-1000]c[1-1000]", &hl), -E2BIG);
	assert_int_equal(hostlist_new("n[0-999999999999999999]", &hl), -E2BIG);
	assert_int_equal(hostlist_new("r[1-1001]n[1-1000]", &hl), -E2BIG);

	snprintf(expr, sizeof(expr), "n[1-%d]", SL_HOSTLIST_MAX - 1);
	assert_int_equal(hostlist_new(expr, &hl), 0);
	assert_int_equal(hostlist_count(hl), SL_HOSTLIST_MAX - 1);
	assert_int_equal(hostlist_push(hl, "x1,x2"), -E2BIG);
	assert_int_equal(hostlist_count(hl), SL_HOSTLIST_MAX - 1);
	assert_int_equal(hostlist_push(hl, "x1"), 0);
	assert_int_equal(hostlist_push_host(hl, "x2"), -E2BIG);
	assert_int_equal(hostlist_count(hl), SL_HOSTLIST_MAX);
	hostlist_free(hl);
}

static void test_failed_push_leaves_the_list_unchanged(void **state)
{
	struct hostlist *hl = NULL;

	(void)state;
	assert_int_equal(hostlist_new("n[1-2]", &hl), 0);
	assert_int_equal(hostlist_push(hl, "g[1-2],h[1-"), -EINVAL);
	assert_int_equal(hostlist_count(hl), 2);
	assert_int_equal(hostlist_push(hl, "g[1-2]"), 0);
	assert_int_equal(hostlist_push(hl, NULL), 0);
	assert_int_equal(hostlist_count(hl), 4);
	assert_string_equal(hostlist_nth(hl, 3), "g2");
	assert_null(hostlist_nth(hl, 4));
	hostlist_free(hl);
}

static const struct {
	const char *in;
	const char *out;
} compress[] = {
    {"", ""},
    {"n1", "n1"},
    {"n1,n2,n3", "n[1-3]"},
    {"n1,n2,n3,n5,g1", "n[1-3,5],g1"},
    {"n[1-4]", "n[1-4]"},
    {"n[3-4],n[1-2]", "n[3-4,1-2]"},
    {"n1,g1,n2", "n1,g1,n2"},
    {"n1,n2,n2", "n[1-2,2]"},
    {"n9,n10", "n[9-10]"},
    {"n[8-11]", "n[8-11]"},
    {"n08,n09,n10", "n[08-10]"},
    {"n98,n99,n100", "n[98-100]"},
    {"n01,n5", "n[01,5]"},
    {"n08,n9", "n[08,9]"},
    {"n5,n06", "n[5,06]"},
    {"login,n1,n2", "login,n[1-2]"},
    {"login,login", "login,login"},
    {"n,n1", "n,n1"},
    {"r1n1,r1n2,r2n1", "r1n[1-2],r2n1"},
    {"r[1-2]n[1-2]", "r1n[1-2],r2n[1-2]"},
    {"n[1-2]-ib", "n1-ib,n2-ib"},
    {"1,2,3", "[1-3]"},
    {"g[1-2],n[1-4]", "g[1-2],n[1-4]"},
    {"n[01-02,5,7-8]", "n[01-02,5,7-8]"},
    {"n1234567890123456789", "n1234567890123456789"},
    {"n999999999999999998,n999999999999999999", "n[999999999999999998-999999999999999999]"},
};

static void test_lists_compress_as_slurm_prints_them(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(compress); i++) {
		char *s = hostlist_compress(compress[i].in);

		assert_non_null(s);
		assert_string_equal(s, compress[i].out);
		free(s);
	}
}

static void test_compressed_forms_expand_back_to_the_same_hosts(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(compress); i++) {
		struct hostlist *a = NULL, *b = NULL;
		char *sa, *sb;

		assert_int_equal(hostlist_new(compress[i].in, &a), 0);
		assert_int_equal(hostlist_new(compress[i].out, &b), 0);
		sa = joined(a);
		sb = joined(b);
		assert_string_equal(sa, sb);
		free(sa);
		free(sb);
		hostlist_free(a);
		hostlist_free(b);
	}
}

static const struct {
	const char *in;
	const char *sorted;
	const char *uniq_compressed;
} sorting[] = {
    {"n3,n1,n2", "n1,n2,n3", "n[1-3]"},
    {"n10,n9,n2,n1", "n1,n2,n9,n10", "n[1-2,9-10]"},
    {"n2,g1,n1,a", "a,g1,n1,n2", "a,g1,n[1-2]"},
    {"r10n1,r2n1,r1n1", "r1n1,r2n1,r10n1", "r1n1,r2n1,r10n1"},
    {"n1,n,n0", "n,n0,n1", "n,n[0-1]"},
    {"n010,n9,n09", "n9,n09,n010", "n[9,09,010]"},
    {"n2,n1,n2,n1,n3", "n1,n1,n2,n2,n3", "n[1-3]"},
    {"b,a,b", "a,b,b", "a,b"},
};

static void test_sort_orders_by_prefix_then_number(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sorting); i++) {
		struct hostlist *hl = NULL;
		char *s;

		assert_int_equal(hostlist_new(sorting[i].in, &hl), 0);
		hostlist_sort(hl);
		s = joined(hl);
		assert_string_equal(s, sorting[i].sorted);
		free(s);
		hostlist_uniq(hl);
		s = hostlist_ranged_string(hl);
		assert_string_equal(s, sorting[i].uniq_compressed);
		free(s);
		hostlist_free(hl);
	}
}

static void test_find_returns_the_first_index(void **state)
{
	struct hostlist *hl = NULL;

	(void)state;
	assert_int_equal(hostlist_new("n[01-03],g1,n02", &hl), 0);
	assert_int_equal(hostlist_find(hl, "n01"), 0);
	assert_int_equal(hostlist_find(hl, "n02"), 1);
	assert_int_equal(hostlist_find(hl, "g1"), 3);
	assert_int_equal(hostlist_find(hl, "n2"), -1);
	assert_int_equal(hostlist_find(hl, NULL), -1);
	assert_int_equal(hostlist_find(NULL, "n1"), -1);
	hostlist_free(hl);
}

static void test_empty_and_null_lists_are_safe(void **state)
{
	struct hostlist *hl = NULL;
	char *s;

	(void)state;
	assert_int_equal(hostlist_new(NULL, &hl), 0);
	assert_int_equal(hostlist_count(hl), 0);
	hostlist_sort(hl);
	hostlist_uniq(hl);
	s = hostlist_ranged_string(hl);
	assert_string_equal(s, "");
	free(s);
	assert_null(hostlist_free(hl));
	assert_null(hostlist_free(NULL));
	assert_int_equal(hostlist_count(NULL), 0);
	assert_null(hostlist_nth(NULL, 0));
}

static void test_a_large_list_compresses_to_one_range(void **state)
{
	struct hostlist *hl = NULL;
	char *s;

	(void)state;
	assert_int_equal(hostlist_new("n[000001-100000]", &hl), 0);
	assert_int_equal(hostlist_count(hl), 100000);
	assert_string_equal(hostlist_nth(hl, 99999), "n100000");
	s = hostlist_ranged_string(hl);
	assert_string_equal(s, "n[000001-100000]");
	free(s);
	hostlist_free(hl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expressions_expand_in_written_order),
	    cmocka_unit_test(test_malformed_expressions_are_rejected),
	    cmocka_unit_test(test_names_longer_than_the_cap_are_rejected),
	    cmocka_unit_test(test_expansions_past_the_cap_are_refused_before_allocating),
	    cmocka_unit_test(test_failed_push_leaves_the_list_unchanged),
	    cmocka_unit_test(test_lists_compress_as_slurm_prints_them),
	    cmocka_unit_test(test_compressed_forms_expand_back_to_the_same_hosts),
	    cmocka_unit_test(test_sort_orders_by_prefix_then_number),
	    cmocka_unit_test(test_find_returns_the_first_index),
	    cmocka_unit_test(test_empty_and_null_lists_are_safe),
	    cmocka_unit_test(test_a_large_list_compresses_to_one_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
