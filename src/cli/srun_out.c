/* srun_out.c - line buffering and labels of task output; see srun_out.h. */
#include "cli/srun_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int srun_buf_add(struct srun_buf *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p)
			return -ENOMEM;
		b->data = p;
		b->cap = cap;
	}
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

void srun_buf_done(struct srun_buf *b)
{
	free(b->data);
	*b = (struct srun_buf){0};
}

void srun_out_stream_done(struct srun_out_stream *s)
{
	srun_buf_done(&s->part);
	s->mid_line = false;
}

/* Print text (len bytes, any newlines inside) with labels at line starts. */
static int print(struct srun_out_stream *s, const struct srun_out_fmt *f, uint32_t task,
		 const char *p, size_t len, struct srun_buf *out)
{
	char label[24];
	int ll = f->label_width > 0 ? snprintf(label, sizeof(label), "%*u: ", f->label_width, task)
				    : 0;

	if (ll <= 0)
		ll = 0;
	while (len) {
		const char *nl = memchr(p, '\n', len);
		size_t n = nl ? (size_t)(nl - p) + 1 : len;

		if (!s->mid_line && ll && srun_buf_add(out, label, (size_t)ll) < 0)
			return -ENOMEM;
		if (srun_buf_add(out, p, n) < 0)
			return -ENOMEM;
		s->mid_line = !nl;
		p += n;
		len -= n;
	}
	return 0;
}

int srun_out_feed(struct srun_out_stream *s, const struct srun_out_fmt *f, uint32_t task,
		  const char *data, size_t len, bool eof, struct srun_buf *out)
{
	const char *last_nl;
	size_t whole;

	if (f->unbuffered)
		return print(s, f, task, data, len, out);
	last_nl = len ? memrchr(data, '\n', len) : NULL;
	whole = last_nl ? (size_t)(last_nl - data) + 1 : 0;
	if (whole) { /* the kept partial line ends inside data */
		if (print(s, f, task, s->part.data, s->part.len, out) < 0
		    || print(s, f, task, data, whole, out) < 0)
			return -ENOMEM;
		s->part.len = 0;
	}
	if (srun_buf_add(&s->part, data + whole, len - whole) < 0)
		return -ENOMEM;
	if (eof || s->part.len >= SRUN_OUT_LINE_MAX) {
		if (print(s, f, task, s->part.data, s->part.len, out) < 0)
			return -ENOMEM;
		s->part.len = 0;
	}
	if (eof)
		srun_out_stream_done(s);
	return 0;
}
