/* test_blob_store.c - scripts and environments kept in StateSaveLocation:
 * the same bytes are one blob, counted; bytes read back before and after
 * their sync, and after a restart through a record's reference; a segment
 * goes with its last blob and at the sweep, never while in use; damaged
 * or missing bytes fail the read; a bad reference is refused. Also a
 * job's script and environment moved into the store and loaded back. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/msg_job.h"
#include "common/pack.h"
#include "slurmctld/blob_store.h"
#include "slurmctld/job.h"

struct dir {
	char path[64];
};

static int dir_setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	snprintf(d->path, sizeof(d->path), "/tmp/test_blob_store.XXXXXX");
	assert_non_null(mkdtemp(d->path));
	*state = d;
	return 0;
}

static int dir_teardown(void **state)
{
	struct dir *d = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	assert_int_equal(system(cmd), 0);
	free(d);
	return 0;
}

static bool seg_exists(const struct dir *d, unsigned n)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/" BLOB_SEG_PREFIX "%u", d->path, n);
	return access(p, F_OK) == 0;
}

static void assert_reads(const struct blob *b, const char *want)
{
	uint8_t *got = NULL;
	size_t len = 0;

	assert_int_equal(blob_read(b, &got, &len), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(got, want, len);
	assert_int_equal(got[len], '\0');
	free(got);
}

static void test_the_same_bytes_are_one_blob_read_back_before_and_after_sync(void **state)
{
	struct dir *d = *state;
	struct blob_store *s = NULL;
	struct blob *a, *b, *c;
	uint64_t n, bytes;

	assert_int_equal(blob_store_open(d->path, &s), 0);
	a = blob_put(s, "#!/bin/sh\ntrue\n", 15);
	b = blob_put(s, "#!/bin/sh\ntrue\n", 15);
	c = blob_put(s, "PATH=/bin", 9);
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	blob_store_stats(s, &n, &bytes);
	assert_int_equal(n, 2);
	assert_int_equal(bytes, 24);
	assert_false(seg_exists(d, 0)); /* nothing written before the sync */
	assert_reads(a, "#!/bin/sh\ntrue\n");
	assert_int_equal(blob_store_sync(s), 0);
	assert_true(seg_exists(d, 0));
	assert_reads(a, "#!/bin/sh\ntrue\n");
	assert_reads(c, "PATH=/bin");
	blob_unref(a);
	assert_reads(b, "#!/bin/sh\ntrue\n"); /* b still holds it */
	blob_unref(b);
	blob_unref(c);
	blob_unref(NULL);
	blob_store_stats(s, &n, &bytes);
	assert_int_equal(n, 0);
	assert_true(seg_exists(d, 0)); /* the current segment stays */
	blob_store_free(s);
}

/* Pack a's reference, open the store again (a restart) and adopt it. */
static struct blob *restart_with(const struct dir *d, const struct blob *a, struct blob_store **s)
{
	struct pack_buf p = {0}, v;
	struct blob *b;

	blob_pack_ref(a, &p);
	assert_int_equal(p.err, 0);
	blob_store_free(*s); /* a is detached: its owner frees it */
	assert_int_equal(blob_store_open(d->path, s), 0);
	v = pack_buf_view(p.data, p.len);
	b = blob_unpack_ref(&v);
	assert_non_null(b);
	assert_int_equal(pack_remaining(&v), 0);
	assert_int_equal(blob_read(b, &(uint8_t *){NULL}, &(size_t){0}), -EINVAL); /* detached */
	pack_buf_done(&p);
	return blob_adopt(*s, b);
}

static void test_a_reference_finds_its_bytes_after_a_restart_and_the_segment_goes_last(void **state)
{
	struct dir *d = *state;
	struct blob_store *s = NULL;
	struct blob *a, *b, *e, *again;

	assert_int_equal(blob_store_open(d->path, &s), 0);
	a = blob_put(s, "echo one\n", 9);
	e = blob_put(s, "HOME=/home/u", 12);
	assert_int_equal(blob_store_sync(s), 0);
	b = restart_with(d, a, &s);
	blob_unref(a);
	blob_unref(e); /* e's reference was not kept: its bytes are garbage now */
	assert_reads(b, "echo one\n");
	/* new blobs go to a new segment; the same bytes are the adopted blob */
	again = blob_put(s, "echo one\n", 9);
	assert_ptr_equal(again, b);
	blob_unref(again);
	assert_non_null(e = blob_put(s, "echo two\n", 9));
	assert_int_equal(blob_store_sync(s), 0);
	assert_true(seg_exists(d, 1));
	assert_int_equal(blob_store_sweep(s), 0); /* segment 0 holds b */
	assert_true(seg_exists(d, 0));
	blob_unref(b); /* its last blob: segment 0 goes */
	assert_false(seg_exists(d, 0));
	assert_true(seg_exists(d, 1));
	blob_unref(e);
	blob_store_free(s);
}

static void test_the_sweep_removes_segments_no_job_took(void **state)
{
	struct dir *d = *state;
	struct blob_store *s = NULL;
	char junk[128];

	assert_int_equal(blob_store_open(d->path, &s), 0);
	blob_unref(blob_put(s, "a", 1));
	assert_int_equal(blob_store_sync(s), 0);
	blob_store_free(s);
	snprintf(junk, sizeof(junk), "%s/" BLOB_SEG_PREFIX "x", d->path);
	assert_int_equal(close(open(junk, O_CREAT | O_WRONLY, 0600)), 0);
	assert_int_equal(blob_store_open(d->path, &s), 0);
	assert_int_equal(blob_store_sweep(s), 1);
	assert_false(seg_exists(d, 0));
	assert_int_equal(access(junk, F_OK), 0); /* not a segment's name */
	blob_store_free(s);
}

static void test_damaged_or_missing_bytes_fail_the_read(void **state)
{
	struct dir *d = *state;
	struct blob_store *s = NULL;
	struct blob *a, *b;
	char p[128];
	uint8_t *got;
	size_t len;
	int fd;

	assert_int_equal(blob_store_open(d->path, &s), 0);
	a = blob_put(s, "#!/bin/sh\nrm -rf $HOME/tmp\n", 27);
	assert_int_equal(blob_store_sync(s), 0);
	b = restart_with(d, a, &s);
	blob_unref(a);
	snprintf(p, sizeof(p), "%s/" BLOB_SEG_PREFIX "0", d->path);
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "X", 1, 12), 1);
	close(fd);
	assert_int_equal(blob_read(b, &got, &len), -EIO);
	assert_int_equal(truncate(p, 5), 0);
	assert_int_equal(blob_read(b, &got, &len), -EIO); /* cut short */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(blob_read(b, &got, &len), -ENOENT);
	blob_unref(b);
	blob_store_free(s);
}

static void test_a_bad_reference_is_refused(void **state)
{
	struct pack_buf p = {0}, v;
	uint8_t digest[32] = {0};

	(void)state;
	pack_u32(&p, 0);
	pack_u64(&p, 0);
	pack_u32(&p, BLOB_MAX + 1);
	pack_raw(&p, digest, sizeof(digest));
	v = pack_buf_view(p.data, p.len);
	assert_null(blob_unpack_ref(&v));
	assert_int_equal(v.err, -EBADMSG);
	v = pack_buf_view(p.data, p.len - 1); /* short */
	assert_null(blob_unpack_ref(&v));
	assert_true(v.err < 0);
	pack_buf_done(&p);
}

static void test_a_jobs_script_and_environment_move_to_the_store_and_load_back(void **state)
{
	struct dir *d = *state;
	struct blob_store *s = NULL;
	struct job *job = calloc(1, sizeof(*job)), *twin = calloc(1, sizeof(*twin));
	struct job_files f;
	uint64_t n, bytes;

	assert_true(job && twin);
	assert_int_equal(blob_store_open(d->path, &s), 0);
	for (int i = 0; i < 2; i++) {
		struct job *j = i ? twin : job;
		struct job_desc *desc = calloc(1, sizeof(*desc));

		assert_non_null(desc);
		desc->script = strdup("#!/bin/sh\necho hi\n");
		desc->env = calloc(3, sizeof(*desc->env));
		desc->env[0] = strdup("A=1");
		desc->env[1] = strdup("B=two words");
		desc->env_count = 2;
		j->desc = desc;
		assert_int_equal(job_files_store(s, j), 0);
		assert_null(desc->script);
		assert_int_equal(desc->env_count, 0);
		assert_true(job_has_script(j));
	}
	assert_ptr_equal(job->script_blob, twin->script_blob); /* one copy for both */
	blob_store_stats(s, &n, &bytes);
	assert_int_equal(n, 2);
	assert_int_equal(job_files_load(job, &f), 0);
	assert_string_equal(f.script, "#!/bin/sh\necho hi\n");
	assert_int_equal(f.env_count, 2);
	assert_string_equal(f.env[0], "A=1");
	assert_string_equal(f.env[1], "B=two words");
	job_files_done(&f);
	job_free(twin);
	assert_int_equal(blob_store_sync(s), 0);
	assert_int_equal(job_files_load(job, &f), 0);
	assert_string_equal(f.script, "#!/bin/sh\necho hi\n");
	job_files_done(&f);
	blob_store_free(s); /* before the job: its blobs are detached, freed with it */
	assert_int_equal(job_files_load(job, &f), -EINVAL);
	job_free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		test_the_same_bytes_are_one_blob_read_back_before_and_after_sync, dir_setup,
		dir_teardown),
	    cmocka_unit_test_setup_teardown(
		test_a_reference_finds_its_bytes_after_a_restart_and_the_segment_goes_last,
		dir_setup, dir_teardown),
	    cmocka_unit_test_setup_teardown(test_the_sweep_removes_segments_no_job_took, dir_setup,
					    dir_teardown),
	    cmocka_unit_test_setup_teardown(test_damaged_or_missing_bytes_fail_the_read, dir_setup,
					    dir_teardown),
	    cmocka_unit_test(test_a_bad_reference_is_refused),
	    cmocka_unit_test_setup_teardown(
		test_a_jobs_script_and_environment_move_to_the_store_and_load_back, dir_setup,
		dir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
