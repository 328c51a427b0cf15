/* test_journal.c - the record log in a mkdtemp directory: commit and
 * replay across reopen, torn tails at every cut point, corruption in the
 * middle, bad lengths, compaction, group commit and a failed commit. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/log.h"
#include "common/macros.h"
#include "slurmctld/durable.h"
#include "slurmctld/journal.h"

struct fixture {
	char dir[64];
	char path[128];
	char path_new[128];
};

/* What a replay saw: copies of every record. */
struct seen {
	uint32_t n;
	size_t len[16];
	uint8_t data[16][64];
	int stop_at;            /* return -ECANCELED on this record (-1 never) */
};

static const char *const recs[] = { "first record", "the second, longer record", "third" };

static int collect(void *arg, const uint8_t *data, size_t len)
{
	struct seen *s = arg;

	if ((int)s->n == s->stop_at)
		return -ECANCELED;
	assert_true(s->n < ARRAY_SIZE(s->len) && len <= sizeof(s->data[0]));
	s->len[s->n] = len;
	memcpy(s->data[s->n], data, len);
	s->n++;
	return 0;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/test_journal.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/%s", f->dir, JOURNAL_FILE);
	snprintf(f->path_new, sizeof(f->path_new), "%s/%s", f->dir, JOURNAL_FILE_NEW);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unlink(f->path);
	unlink(f->path_new);
	rmdir(f->dir);
	free(f);
	return 0;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static void append_str(struct journal *j, const char *s)
{
	assert_int_equal(journal_append(j, s, strlen(s)), 0);
}

static void assert_seen(const struct seen *s, const char *const *want, uint32_t n)
{
	assert_int_equal(s->n, n);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(s->len[i], strlen(want[i]));
		assert_memory_equal(s->data[i], want[i], s->len[i]);
	}
}

/* Open dir, replay into *s, return the journal. */
static struct journal *open_replay(const struct fixture *f, struct seen *s)
{
	struct journal *j = NULL;

	*s = (struct seen){ .stop_at = -1 };
	assert_int_equal(journal_open(f->dir, &j), 0);
	assert_int_equal(journal_replay(j, collect, s), 0);
	return j;
}

/* The three records committed; returns the file's bytes (malloc). */
static uint8_t *write_three(const struct fixture *f, size_t *ret_len)
{
	struct journal *j = NULL;
	uint8_t *bytes;
	FILE *fp;

	unlink(f->path); /* a fresh log each time */
	assert_int_equal(journal_open(f->dir, &j), 0);
	for (size_t i = 0; i < ARRAY_SIZE(recs); i++)
		append_str(j, recs[i]);
	assert_int_equal(journal_commit(j), 0);
	*ret_len = journal_size(j);
	journal_free(j);
	bytes = malloc(*ret_len);
	assert_non_null(bytes);
	fp = fopen(f->path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(bytes, 1, *ret_len, fp), *ret_len);
	fclose(fp);
	return bytes;
}

static void put_file(const char *path, const uint8_t *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static void test_committed_records_replay_in_order_after_reopen(void **state)
{
	struct fixture *f = *state;
	struct journal *j = NULL;
	struct stat st;
	struct seen s;
	size_t want = 0;

	assert_int_equal(journal_open(f->dir, &j), 0);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_mode & 0777, 0600); /* created private */
	for (size_t i = 0; i < ARRAY_SIZE(recs); i++) {
		append_str(j, recs[i]);
		want += JOURNAL_HDR_LEN + strlen(recs[i]);
	}
	assert_true(journal_has_pending(j));
	assert_int_equal(file_size(f->path), 0); /* appended is not written */
	assert_int_equal(journal_commit(j), 0);
	assert_false(journal_has_pending(j));
	assert_int_equal(journal_size(j), want);
	assert_int_equal(file_size(f->path), want);
	j = journal_free(j);
	assert_null(j);

	j = open_replay(f, &s);
	assert_seen(&s, recs, 3);
	assert_int_equal(journal_dropped_bytes(j), 0);
	assert_int_equal(journal_size(j), want);
	journal_free(j);
}

static void test_commit_with_nothing_pending_is_a_no_op(void **state)
{
	struct fixture *f = *state;
	struct journal *j = NULL;
	struct seen s;

	assert_int_equal(journal_open(f->dir, &j), 0);
	assert_false(journal_has_pending(j));
	assert_int_equal(journal_commit(j), 0);
	assert_int_equal(journal_size(j), 0);
	append_str(j, recs[0]);
	assert_int_equal(journal_commit(j), 0);
	assert_int_equal(journal_commit(j), 0); /* nothing again: no duplicate */
	append_str(j, recs[1]);
	journal_free(j); /* pending records are dropped, not written */

	j = open_replay(f, &s);
	assert_seen(&s, recs, 1);
	journal_free(j);
}

static void test_a_torn_last_record_is_dropped_at_every_cut_point(void **state)
{
	struct fixture *f = *state;
	size_t len, last_start, cut;
	uint8_t *bytes = write_three(f, &len);

	last_start = len - JOURNAL_HDR_LEN - strlen(recs[2]);
	for (cut = last_start; cut < len; cut++) {
		const char *const after[] = { recs[0], recs[1], "appended after the cut" };
		struct journal *j;
		struct seen s;

		put_file(f->path, bytes, cut);
		j = open_replay(f, &s);
		assert_seen(&s, recs, 2);
		assert_int_equal(journal_dropped_bytes(j), cut - last_start);
		assert_int_equal(journal_size(j), last_start);
		assert_int_equal(file_size(f->path), last_start);

		/* the truncation makes the next record readable */
		append_str(j, after[2]);
		assert_int_equal(journal_commit(j), 0);
		journal_free(j);
		j = open_replay(f, &s);
		assert_seen(&s, after, 3);
		assert_int_equal(journal_dropped_bytes(j), 0);
		journal_free(j);
	}
	free(bytes);
}

/* The log is valid only up to its first bad record: a flipped bit in the
 * middle record drops it AND the good third record after it. */
static void test_a_flipped_bit_in_the_middle_record_drops_it_and_all_after(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *bytes = write_three(f, &len);
	size_t mid_start = JOURNAL_HDR_LEN + strlen(recs[0]);
	size_t mid_end = mid_start + JOURNAL_HDR_LEN + strlen(recs[1]);

	for (size_t pos = mid_start; pos < mid_end; pos++) {
		for (int bit = 0; bit < 8; bit++) {
			struct journal *j;
			struct seen s;

			bytes[pos] ^= (uint8_t)(1u << bit);
			put_file(f->path, bytes, len);
			bytes[pos] ^= (uint8_t)(1u << bit);
			j = open_replay(f, &s);
			assert_seen(&s, recs, 1);
			assert_int_equal(journal_dropped_bytes(j), len - mid_start);
			assert_int_equal(file_size(f->path), mid_start);
			journal_free(j);
		}
	}
	free(bytes);
}

static const struct bad_header {
	const char *name;
	uint32_t len;           /* header length field */
	size_t body;            /* bytes that follow the header */
	uint8_t fill;
} bad_headers[] = {
	{ "a zero length", 0, 0, 0 },
	{ "a length one past the 64 MiB cap", JOURNAL_REC_MAX + 1, 16, 0x41 },
	{ "an absurd length", 0xffffffffu, 16, 0x41 },
	{ "a zero-filled tail", 0, 4096, 0 },
	{ "a length past the end of the file", 1000, 10, 0x41 },
};

static void test_bad_lengths_are_treated_as_corruption(void **state)
{
	struct fixture *f = *state;

	for (size_t i = 0; i < ARRAY_SIZE(bad_headers); i++) {
		const struct bad_header *h = &bad_headers[i];
		size_t len, total;
		uint8_t *bytes = write_three(f, &len);
		struct journal *j;
		struct seen s;

		total = len + JOURNAL_HDR_LEN + h->body;
		bytes = realloc(bytes, total);
		assert_non_null(bytes);
		bytes[len] = (uint8_t)(h->len >> 24);
		bytes[len + 1] = (uint8_t)(h->len >> 16);
		bytes[len + 2] = (uint8_t)(h->len >> 8);
		bytes[len + 3] = (uint8_t)h->len;
		memset(bytes + len + 4, h->fill, total - len - 4);
		put_file(f->path, bytes, total);
		j = open_replay(f, &s);
		if (s.n != 3 || journal_dropped_bytes(j) != total - len)
			fail_msg("%s: %u records, %llu dropped", h->name, s.n,
				 (unsigned long long)journal_dropped_bytes(j));
		assert_int_equal(file_size(f->path), len);
		journal_free(j);
		free(bytes);
	}
}

static void test_append_refuses_empty_and_oversized_records(void **state)
{
	struct fixture *f = *state;
	struct journal *j = NULL;

	assert_int_equal(journal_open(f->dir, &j), 0);
	assert_int_equal(journal_append(j, "x", 0), -EINVAL);
	assert_int_equal(journal_append(j, NULL, 4), -EINVAL);
	/* the length is checked before any byte is read */
	assert_int_equal(journal_append(j, "x", (size_t)JOURNAL_REC_MAX + 1), -EMSGSIZE);
	assert_false(journal_has_pending(j));
	journal_free(j);
}

static void test_a_failing_callback_stops_the_replay_with_its_code(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *bytes = write_three(f, &len);
	struct journal *j = NULL;
	struct seen s = { .stop_at = 1 };

	assert_int_equal(journal_open(f->dir, &j), 0);
	assert_int_equal(journal_replay(j, collect, &s), -ECANCELED);
	assert_seen(&s, recs, 1);
	assert_int_equal(file_size(f->path), len); /* nothing truncated */
	journal_free(j);
	free(bytes);
}

static void test_compaction_keeps_exactly_the_given_records(void **state)
{
	struct fixture *f = *state;
	const char *const kept[] = { "compacted one", "compacted two" };
	const char *const final[] = { kept[0], kept[1], "pending at compaction" };
	struct iovec iov[2];
	size_t len;
	uint8_t *bytes = write_three(f, &len);
	struct journal *j;
	struct seen s;

	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		iov[i] = (struct iovec){ .iov_base = (void *)kept[i], .iov_len = strlen(kept[i]) };
	j = open_replay(f, &s);
	append_str(j, final[2]);
	assert_int_equal(journal_compact(j, iov, ARRAY_SIZE(iov)), 0);
	assert_int_equal(access(f->path_new, F_OK), -1);
	assert_int_equal(journal_size(j), 2 * JOURNAL_HDR_LEN + strlen(kept[0]) + strlen(kept[1]));
	assert_int_equal(file_size(f->path), journal_size(j));

	s = (struct seen){ .stop_at = -1 };
	assert_int_equal(journal_replay(j, collect, &s), 0);
	assert_seen(&s, kept, 2);
	assert_true(journal_has_pending(j)); /* follows the compacted records */
	assert_int_equal(journal_commit(j), 0);
	journal_free(j);
	j = open_replay(f, &s);
	assert_seen(&s, final, 3);

	assert_int_equal(journal_compact(j, NULL, 0), 0); /* to an empty log */
	assert_int_equal(journal_size(j), 0);
	journal_free(j);
	j = open_replay(f, &s);
	assert_int_equal(s.n, 0);
	journal_free(j);
	free(bytes);
}

static void test_compaction_refuses_a_bad_record_and_keeps_the_old_log(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *bytes = write_three(f, &len);
	struct iovec iov[2] = { { .iov_base = (void *)"ok", .iov_len = 2 },
				{ .iov_base = (void *)"", .iov_len = 0 } };
	struct journal *j;
	struct seen s;

	j = open_replay(f, &s);
	assert_int_equal(journal_compact(j, iov, 2), -EINVAL);
	assert_int_equal(journal_size(j), len);
	journal_free(j);
	j = open_replay(f, &s);
	assert_seen(&s, recs, 3);
	journal_free(j);
	free(bytes);
}

static void test_a_leftover_compaction_file_is_removed_on_open(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *bytes = write_three(f, &len);
	struct journal *j;
	struct seen s;

	put_file(f->path_new, (const uint8_t *)"half a compaction", 17);
	j = open_replay(f, &s);
	assert_int_equal(access(f->path_new, F_OK), -1);
	assert_seen(&s, recs, 3);
	journal_free(j);
	free(bytes);
}

/* Run fn(j, arg) with files capped at max bytes (writes past it: EFBIG). */
static int with_file_cap(off_t max, int (*fn)(struct journal *, const void *),
			 struct journal *j, const void *arg)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_sa;
	struct rlimit old, lim;
	int r;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(sigaction(SIGXFSZ, &ign, &old_sa), 0);
	lim = (struct rlimit){ .rlim_cur = (rlim_t)max, .rlim_max = old.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	r = fn(j, arg);
	setrlimit(RLIMIT_FSIZE, &old);
	sigaction(SIGXFSZ, &old_sa, NULL);
	return r;
}

static int commit_fn(struct journal *j, const void *arg)
{
	(void)arg;
	return journal_commit(j);
}

static int compact_fn(struct journal *j, const void *arg)
{
	return journal_compact(j, arg, 1);
}

/* RLIMIT_FSIZE makes the write fail part way (EFBIG): the batch is kept,
 * the half-written bytes are cut off, and a retry commits cleanly. */
static void test_a_failed_commit_keeps_the_batch_and_cuts_the_half_write(void **state)
{
	struct fixture *f = *state;
	const char *const want[] = { recs[0], recs[1] };
	struct journal *j = NULL;
	off_t committed;
	struct seen s;

	assert_int_equal(journal_open(f->dir, &j), 0);
	append_str(j, recs[0]);
	assert_int_equal(journal_commit(j), 0);
	committed = file_size(f->path);
	append_str(j, recs[1]);

	assert_int_equal(with_file_cap(committed + 5, commit_fn, j, NULL), -EFBIG);
	assert_true(journal_has_pending(j));
	assert_int_equal(file_size(f->path), committed);
	assert_int_equal(journal_size(j), committed);
	assert_int_equal(journal_commit(j), 0);
	journal_free(j);
	j = open_replay(f, &s);
	assert_seen(&s, want, 2);
	journal_free(j);
}

/* A compaction that fails while writing leaves the old log in place and
 * in use, and no job_journal.new behind. */
static void test_a_failed_compaction_keeps_the_old_log(void **state)
{
	struct fixture *f = *state;
	const char *const want[] = { recs[0], recs[1], recs[2], "after the failure" };
	static char big[200];
	struct iovec iov = { .iov_base = big, .iov_len = sizeof(big) };
	size_t len;
	uint8_t *bytes = write_three(f, &len);
	struct journal *j;
	struct seen s;

	memset(big, 'x', sizeof(big));
	j = open_replay(f, &s);
	assert_int_equal(with_file_cap(100, compact_fn, j, &iov), -EFBIG);
	assert_int_equal(access(f->path_new, F_OK), -1);
	assert_int_equal(journal_size(j), len);
	append_str(j, want[3]);
	assert_int_equal(journal_commit(j), 0);
	journal_free(j);
	j = open_replay(f, &s);
	assert_seen(&s, want, 4);
	journal_free(j);
	free(bytes);
}

static void test_open_fails_cleanly_for_a_missing_directory(void **state)
{
	struct journal *j = NULL;

	(void)state;
	assert_int_equal(journal_open("/nonexistent/state/dir", &j), -ENOENT);
	assert_null(j);
	assert_int_equal(journal_open("", &j), -EINVAL);
	assert_null(journal_free(NULL));
}

/* When the controller rewrites its log (durable.c): past 16 MB, and only
 * once the log is 3 times what the last rewrite left, so that many kept
 * jobs do not make every commit a rewrite. */
static void test_compaction_waits_for_the_log_to_outgrow_the_live_jobs(void **state)
{
	const uint64_t mb = 1u << 20;

	(void)state;
	assert_false(durable_compact_is_due(15 * mb, 0));
	assert_true(durable_compact_is_due(17 * mb, 0));
	assert_true(durable_compact_is_due(17 * mb, 5 * mb));
	/* 20 MB of live jobs: not every commit past 16 MB, only past 60 MB */
	assert_false(durable_compact_is_due(21 * mb, 20 * mb));
	assert_false(durable_compact_is_due(60 * mb, 20 * mb));
	assert_true(durable_compact_is_due(61 * mb, 20 * mb));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_committed_records_replay_in_order_after_reopen),
	    T(test_commit_with_nothing_pending_is_a_no_op),
	    T(test_a_torn_last_record_is_dropped_at_every_cut_point),
	    T(test_a_flipped_bit_in_the_middle_record_drops_it_and_all_after),
	    T(test_bad_lengths_are_treated_as_corruption),
	    T(test_append_refuses_empty_and_oversized_records),
	    T(test_a_failing_callback_stops_the_replay_with_its_code),
	    T(test_compaction_keeps_exactly_the_given_records),
	    T(test_compaction_refuses_a_bad_record_and_keeps_the_old_log),
	    T(test_a_leftover_compaction_file_is_removed_on_open),
	    T(test_a_failed_commit_keeps_the_batch_and_cuts_the_half_write),
	    T(test_a_failed_compaction_keeps_the_old_log),
	    T(test_open_fails_cleanly_for_a_missing_directory),
	    cmocka_unit_test(test_compaction_waits_for_the_log_to_outgrow_the_live_jobs),
	};

	/* replay logs every dropped tail: keep the test output readable */
	log_init("test_journal", LOG_LEVEL_QUIET, NULL, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
