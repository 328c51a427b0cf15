/* iobuf.h - bytes waiting to be written to a non-blocking fd: srun's
 * frames, a task's stdin. Owns its data; iobuf_done() frees it.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* Bytes waiting to be written: data[off..len). */
struct iobuf {
	uint8_t *data;
	size_t off, len, cap;
};

size_t iobuf_pending(const struct iobuf *b);
int iobuf_append(struct iobuf *b, const void *p, size_t n); /* 0 or -ENOMEM (nothing added) */
void iobuf_done(struct iobuf *b);			    /* frees; b is empty again */
/* Write what fd takes now. 0, or -errno on a real error. */
int iobuf_flush(struct iobuf *b, int fd);
