/* test_gres_detect.c - GRES strings from gres.conf entries against device
 * files made in a temporary directory ("@" in a case stands for it). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/gres_detect.h"
#include "common/macros.h"

#define MAX_ENTRIES 4

struct entry {
	const char *node_name, *name, *type, *file;
	uint64_t count;
};

static const struct gres_case {
	const char *title;
	struct entry e[MAX_ENTRIES];
	const char *node;
	int rc;
	const char *want;    /* GRES string, or a word the error text must hold */
	const char *missing; /* comma-joined paths */
} cases[] = {
	{ "untyped GPUs on every node",
	  { { NULL, "gpu", NULL, "@/nvidia[0-3]", 4 } },
	  "n1", 0, "gpu:4", "" },
	{ "two types on two nodes",
	  { { "n[1-2]", "gpu", "a100", "@/nvidia[0-1]", 2 },
	    { "n[1-2]", "gpu", "v100", "@/nvidia[2-3]", 2 } },
	  "n2", 0, "gpu:a100:2,gpu:v100:2", "" },
	{ "a node outside every NodeName gets nothing",
	  { { "n[1-2]", "gpu", "a100", "@/nvidia[0-1]", 2 } },
	  "n3", 0, "", "" },
	{ "missing files are listed, not counted",
	  { { NULL, "gpu", NULL, "@/nvidia[0-5]", 6 } },
	  "n1", 0, "gpu:4", "@/nvidia4,@/nvidia5" },
	{ "Count without File, and mps keeps its Count",
	  { { NULL, "gpu", NULL, NULL, 8 }, { NULL, "mps", NULL, "@/nvidia[0-1]", 200 } },
	  "n1", 0, "gpu:8,mps:200", "" },
	{ "lines with the same Name and Type add up",
	  { { NULL, "gpu", "a100", "@/nvidia0", 1 }, { NULL, "GPU", "A100", "@/nvidia1", 1 } },
	  "n1", 0, "gpu:a100:2", "" },
	{ "grouped by Name in first-seen order",
	  { { NULL, "gpu", "a100", "@/nvidia0", 1 }, { NULL, "nic", NULL, NULL, 1 },
	    { NULL, "gpu", "v100", "@/nvidia1", 1 } },
	  "n1", 0, "gpu:a100:1,gpu:v100:1,nic:1", "" },
	{ "only the node's own lines count",
	  { { "n1", "gpu", NULL, "@/nvidia[0-1]", 2 }, { "n2", "gpu", NULL, "@/nvidia[2-3]", 2 },
	    { "n[1-2]", "nic", NULL, NULL, 1 } },
	  "n2", 0, "gpu:2,nic:1", "" },
	{ "totals of zero are left out",
	  { { NULL, "gpu", NULL, "@/nvidia[8-9]", 2 }, { NULL, "nic", NULL, NULL, 0 } },
	  "n1", 0, "", "@/nvidia8,@/nvidia9" },
	{ "the reference cluster's g1",
	  { { "g[1-2]", "gpu", NULL, "@/nvidia[0-3]", 4 } },
	  "g1", 0, "gpu:4", "" },
	{ "the reference cluster's n1",
	  { { "g[1-2]", "gpu", NULL, "@/nvidia[0-3]", 4 } },
	  "n1", 0, "", "" },
	{ "no entries", { { 0 } }, "n1", 0, "", "" },
	{ "malformed NodeName",
	  { { "n[1-", "gpu", NULL, NULL, 1 } },
	  "n1", -EINVAL, "NodeName=n[1-", NULL },
	{ "malformed File",
	  { { NULL, "gpu", NULL, "@/nvidia[0-", 1 } },
	  "n1", -EINVAL, "File=", NULL },
	{ "Count that disagrees with File",
	  { { NULL, "gpu", NULL, "@/nvidia[0-1]", 3 } },
	  "n1", -EINVAL, "Count=3", NULL },
};

static char *dir;

/* s with each '@' replaced by dir; malloc'd. */
static char *subst(const char *s)
{
	char *out;
	size_t n = 1;

	if (!s)
		return NULL;
	for (const char *p = s; *p; p++)
		n += *p == '@' ? strlen(dir) : 1;
	out = calloc(1, n);
	assert_non_null(out);
	for (const char *p = s; *p; p++) {
		if (*p == '@')
			strcat(out, dir);
		else
			strncat(out, p, 1);
	}
	return out;
}

static int setup(void **state)
{
	static char tmpl[] = "/tmp/test_gres_detect.XXXXXX";

	(void)state;
	dir = mkdtemp(tmpl);
	if (!dir)
		return -1;
	for (int i = 0; i < 4; i++) {
		char path[128];
		FILE *f;

		snprintf(path, sizeof(path), "%s/nvidia%d", dir, i);
		f = fopen(path, "w");
		if (!f)
			return -1;
		fclose(f);
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *join_missing(const struct gres_detect *d)
{
	char *s = calloc(1, 4096);

	assert_non_null(s);
	assert_non_null(d->missing);
	for (size_t i = 0; i < d->missing_count; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, d->missing[i]);
	}
	assert_null(d->missing[d->missing_count]);
	return s;
}

static void run_case(const struct gres_case *c)
{
	struct gres_conf g[MAX_ENTRIES] = { 0 };
	struct gres_detect d = { .gres = (char *)"untouched" };
	struct sl_error err = { "" };
	size_t n = 0;
	int r;

	for (; n < MAX_ENTRIES && c->e[n].name; n++) {
		g[n].node_name = subst(c->e[n].node_name);
		g[n].name = subst(c->e[n].name);
		g[n].type = subst(c->e[n].type);
		g[n].file = subst(c->e[n].file);
		g[n].count = c->e[n].count;
	}
	r = gres_detect(g, n, c->node, &d, &err);
	if (r != c->rc)
		fail_msg("%s: rc %d, want %d (%s)", c->title, r, c->rc, err.text);
	if (r < 0) {
		assert_string_equal(d.gres, "untouched");
		if (!strstr(err.text, c->want))
			fail_msg("%s: error text '%s' lacks '%s'", c->title, err.text, c->want);
	} else {
		_cleanup_free_ char *missing = join_missing(&d);
		_cleanup_free_ char *want_missing = subst(c->missing);

		if (strcmp(d.gres, c->want))
			fail_msg("%s: got '%s', want '%s'", c->title, d.gres, c->want);
		if (strcmp(missing, want_missing))
			fail_msg("%s: missing '%s', want '%s'", c->title, missing, want_missing);
		gres_detect_done(&d);
		gres_detect_done(&d); /* idempotent */
	}
	for (size_t i = 0; i < n; i++) {
		free(g[i].node_name);
		free(g[i].name);
		free(g[i].type);
		free(g[i].file);
	}
}

static void test_each_case_gives_the_expected_gres(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
}

static void test_gres_count_sums_every_entry_of_a_name(void **state)
{
	static const struct {
		const char *gres;
		uint64_t gpus;
	} counts[] = {
		{ "gpu:4", 4 },
		{ "gpu:a100:2,gpu:v100:2", 4 },
		{ "gpu", 1 },
		{ "gpu:a100", 1 },
		{ "gpu:1K", 1024 },
		{ "mps:100,gpu:2", 2 },
		{ "gpux:4", 0 },
		{ "gpu:4x", 0 },
		{ "", 0 },
		{ NULL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (gres_count(counts[i].gres, "gpu") != counts[i].gpus)
			fail_msg("%s: %llu, want %llu", counts[i].gres ? counts[i].gres : "NULL",
				 (unsigned long long)gres_count(counts[i].gres, "gpu"),
				 (unsigned long long)counts[i].gpus);
}

/* After a detect that found GRES and missing files, done frees both lists
 * and leaves the struct reading empty, so a second done (or a reuse)
 * frees nothing twice; NULL is ignored. The sanitizer build catches a
 * double free or a leak here. */
static void test_done_empties_a_filled_result_and_may_run_twice(void **state)
{
	_cleanup_free_ char *file = subst("@/nvidia[2-5]");
	struct gres_conf g = { .name = (char *)"gpu", .file = file, .count = 4 };
	struct gres_detect d = { 0 };
	struct sl_error err = { "" };

	(void)state;
	assert_int_equal(gres_detect(&g, 1, "n1", &d, &err), 0);
	assert_string_equal(d.gres, "gpu:2");
	assert_int_equal(d.missing_count, 2);
	assert_non_null(d.missing);

	gres_detect_done(&d);
	assert_null(d.gres);
	assert_null(d.missing);
	assert_int_equal(d.missing_count, 0);

	gres_detect_done(&d);
	assert_null(d.gres);
	assert_null(d.missing);
	assert_int_equal(d.missing_count, 0);
	gres_detect_done(NULL);
}

/* GPU i of a node is file i: its gpu lines in order, each File= list in
 * order; other names and other nodes' lines are not its GPUs. */
static void test_gpu_files_in_index_order(void **state)
{
	struct gres_conf g[] = {
		{ .node_name = (char *)"n[1-2]", .name = (char *)"gpu", .type = (char *)"a100",
		  .file = (char *)"/dev/nvidia[0-1]", .count = 2 },
		{ .node_name = (char *)"n3", .name = (char *)"gpu", .file = (char *)"/dev/nvidia9",
		  .count = 1 },
		{ .name = (char *)"mps", .file = (char *)"/dev/nvidia0", .count = 100 },
		{ .node_name = (char *)"n1", .name = (char *)"GPU", .file = (char *)"/dev/nvidia[4,2]",
		  .count = 2 },
	};
	char **files = NULL;
	size_t n = 9;

	(void)state;
	assert_int_equal(gres_gpu_files(g, ARRAY_SIZE(g), "n1", &files, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(files[0], "/dev/nvidia0");
	assert_string_equal(files[1], "/dev/nvidia1");
	assert_string_equal(files[2], "/dev/nvidia4");
	assert_string_equal(files[3], "/dev/nvidia2");
	assert_null(files[4]);
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	assert_int_equal(gres_gpu_files(g, ARRAY_SIZE(g), "n9", &files, &n), 0);
	assert_int_equal(n, 0);
	assert_null(files);
}

static void test_gpu_cores_follow_the_gpu_order(void **state)
{
	struct gres_conf g[] = {
		{ .node_name = (char *)"n1", .name = (char *)"gpu", .file = (char *)"/dev/nvidia[0-1]",
		  .count = 2, .cores = (char *)"0-1" },
		{ .name = (char *)"gpu", .file = (char *)"/dev/nvidia2", .count = 1 },
		{ .node_name = (char *)"n1", .name = (char *)"gpu", .file = (char *)"/dev/nvidia3",
		  .count = 1, .cores = (char *)"2,63" },
	};
	uint64_t cores[8], m = 0;
	size_t n = 0;

	(void)state;
	assert_int_equal(gres_gpu_cores(g, ARRAY_SIZE(g), "n1", cores, 8, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(cores[0], 0x3);
	assert_int_equal(cores[1], 0x3);
	assert_int_equal(cores[2], 0); /* no Cores=: no affinity */
	assert_int_equal(cores[3], UINT64_C(0x8000000000000004));
	assert_int_equal(gres_gpu_cores(g, ARRAY_SIZE(g), "n1", cores, 2, &n), 0);
	assert_int_equal(n, 2); /* at most max */
	assert_int_equal(gres_cores_mask("0-3,8", &m), 0);
	assert_int_equal(m, 0x10f);
	assert_int_equal(gres_cores_mask("64", &m), -EINVAL);
	assert_int_equal(gres_cores_mask("3-1", &m), -EINVAL);
	assert_int_equal(gres_cores_mask("1,", &m), -EINVAL);
	assert_int_equal(gres_cores_mask("", &m), -EINVAL);
	assert_int_equal(gres_cores_mask("a", NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_case_gives_the_expected_gres),
		cmocka_unit_test(test_gres_count_sums_every_entry_of_a_name),
		cmocka_unit_test(test_done_empties_a_filled_result_and_may_run_twice),
		cmocka_unit_test(test_gpu_files_in_index_order),
		cmocka_unit_test(test_gpu_cores_follow_the_gpu_order),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
