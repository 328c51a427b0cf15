/* multi_prog.c - see multi_prog.h. */
#include "multi_prog.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read_bounded.h"

#define RANK_MAX 0x7fffffffu

/* One line of the file: [start, end) without its newline. */
struct line {
	const char *start, *end;
	unsigned no;
};

/* The next line from *cursor; false at the end of text. */
static bool next_line(const char **cursor, unsigned *no, struct line *ret)
{
	const char *p = *cursor, *nl;

	if (!*p)
		return false;
	nl = strchr(p, '\n');
	ret->start = p;
	ret->end = nl ? nl : p + strlen(p);
	ret->no = ++*no;
	*cursor = nl ? nl + 1 : ret->end;
	return true;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

/* A rule line (not blank, not a comment)? */
static bool is_rule(const struct line *l)
{
	return *l->start != '#' && skip_space(l->start, l->end) < l->end;
}

static bool read_rank(const char **p, const char *end, uint32_t *ret)
{
	unsigned long v = 0;
	const char *q = *p;

	if (q >= end || !isdigit((unsigned char)*q))
		return false;
	while (q < end && isdigit((unsigned char)*q)) {
		v = v * 10 + (unsigned long)(*q++ - '0');
		if (v > RANK_MAX)
			return false;
	}
	*p = q;
	*ret = (uint32_t)v;
	return true;
}

/* The ranks word of line l: "*", or "a,b-c,...". Walks it and says
 * whether task is named (and at which offset), and the highest rank.
 * Returns false for a bad word; *ret_args points past it. */
static bool ranks_of(const struct line *l, uint32_t task, bool *is_named, uint32_t *offset,
		     uint32_t *max_rank, bool *is_any, const char **ret_args)
{
	const char *p = skip_space(l->start, l->end);
	uint32_t seen = 0;

	*is_named = *is_any = false;
	*max_rank = 0;
	if (*p == '*') {
		p++;
		*is_any = *is_named = true;
		*offset = task;
	} else {
		for (;;) {
			uint32_t lo, hi;

			if (!read_rank(&p, l->end, &lo))
				return false;
			hi = lo;
			if (p < l->end && *p == '-') {
				p++;
				if (!read_rank(&p, l->end, &hi) || hi < lo)
					return false;
			}
			if (!*is_named && task >= lo && task <= hi) {
				*is_named = true;
				*offset = seen + (task - lo);
			}
			seen += hi - lo + 1;
			if (hi > *max_rank)
				*max_rank = hi;
			if (p < l->end && *p == ',') {
				p++;
				continue;
			}
			break;
		}
	}
	if (p < l->end && !isspace((unsigned char)*p))
		return false;
	p = skip_space(p, l->end);
	if (p >= l->end)
		return false; /* no program */
	*ret_args = p;
	return true;
}

int multi_prog_read(const char *path, char **ret_text)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = read_bounded(fd, MULTI_PROG_MAX, ret_text, NULL);
	close(fd);
	return r;
}

int multi_prog_check(const char *text, uint32_t *ret_ntasks, int *ret_any, unsigned *ret_line)
{
	const char *cursor = text;
	unsigned no = 0;
	struct line l;
	uint32_t n = 0;
	bool any = false;

	while (next_line(&cursor, &no, &l)) {
		uint32_t offset, max_rank;
		bool named, is_any;
		const char *args;

		if (!is_rule(&l))
			continue;
		if (!ranks_of(&l, 0, &named, &offset, &max_rank, &is_any, &args)) {
			*ret_line = l.no;
			return -EINVAL;
		}
		any = any || is_any;
		if (!is_any && max_rank + 1 > n)
			n = max_rank + 1;
	}
	*ret_ntasks = n;
	*ret_any = any;
	return 0;
}

/* A growing argv. */
struct argv_buf {
	char **v;
	size_t n, cap;
};

static int argv_push(struct argv_buf *a, char *s)
{
	if (!s)
		return -ENOMEM;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			free(s);
			return -ENOMEM;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return 0;
}

/* The words of [p, end): white space separates them, quotes group,
 * %t/%o are expanded outside single quotes. -EINVAL for an open quote. */
static int split_words(const char *p, const char *end, uint32_t task, uint32_t offset,
		       struct argv_buf *out)
{
	while ((p = skip_space(p, end)) < end) {
		/* "%t" or "%o" (2 bytes) becomes at most 10 digits */
		size_t cap = (size_t)(end - p) * 5 + 1, n = 0;
		char *w = malloc(cap), quote = 0;
		int r;

		if (!w)
			return -ENOMEM;
		for (; p < end && (quote || !isspace((unsigned char)*p)); p++) {
			if ((*p == '\'' || *p == '"') && (!quote || quote == *p)) {
				quote = quote ? 0 : *p;
				continue;
			}
			if (*p == '%' && quote != '\'' && p + 1 < end
			    && (p[1] == 't' || p[1] == 'o')) {
				n += (size_t)snprintf(w + n, cap - n, "%u",
						      p[1] == 't' ? task : offset);
				p++;
				continue;
			}
			w[n++] = *p;
		}
		w[n] = '\0';
		if (quote) {
			free(w);
			return -EINVAL;
		}
		r = argv_push(out, w);
		if (r < 0)
			return r;
	}
	return 0;
}

void multi_prog_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

int multi_prog_argv(const char *text, uint32_t task, char *const *extra, size_t n_extra,
		    char ***ret_argv, unsigned *ret_line)
{
	const char *cursor = text;
	unsigned no = 0;
	struct line l;

	while (next_line(&cursor, &no, &l)) {
		struct argv_buf a = {0};
		uint32_t offset = 0, max_rank;
		bool named, is_any;
		const char *args;
		int r;

		if (!is_rule(&l))
			continue;
		if (!ranks_of(&l, task, &named, &offset, &max_rank, &is_any, &args)) {
			*ret_line = l.no;
			return -EINVAL;
		}
		if (!named)
			continue;
		r = split_words(args, l.end, task, offset, &a);
		for (size_t i = 0; r == 0 && i < n_extra; i++)
			r = argv_push(&a, strdup(extra[i]));
		if (r == 0 && !a.n)
			r = -EINVAL;
		if (r < 0) {
			multi_prog_argv_free(a.v);
			*ret_line = l.no;
			return r;
		}
		*ret_argv = a.v;
		return 0;
	}
	return -ENOENT;
}
