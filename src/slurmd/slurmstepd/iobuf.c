/* iobuf.c - bytes waiting to be written to a non-blocking fd (iobuf.h):
 * appended at the end, written from the front as the fd takes them; the
 * written front is reclaimed before the buffer grows.
 */
#include "iobuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t iobuf_pending(const struct iobuf *b)
{
	return b->len - b->off;
}

int iobuf_append(struct iobuf *b, const void *p, size_t n)
{
	if (b->off > 0 && b->off == b->len)
		b->off = b->len = 0;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *d;

		if (b->off > 0) { /* reclaim what was written first */
			memmove(b->data, b->data + b->off, b->len - b->off);
			b->len -= b->off;
			b->off = 0;
		}
		while (cap < b->len + n)
			cap *= 2;
		if (cap != b->cap) {
			d = realloc(b->data, cap);
			if (!d)
				return -ENOMEM;
			b->data = d;
			b->cap = cap;
		}
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void iobuf_done(struct iobuf *b)
{
	free(b->data);
	*b = (struct iobuf){0};
}

int iobuf_flush(struct iobuf *b, int fd)
{
	while (iobuf_pending(b) > 0) {
		ssize_t w = write(fd, b->data + b->off, iobuf_pending(b));

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return 0;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b->off += (size_t)w;
	}
	b->off = b->len = 0;
	return 0;
}
