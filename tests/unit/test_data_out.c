/* test_data_out.c - the emitter of --json/--yaml: Slurm's JSON layout,
 * string escapes (including bytes that are not UTF-8), YAML scalars that
 * would read back as another type, tables and their schema. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/data_out.h"
#include "common/macros.h"

static void test_json_layout(void **state)
{
	(void)state;
	struct dout *d = dout_new(DOUT_JSON);
	dout_obj(d, NULL);
	dout_arr(d, "errors");
	dout_end(d);
	dout_obj(d, "o");
	dout_uint(d, "u", 18446744073709551615ull);
	dout_int(d, "i", -42);
	dout_bool(d, "b", true);
	dout_null(d, "n");
	dout_num(d, "x", 1);
	dout_num(d, "y", 0.25);
	dout_end(d);
	dout_str_list(d, "l", "a,,b");
	dout_end(d);
	assert_int_equal(dout_error(d), 0);
	assert_string_equal(dout_text(d, NULL), "{\n"
						"  \"errors\": [\n"
						"  ],\n"
						"  \"o\": {\n"
						"    \"u\": 18446744073709551615,\n"
						"    \"i\": -42,\n"
						"    \"b\": true,\n"
						"    \"n\": null,\n"
						"    \"x\": 1.0,\n"
						"    \"y\": 0.25\n"
						"  },\n"
						"  \"l\": [\n"
						"    \"a\",\n"
						"    \"b\"\n"
						"  ]\n"
						"}\n");
	dout_free(d);
}

static void test_json_escapes(void **state)
{
	(void)state;
	struct dout *d = dout_new(DOUT_JSON);
	dout_arr(d, NULL);
	dout_str(d, NULL, "a/b\"c\\d\n\t\x01");
	dout_str(d, NULL, "caf\xc3\xa9 \xe2\x82\xac");    /* valid UTF-8 kept */
	dout_str(d, NULL, "bad\xff\xc3(\xed\xa0\x80!"); /* invalid, surrogate */
	dout_str(d, NULL, NULL);
	dout_end(d);
	assert_string_equal(dout_text(d, NULL),
			    "[\n"
			    "  \"a\\/b\\\"c\\\\d\\n\\t\\u0001\",\n"
			    "  \"caf\xc3\xa9 \xe2\x82\xac\",\n"
			    "  \"bad\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd!\",\n"
			    "  \"\"\n"
			    "]\n");
	dout_free(d);
}

static void test_yaml(void **state)
{
	(void)state;
	struct dout *d = dout_new(DOUT_YAML);
	dout_obj(d, NULL);
	dout_str(d, "name", "job");
	dout_str(d, "empty", "");
	dout_str(d, "word", "yes");
	dout_str(d, "digits", "0123");
	dout_uint(d, "id", 12);
	dout_null(d, "n");
	dout_bool(d, "b", false);
	dout_arr(d, "none");
	dout_end(d);
	dout_str_list(d, "parts", "p1,p2");
	dout_end(d);
	assert_int_equal(dout_error(d), 0);
	assert_string_equal(dout_text(d, NULL), "---\n"
						"name: job\n"
						"empty: ''\n"
						"word: 'yes'\n"
						"digits: '0123'\n"
						"id: 12\n"
						"n: null\n"
						"b: false\n"
						"none: []\n"
						"parts:\n"
						"- p1\n"
						"- p2\n"
						"...\n");
	dout_free(d);
}

struct rec {
	char *name;
	uint32_t id;
	uint32_t limit;
	uint16_t flag;
	time_t t;
};

static void rec_fn(struct dout *d, const char *key, const void *r)
{
	dout_uint(d, key, ((const struct rec *)r)->id * 2);
}

static const struct dfield inner[] = {
	{ "id", DF_U32, 0, offsetof(struct rec, id), NULL, NULL },
};
static DFIELD_TABLE(inner_t, "inner", inner);

static const struct dfield fields[] = {
	{ "name", DF_STR, 0, offsetof(struct rec, name), NULL, NULL },
	{ "limit", DF_U32_NV, 0, offsetof(struct rec, limit), NULL, NULL },
	{ "flag", DF_BOOL16, 0, offsetof(struct rec, flag), NULL, NULL },
	{ "t", DF_TIME, 0, offsetof(struct rec, t), NULL, NULL },
	{ "c", DF_EMPTY, 0, 0, NULL, NULL },
	{ "in", DF_OBJ, 0, 0, NULL, &inner_t },
	{ "twice", DF_FN, DS_INTEGER, 0, rec_fn, NULL },
};
static DFIELD_TABLE(rec_t, "rec", fields);

static void test_table(void **state)
{
	(void)state;
	struct rec r = { .name = "x", .id = 7, .limit = NO_VAL, .flag = 1, .t = 1700000000 };
	struct dout *d = dout_new(DOUT_JSON);
	dout_record(d, NULL, &rec_t, &r);
	assert_string_equal(dout_text(d, NULL), "{\n"
						"  \"name\": \"x\",\n"
						"  \"limit\": null,\n"
						"  \"flag\": true,\n"
						"  \"t\": 1700000000,\n"
						"  \"c\": \"\",\n"
						"  \"in\": {\n"
						"    \"id\": 7\n"
						"  },\n"
						"  \"twice\": 14\n"
						"}\n");
	dout_free(d);

	d = dout_new(DOUT_JSON);
	dout_schema(d, NULL, &rec_t);
	const char *s = dout_text(d, NULL);
	assert_non_null(strstr(s, "\"limit\": {\n      \"type\": \"integer\",\n"
				  "      \"nullable\": true\n"));
	assert_non_null(strstr(s, "\"in\": {\n      \"type\": \"object\",\n"
				  "      \"properties\": {\n        \"id\": {\n"));
	dout_free(d);
}

/* DF_U32_Z / DF_U16_Z write 0 for NO_VAL and INFINITE; DF_U64_NV null. */
struct zrec {
	uint32_t a, b;
	uint16_t c;
	uint64_t m, n;
};
static const struct dfield zfields[] = {
	{ "a", DF_U32_Z, 0, offsetof(struct zrec, a), NULL, NULL },
	{ "b", DF_U32_Z, 0, offsetof(struct zrec, b), NULL, NULL },
	{ "c", DF_U16_Z, 0, offsetof(struct zrec, c), NULL, NULL },
	{ "m", DF_U64_NV, 0, offsetof(struct zrec, m), NULL, NULL },
	{ "n", DF_U64_NV, 0, offsetof(struct zrec, n), NULL, NULL },
};
static DFIELD_TABLE(zrec_t, "zrec", zfields);

static void test_zero_and_null_types(void **state)
{
	(void)state;
	struct zrec r = { .a = NO_VAL, .b = 5, .c = INFINITE16, .m = NO_VAL64, .n = 9 };
	struct dout *d = dout_new(DOUT_JSON);
	dout_record(d, NULL, &zrec_t, &r);
	assert_string_equal(dout_text(d, NULL), "{\n  \"a\": 0,\n  \"b\": 5,\n  \"c\": 0,\n"
						"  \"m\": null,\n  \"n\": 9\n}\n");
	dout_free(d);
	d = dout_new(DOUT_JSON);
	dout_schema(d, NULL, &zrec_t);
	const char *s = dout_text(d, NULL);
	assert_non_null(strstr(s, "\"a\": {\n      \"type\": \"integer\"\n"));
	assert_non_null(strstr(s, "\"m\": {\n      \"type\": \"integer\",\n"
				  "      \"nullable\": true\n"));
	dout_free(d);
}

/* DF_STR_NULL: NULL and "" are null, the schema a nullable string. */
static void test_str_null(void **state)
{
	(void)state;
	static const struct dfield f[] = {
		{ "name", DF_STR_NULL, 0, offsetof(struct rec, name), NULL, NULL },
	};
	static DFIELD_TABLE(t, "t", f);
	struct rec r = { .name = NULL };
	struct dout *d = dout_new(DOUT_JSON);
	dout_arr(d, NULL);
	dout_record(d, NULL, &t, &r);
	r.name = "";
	dout_record(d, NULL, &t, &r);
	r.name = "a";
	dout_record(d, NULL, &t, &r);
	dout_end(d);
	assert_string_equal(dout_text(d, NULL), "[\n  {\n    \"name\": null\n  },\n"
						"  {\n    \"name\": null\n  },\n"
						"  {\n    \"name\": \"a\"\n  }\n]\n");
	dout_free(d);
	d = dout_new(DOUT_JSON);
	dout_schema(d, NULL, &t);
	assert_non_null(strstr(dout_text(d, NULL), "\"name\": {\n      \"type\": \"string\",\n"
						   "      \"nullable\": true\n"));
	dout_free(d);
}

/* A sink gets the same bytes as the buffer would hold, in chunks. */
static void big_doc(struct dout *d)
{
	dout_arr(d, NULL);
	for (int i = 0; i < 20000; i++) {
		dout_obj(d, NULL);
		dout_str(d, "name", "a \"b\"/c");
		dout_int(d, "i", i);
		dout_end(d);
	}
	dout_end(d);
}

static void test_sink(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		enum dout_kind kind = k ? DOUT_YAML : DOUT_JSON;
		struct dout *whole = dout_new(kind), *d = dout_new(kind);
		FILE *f = tmpfile();
		size_t len, got;

		assert_non_null(f);
		big_doc(whole);
		dout_sink_fd(d, fileno(f));
		big_doc(d);
		assert_int_equal(dout_flush(d), 0);
		const char *want = dout_text(whole, &len);
		assert_true(len > (256u << 10)); /* several chunks */
		char *back = malloc(len + 1);
		rewind(f);
		got = fread(back, 1, len + 1, f);
		assert_int_equal(got, len);
		assert_memory_equal(back, want, len);
		free(back);
		fclose(f);
		dout_free(whole);
		dout_free(d);
	}
}

static void test_unbalanced(void **state)
{
	(void)state;
	struct dout *d = dout_new(DOUT_JSON);
	dout_end(d);
	assert_int_equal(dout_error(d), -1);
	dout_free(d);
	d = dout_new(DOUT_YAML);
	dout_end(d);
	assert_int_equal(dout_error(d), -1);
	dout_free(d);
}

/* A reader that went away: the writer thread's error reaches the maker
 * (no hang, no crash), and later chunks are not written. */
static void test_sink_write_error(void **state)
{
	(void)state;
	int fds[2];
	struct dout *d = dout_new(DOUT_JSON);
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);

	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	dout_sink_fd(d, fds[1]);
	big_doc(d);
	assert_int_not_equal(dout_flush(d), 0);
	assert_int_not_equal(dout_error(d), 0);
	dout_free(d);
	close(fds[1]);
	signal(SIGPIPE, old);
}

/* Templates (data_out.c): every member type, at several depths, with
 * writers that write one member, none or several, first, last and
 * between constants, gives the same text as the member-by-member path. */
struct every {
	char *s, *sn;
	uint16_t u16, u16nv, u16z, b;
	uint32_t u32, u32nv, u32z;
	uint64_t u64, u64nv;
	time_t t;
	int fn_members; /* what w_some writes */
};

#define E(m) offsetof(struct every, m)

static void w_some(struct dout *d, const char *key, const void *rec)
{
	const struct every *e = rec;

	for (int i = 0; i < e->fn_members; i++)
		dout_uint(d, i ? "extra" : key, (uint64_t)i);
}

static const struct dfield inner_fields[] = {
    {"fn_first", DF_FN, DS_INTEGER, 0, w_some, NULL},
    {"k_null", DF_NULL, 0, 0, NULL, NULL},
    {"v_str", DF_STR, 0, E(s), NULL, NULL},
};
static DFIELD_TABLE(inner_table, "inner", inner_fields);

static const struct dfield every_fields[] = {
    {"k_empty", DF_EMPTY, 0, 0, NULL, NULL},
    {"s", DF_STR, 0, E(s), NULL, NULL},
    {"sn", DF_STR_NULL, 0, E(sn), NULL, NULL},
    {"u16", DF_U16, 0, E(u16), NULL, NULL},
    {"u16nv", DF_U16_NV, 0, E(u16nv), NULL, NULL},
    {"u16z", DF_U16_Z, 0, E(u16z), NULL, NULL},
    {"b", DF_BOOL16, 0, E(b), NULL, NULL},
    {"k_zero", DF_ZERO, 0, 0, NULL, NULL},
    {"k_false", DF_FALSE, 0, 0, NULL, NULL},
    {"k_noarr", DF_NOARR, 0, 0, NULL, NULL},
    {"u32", DF_U32, 0, E(u32), NULL, NULL},
    {"u32nv", DF_U32_NV, 0, E(u32nv), NULL, NULL},
    {"u32z", DF_U32_Z, 0, E(u32z), NULL, NULL},
    {"fn_mid", DF_FN, DS_INTEGER, 0, w_some, NULL},
    {"obj", DF_OBJ, 0, 0, NULL, &inner_table},
    {"u64", DF_U64, 0, E(u64), NULL, NULL},
    {"u64nv", DF_U64_NV, 0, E(u64nv), NULL, NULL},
    {"t", DF_TIME, 0, E(t), NULL, NULL},
    {"k_null", DF_NULL, 0, 0, NULL, NULL},
    {"fn_last", DF_FN, DS_INTEGER, 0, w_some, NULL},
};
static DFIELD_TABLE(every_table, "every", every_fields);

static char *render(const struct every *recs, size_t n, bool tmpl)
{
	struct dout *d = dout_new(DOUT_JSON);
	char *s;

	dout_set_templates(d, tmpl);
	dout_obj(d, NULL);
	dout_arr(d, "top");
	for (size_t i = 0; i < n; i++)
		dout_record(d, NULL, &every_table, &recs[i]);
	dout_end(d);
	dout_obj(d, "deeper");
	dout_obj(d, "still");
	dout_record(d, "one", &every_table, &recs[0]);
	dout_end(d);
	dout_end(d);
	dout_record(d, "last", &inner_table, &recs[n - 1]);
	dout_end(d);
	assert_int_equal(dout_error(d), 0);
	s = dout_steal(d, NULL);
	dout_free(d);
	return s;
}

static void test_templates_same_text(void **state)
{
	(void)state;
	const struct every recs[] = {
	    {.s = "plain", .sn = "x", .u16 = 7, .u16nv = 3, .u16z = 4, .b = 1, .u32 = 1234567,
	     .u32nv = 5, .u32z = 6, .u64 = UINT64_C(12345678901234), .u64nv = 9, .t = 1700000000,
	     .fn_members = 1},
	    {.s = NULL, .sn = NULL, .u16nv = NO_VAL16, .u16z = NO_VAL16, .u32nv = NO_VAL,
	     .u32z = INFINITE, .u64nv = NO_VAL64, .t = -5, .fn_members = 0},
	    {.s = "q\"u/o\nte\x01\xff", .sn = "", .u16nv = INFINITE16, .u16z = INFINITE16,
	     .u32nv = INFINITE, .u32z = NO_VAL, .u64 = UINT64_MAX, .u64nv = INFINITE64,
	     .fn_members = 3},
	};
	char *with = render(recs, ARRAY_SIZE(recs), true);
	char *without = render(recs, ARRAY_SIZE(recs), false);

	assert_string_equal(with, without);
	assert_non_null(strstr(with, "\"k_empty\": \"\",\n"));
	assert_non_null(strstr(with, "\"k_noarr\": [\n      ],\n"));
	assert_non_null(strstr(with, "\"u64nv\": null"));
	free(with);
	free(without);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_layout), cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_yaml),	    cmocka_unit_test(test_table),
		cmocka_unit_test(test_unbalanced), cmocka_unit_test(test_zero_and_null_types),
		cmocka_unit_test(test_str_null),
		cmocka_unit_test(test_sink),
		cmocka_unit_test(test_sink_write_error),
		cmocka_unit_test(test_templates_same_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
