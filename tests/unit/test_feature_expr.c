/* test_feature_expr.c - -C/--constraint expressions: parts, matching,
 * left-to-right evaluation, brackets, counts and the inputs refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/feature_expr.h"
#include "common/macros.h"

struct names_buf {
	char s[2048];
	size_t len;
};

static int collect_name(const char *name, uint32_t len, void *arg)
{
	struct names_buf *b = arg;
	int n = snprintf(b->s + b->len, sizeof(b->s) - b->len, "%s%.*s", b->len ? " " : "",
			 (int)len, name);

	b->len += (size_t)n;
	return 0;
}

static const char *names_of(const struct feat_expr *e, struct names_buf *b)
{
	b->len = 0;
	b->s[0] = '\0';
	assert_int_equal(feat_expr_foreach_name(e, collect_name, b), 0);
	return b->s;
}

static const struct {
	const char *in;
	const char *names; /* in source order, ' ' between */
	bool has_filter;
	uint32_t alts;
	uint32_t counts;
	uint32_t sum;
} good[] = {
    {"a", "a", true, 0, 0, 0},
    {"a100", "a100", true, 0, 0, 0},
    {"a-b.c:d=e+f_G9", "a-b.c:d=e+f_G9", true, 0, 0, 0},
    {"a&b", "a b", true, 0, 0, 0},
    {"a|b", "a b", true, 0, 0, 0},
    {"a|b&c", "a b c", true, 0, 0, 0},
    {"(a|b)&(c|d)", "a b c d", true, 0, 0, 0},
    {"((a))", "a", true, 0, 0, 0},
    {"a*2", "a", false, 0, 1, 2},
    {"a*007", "a", false, 0, 1, 7},
    {"a*100000", "a", false, 0, 1, 100000},
    {"a*2&b*3", "a b", false, 0, 2, 5},
    {"a&b*2&c", "a b c", true, 0, 1, 2},
    {"(a&b)*2", "a b", false, 0, 1, 2},
    {"(a|b)*3&c", "a b c", true, 0, 1, 3},
    {"[r1|r2|r3]", "r1 r2 r3", false, 3, 0, 0},
    {"[a]", "a", false, 1, 0, 0},
    {"[a*2]", "a", false, 0, 1, 2},
    {"[a*2&b*4]", "a b", false, 0, 2, 6},
    {"x&[r1|r2]", "x r1 r2", true, 2, 0, 0},
    {"[r1|r2]&x", "r1 r2 x", true, 2, 0, 0},
    {"[(a|b)*1&c*2]", "a b c", false, 0, 2, 3},
    {"[(a&b)|(c&d)]", "a b c d", false, 2, 0, 0},
    {"a&b*2&[x|y]", "a b x y", true, 2, 1, 2},
    {"a*1&[b*2&c*3]&d*4", "a b c d", false, 0, 4, 10},
};

static void test_good_expressions_split_into_filter_alts_and_counts(void **state)
{
	struct names_buf b;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct feat_expr e;

		assert_int_equal(feat_expr_parse(good[i].in, &e), 0);
		assert_string_equal(names_of(&e, &b), good[i].names);
		assert_int_equal(e.filter != NULL, good[i].has_filter);
		assert_int_equal(e.alt_count, good[i].alts);
		assert_int_equal(e.count_count, good[i].counts);
		assert_int_equal(e.count_sum, good[i].sum);
		assert_int_equal(e.alts != NULL, good[i].alts != 0);
		assert_int_equal(e.counts != NULL, good[i].counts != 0);
		assert_non_null(e.mem);
		feat_expr_free(&e);
	}
}

static const struct {
	const char *expr;
	const char *features;
	bool want;
} matches[] = {
    {"a100", "a100,rack1", true},
    {"a100", "rack1,a100", true},
    {"a100", "a10", false},
    {"a100", "a1000", false},
    {"a100", "xa100", false},
    {"a10", "a100,rack1", false},
    {"a100", "A100", false},
    {"a100", "", false},
    {"a100", NULL, false},
    {"a100", ",a100,", true},
    {"rack1", "a100,rack1", true},
    {"a100&rack1", "a100,rack1", true},
    {"a100&rack2", "a100,rack1", false},
    {"a100|v100", "v100", true},
    {"a100|v100", "", false},
    {"(a|b)&(c|d)", "b,d", true},
    {"(a|b)&(c|d)", "a,b", false},
    {"a-b", "a-b", true},
    {"a-b", "a,b", false},
};

static void test_filter_matches_feature_lists(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(matches); i++) {
		struct feat_expr e;

		assert_int_equal(feat_expr_parse(matches[i].expr, &e), 0);
		assert_int_equal(feat_node_match(e.filter, matches[i].features), matches[i].want);
		feat_expr_free(&e);
	}
}

static const struct {
	const char *expr;
	const char *features;
	bool want;
} folds[] = {
    /* "a|b&c" is "(a|b)&c", not "a|(b&c)" */
    {"a|b&c", "a", false},
    {"a|b&c", "a,c", true},
    {"a|b&c", "b,c", true},
    {"a|(b&c)", "a", true},
    /* "a&b|c" is "(a&b)|c" */
    {"a&b|c", "c", true},
    {"a&b|c", "a", false},
    {"a&(b|c)", "c", false},
    {"a|b&c|d", "d", true},
    {"a|b&c|d", "a", false},
    {"a|b&c|d", "a,c", true},
};

static void test_and_or_fold_left_to_right_without_precedence(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(folds); i++) {
		struct feat_expr e;

		assert_int_equal(feat_expr_parse(folds[i].expr, &e), 0);
		assert_int_equal(feat_node_match(e.filter, folds[i].features), folds[i].want);
		feat_expr_free(&e);
	}
}

static void test_counts_apply_to_names_and_groups(void **state)
{
	struct feat_expr e;

	(void)state;
	assert_int_equal(feat_expr_parse("(a&b)*2", &e), 0);
	assert_null(e.filter);
	assert_int_equal(e.count_count, 1);
	assert_int_equal(e.counts[0].count, 2);
	assert_true(feat_node_match(e.counts[0].e, "a,b"));
	assert_false(feat_node_match(e.counts[0].e, "a"));
	feat_expr_free(&e);

	assert_int_equal(feat_expr_parse("x&gpu*3&(ib|eth)*1", &e), 0);
	assert_true(feat_node_match(e.filter, "x"));
	assert_false(feat_node_match(e.filter, "gpu"));
	assert_int_equal(e.count_count, 2);
	assert_int_equal(e.counts[0].count, 3);
	assert_true(feat_node_match(e.counts[0].e, "gpu"));
	assert_int_equal(e.counts[1].count, 1);
	assert_true(feat_node_match(e.counts[1].e, "eth"));
	assert_false(feat_node_match(e.counts[1].e, "gpu"));
	assert_int_equal(e.count_sum, 4);
	feat_expr_free(&e);
}

static void test_brackets_give_alternatives_or_counts(void **state)
{
	struct feat_expr e;

	(void)state;
	assert_int_equal(feat_expr_parse("[r1|r2|r3]", &e), 0);
	assert_null(e.filter);
	assert_int_equal(e.alt_count, 3);
	assert_true(feat_node_match(e.alts[0], "r1"));
	assert_true(feat_node_match(e.alts[1], "r2"));
	assert_true(feat_node_match(e.alts[2], "r3"));
	assert_false(feat_node_match(e.alts[0], "r2"));
	feat_expr_free(&e);

	assert_int_equal(feat_expr_parse("[a*2&b*4]", &e), 0);
	assert_null(e.filter);
	assert_int_equal(e.alt_count, 0);
	assert_int_equal(e.count_count, 2);
	assert_int_equal(e.counts[0].count, 2);
	assert_int_equal(e.counts[1].count, 4);
	assert_true(feat_node_match(e.counts[0].e, "a"));
	assert_true(feat_node_match(e.counts[1].e, "b"));
	assert_int_equal(e.count_sum, 6);
	feat_expr_free(&e);

	assert_int_equal(feat_expr_parse("x&[r1|r2]", &e), 0);
	assert_true(feat_node_match(e.filter, "x,r1"));
	assert_false(feat_node_match(e.filter, "r1"));
	assert_int_equal(e.alt_count, 2);
	assert_true(feat_node_match(e.alts[1], "x,r2"));
	feat_expr_free(&e);

	assert_int_equal(feat_expr_parse("[(a|b)*1&c*2]", &e), 0);
	assert_int_equal(e.count_count, 2);
	assert_true(feat_node_match(e.counts[0].e, "b"));
	assert_false(feat_node_match(e.counts[0].e, "c"));
	assert_int_equal(e.counts[1].count, 2);
	assert_int_equal(e.count_sum, 3);
	feat_expr_free(&e);

	assert_int_equal(feat_expr_parse("[(a&b)|c]", &e), 0);
	assert_int_equal(e.alt_count, 2);
	assert_true(feat_node_match(e.alts[0], "b,a"));
	assert_false(feat_node_match(e.alts[0], "a"));
	assert_true(feat_node_match(e.alts[1], "c"));
	feat_expr_free(&e);
}

static const char *const bad[] = {
    "",
    "a*0",
    "a*",
    "a*x",
    "a*-1",
    "a*2x",
    "a*100001",
    "a*99999999999999999999",
    "a**2",
    "*2",
    "a*2|b",
    "b|a*2",
    "a|b*2&c",
    "(a|b)*2|c",
    "[a|b]|c",
    "c|[a|b]",
    "[a|b]&[c|d]",
    "[[a]]",
    "([a])",
    "[a|b]*2",
    "[a*2|b*3]",
    "[a|b*2]",
    "[a&b]",
    "[a*2&b]",
    "[a&b*2]",
    "[a|b&c]",
    "[]",
    "[a",
    "a]",
    "[a|]",
    "[|a]",
    "(a*2)",
    "(a*2&b)",
    "((a&b)*2)",
    "a&",
    "a|",
    "&a",
    "|a",
    "a&&b",
    "a||b",
    "a&|b",
    "(a",
    "a)",
    "()",
    "(a))",
    "((a)",
    "(a&)",
    "a(b)",
    "(a)b",
    "(a)(b)",
    "a b",
    " a",
    "a ",
    "a,b",
    "a!",
    "a\tb",
    "a\nb",
    "é",
};

static void test_bad_expressions_are_rejected_and_leave_the_result_zeroed(void **state)
{
	static const struct feat_expr zero;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct feat_expr e;

		memset(&e, 0x5a, sizeof(e));
		if (feat_expr_parse(bad[i], &e) != -EINVAL)
			fail_msg("accepted or wrong code: \"%s\"", bad[i]);
		assert_memory_equal(&e, &zero, sizeof(e));
	}
	assert_int_equal(feat_expr_parse(NULL, &(struct feat_expr){0}), -EINVAL);
	assert_int_equal(feat_expr_parse("a", NULL), -EINVAL);
}

/* "n0&n1&...": count names */
static void make_names(char *buf, size_t n, unsigned count)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < count; i++)
		len += (size_t)snprintf(buf + len, n - len, "%sn%u", i ? "&" : "", i);
}

static void test_limits_on_length_names_and_counts(void **state)
{
	char buf[FEAT_EXPR_MAX_LEN + 2];
	struct feat_expr e;

	(void)state;
	memset(buf, 'x', FEAT_EXPR_MAX_LEN);
	buf[FEAT_EXPR_MAX_LEN] = '\0';
	assert_int_equal(feat_expr_parse(buf, &e), 0);
	assert_true(feat_node_match(e.filter, buf));
	feat_expr_free(&e);
	buf[FEAT_EXPR_MAX_LEN] = 'x';
	buf[FEAT_EXPR_MAX_LEN + 1] = '\0';
	assert_int_equal(feat_expr_parse(buf, &e), -EINVAL);

	make_names(buf, sizeof(buf), FEAT_EXPR_MAX_TERMS);
	assert_int_equal(feat_expr_parse(buf, &e), 0);
	assert_true(feat_node_match(e.filter,
				    "n63,n0,n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,"
				    "n14,n15,n16,n17,n18,n19,n20,n21,n22,n23,n24,n25,"
				    "n26,n27,n28,n29,n30,n31,n32,n33,n34,n35,n36,n37,"
				    "n38,n39,n40,n41,n42,n43,n44,n45,n46,n47,n48,n49,"
				    "n50,n51,n52,n53,n54,n55,n56,n57,n58,n59,n60,n61,n62"));
	assert_false(feat_node_match(e.filter, "n0,n1"));
	feat_expr_free(&e);
	make_names(buf, sizeof(buf), FEAT_EXPR_MAX_TERMS + 1);
	assert_int_equal(feat_expr_parse(buf, &e), -EINVAL);

	/* 64 counted names: the most counts there can be */
	buf[0] = '\0';
	for (size_t i = 0, len = 0; i < FEAT_EXPR_MAX_TERMS; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%sn*100000", i ? "&" : "");
	assert_int_equal(feat_expr_parse(buf, &e), 0);
	assert_int_equal(e.count_count, FEAT_EXPR_MAX_TERMS);
	assert_int_equal(e.count_sum, FEAT_EXPR_MAX_TERMS * 100000u);
	feat_expr_free(&e);
}

static void test_free_is_safe_on_zeroed_and_twice(void **state)
{
	struct feat_expr e = {0};

	(void)state;
	feat_expr_free(&e);
	feat_expr_free(NULL);
	assert_int_equal(feat_expr_parse("a&[b|c]", &e), 0);
	feat_expr_free(&e);
	assert_null(e.mem);
	assert_null(e.filter);
	assert_null(e.alts);
	assert_int_equal(e.alt_count, 0);
	feat_expr_free(&e);
	assert_int_equal(feat_expr_foreach_name(&e, collect_name, NULL), 0);
}

static void test_parse_keeps_its_own_copy_of_the_text(void **state)
{
	char text[] = "gpu&[r1|r2]";
	struct names_buf b;
	struct feat_expr e;

	(void)state;
	assert_int_equal(feat_expr_parse(text, &e), 0);
	memset(text, '#', sizeof(text) - 1);
	assert_true(feat_node_match(e.filter, "gpu"));
	assert_true(feat_node_match(e.alts[1], "r2"));
	assert_string_equal(names_of(&e, &b), "gpu r1 r2");
	feat_expr_free(&e);
}

static int stop_at_b(const char *name, uint32_t len, void *arg)
{
	int *seen = arg;

	(*seen)++;
	return len == 1 && name[0] == 'b' ? 42 : 0;
}

static void test_foreach_stops_at_the_first_nonzero_return(void **state)
{
	struct feat_expr e;
	int seen = 0;

	(void)state;
	assert_int_equal(feat_expr_parse("a&b*2&[c|d]", &e), 0);
	assert_int_equal(feat_expr_foreach_name(&e, stop_at_b, &seen), 42);
	assert_int_equal(seen, 2);
	feat_expr_free(&e);
}

static void test_list_has_compares_whole_entries(void **state)
{
	(void)state;
	assert_true(feat_list_has("a,b,c", "b", 1));
	assert_true(feat_list_has("a,b,c", "c", 1));
	assert_true(feat_list_has("a,b,c", "abc", 1));
	assert_false(feat_list_has("a,b,c", "ab", 2));
	assert_false(feat_list_has("ab,c", "a", 1));
	assert_false(feat_list_has("a,bc", "b", 1));
	assert_true(feat_list_has("a,,b", "b", 1));
	assert_false(feat_list_has("a,,b", "", 0));
	assert_false(feat_list_has("", "a", 1));
	assert_false(feat_list_has(NULL, "a", 1));
	assert_true(feat_list_has("a100", "a100,rack1", 4));
	assert_false(feat_list_has("a100", "a100,rack1", 5));
	assert_true(feat_node_match(NULL, NULL));
	assert_true(feat_node_match(NULL, "x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good_expressions_split_into_filter_alts_and_counts),
	    cmocka_unit_test(test_filter_matches_feature_lists),
	    cmocka_unit_test(test_and_or_fold_left_to_right_without_precedence),
	    cmocka_unit_test(test_counts_apply_to_names_and_groups),
	    cmocka_unit_test(test_brackets_give_alternatives_or_counts),
	    cmocka_unit_test(test_bad_expressions_are_rejected_and_leave_the_result_zeroed),
	    cmocka_unit_test(test_limits_on_length_names_and_counts),
	    cmocka_unit_test(test_free_is_safe_on_zeroed_and_twice),
	    cmocka_unit_test(test_parse_keeps_its_own_copy_of_the_text),
	    cmocka_unit_test(test_foreach_stops_at_the_first_nonzero_return),
	    cmocka_unit_test(test_list_has_compares_whole_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
