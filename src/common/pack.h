/* pack.h - the wire primitives, big-endian, with a sticky error (R14).
 *
 * A pack_buf either grows as it packs (pack side) or reads a borrowed byte
 * range (unpack side). The first failure (short input, oversized length,
 * string without NUL, no memory) sets b->err to a negative code and every
 * later call does nothing, so message code is a straight list of fields
 * with one check at the end.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct pack_buf {
	uint8_t *data;
	size_t len; /* valid bytes */
	size_t pos; /* unpack cursor */
	size_t cap; /* allocated (pack side); 0 for a borrowed range */
	int err;    /* first error, negative; sticky */
	bool str_view; /* unpack_str: point into data (checked as usual), no copy */
};

/* An unpack view over borrowed bytes. */
static inline struct pack_buf pack_buf_view(const void *data, size_t len)
{
	return (struct pack_buf){ .data = (uint8_t *)data, .len = len };
}
/* Frees the pack side's storage; safe on a zeroed or borrowed buffer. */
void pack_buf_done(struct pack_buf *b);
/* Bytes left to unpack. */
static inline size_t pack_remaining(const struct pack_buf *b)
{
	return b->len - b->pos;
}

void pack_u8(struct pack_buf *b, uint8_t v);
void pack_bool(struct pack_buf *b, bool v);
void pack_u16(struct pack_buf *b, uint16_t v);
void pack_u32(struct pack_buf *b, uint32_t v);
void pack_u64(struct pack_buf *b, uint64_t v);
void pack_time(struct pack_buf *b, time_t v);          /* int64 */
void pack_double(struct pack_buf *b, double v);        /* IEEE bits as u64 */
void pack_str(struct pack_buf *b, const char *s);      /* u32 len incl. NUL, 0 = NULL */
void pack_mem(struct pack_buf *b, const void *p, uint32_t len);
void pack_strv(struct pack_buf *b, char *const *v, uint32_t n); /* u32 n + n str */
/* Raw bytes without a length (frame assembly). */
void pack_raw(struct pack_buf *b, const void *p, size_t len);

void unpack_u8(struct pack_buf *b, uint8_t *v);
void unpack_bool(struct pack_buf *b, bool *v);
void unpack_u16(struct pack_buf *b, uint16_t *v);
void unpack_u32(struct pack_buf *b, uint32_t *v);
void unpack_u64(struct pack_buf *b, uint64_t *v);
void unpack_time(struct pack_buf *b, time_t *v);
void unpack_double(struct pack_buf *b, double *v);
/* *ret is set (NULL first) before anything can fail; max caps the length
 * including the NUL; the string must end in its only NUL. A copy, or with
 * b->str_view a pointer into b's bytes (not to be freed). */
void unpack_str(struct pack_buf *b, char **ret, size_t max);
void unpack_mem(struct pack_buf *b, void **ret, uint32_t *ret_len, size_t max);
/* Count capped by max_n and by the bytes left (each str needs >= 4). */
void unpack_strv(struct pack_buf *b, char ***ret, uint32_t *ret_n, uint32_t max_n);
/* Array count: capped by max and by remaining bytes / elem_min_size. */
void unpack_count(struct pack_buf *b, uint32_t *n, uint32_t max, size_t elem_min_size);
void strv_free(char **v, uint32_t n);
