/* blob_store.c - see blob_store.h. */
#include "blob_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/log.h"
#include "common/pack.h"
#include "common/sha256.h"

struct blob {
	struct blob_store *store; /* NULL: detached */
	struct blob *next;	  /* in the store's bucket */
	uint8_t digest[SHA256_DIGEST_LEN];
	uint32_t refs;
	uint32_t seg;
	uint64_t off;
	uint32_t len;
	uint8_t *mem; /* a store in memory: the bytes */
};

struct seg {
	uint32_t num;
	uint32_t live; /* blobs in it */
};

struct blob_store {
	int dir_fd; /* -1: in memory */
	struct blob **buckets;
	uint32_t nbuckets, count;
	uint64_t bytes;
	struct seg *segs;
	uint32_t nsegs, segcap;
	uint32_t cur;		 /* the segment new blobs go to */
	int cur_fd;		 /* -1 until its first sync */
	uint64_t cur_size;	 /* its bytes on disk */
	struct pack_buf pending; /* its bytes past cur_size, not written yet */
};

static uint32_t bucket_of(const struct blob_store *s, const uint8_t *digest)
{
	uint32_t h;

	memcpy(&h, digest, sizeof(h));
	return h & (s->nbuckets - 1);
}

static void seg_name(uint32_t num, char *buf, size_t size)
{
	snprintf(buf, size, BLOB_SEG_PREFIX "%u", num);
}

/* "job_blobs.N" -> N; false for any other name. */
static bool seg_num_of(const char *name, uint32_t *ret)
{
	const char *p = name + strlen(BLOB_SEG_PREFIX);
	char *end;
	unsigned long v;

	if (strncmp(name, BLOB_SEG_PREFIX, strlen(BLOB_SEG_PREFIX)) || *p < '0' || *p > '9')
		return false;
	errno = 0;
	v = strtoul(p, &end, 10);
	if (*end || errno || v >= UINT32_MAX)
		return false;
	*ret = (uint32_t)v;
	return true;
}

static struct seg *seg_find(struct blob_store *s, uint32_t num)
{
	for (uint32_t i = 0; i < s->nsegs; i++)
		if (s->segs[i].num == num)
			return &s->segs[i];
	return NULL;
}

static int seg_take(struct blob_store *s, uint32_t num)
{
	struct seg *g = seg_find(s, num);

	if (!g) {
		if (s->nsegs == s->segcap) {
			uint32_t cap = s->segcap ? s->segcap * 2 : 8;
			struct seg *n = realloc(s->segs, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			s->segs = n;
			s->segcap = cap;
		}
		g = &s->segs[s->nsegs++];
		*g = (struct seg){.num = num};
	}
	g->live++;
	return 0;
}

static void seg_unlink(struct blob_store *s, uint32_t num)
{
	char name[64];

	seg_name(num, name, sizeof(name));
	if (unlinkat(s->dir_fd, name, 0) < 0 && errno != ENOENT)
		error("%s: cannot remove: %s", name, strerror(errno));
}

/* A blob of segment num is gone: the segment goes with its last one,
 * unless new blobs are still appended to it. */
static void seg_put(struct blob_store *s, uint32_t num)
{
	struct seg *g = seg_find(s, num);

	if (!g || --g->live)
		return;
	*g = s->segs[--s->nsegs];
	if (s->dir_fd >= 0 && num != s->cur)
		seg_unlink(s, num);
}

int blob_store_open(const char *dir, struct blob_store **ret)
{
	struct blob_store *s = calloc(1, sizeof(*s));
	DIR *d;
	struct dirent *e;
	uint32_t num, top = 0;
	bool any = false;
	int fd;

	if (!s)
		return -ENOMEM;
	s->dir_fd = s->cur_fd = -1;
	s->nbuckets = 1024;
	s->buckets = calloc(s->nbuckets, sizeof(*s->buckets));
	if (!s->buckets) {
		blob_store_free(s);
		return -ENOMEM;
	}
	if (dir) {
		s->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (s->dir_fd < 0 || (fd = dup(s->dir_fd)) < 0 || !(d = fdopendir(fd))) {
			int r = -errno;

			if (s->dir_fd >= 0 && fd >= 0)
				close(fd);
			blob_store_free(s);
			return r;
		}
		rewinddir(d); /* the offset is dir_fd's too */
		while ((e = readdir(d)))
			if (seg_num_of(e->d_name, &num) && (!any || num > top)) {
				top = num;
				any = true;
			}
		closedir(d);
		s->cur = any ? top + 1 : 0;
	}
	*ret = s;
	return 0;
}

void blob_store_free(struct blob_store *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; s->buckets && i < s->nbuckets; i++)
		for (struct blob *b = s->buckets[i], *next; b; b = next) {
			next = b->next;
			b->store = NULL;
			b->next = NULL;
		}
	free(s->buckets);
	free(s->segs);
	pack_buf_done(&s->pending);
	if (s->cur_fd >= 0)
		close(s->cur_fd);
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	free(s);
}

static struct blob *blob_lookup(const struct blob_store *s, const uint8_t *digest)
{
	for (struct blob *b = s->buckets[bucket_of(s, digest)]; b; b = b->next)
		if (!memcmp(b->digest, digest, SHA256_DIGEST_LEN))
			return b;
	return NULL;
}

/* Past 2 blobs a bucket on average, twice the buckets (failing that, the
 * chains just grow). */
static void store_grow(struct blob_store *s)
{
	uint32_t n = s->nbuckets * 2;
	struct blob **nb;

	if (s->count < s->nbuckets * 2 || !(nb = calloc(n, sizeof(*nb))))
		return;
	for (uint32_t i = 0; i < s->nbuckets; i++)
		for (struct blob *b = s->buckets[i], *next; b; b = next) {
			uint32_t k;

			next = b->next;
			memcpy(&k, b->digest, sizeof(k));
			k &= n - 1;
			b->next = nb[k];
			nb[k] = b;
		}
	free(s->buckets);
	s->buckets = nb;
	s->nbuckets = n;
}

static void store_link(struct blob_store *s, struct blob *b)
{
	uint32_t k = bucket_of(s, b->digest);

	b->store = s;
	b->next = s->buckets[k];
	s->buckets[k] = b;
	s->count++;
	s->bytes += b->len;
	store_grow(s);
}

struct blob *blob_put(struct blob_store *s, const void *data, size_t len)
{
	struct iovec iov = {(void *)data, len};
	uint8_t digest[SHA256_DIGEST_LEN];
	struct blob *b;

	if (len > BLOB_MAX || sha256_iov(&iov, 1, digest) < 0)
		return NULL;
	b = blob_lookup(s, digest);
	if (b)
		return blob_ref(b);
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	memcpy(b->digest, digest, sizeof(digest));
	b->refs = 1;
	b->len = (uint32_t)len;
	if (s->dir_fd < 0) {
		b->mem = malloc(len ? len : 1);
		if (!b->mem) {
			free(b);
			return NULL;
		}
		memcpy(b->mem, data, len);
	} else {
		size_t was = s->pending.len;

		pack_raw(&s->pending, data, len);
		if (s->pending.err || seg_take(s, s->cur) < 0) {
			/* the buffer is whole up to where it was */
			s->pending.len = was;
			s->pending.err = 0;
			free(b);
			return NULL;
		}
		b->seg = s->cur;
		b->off = s->cur_size + was;
	}
	store_link(s, b);
	return b;
}

struct blob *blob_ref(struct blob *b)
{
	b->refs++;
	return b;
}

size_t blob_len(const struct blob *b)
{
	return b->len;
}

void blob_unref(struct blob *b)
{
	struct blob_store *s;

	if (!b || --b->refs)
		return;
	s = b->store;
	if (s) {
		struct blob **p = &s->buckets[bucket_of(s, b->digest)];

		while (*p != b)
			p = &(*p)->next;
		*p = b->next;
		s->count--;
		s->bytes -= b->len;
		if (s->dir_fd >= 0)
			seg_put(s, b->seg);
	}
	free(b->mem);
	free(b);
}

/* The len bytes at off of segment seg, into buf. */
static int seg_pread(struct blob_store *s, uint32_t seg, uint64_t off, uint8_t *buf, size_t len)
{
	char name[64];
	size_t got = 0;
	int fd, r = 0;

	seg_name(seg, name, sizeof(name));
	fd = openat(s->dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO; /* short: the file was cut */
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	return r;
}

int blob_read(const struct blob *b, uint8_t **ret, size_t *ret_len)
{
	struct blob_store *s = b->store;
	uint8_t digest[SHA256_DIGEST_LEN];
	struct iovec iov;
	uint8_t *buf;
	int r = 0;

	if (!s)
		return -EINVAL;
	buf = malloc((size_t)b->len + 1);
	if (!buf)
		return -ENOMEM;
	if (b->mem)
		memcpy(buf, b->mem, b->len);
	else if (b->seg == s->cur && b->off >= s->cur_size)
		memcpy(buf, s->pending.data + (b->off - s->cur_size), b->len);
	else
		r = seg_pread(s, b->seg, b->off, buf, b->len);
	iov = (struct iovec){buf, b->len};
	if (r == 0
	    && (sha256_iov(&iov, 1, digest) < 0 || memcmp(digest, b->digest, sizeof(digest))))
		r = -EIO;
	if (r < 0) {
		char name[64];

		seg_name(b->seg, name, sizeof(name));
		error("%s: %u bytes at offset %llu cannot be read back: %s", name, b->len,
		      (unsigned long long)b->off,
		      r == -EIO ? "not what was written" : strerror(-r));
		free(buf);
		return r;
	}
	buf[b->len] = '\0';
	*ret = buf;
	*ret_len = b->len;
	return 0;
}

static int write_all_at(int fd, const uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int blob_store_sync(struct blob_store *s)
{
	char name[64];
	int r;

	if (!s || s->dir_fd < 0 || !s->pending.len)
		return 0;
	if (s->cur_fd < 0) {
		seg_name(s->cur, name, sizeof(name));
		s->cur_fd =
		    openat(s->dir_fd, name, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (s->cur_fd < 0)
			return -errno;
		if (fsync(s->dir_fd) < 0) { /* the new name is durable too */
			r = -errno;
			close(s->cur_fd);
			s->cur_fd = -1;
			return r;
		}
	}
	r = write_all_at(s->cur_fd, s->pending.data, s->pending.len, s->cur_size);
	if (r == 0 && fdatasync(s->cur_fd) < 0)
		r = -errno;
	if (r < 0)
		return r;
	s->cur_size += s->pending.len;
	s->pending.len = 0;
	if (s->cur_size >= BLOB_SEG_MAX) { /* the next blobs start a new segment */
		uint32_t was = s->cur;

		close(s->cur_fd);
		s->cur_fd = -1;
		s->cur_size = 0;
		s->cur++;
		if (!seg_find(s, was))
			seg_unlink(s, was);
	}
	return 0;
}

unsigned blob_store_sweep(struct blob_store *s)
{
	unsigned n = 0;
	struct dirent *e;
	uint32_t num;
	DIR *d;
	int fd;

	if (!s || s->dir_fd < 0 || (fd = dup(s->dir_fd)) < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	rewinddir(d); /* the offset is dir_fd's: read before */
	while ((e = readdir(d)))
		if (seg_num_of(e->d_name, &num) && num != s->cur && !seg_find(s, num)) {
			seg_unlink(s, num);
			n++;
		}
	closedir(d);
	return n;
}

void blob_store_stats(const struct blob_store *s, uint64_t *ret_blobs, uint64_t *ret_bytes)
{
	*ret_blobs = s ? s->count : 0;
	*ret_bytes = s ? s->bytes : 0;
}

void blob_pack_ref(const struct blob *b, struct pack_buf *p)
{
	pack_u32(p, b->seg);
	pack_u64(p, b->off);
	pack_u32(p, b->len);
	pack_raw(p, b->digest, sizeof(b->digest));
}

struct blob *blob_unpack_ref(struct pack_buf *p)
{
	struct blob *b;
	uint32_t seg, len;
	uint64_t off;

	unpack_u32(p, &seg);
	unpack_u64(p, &off);
	unpack_u32(p, &len);
	if (!p->err && pack_remaining(p) < SHA256_DIGEST_LEN)
		p->err = -EBADMSG;
	if (!p->err && len > BLOB_MAX)
		p->err = -EBADMSG;
	if (p->err)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		p->err = -ENOMEM;
		return NULL;
	}
	*b = (struct blob){.refs = 1, .seg = seg, .off = off, .len = len};
	memcpy(b->digest, p->data + p->pos, SHA256_DIGEST_LEN);
	p->pos += SHA256_DIGEST_LEN;
	return b;
}

struct blob *blob_adopt(struct blob_store *s, struct blob *d)
{
	struct blob *b;

	if (!d || d->store)
		return d;
	b = blob_lookup(s, d->digest);
	if (b) {
		b->refs += d->refs;
		free(d->mem);
		free(d);
		return b;
	}
	if (s->dir_fd >= 0 && seg_take(s, d->seg) < 0)
		return d; /* stays detached: its reads fail, nothing runs other bytes */
	store_link(s, d);
	return d;
}
