/* path_pattern.c - see path_pattern.h. */
#include "path_pattern.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macros.h"

#define WIDTH_MAX 10 /* Slurm caps the zero padding at 10 digits */

struct sbuf {
	char *s;
	size_t len, cap;
	int err;
};

static void sbuf_add(struct sbuf *b, const char *p, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->err = -ENOMEM;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sbuf_str(struct sbuf *b, const char *s)
{
	if (!s)
		s = "(null)";
	sbuf_add(b, s, strlen(s));
}

static void sbuf_num(struct sbuf *b, unsigned width, uint32_t v)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%0*u", (int)width, (unsigned)v);

	sbuf_add(b, num, (size_t)n);
}

/* Expand the letter c; false when it is not one of ours. */
static bool expand_letter(struct sbuf *b, char c, unsigned width, const struct path_pattern_job *j)
{
	bool is_array = j->array_task_id != NO_VAL;

	switch (c) {
	case 'A':
		sbuf_num(b, width, is_array ? j->array_job_id : j->job_id);
		break;
	case 'a':
		sbuf_num(b, width, j->array_task_id);
		break;
	case 'b':
		sbuf_num(b, width, j->array_task_id % 10);
		break;
	case 'j':
		sbuf_num(b, width, j->job_id);
		break;
	case 'J':
		sbuf_num(b, width, j->job_id);
		if (j->step_id != NO_VAL && j->step_id != PATH_PATTERN_STEP_BATCH) {
			sbuf_add(b, ".", 1);
			sbuf_num(b, 0, j->step_id);
		}
		break;
	case 's':
		if (j->step_id == PATH_PATTERN_STEP_BATCH)
			sbuf_str(b, "batch");
		else
			sbuf_num(b, width, j->step_id);
		break;
	case 'n':
		sbuf_num(b, width, j->node_id);
		break;
	case 't':
		sbuf_num(b, width, j->task_id);
		break;
	case 'N':
		sbuf_str(b, j->node_name);
		break;
	case 'u':
		sbuf_str(b, j->user_name);
		break;
	case 'x':
		sbuf_str(b, j->job_name);
		break;
	default:
		return false;
	}
	return true;
}

static void expand_all(struct sbuf *b, const char *p, const struct path_pattern_job *j)
{
	while (*p) {
		const char *start = p, *q;
		unsigned width = 0;

		if (*p != '%') {
			q = strchr(p, '%');
			if (!q)
				q = p + strlen(p);
			sbuf_add(b, p, (size_t)(q - p));
			p = q;
			continue;
		}
		if (p[1] == '%') {
			sbuf_add(b, "%", 1);
			p += 2;
			continue;
		}
		for (q = p + 1; isdigit((unsigned char)*q); q++)
			if (width <= WIDTH_MAX)
				width = width * 10 + (unsigned)(*q - '0');
		if (width > WIDTH_MAX)
			width = WIDTH_MAX;
		if (!*q) {
			sbuf_str(b, start); /* a trailing "%" or "%12" stays as written */
			return;
		}
		if (!expand_letter(b, *q, width, j))
			sbuf_add(b, start, (size_t)(q + 1 - start));
		p = q + 1;
	}
}

/* A path with a backslash is taken literally, minus its escapes. */
static void unescape(struct sbuf *b, const char *p)
{
	for (; *p; p++) {
		if (*p == '\\') {
			if (p[1] != '\\')
				continue;
			p++;
		}
		sbuf_add(b, p, 1);
	}
}

int path_pattern_expand(const char *pattern, const struct path_pattern_job *j, char **ret)
{
	struct sbuf b = { 0 };

	if (!pattern || !*pattern)
		return -EINVAL;
	sbuf_add(&b, "", 0);
	if (pattern[0] != '/' && j->work_dir && *j->work_dir) {
		size_t n = strlen(j->work_dir);

		sbuf_add(&b, j->work_dir, n);
		if (j->work_dir[n - 1] != '/')
			sbuf_add(&b, "/", 1);
	}
	if (strchr(pattern, '\\'))
		unescape(&b, pattern);
	else
		expand_all(&b, pattern, j);
	if (b.err) {
		free(b.s);
		return b.err;
	}
	*ret = b.s;
	return 0;
}

const char *path_pattern_default_stdout(bool is_array)
{
	return is_array ? "slurm-%A_%a.out" : "slurm-%j.out";
}
