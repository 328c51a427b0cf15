/* squeue_cell.c - value helpers shared by squeue's job and step views;
 * see squeue_cell.h.
 */
#include "cli/squeue_cell.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fmt.h"
#include "common/hostlist.h"

#define YEAR_SECONDS (365L * 24 * 3600)

const char *squeue_cellf(struct cell *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->buf, sizeof(c->buf), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(c->buf))
		return c->buf; /* most values: no allocation a cell */
	va_start(ap, fmt);
	if (vasprintf(&c->own, fmt, ap) < 0)
		c->own = NULL;
	va_end(ap);
	return c->own ? c->own : "";
}

/* v in decimal at p; returns the end. */
static char *put_dec(char *p, unsigned long long v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* v as two digits at p ("%2.2ld" of 0..99); returns the end. */
static char *put_2(char *p, long v)
{
	*p++ = (char)('0' + v / 10);
	*p++ = (char)('0' + v % 10);
	return p;
}

const char *squeue_cell_int(struct cell *c, long long v)
{
	char *p = c->buf;

	if (v < 0)
		*p++ = '-';
	p = put_dec(p, v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v);
	*p = '\0';
	return c->buf;
}

const char *squeue_secs_str(long t, struct cell *c)
{
	char *p = c->buf;

	if (t < 0 || t > YEAR_SECONDS)
		return "INVALID";
	/* as "%ld-%2.2ld:%2.2ld:%2.2ld", "%ld:%2.2ld:%2.2ld", "%ld:%2.2ld",
	 * without a format parsed for each of 100,000 lines */
	if (t >= 86400) {
		p = put_dec(p, (unsigned long long)(t / 86400));
		*p++ = '-';
		p = put_2(p, t / 3600 % 24);
		*p++ = ':';
	} else if (t >= 3600) {
		p = put_dec(p, (unsigned long long)(t / 3600));
		*p++ = ':';
	}
	if (t >= 3600)
		p = put_2(p, t / 60 % 60);
	else
		p = put_dec(p, (unsigned long long)(t / 60 % 60));
	*p++ = ':';
	p = put_2(p, t % 60);
	*p = '\0';
	return c->buf;
}

const char *squeue_nodes_str(const char *nodes, struct cell *c)
{
	char *s = nodes ? hostlist_compress(nodes) : strdup("");

	c->cut = false;
	if (!s)
		return nodes ? nodes : "";
	c->own = s;
	return s;
}

void squeue_put_value(FILE *out, const char *v, const struct fmt_field *fl, bool cut)
{
	if (!v)
		v = !fl->right && fl->width > 0 && fl->width < 6 ? "" : "(null)";
	fmt_put_cell(out, v, fl->width, fl->right, cut);
}

bool squeue_nodes_intersect(const struct hostlist *want, const char *nodes)
{
	struct hostlist *hl = NULL;
	bool hit = false;

	if (!nodes || hostlist_new(nodes, &hl) < 0)
		return false;
	for (size_t i = 0; i < hostlist_count(hl) && !hit; i++)
		hit = hostlist_find(want, hostlist_nth(hl, i)) >= 0;
	hostlist_free(hl);
	return hit;
}

int squeue_diff_u64(uint64_t a, uint64_t b)
{
	return a > b ? 1 : a < b ? -1 : 0;
}

int squeue_diff_str(const char *a, const char *b)
{
	if (a == b) /* static state names, interned partitions */
		return 0;
	return strcmp(a ? a : "", b ? b : "");
}
