/* test_share.c - strings and vectors kept once by content: the same bytes
 * give the same block, counted; other bytes (or the same bytes cut into
 * other strings) another; the last give-back frees it; a job_desc's
 * environment and script shared and freed through job_desc_done. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/msg_job.h"
#include "common/share.h"

static void test_strings(void **state)
{
	uint64_t blocks0, bytes0, blocks, bytes;
	char buf[] = "#!/bin/sh\ntrue\n";
	const char *a, *b, *c;

	(void)state;
	share_stats(&blocks0, &bytes0);
	a = share_str(buf);
	buf[0] = '#'; /* the copy is not the caller's buffer */
	b = share_str("#!/bin/sh\ntrue\n");
	c = share_str("#!/bin/sh\nfalse\n");
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	assert_string_equal(c, "#!/bin/sh\nfalse\n");
	share_stats(&blocks, &bytes);
	assert_int_equal(blocks, blocks0 + 2);
	share_put(a);
	assert_string_equal(b, "#!/bin/sh\ntrue\n"); /* b still holds it */
	share_put(b);
	share_put(c);
	share_put(NULL);
	share_stats(&blocks, &bytes);
	assert_int_equal(blocks, blocks0);
	assert_int_equal(bytes, bytes0);
}

static void test_vectors(void **state)
{
	char *e1[] = {"HOME=/root", "PATH=/usr/bin"};
	char *e2[] = {"HOME=/root", "PATH=/usr/bin"};
	char *cut[] = {"a", "bc"}, *cut2[] = {"ab", "c"};
	char **v1, **v2, **x, **y, **none;
	const char *s;

	(void)state;
	v1 = share_strv(e1, 2);
	v2 = share_strv(e2, 2);
	assert_ptr_equal(v1, v2);
	assert_string_equal(v1[0], "HOME=/root");
	assert_string_equal(v1[1], "PATH=/usr/bin");
	assert_null(v1[2]);
	x = share_strv(cut, 2);
	y = share_strv(cut2, 2);
	assert_ptr_not_equal(x, y); /* "a\0bc\0" is not "ab\0c\0" */
	s = share_str("HOME=/root");
	assert_ptr_not_equal((const void *)s, (const void *)v1); /* a string is not a vector */
	none = share_strv(NULL, 0);
	assert_non_null(none);
	assert_null(none[0]);
	share_put(v1);
	share_put(v2);
	share_put(x);
	share_put(y);
	share_put(s);
	share_put(none);
}

static void test_job_desc(void **state)
{
	struct job_desc a = {0}, b = {0};
	uint64_t blocks0, bytes0, blocks, bytes;

	(void)state;
	share_stats(&blocks0, &bytes0);
	for (struct job_desc *d = &a; d; d = d == &a ? &b : NULL) {
		d->script = strdup("#!/bin/sh\ntrue\n");
		d->env = calloc(3, sizeof(char *));
		d->env[0] = strdup("A=1");
		d->env[1] = strdup("B=2");
		d->env_count = 2;
		d->name = strdup("sweep");
		d->work_dir = strdup("/home/u/run");
		d->account = strdup("physics");
		d->qos = strdup("normal");
		assert_int_equal(job_desc_share(d), 0);
		assert_int_equal(job_desc_share(d), 0); /* once is enough */
		assert_true(d->is_shared);
	}
	assert_ptr_equal(a.env, b.env);
	assert_ptr_equal(a.script, b.script);
	assert_ptr_equal(a.work_dir, b.work_dir);
	assert_ptr_equal(a.account, b.account);
	assert_ptr_equal(a.qos, b.qos);
	assert_ptr_not_equal(a.name, b.name); /* a name keeps its own copy */
	assert_string_equal(b.env[1], "B=2");
	share_stats(&blocks, &bytes);
	assert_int_equal(blocks, blocks0 + 5);
	/* a shared field changed: a shared copy of the new value, the old
	 * one given back only by this holder; a field of its own: a copy */
	assert_int_equal(job_desc_set_str(&a, &a.account, "chemistry"), 0);
	assert_string_equal(a.account, "chemistry");
	assert_string_equal(b.account, "physics");
	assert_int_equal(job_desc_set_str(&a, &a.name, "renamed"), 0);
	assert_string_equal(a.name, "renamed");
	assert_int_equal(job_desc_set_str(&a, &a.qos, NULL), 0);
	assert_null(a.qos);
	share_stats(&blocks, &bytes);
	assert_int_equal(blocks, blocks0 + 6);
	job_desc_done(&a);
	assert_string_equal(b.script, "#!/bin/sh\ntrue\n");
	job_desc_done(&b);
	share_stats(&blocks, &bytes);
	assert_int_equal(blocks, blocks0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_vectors),
	    cmocka_unit_test(test_job_desc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
