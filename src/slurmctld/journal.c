/* journal.c - append-only record log with CRC32C and group commit; see
 * journal.h.
 *
 * Owns two descriptors (the state directory, for openat/renameat/fsync,
 * and the log, O_APPEND) and the pending batch: records already framed
 * (header + payload) back to back, so a commit is a single write.
 * Every write, sync and truncation goes through j->sys (the real calls,
 * or a unit test's failing ones).
 * Caveat: the committed size is tracked here, not re-read; a failed commit
 * cuts the file back to it, and if even that fails the cut is retried
 * before the next write.
 *
 * Background compaction (journal_compact_start/_poll): the live records
 * are framed into one buffer on the caller's thread; a thread writes it to
 * job_journal.new and fsyncs it while commits go on into the old log, each
 * committed batch also kept in j->bg->tail. The poll that finds the thread
 * done appends that tail to the new file, syncs it and renames it over the
 * log. The thread touches only its struct bg (and j->sys), and the loop
 * reads the struct's results only after is_done.
 */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "common/log.h"
#include "common/macros.h"

struct journal {
	char *dir;             /* for log lines */
	int dir_fd;
	int fd;                /* dir/job_journal, O_APPEND */
	uint64_t size;         /* committed bytes */
	uint64_t dropped;      /* by the last replay */
	int64_t bad_offset;    /* of damage before the end, -1: none */
	bool is_tail_dirty;    /* a failed commit may have left bytes past size */
	uint8_t *pend;         /* framed pending records */
	size_t pend_len, pend_cap;
	uint64_t appended;  /* records appended since open */
	uint64_t committed; /* ... of which durable */
	uint64_t pend_recs; /* ... of which pending */
	const struct journal_syscalls *sys;
	struct bg *bg; /* a compaction in the background, or NULL */
};

struct bg {
	pthread_t thread;
	const struct journal_syscalls *sys;
	int fd;	       /* job_journal.new */
	uint8_t *snap; /* the live records, framed */
	size_t snap_len;
	int result; /* the thread's: 0 or -errno */
	atomic_bool is_done;
	uint8_t *tail; /* batches committed meanwhile (loop side) */
	size_t tail_len, tail_cap;
	bool is_tail_lost; /* ENOMEM keeping the tail: the rewrite is void */
};

static const struct journal_syscalls real_syscalls = {
    .writev = writev,
    .fdatasync = fdatasync,
    .fsync = fsync,
    .ftruncate = ftruncate,
};

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void frame_header(uint8_t hdr[JOURNAL_HDR_LEN], const void *data, size_t len)
{
	put_be32(hdr, (uint32_t)len);
	put_be32(hdr + 4, crc32c(0, data, len));
}

int journal_open(const char *dir, struct journal **ret)
{
	_cleanup_close_ int dir_fd = -1, fd = -1;
	bool is_created = false;
	struct journal *j;
	struct stat st;

	if (!dir || !*dir || !ret)
		return -EINVAL;
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return -errno;
	/* a compaction that died before its rename: the old log is current */
	if (unlinkat(dir_fd, JOURNAL_FILE_NEW, 0) < 0 && errno != ENOENT)
		return -errno;
	fd = openat(dir_fd, JOURNAL_FILE, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		is_created = true;
	else if (errno == EEXIST)
		fd = openat(dir_fd, JOURNAL_FILE, O_RDWR | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	/* the first commit's fdatasync does not make the new name durable */
	if (is_created && fsync(dir_fd) < 0)
		return -errno;

	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->dir = strdup(dir);
	if (!j->dir) {
		free(j);
		return -ENOMEM;
	}
	j->dir_fd = TAKE_FD(dir_fd);
	j->fd = TAKE_FD(fd);
	j->size = (uint64_t)st.st_size;
	j->bad_offset = -1;
	j->appended = j->committed = JOURNAL_SEQ_OPENED;
	j->sys = &real_syscalls;
	*ret = j;
	return 0;
}

static void bg_free(struct journal *j, bool is_renamed);

struct journal *journal_free(struct journal *j)
{
	if (!j)
		return NULL;
	if (j->bg) {
		pthread_join(j->bg->thread, NULL);
		bg_free(j, false);
	}
	if (j->fd >= 0)
		close(j->fd);
	if (j->dir_fd >= 0)
		close(j->dir_fd);
	free(j->pend);
	free(j->dir);
	free(j);
	return NULL;
}

/* Why the record at p (left bytes to the end of the file) is bad, or NULL
 * when it is whole, with its payload length in *ret_len. */
static const char *record_check(const uint8_t *p, uint64_t left, uint32_t *ret_len)
{
	uint32_t len;

	if (left < JOURNAL_HDR_LEN)
		return "short header";
	len = get_be32(p);
	if (len == 0 || len > JOURNAL_REC_MAX)
		return "bad length";
	if (len > left - JOURNAL_HDR_LEN)
		return "short record";
	if (crc32c(0, p + JOURNAL_HDR_LEN, len) != get_be32(p + 4))
		return "CRC mismatch";
	*ret_len = len;
	return NULL;
}

/* Whether a whole record starts anywhere in map[from..size). After a bad
 * record, none means a torn tail: a crash cut the last append short (a
 * partial header, body or CRC, or zeros where the file system had not
 * written yet). One means damage with committed records after it. */
static bool has_record_after(const uint8_t *map, uint64_t from, uint64_t size)
{
	uint32_t len;

	for (uint64_t off = from; off < size; off++)
		if (!record_check(map + off, size - off, &len))
			return true;
	return false;
}

/* Give fn every whole record of map[0..size) up to the first bad one.
 * Returns the length of that good prefix, or fn's code (<0). A bad record
 * is logged, naming the file and its offset; *ret_is_corrupt says whether
 * records follow it (corruption) or not (a torn tail). */
static int64_t replay_records(struct journal *j, const uint8_t *map, uint64_t size,
			      journal_rec_fn *fn, void *arg, bool *ret_is_corrupt)
{
	uint64_t off = 0;

	*ret_is_corrupt = false;
	while (off < size) {
		uint32_t len = 0;
		const char *why = record_check(map + off, size - off, &len);
		int r;

		if (why) {
			*ret_is_corrupt = has_record_after(map, off + 1, size);
			if (*ret_is_corrupt)
				error("journal %s/%s: %s at offset %llu, and %llu bytes with "
				      "committed "
				      "records after it: the log is corrupt",
				      j->dir, JOURNAL_FILE, why, (unsigned long long)off,
				      (unsigned long long)(size - off));
			else
				info(
				    "journal %s/%s: %s at offset %llu: dropping a torn last record "
				    "of %llu bytes (a crash during its write)",
				    j->dir, JOURNAL_FILE, why, (unsigned long long)off,
				    (unsigned long long)(size - off));
			break;
		}
		r = fn(arg, map + off + JOURNAL_HDR_LEN, len);
		if (r < 0) {
			j->bad_offset = (int64_t)off;
			return r;
		}
		off += JOURNAL_HDR_LEN + len;
	}
	return (int64_t)off;
}

int journal_replay(struct journal *j, bool is_salvage, journal_rec_fn *fn, void *arg)
{
	bool is_corrupt = false;
	struct stat st;
	uint64_t size;
	int64_t good;
	void *map;

	if (!j || !fn)
		return -EINVAL;
	j->dropped = 0;
	j->bad_offset = -1;
	if (fstat(j->fd, &st) < 0)
		return -errno;
	size = (uint64_t)st.st_size;
	if (size == 0)
		return 0;
	if (size > SIZE_MAX)
		return -EFBIG;
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, j->fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	good = replay_records(j, map, size, fn, arg, &is_corrupt);
	munmap(map, (size_t)size);
	if (good < 0)
		return (int)good;
	if (is_corrupt) {
		/* the file stays as it is: for journal_set_aside(), or for a
		 * start with -i after this one refuses */
		j->bad_offset = good;
		j->dropped = size - (uint64_t)good;
		return is_salvage ? 0 : -EBADMSG;
	}
	if ((uint64_t)good < size) {
		if (j->sys->ftruncate(j->fd, (off_t)good) < 0 || j->sys->fdatasync(j->fd) < 0)
			return -errno;
		j->dropped = size - (uint64_t)good;
	}
	j->size = (uint64_t)good;
	j->is_tail_dirty = false;
	return 0;
}

int journal_scan_damaged(struct journal *j, journal_rec_fn *fn, void *arg)
{
	uint64_t size, off;
	struct stat st;
	uint8_t *map;
	int r = 0;

	if (!j || !fn || j->bad_offset < 0)
		return -EINVAL;
	if (fstat(j->fd, &st) < 0)
		return -errno;
	size = (uint64_t)st.st_size;
	if (size > SIZE_MAX)
		return -EFBIG;
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, j->fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	for (off = (uint64_t)j->bad_offset + 1; off < size && r == 0;) {
		uint32_t len;

		if (record_check(map + off, size - off, &len)) {
			off++;
			continue;
		}
		r = fn(arg, map + off + JOURNAL_HDR_LEN, len);
		off += JOURNAL_HDR_LEN + len;
	}
	munmap(map, (size_t)size);
	return r;
}

uint64_t journal_dropped_bytes(const struct journal *j)
{
	return j ? j->dropped : 0;
}

int journal_append(struct journal *j, const void *data, size_t len)
{
	size_t need;

	if (!j || !data || len == 0)
		return -EINVAL;
	if (len > JOURNAL_REC_MAX)
		return -EMSGSIZE;
	need = JOURNAL_HDR_LEN + len;
	if (need > SIZE_MAX - j->pend_len)
		return -ENOMEM;
	if (j->pend_len + need > j->pend_cap) {
		size_t cap = j->pend_cap ? j->pend_cap : 4096;
		uint8_t *p;

		while (cap < j->pend_len + need)
			cap = cap > SIZE_MAX / 2 ? j->pend_len + need : cap * 2;
		p = realloc(j->pend, cap);
		if (!p)
			return -ENOMEM;
		j->pend = p;
		j->pend_cap = cap;
	}
	frame_header(j->pend + j->pend_len, data, len);
	memcpy(j->pend + j->pend_len + JOURNAL_HDR_LEN, data, len);
	j->pend_len += need;
	j->appended++;
	j->pend_recs++;
	return 0;
}

uint64_t journal_seq(const struct journal *j)
{
	return j ? j->appended : 0;
}

uint64_t journal_committed_seq(const struct journal *j)
{
	return j ? j->committed : 0;
}

bool journal_has_pending(const struct journal *j)
{
	return j && j->pend_len > 0;
}

/* Write iov[0..n) completely, resuming after short writes. iov is
 * consumed (its entries are advanced). */
static int writev_all(const struct journal_syscalls *sys, int fd, struct iovec *iov, size_t n)
{
	while (n > 0) {
		ssize_t w = sys->writev(fd, iov, n > IOV_MAX ? IOV_MAX : (int)n);
		size_t done;

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		done = (size_t)w;
		while (n > 0 && done >= iov->iov_len) {
			done -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + done;
			iov->iov_len -= done;
		}
	}
	return 0;
}

int journal_commit(struct journal *j)
{
	struct iovec iov;
	int r;

	if (!j)
		return -EINVAL;
	if (!j->pend_len)
		return 0;
	if (j->is_tail_dirty) {
		if (j->sys->ftruncate(j->fd, (off_t)j->size) < 0)
			return -errno;
		j->is_tail_dirty = false;
	}
	iov = (struct iovec){ .iov_base = j->pend, .iov_len = j->pend_len };
	r = writev_all(j->sys, j->fd, &iov, 1);
	if (r == 0 && j->sys->fdatasync(j->fd) < 0)
		r = -errno;
	if (r < 0) {
		/* Cut the half batch off: a retry must not land behind it. After a
		 * failed fdatasync the rewrite also re-dirties the pages (the
		 * kernel may have dropped them: a second fdatasync could
		 * succeed without having written them). */
		if (j->sys->ftruncate(j->fd, (off_t)j->size) < 0)
			j->is_tail_dirty = true;
		return r;
	}
	j->size += j->pend_len;
	if (j->bg && !j->bg->is_tail_lost) {
		struct bg *b = j->bg;
		uint8_t *t = b->tail;

		if (b->tail_len + j->pend_len > b->tail_cap) {
			size_t cap = (b->tail_len + j->pend_len) * 2;

			t = realloc(b->tail, cap);
			if (t) {
				b->tail = t;
				b->tail_cap = cap;
			}
		}
		if (t) {
			memcpy(b->tail + b->tail_len, j->pend, j->pend_len);
			b->tail_len += j->pend_len;
		} else {
			b->is_tail_lost = true;
		}
	}
	j->pend_len = 0;
	j->committed += j->pend_recs;
	j->pend_recs = 0;
	return 0;
}

static int compact_check(const struct iovec *recs, size_t n)
{
	if (n && !recs)
		return -EINVAL;
	if (n > SIZE_MAX / (2 * sizeof(struct iovec)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!recs[i].iov_base || recs[i].iov_len == 0)
			return -EINVAL;
		if (recs[i].iov_len > JOURNAL_REC_MAX)
			return -EMSGSIZE;
	}
	return 0;
}

/* Write recs framed to fd and sync it; *ret_size is the bytes written. */
static int compact_write(const struct journal_syscalls *sys, int fd, const struct iovec *recs,
			 size_t n, uint64_t *ret_size)
{
	_cleanup_free_ struct iovec *iov = calloc(2 * n + 1, sizeof(*iov));
	_cleanup_free_ uint8_t *hdrs = calloc(n + 1, JOURNAL_HDR_LEN);
	uint64_t size = 0;
	int r;

	if (!iov || !hdrs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint8_t *h = hdrs + i * JOURNAL_HDR_LEN;

		frame_header(h, recs[i].iov_base, recs[i].iov_len);
		iov[2 * i] = (struct iovec){ .iov_base = h, .iov_len = JOURNAL_HDR_LEN };
		iov[2 * i + 1] = recs[i];
		size += JOURNAL_HDR_LEN + recs[i].iov_len;
	}
	r = writev_all(sys, fd, iov, 2 * n);
	if (r < 0)
		return r;
	if (sys->fsync(fd) < 0)
		return -errno;
	*ret_size = size;
	return 0;
}

/* No other compaction runs, and every record is one the log takes. */
static int compact_can_start(const struct journal *j, const struct iovec *recs, size_t n)
{
	if (!j)
		return -EINVAL;
	if (j->bg)
		return -EBUSY;
	return compact_check(recs, n);
}

int journal_compact(struct journal *j, const struct iovec *recs, size_t n)
{
	_cleanup_close_ int fd = -1;
	uint64_t size = 0;
	int r;

	r = compact_can_start(j, recs, n);
	if (r < 0)
		return r;
	/* opened with the log's own flags: after the rename it simply
	 * becomes the log, with no reopen that could fail */
	fd = openat(j->dir_fd, JOURNAL_FILE_NEW,
		    O_RDWR | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = compact_write(j->sys, fd, recs, n, &size);
	if (r == 0 && renameat(j->dir_fd, JOURNAL_FILE_NEW, j->dir_fd, JOURNAL_FILE) < 0)
		r = -errno;
	if (r < 0) {
		(void)unlinkat(j->dir_fd, JOURNAL_FILE_NEW, 0);
		return r;
	}
	close(j->fd);
	j->fd = TAKE_FD(fd);
	j->size = size;
	j->is_tail_dirty = false;
	if (fsync(j->dir_fd) < 0)
		return -errno;
	return 0;
}

static void *bg_main(void *arg)
{
	struct bg *b = arg;
	struct iovec iov = {.iov_base = b->snap, .iov_len = b->snap_len};
	int r = writev_all(b->sys, b->fd, &iov, 1);

	if (r == 0 && b->sys->fsync(b->fd) < 0)
		r = -errno;
	b->result = r;
	atomic_store(&b->is_done, true);
	return NULL;
}

static void bg_free(struct journal *j, bool is_renamed)
{
	struct bg *b = j->bg;

	if (!is_renamed)
		(void)unlinkat(j->dir_fd, JOURNAL_FILE_NEW, 0);
	if (b->fd >= 0)
		close(b->fd);
	free(b->snap);
	free(b->tail);
	free(b);
	j->bg = NULL;
}

int journal_compact_start(struct journal *j, const struct iovec *recs, size_t n)
{
	struct bg *b;
	size_t len = 0;
	int r;

	r = compact_can_start(j, recs, n);
	if (r < 0)
		return r;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	*b = (struct bg){.sys = j->sys, .fd = -1};
	j->bg = b;
	for (size_t i = 0; i < n; i++)
		len += JOURNAL_HDR_LEN + recs[i].iov_len;
	b->snap = malloc(len ? len : 1);
	if (!b->snap) {
		bg_free(j, false);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		frame_header(b->snap + b->snap_len, recs[i].iov_base, recs[i].iov_len);
		memcpy(b->snap + b->snap_len + JOURNAL_HDR_LEN, recs[i].iov_base, recs[i].iov_len);
		b->snap_len += JOURNAL_HDR_LEN + recs[i].iov_len;
	}
	b->fd = openat(j->dir_fd, JOURNAL_FILE_NEW,
		       O_RDWR | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	r = b->fd < 0 ? -errno : -pthread_create(&b->thread, NULL, bg_main, b);
	if (r < 0)
		bg_free(j, false);
	return r;
}

bool journal_compact_is_running(const struct journal *j)
{
	return j && j->bg;
}

int journal_compact_poll(struct journal *j, uint64_t *ret_size)
{
	struct bg *b = j ? j->bg : NULL;
	struct iovec iov;
	int r;

	if (!b)
		return -EINVAL;
	if (!atomic_load(&b->is_done))
		return -EINPROGRESS;
	pthread_join(b->thread, NULL);
	r = b->result;
	if (r == 0 && b->is_tail_lost)
		r = -ENOMEM;
	if (r == 0 && b->tail_len) {
		iov = (struct iovec){.iov_base = b->tail, .iov_len = b->tail_len};
		r = writev_all(j->sys, b->fd, &iov, 1);
		if (r == 0 && j->sys->fdatasync(b->fd) < 0)
			r = -errno;
	}
	if (r == 0 && renameat(j->dir_fd, JOURNAL_FILE_NEW, j->dir_fd, JOURNAL_FILE) < 0)
		r = -errno;
	if (r < 0) {
		bg_free(j, false); /* the old log, with everything, stays in use */
		return r;
	}
	close(j->fd);
	j->fd = TAKE_FD(b->fd);
	j->size = b->snap_len + b->tail_len;
	j->is_tail_dirty = false;
	if (ret_size)
		*ret_size = b->snap_len;
	bg_free(j, true);
	if (fsync(j->dir_fd) < 0)
		return -errno;
	return 0;
}

uint64_t journal_size(const struct journal *j)
{
	return j ? j->size : 0;
}

int64_t journal_bad_offset(const struct journal *j)
{
	return j ? j->bad_offset : -1;
}

/* name.bad.<time>, never one that exists: link() does not replace. */
static int set_aside_link(int dir_fd, const char *name, time_t now, char *ret, size_t len)
{
	for (unsigned k = 0; k < 100; k++) {
		int n = k ? snprintf(ret, len, "%s.bad.%lld.%u", name, (long long)now, k)
			  : snprintf(ret, len, "%s.bad.%lld", name, (long long)now);

		if (n < 0 || (size_t)n >= len)
			return -ENAMETOOLONG;
		if (linkat(dir_fd, name, dir_fd, ret, 0) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int journal_file_set_aside(int dir_fd, const char *name, time_t now, char *ret_name, size_t len)
{
	int r;

	if (dir_fd < 0 || !name || !ret_name || !len)
		return -EINVAL;
	r = set_aside_link(dir_fd, name, now, ret_name, len);
	if (r < 0)
		return r;
	if (unlinkat(dir_fd, name, 0) < 0 || fsync(dir_fd) < 0)
		return -errno;
	return 0;
}

int journal_set_aside(struct journal *j, time_t now, char *ret_name, size_t len)
{
	_cleanup_close_ int fd = -1;
	int r;

	if (!j)
		return -EINVAL;
	r = journal_file_set_aside(j->dir_fd, JOURNAL_FILE, now, ret_name, len);
	if (r < 0)
		return r;
	fd =
	    openat(j->dir_fd, JOURNAL_FILE, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || fsync(j->dir_fd) < 0)
		return -errno;
	close(j->fd);
	j->fd = TAKE_FD(fd);
	j->size = 0;
	j->dropped = 0;
	j->bad_offset = -1;
	j->is_tail_dirty = false;
	return 0;
}

void journal_set_syscalls(struct journal *j, const struct journal_syscalls *sys)
{
	if (j)
		j->sys = sys ? sys : &real_syscalls;
}
