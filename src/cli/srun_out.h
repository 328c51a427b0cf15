/* srun_out.h - how srun turns one task's output stream into what it
 * prints: line-buffered by default (a partial line waits for its newline
 * or the stream's end, so lines of different tasks never mix), as it
 * comes with -u, and with -l each line prefixed "N: " (N right-aligned
 * to the width of the largest task id). Pure, exposed for unit tests.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRUN_OUT_LINE_MAX (64u << 10) /* a longer partial line is flushed as is */

struct srun_buf {	   /* a growing byte buffer */
	char *data;
	size_t len, cap;
};

struct srun_out_stream {   /* one task's stdout or stderr */
	struct srun_buf part;  /* the partial line kept back */
	bool mid_line;	       /* the last byte printed was not a newline */
};

struct srun_out_fmt {
	int label_width;       /* 0: no label */
	bool unbuffered;
};

/* Feed len bytes of task's stream (eof: the stream ended, flush what is
 * kept); what is to be printed now is appended to out. 0 or -ENOMEM. */
int srun_out_feed(struct srun_out_stream *s, const struct srun_out_fmt *f, uint32_t task,
		  const char *data, size_t len, bool eof, struct srun_buf *out);
void srun_out_stream_done(struct srun_out_stream *s);

int srun_buf_add(struct srun_buf *b, const void *data, size_t len);
void srun_buf_done(struct srun_buf *b);
