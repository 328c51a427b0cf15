/* test_journal.c - the record log in a mkdtemp directory: commit and
 * replay across reopen, torn tails at every cut point, corruption in the
 * middle, bad lengths, compaction, group commit and a failed commit. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
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
	assert_int_equal(journal_replay(j, false, collect, s), 0);
	return j;
}

/* Close j, and check what a restart reads: want[0..n), nothing dropped. */
static void close_and_check(const struct fixture *f, struct journal *j, const char *const *want,
			    uint32_t n)
{
	struct seen s;

	journal_free(j);
	j = open_replay(f, &s);
	assert_seen(&s, want, n);
	assert_int_equal(journal_dropped_bytes(j), 0);
	journal_free(j);
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

static uint8_t *read_file(const char *path, size_t *ret_len)
{
	off_t size = file_size(path);
	uint8_t *bytes = malloc(size > 0 ? (size_t)size : 1);
	FILE *fp = fopen(path, "rb");

	assert_non_null(bytes);
	assert_non_null(fp);
	assert_int_equal(fread(bytes, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	*ret_len = (size_t)size;
	return bytes;
}

/* Damage with a committed record after it is not a torn tail: a flipped
 * bit anywhere in the middle record (length, CRC or payload) stops the
 * replay with -EBADMSG at that record's offset, after the records before
 * it, and leaves the file exactly as it was (for -i, or for forensics). */
static void test_a_flipped_bit_in_the_middle_record_refuses_the_replay(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *bytes = write_three(f, &len);
	size_t mid_start = JOURNAL_HDR_LEN + strlen(recs[0]);
	size_t mid_end = mid_start + JOURNAL_HDR_LEN + strlen(recs[1]);

	for (size_t pos = mid_start; pos < mid_end; pos++) {
		for (int bit = 0; bit < 8; bit++) {
			struct journal *j = NULL;
			struct seen s = {.stop_at = -1};
			size_t after_len;
			uint8_t *after;

			bytes[pos] ^= (uint8_t)(1u << bit);
			put_file(f->path, bytes, len);
			assert_int_equal(journal_open(f->dir, &j), 0);
			assert_int_equal(journal_replay(j, false, collect, &s), -EBADMSG);
			assert_seen(&s, recs, 1);
			assert_int_equal(journal_bad_offset(j), mid_start);
			after = read_file(f->path, &after_len);
			assert_int_equal(after_len, len);
			assert_memory_equal(after, bytes, len);
			free(after);
			bytes[pos] ^= (uint8_t)(1u << bit);
			journal_free(j);
		}
	}
	free(bytes);
}

/* A whole record overwritten with zeros (a lost block) in the middle is
 * corruption too: the zeros are not at the end. */
static void test_zeros_in_the_middle_are_corruption_not_a_torn_tail(void **state)
{
	struct fixture *f = *state;
	size_t len;
	uint8_t *bytes = write_three(f, &len);
	size_t mid_start = JOURNAL_HDR_LEN + strlen(recs[0]);
	struct journal *j = NULL;
	struct seen s = {.stop_at = -1};

	memset(bytes + mid_start, 0, JOURNAL_HDR_LEN + strlen(recs[1]));
	put_file(f->path, bytes, len);
	assert_int_equal(journal_open(f->dir, &j), 0);
	assert_int_equal(journal_replay(j, false, collect, &s), -EBADMSG);
	assert_seen(&s, recs, 1);
	assert_int_equal(file_size(f->path), len);
	journal_free(j);
	free(bytes);
}

/* -i: the salvage replay keeps what precedes the damage, the file is set
 * aside byte for byte (never replacing an older one), and the journal goes
 * on with a new log that replays cleanly. */
static void test_salvage_sets_a_corrupt_log_aside_and_goes_on(void **state)
{
	struct fixture *f = *state;
	const char *const want[] = {recs[0], "after the salvage"};
	size_t len, kept_len;
	uint8_t *bytes = write_three(f, &len), *kept;
	size_t mid_start = JOURNAL_HDR_LEN + strlen(recs[0]);
	char name[64], path[192], older[192];
	struct journal *j = NULL;
	struct seen s = {.stop_at = -1};

	bytes[mid_start + JOURNAL_HDR_LEN] ^= 0x10;
	put_file(f->path, bytes, len);
	snprintf(older, sizeof(older), "%s/%s.bad.1000", f->dir, JOURNAL_FILE);
	put_file(older, (const uint8_t *)"an older one", 12);
	assert_int_equal(journal_open(f->dir, &j), 0);
	assert_int_equal(journal_replay(j, true, collect, &s), 0);
	assert_seen(&s, recs, 1);
	assert_int_equal(journal_bad_offset(j), mid_start);
	assert_int_equal(journal_set_aside(j, 1000, name, sizeof(name)), 0);
	assert_string_equal(name, JOURNAL_FILE ".bad.1000.1");
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	kept = read_file(path, &kept_len);
	assert_int_equal(kept_len, len);
	assert_memory_equal(kept, bytes, len);
	free(kept);
	kept = read_file(older, &kept_len);
	assert_int_equal(kept_len, 12);
	free(kept);
	assert_int_equal(journal_size(j), 0);
	assert_int_equal(file_size(f->path), 0);

	append_str(j, want[0]);
	append_str(j, want[1]);
	assert_int_equal(journal_commit(j), 0);
	close_and_check(f, j, want, 2);
	unlink(path);
	unlink(older);
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
	assert_int_equal(journal_replay(j, false, collect, &s), -ECANCELED);
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
	assert_int_equal(journal_replay(j, false, collect, &s), 0);
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

/* Poll until the background compaction is over; its result. */
static int compact_wait(struct journal *j, uint64_t *ret_live)
{
	struct timespec ms = {.tv_nsec = 1000 * 1000};
	int r;

	for (int i = 0; i < 10000; i++) {
		r = journal_compact_poll(j, ret_live);
		if (r != -EINPROGRESS)
			return r;
		nanosleep(&ms, NULL);
	}
	fail_msg("the background compaction did not end in 10 s");
	return -ETIMEDOUT;
}

/* In the background, commits go on into the old log while the thread
 * writes; they follow the live records in the new log. */
static void test_a_background_compaction_keeps_what_was_committed_meanwhile(void **state)
{
	struct fixture *f = *state;
	const char *const kept[] = {"live one", "live two"};
	const char *const final[] = {kept[0], kept[1], "during", "pending at start", "after"};
	struct iovec iov[2];
	size_t len;
	uint8_t *bytes = write_three(f, &len);
	struct journal *j;
	struct seen s;
	uint64_t live = 0;

	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		iov[i] = (struct iovec){.iov_base = (void *)kept[i], .iov_len = strlen(kept[i])};
	j = open_replay(f, &s);
	append_str(j, final[2]);
	assert_int_equal(journal_compact_start(j, iov, ARRAY_SIZE(iov)), 0);
	assert_true(journal_compact_is_running(j));
	assert_int_equal(journal_compact_start(j, iov, 1), -EBUSY);
	assert_int_equal(journal_compact(j, iov, 1), -EBUSY);
	assert_int_equal(journal_commit(j), 0); /* into the old log, and kept */
	append_str(j, final[3]);
	assert_int_equal(journal_commit(j), 0);
	assert_int_equal(compact_wait(j, &live), 0);
	assert_int_equal(live, 2 * JOURNAL_HDR_LEN + strlen(kept[0]) + strlen(kept[1]));
	assert_false(journal_compact_is_running(j));
	assert_int_equal(access(f->path_new, F_OK), -1);
	assert_int_equal(file_size(f->path), journal_size(j));
	append_str(j, final[4]);
	assert_int_equal(journal_commit(j), 0);
	close_and_check(f, j, final, 5);
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
	close_and_check(f, j, want, 4);
	free(bytes);
}

/* Failing system calls for journal_set_syscalls(): writev takes only
 * write_budget more bytes, then fails with write_err; fdatasync fails with
 * sync_err (once when is_sync_once); ftruncate fails with trunc_err. */
static struct {
	size_t write_budget;
	int write_err, sync_err, trunc_err;
	bool is_sync_once;
	unsigned writes;
	size_t written;
} inj;

static ssize_t inj_writev(int fd, const struct iovec *iov, int n)
{
	size_t total = 0;

	inj.writes++;
	if (inj.write_budget == 0 && inj.write_err) {
		errno = inj.write_err;
		return -1;
	}
	for (int i = 0; i < n && inj.write_budget > 0; i++) {
		size_t part = iov[i].iov_len < inj.write_budget ? iov[i].iov_len : inj.write_budget;
		ssize_t w = write(fd, iov[i].iov_base, part);

		if (w < 0)
			return total ? (ssize_t)total : -1;
		total += (size_t)w;
		inj.write_budget -= (size_t)w;
		if ((size_t)w < iov[i].iov_len)
			break;
	}
	inj.written += total;
	return (ssize_t)total;
}

static int inj_fdatasync(int fd)
{
	if (inj.sync_err) {
		errno = inj.sync_err;
		if (inj.is_sync_once)
			inj.sync_err = 0;
		return -1;
	}
	return fdatasync(fd);
}

static int inj_ftruncate(int fd, off_t len)
{
	if (inj.trunc_err) {
		errno = inj.trunc_err;
		return -1;
	}
	return ftruncate(fd, len);
}

static const struct journal_syscalls inj_syscalls = {
    .writev = inj_writev,
    .fdatasync = inj_fdatasync,
    .fsync = fsync,
    .ftruncate = inj_ftruncate,
};

static void inj_reset(void)
{
	inj = (typeof(inj)){.write_budget = SIZE_MAX};
}

/* The thread's write fails (ENOSPC): the old log, with the commits made
 * meanwhile, stays in use and no job_journal.new is left. */
static void test_a_failed_background_compaction_keeps_the_old_log(void **state)
{
	struct fixture *f = *state;
	const char *const want[] = {recs[0], recs[1], recs[2], "meanwhile", "after"};
	static char big[200];
	struct iovec iov = {.iov_base = big, .iov_len = sizeof(big)};
	size_t len;
	uint8_t *bytes = write_three(f, &len);
	struct journal *j;
	struct seen s;

	memset(big, 'x', sizeof(big));
	j = open_replay(f, &s);
	inj_reset();
	inj.write_budget = 10;
	inj.write_err = ENOSPC;
	journal_set_syscalls(j, &inj_syscalls);
	assert_int_equal(journal_compact_start(j, &iov, 1), 0);
	assert_int_equal(compact_wait(j, NULL), -ENOSPC);
	inj_reset();
	assert_false(journal_compact_is_running(j));
	assert_int_equal(access(f->path_new, F_OK), -1);
	append_str(j, want[3]);
	assert_int_equal(journal_commit(j), 0);
	append_str(j, want[4]);
	assert_int_equal(journal_commit(j), 0);
	journal_set_syscalls(j, NULL);
	close_and_check(f, j, want, 5);
	free(bytes);
}

/* A journal on the failing calls with recs[0] committed; *ret_committed
 * is the file's size then. */
static struct journal *open_failing(const struct fixture *f, off_t *ret_committed)
{
	struct journal *j = NULL;

	unlink(f->path);
	assert_int_equal(journal_open(f->dir, &j), 0);
	journal_set_syscalls(j, &inj_syscalls);
	inj_reset();
	append_str(j, recs[0]);
	assert_int_equal(journal_commit(j), 0);
	*ret_committed = file_size(f->path);
	return j;
}

/* A full disk (ENOSPC after a few bytes of the batch, then at once):
 * every try fails, keeps the batch, leaves the file at its committed
 * size; once space is back the same batch commits and replays whole. */
static void test_enospc_part_way_keeps_the_batch_and_leaves_no_half_record(void **state)
{
	struct fixture *f = *state;
	off_t committed;
	struct journal *j = open_failing(f, &committed);

	append_str(j, recs[1]);
	append_str(j, recs[2]);
	inj.write_budget = JOURNAL_HDR_LEN + 3; /* a header and a bit of the body */
	inj.write_err = ENOSPC;
	assert_int_equal(journal_commit(j), -ENOSPC);
	assert_true(journal_has_pending(j));
	assert_int_equal(file_size(f->path), committed);
	assert_int_equal(journal_commit(j), -ENOSPC); /* still full: nothing written */
	assert_int_equal(file_size(f->path), committed);
	assert_int_equal(journal_size(j), committed);

	inj_reset(); /* space is back */
	assert_int_equal(journal_commit(j), 0);
	assert_false(journal_has_pending(j));
	close_and_check(f, j, recs, 3);
}

/* EIO from fdatasync: the written pages may never reach the disk, so the
 * commit fails, the bytes are cut off, and the retry writes the whole
 * batch again instead of trusting a second fdatasync. */
static void test_a_failed_fdatasync_fails_the_commit_and_the_retry_rewrites(void **state)
{
	struct fixture *f = *state;
	size_t batch = JOURNAL_HDR_LEN + strlen(recs[1]);
	off_t committed;
	struct journal *j = open_failing(f, &committed);

	append_str(j, recs[1]);
	inj.sync_err = EIO;
	inj.is_sync_once = true;
	inj.written = 0;
	assert_int_equal(journal_commit(j), -EIO);
	assert_true(journal_has_pending(j));
	assert_int_equal(file_size(f->path), committed);
	assert_int_equal(journal_commit(j), 0);
	assert_int_equal(inj.written, 2 * batch); /* written twice */
	close_and_check(f, j, recs, 2);
}

/* When even the cut-back fails (EIO), the half batch stays in the file:
 * no later commit writes behind it until the cut succeeds, and a crash in
 * that state leaves a torn tail that the next start drops. */
static void test_a_failed_cut_back_blocks_later_writes_until_it_succeeds(void **state)
{
	struct fixture *f = *state;
	off_t committed;
	struct journal *j = open_failing(f, &committed);
	unsigned writes;
	struct seen s;

	append_str(j, recs[1]);
	inj.write_budget = 5;
	inj.write_err = ENOSPC;
	inj.trunc_err = EIO;
	assert_int_equal(journal_commit(j), -ENOSPC);
	assert_int_equal(file_size(f->path), committed + 5); /* could not cut */
	writes = inj.writes;
	inj.write_budget = SIZE_MAX;
	inj.write_err = 0;
	assert_int_equal(journal_commit(j), -EIO);
	assert_int_equal(inj.writes, writes); /* nothing written behind the half */

	/* a crash now: the half batch is a torn tail */
	journal_free(j);
	j = open_replay(f, &s);
	assert_seen(&s, recs, 1);
	assert_int_equal(journal_dropped_bytes(j), 5);
	assert_int_equal(file_size(f->path), committed);
	journal_free(j);

	/* without the crash: once the cut works, the batch follows good records */
	j = open_failing(f, &committed);
	append_str(j, recs[1]);
	inj.write_budget = 5;
	inj.write_err = ENOSPC;
	inj.trunc_err = EIO;
	assert_int_equal(journal_commit(j), -ENOSPC);
	inj_reset();
	append_str(j, recs[2]);
	assert_int_equal(journal_commit(j), 0);
	close_and_check(f, j, recs, 3);
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
	    T(test_a_flipped_bit_in_the_middle_record_refuses_the_replay),
	    T(test_zeros_in_the_middle_are_corruption_not_a_torn_tail),
	    T(test_salvage_sets_a_corrupt_log_aside_and_goes_on),
	    T(test_bad_lengths_are_treated_as_corruption),
	    T(test_append_refuses_empty_and_oversized_records),
	    T(test_a_failing_callback_stops_the_replay_with_its_code),
	    T(test_compaction_keeps_exactly_the_given_records),
	    T(test_compaction_refuses_a_bad_record_and_keeps_the_old_log),
	    T(test_a_background_compaction_keeps_what_was_committed_meanwhile),
	    T(test_a_failed_background_compaction_keeps_the_old_log),
	    T(test_a_leftover_compaction_file_is_removed_on_open),
	    T(test_a_failed_commit_keeps_the_batch_and_cuts_the_half_write),
	    T(test_a_failed_compaction_keeps_the_old_log),
	    T(test_enospc_part_way_keeps_the_batch_and_leaves_no_half_record),
	    T(test_a_failed_fdatasync_fails_the_commit_and_the_retry_rewrites),
	    T(test_a_failed_cut_back_blocks_later_writes_until_it_succeeds),
	    T(test_open_fails_cleanly_for_a_missing_directory),
	    cmocka_unit_test(test_compaction_waits_for_the_log_to_outgrow_the_live_jobs),
	};

	/* replay logs every dropped tail: keep the test output readable */
	log_init("test_journal", LOG_LEVEL_QUIET, NULL, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
