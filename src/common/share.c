/* share.c - see share.h.
 *
 * A block is a header followed by what its holders see: the bytes of a
 * string, or a vector of n+1 pointers followed by its n strings. Blocks
 * are found in a hash table by (kind, content); the content of a vector
 * is its strings with their NULs, so the pointers never count. The
 * table grows by doubling, never shrinks; one mutex guards it and the
 * counts.
 */
#include "share.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { SHARE_STR = 1, SHARE_STRV = 2 };

struct share_block {
	struct share_block *next; /* bucket chain */
	uint64_t hash;
	size_t len;    /* bytes of content */
	uint32_t refs;
	uint32_t n;    /* SHARE_STRV: strings */
	uint8_t kind;
	_Alignas(max_align_t) char data[]; /* string, or pointers then strings */
};

static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static struct share_block **share_buckets;
static size_t share_nbuckets, share_nblocks;
static uint64_t share_bytes;

/* FNV-1a, 64 bits, over a run of bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

#define FNV_START 0xcbf29ce484222325ull

/* Where the content of b starts: the string, or a vector's first string. */
static const char *block_content(const struct share_block *b)
{
	return b->kind == SHARE_STR ? b->data : b->data + (b->n + 1) * sizeof(char *);
}

static bool block_is(const struct share_block *b, uint8_t kind, uint64_t hash, uint32_t n,
		     char *const *v, size_t len)
{
	const char *c;

	if (b->kind != kind || b->hash != hash || b->len != len || b->n != n)
		return false;
	c = block_content(b);
	for (uint32_t i = 0; i < n; i++) {
		size_t k = strlen(v[i]) + 1;

		if (memcmp(c, v[i], k) != 0)
			return false;
		c += k;
	}
	return true;
}

static bool table_grow(void)
{
	size_t nb = share_nbuckets ? share_nbuckets * 2 : 256;
	struct share_block **t = calloc(nb, sizeof(*t));

	if (!t)
		return false;
	for (size_t i = 0; i < share_nbuckets; i++) {
		struct share_block *b;

		while ((b = share_buckets[i])) {
			share_buckets[i] = b->next;
			b->next = t[b->hash % nb];
			t[b->hash % nb] = b;
		}
	}
	free(share_buckets);
	share_buckets = t;
	share_nbuckets = nb;
	return true;
}

/* The block of n strings v (a string alone: kind SHARE_STR, n 1), found
 * or made; its data, or NULL on ENOMEM. */
static void *share_get(uint8_t kind, char *const *v, uint32_t n)
{
	uint64_t hash = fnv(FNV_START, &kind, 1);
	size_t len = 0, head = kind == SHARE_STRV ? ((size_t)n + 1) * sizeof(char *) : 0;
	struct share_block *b;
	char *c;

	for (uint32_t i = 0; i < n; i++) {
		size_t k = strlen(v[i]) + 1;

		hash = fnv(hash, v[i], k);
		len += k;
	}
	pthread_mutex_lock(&share_lock);
	if (share_nbuckets)
		for (b = share_buckets[hash % share_nbuckets]; b; b = b->next)
			if (block_is(b, kind, hash, kind == SHARE_STRV ? n : 0, v, len)) {
				b->refs++;
				pthread_mutex_unlock(&share_lock);
				return b->data;
			}
	if ((share_nblocks >= share_nbuckets && !table_grow())
	    || !(b = malloc(sizeof(*b) + head + len))) {
		pthread_mutex_unlock(&share_lock);
		return NULL;
	}
	*b = (struct share_block){
	    .hash = hash, .len = len, .refs = 1, .n = kind == SHARE_STRV ? n : 0, .kind = kind};
	c = b->data + head;
	for (uint32_t i = 0; i < n; i++) {
		size_t k = strlen(v[i]) + 1;

		if (kind == SHARE_STRV)
			((char **)(void *)b->data)[i] = c;
		memcpy(c, v[i], k);
		c += k;
	}
	if (kind == SHARE_STRV)
		((char **)(void *)b->data)[n] = NULL;
	b->next = share_buckets[hash % share_nbuckets];
	share_buckets[hash % share_nbuckets] = b;
	share_nblocks++;
	share_bytes += sizeof(*b) + head + len;
	pthread_mutex_unlock(&share_lock);
	return b->data;
}

const char *share_str(const char *s)
{
	char *v[1] = {(char *)s};

	return share_get(SHARE_STR, v, 1);
}

char **share_strv(char *const *v, uint32_t n)
{
	return share_get(SHARE_STRV, v, n);
}

void share_put(const void *p)
{
	struct share_block *b, **pp;

	if (!p)
		return;
	b = (struct share_block *)(void *)((char *)p - offsetof(struct share_block, data));
	pthread_mutex_lock(&share_lock);
	if (--b->refs == 0) {
		for (pp = &share_buckets[b->hash % share_nbuckets]; *pp != b; pp = &(*pp)->next)
			;
		*pp = b->next;
		share_nblocks--;
		share_bytes -= sizeof(*b) + (b->kind == SHARE_STRV ? (b->n + 1) * sizeof(char *) : 0)
			       + b->len;
		free(b);
	}
	pthread_mutex_unlock(&share_lock);
}

void share_stats(uint64_t *ret_blocks, uint64_t *ret_bytes)
{
	pthread_mutex_lock(&share_lock);
	*ret_blocks = share_nblocks;
	*ret_bytes = share_bytes;
	pthread_mutex_unlock(&share_lock);
}
