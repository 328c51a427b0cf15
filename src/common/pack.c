/* pack.c - wire primitives; see pack.h. */
#include "pack.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "sl_errno.h"

void pack_buf_done(struct pack_buf *b)
{
	if (b->cap)
		free(b->data);
	*b = (struct pack_buf){ 0 };
}

static uint8_t *pack_reserve(struct pack_buf *b, size_t n)
{
	if (b->err)
		return NULL;
	if (b->len + n < b->len) {
		b->err = -EOVERFLOW;
		return NULL;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		if (b->data && !b->cap) { /* a borrowed view cannot grow */
			b->err = -EINVAL;
			return NULL;
		}
		p = realloc(b->data, cap);
		if (!p) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->data = p;
		b->cap = cap;
	}
	b->len += n;
	return b->data + b->len - n;
}

void pack_raw(struct pack_buf *b, const void *p, size_t len)
{
	uint8_t *d = pack_reserve(b, len);

	if (d && len)
		memcpy(d, p, len);
}

void pack_u8(struct pack_buf *b, uint8_t v)
{
	pack_raw(b, &v, 1);
}

void pack_bool(struct pack_buf *b, bool v)
{
	pack_u8(b, v ? 1 : 0);
}

void pack_u16(struct pack_buf *b, uint16_t v)
{
	uint16_t be = htobe16(v);

	pack_raw(b, &be, sizeof(be));
}

void pack_u32(struct pack_buf *b, uint32_t v)
{
	uint32_t be = htobe32(v);

	pack_raw(b, &be, sizeof(be));
}

void pack_u64(struct pack_buf *b, uint64_t v)
{
	uint64_t be = htobe64(v);

	pack_raw(b, &be, sizeof(be));
}

void pack_time(struct pack_buf *b, time_t v)
{
	pack_u64(b, (uint64_t)(int64_t)v);
}

void pack_double(struct pack_buf *b, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	pack_u64(b, bits);
}

void pack_mem(struct pack_buf *b, const void *p, uint32_t len)
{
	pack_u32(b, len);
	pack_raw(b, p, len);
}

void pack_str(struct pack_buf *b, const char *s)
{
	size_t n;

	if (!s) {
		pack_u32(b, 0);
		return;
	}
	n = strlen(s) + 1;
	if (n > UINT32_MAX) {
		if (!b->err)
			b->err = -EOVERFLOW;
		return;
	}
	pack_mem(b, s, (uint32_t)n);
}

void pack_strv(struct pack_buf *b, char *const *v, uint32_t n)
{
	pack_u32(b, n);
	for (uint32_t i = 0; i < n; i++)
		pack_str(b, v[i]);
}

static const uint8_t *unpack_take(struct pack_buf *b, size_t n)
{
	const uint8_t *p;

	if (b->err)
		return NULL;
	if (pack_remaining(b) < n) {
		b->err = -SLURM_PROTOCOL_INSUFFICIENT_SPACE;
		return NULL;
	}
	p = b->data + b->pos;
	b->pos += n;
	return p;
}

#define UNPACK_INT(name, type, conv)                                                               \
	void name(struct pack_buf *b, type *v)                                                     \
	{                                                                                          \
		const uint8_t *p = unpack_take(b, sizeof(type));                                   \
		type raw;                                                                          \
                                                                                                   \
		if (!p) {                                                                          \
			*v = 0;                                                                    \
			return;                                                                    \
		}                                                                                  \
		memcpy(&raw, p, sizeof(raw));                                                      \
		*v = conv(raw);                                                                    \
	}

#define ID(x) (x)
UNPACK_INT(unpack_u8, uint8_t, ID)
UNPACK_INT(unpack_u16, uint16_t, be16toh)
UNPACK_INT(unpack_u32, uint32_t, be32toh)
UNPACK_INT(unpack_u64, uint64_t, be64toh)

void unpack_bool(struct pack_buf *b, bool *v)
{
	uint8_t u;

	unpack_u8(b, &u);
	if (u > 1 && !b->err)
		b->err = -EBADMSG;
	*v = u == 1;
}

void unpack_time(struct pack_buf *b, time_t *v)
{
	uint64_t u;

	unpack_u64(b, &u);
	*v = (time_t)(int64_t)u;
}

void unpack_double(struct pack_buf *b, double *v)
{
	uint64_t bits;

	unpack_u64(b, &bits);
	memcpy(v, &bits, sizeof(*v));
}

void unpack_mem(struct pack_buf *b, void **ret, uint32_t *ret_len, size_t max)
{
	const uint8_t *p;
	uint32_t len;
	void *m;

	*ret = NULL;
	*ret_len = 0;
	unpack_u32(b, &len);
	if (b->err || len == 0)
		return;
	if (len > max) {
		b->err = -EMSGSIZE;
		return;
	}
	p = unpack_take(b, len);
	if (!p)
		return;
	m = malloc(len);
	if (!m) {
		b->err = -ENOMEM;
		return;
	}
	memcpy(m, p, len);
	*ret = m;
	*ret_len = len;
}

void unpack_str(struct pack_buf *b, char **ret, size_t max)
{
	const uint8_t *p;
	uint32_t len;
	char *s;

	*ret = NULL;
	unpack_u32(b, &len);
	if (b->err || len == 0)
		return;
	if (len > max) {
		b->err = -EMSGSIZE;
		return;
	}
	p = unpack_take(b, len);
	if (!p)
		return;
	/* exactly one NUL, at the end: no hidden tails after an early NUL */
	if (p[len - 1] != '\0' || memchr(p, '\0', len - 1)) {
		b->err = -EBADMSG;
		return;
	}
	if (b->str_view) { /* valid as long as the bytes: the caller knows */
		*ret = (char *)p;
		return;
	}
	s = malloc(len);
	if (!s) {
		b->err = -ENOMEM;
		return;
	}
	memcpy(s, p, len);
	*ret = s;
}

void unpack_count(struct pack_buf *b, uint32_t *n, uint32_t max, size_t elem_min_size)
{
	unpack_u32(b, n);
	if (b->err)
		return;
	if (*n > max || (elem_min_size && *n > pack_remaining(b) / elem_min_size)) {
		b->err = -EMSGSIZE;
		*n = 0;
	}
}

void strv_free(char **v, uint32_t n)
{
	if (!v)
		return;
	for (uint32_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void unpack_strv(struct pack_buf *b, char ***ret, uint32_t *ret_n, uint32_t max_n)
{
	uint32_t n;
	char **v;

	*ret = NULL;
	*ret_n = 0;
	unpack_count(b, &n, max_n, 4);
	if (b->err || n == 0)
		return;
	v = calloc(n, sizeof(*v));
	if (!v) {
		b->err = -ENOMEM;
		return;
	}
	*ret = v;
	*ret_n = n; /* set first: the free half sees every slot, NULL or not */
	for (uint32_t i = 0; i < n && !b->err; i++)
		unpack_str(b, &v[i], SL_STR_MAX);
}
