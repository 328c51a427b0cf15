/* conf_read.c - slurm.conf-style files as logical lines of Key=Value tokens.
 *
 * Input: a path and a per-line function. Action: reads the file line by
 * line. '#' starts a comment (outside "quotes"; "\#" is a literal '#'); a
 * backslash ending a line (after the comment is cut) joins the next line
 * directly; "Include file" (any case) reads another file in place, relative
 * to the including file's directory. Each non-empty logical line is split
 * on white space into Key=Value tokens, a Value may be "double quoted", and
 * the tokens go to the caller with the file and first line number.
 * An included file must be a regular file: a directory, FIFO or device
 * is an error naming the Include line (opened without blocking, so a FIFO
 * cannot hang a daemon at start).
 * Caveats: Slurm's Include modifiers (%c) and globs are not supported; a
 * logical line is capped at SL_CONF_LINE_MAX bytes.
 */
#include "conf_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "limits.h"
#include "macros.h"

struct reader {
	conf_line_fn *fn;
	void *arg;
	struct sl_error *err;
	struct conf_tok *toks; /* reused for every line */
	size_t tok_cap;
};

static void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static int read_one(struct reader *rd, const char *path, unsigned depth,
		    const struct conf_where *from);

/* Cut the comment off one physical line, in place; "\#" becomes '#'. */
static void strip_comment(char *s)
{
	bool in_quote = false;
	char *w = s;

	for (const char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] == '#') {
			*w++ = '#';
			r++;
			continue;
		}
		if (*r == '"')
			in_quote = !in_quote;
		else if (*r == '#' && !in_quote)
			break;
		*w++ = *r;
	}
	*w = '\0';
}

static bool is_space(char ch)
{
	return isspace((unsigned char)ch);
}

/* Split s into rd->toks; *ret_n tokens. s is modified in place. */
static int tokenize(struct reader *rd, char *s, const struct conf_where *at, size_t *ret_n)
{
	size_t n = 0;

	for (;;) {
		char *key, *val;

		while (is_space(*s))
			s++;
		if (!*s)
			break;
		key = s;
		while (*s && *s != '=' && !is_space(*s))
			s++;
		if (*s != '=')
			return errprintf(rd->err, -EINVAL, "%s:%u: missing '=' after '%.*s'",
					 at->file, at->line, (int)(s - key), key);
		if (s == key)
			return errprintf(rd->err, -EINVAL, "%s:%u: '=' without a key", at->file,
					 at->line);
		*s++ = '\0';
		val = s;
		if (*s == '"') {
			char *q = strchr(++s, '"');

			if (!q)
				return errprintf(rd->err, -EINVAL, "%s:%u: %s: unterminated quote",
						 at->file, at->line, key);
			val = s;
			*q = '\0';
			s = q + 1;
			if (*s && !is_space(*s))
				return errprintf(rd->err, -EINVAL,
						 "%s:%u: %s: text after the closing quote",
						 at->file, at->line, key);
		} else {
			while (*s && !is_space(*s))
				s++;
		}
		if (*s)
			*s++ = '\0';
		if (n == rd->tok_cap) {
			struct conf_tok *t = conf_grow(rd->toks, &rd->tok_cap, n + 1, sizeof(*t));

			if (!t)
				return errprintf(rd->err, -ENOMEM, "%s:%u: out of memory", at->file,
						 at->line);
			rd->toks = t;
		}
		rd->toks[n].key = key;
		rd->toks[n].val = val;
		n++;
	}
	*ret_n = n;
	return 0;
}

/* "Include name": name is relative to the including file's directory. */
static int include(struct reader *rd, char *name, const struct conf_where *at, unsigned depth)
{
	_cleanup_free_ char *full = NULL;
	const char *slash;
	size_t len;
	int r;

	while (is_space(*name))
		name++;
	len = strlen(name);
	if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
		name[len - 1] = '\0';
		name++;
	}
	if (!*name)
		return errprintf(rd->err, -EINVAL, "%s:%u: Include without a file name", at->file,
				 at->line);
	if (depth + 1 > SL_CONF_INCLUDE_DEPTH)
		return errprintf(rd->err, -ELOOP, "%s:%u: Include nested more than %d deep",
				 at->file, at->line, SL_CONF_INCLUDE_DEPTH);
	slash = strrchr(at->file, '/');
	if (name[0] == '/' || !slash)
		full = strdup(name);
	else if (asprintf(&full, "%.*s/%s", (int)(slash - at->file), at->file, name) < 0)
		full = NULL;
	if (!full)
		return errprintf(rd->err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	r = read_one(rd, full, depth + 1, at);
	return r < 0 ? r : 0;
}

static int handle_line(struct reader *rd, char *s, const struct conf_where *at, unsigned depth)
{
	size_t n = 0;
	int r;

	while (is_space(*s))
		s++;
	if (!*s)
		return 0;
	if (strncasecmp(s, "include", 7) == 0 && (is_space(s[7]) || !s[7]))
		return include(rd, s + 7, at, depth);
	r = tokenize(rd, s, at, &n);
	if (r < 0)
		return r;
	return rd->fn(rd->arg, at, rd->toks, n, rd->err);
}

static int open_failed(struct reader *rd, const char *path, const struct conf_where *from, int e)
{
	if (from && !e)
		return errprintf(rd->err, -EINVAL, "%s:%u: Include %s: not a regular file",
				 from->file, from->line, path);
	if (from)
		return errprintf(rd->err, -e, "%s:%u: Include %s: %s", from->file, from->line, path,
				 strerror(e));
	return errprintf(rd->err, -e, "%s: %s", path, strerror(e));
}

/* An included file: a regular one only, opened without blocking on a
 * FIFO. NULL with *e = an errno, or 0 for "not a regular file". */
static FILE *open_included(const char *path, int *e)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	*e = 0;
	if (fd < 0) {
		*e = errno;
		return NULL;
	}
	if (fstat(fd, &st) < 0)
		*e = errno;
	else if (S_ISDIR(st.st_mode))
		*e = EISDIR;
	else if (S_ISREG(st.st_mode) && fcntl(fd, F_SETFL, 0) == 0 && (f = fdopen(fd, "r")))
		return f;
	else if (S_ISREG(st.st_mode))
		*e = errno;
	close(fd);
	return NULL;
}

static int read_one(struct reader *rd, const char *path, unsigned depth,
		    const struct conf_where *from)
{
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_free_ char *phys = NULL, *logical = NULL;
	size_t phys_cap = 0, len = 0, cap = 0;
	unsigned lineno = 0, start = 0;
	struct conf_where at;
	int r, e = 0;

	f = from ? open_included(path, &e) : fopen(path, "re");
	if (!f)
		return open_failed(rd, path, from, from ? e : errno);
	while (getline(&phys, &phys_cap, f) >= 0) {
		size_t pl;
		bool is_cont = false;

		lineno++;
		strip_comment(phys);
		pl = strlen(phys);
		while (pl && is_space(phys[pl - 1]))
			pl--;
		if (pl && phys[pl - 1] == '\\') {
			is_cont = true;
			pl--;
		}
		if (len == 0)
			start = lineno;
		if (len + pl + 1 > SL_CONF_LINE_MAX)
			return errprintf(rd->err, -E2BIG, "%s:%u: line longer than %u bytes", path,
					 start, SL_CONF_LINE_MAX);
		if (len + pl + 1 > cap) {
			char *p = conf_grow(logical, &cap, len + pl + 1, 1);

			if (!p)
				return errprintf(rd->err, -ENOMEM, "%s:%u: out of memory", path,
						 lineno);
			logical = p;
		}
		memcpy(logical + len, phys, pl);
		len += pl;
		logical[len] = '\0';
		if (is_cont)
			continue;
		at = (struct conf_where){path, start};
		r = handle_line(rd, logical, &at, depth);
		if (r < 0)
			return r;
		len = 0;
	}
	if (ferror(f)) { /* an included one is named by its Include line */
		e = errno ? errno : EIO;
		if (from)
			return open_failed(rd, path, from, e);
		return errprintf(rd->err, -EIO, "%s:%u: read error", path, lineno);
	}
	if (len) { /* a continuation on the last line: use what there is */
		at = (struct conf_where){path, start};
		r = handle_line(rd, logical, &at, depth);
		if (r < 0)
			return r;
	}
	return (int)lineno;
}

int conf_read_file(const char *path, conf_line_fn *fn, void *arg, struct sl_error *err)
{
	struct reader rd = {.fn = fn, .arg = arg, .err = err};
	int r;

	r = read_one(&rd, path, 0, NULL);
	free(rd.toks);
	return r;
}
