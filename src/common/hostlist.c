/* hostlist.c - expand and compress Slurm host list expressions.
 *
 * Purpose: "n[01-04],g[1-2]" <-> the list of names, with Slurm's rules for
 * zero padding, range joining and bracket grouping (see hostlist.h).
 * Owns: a flat array of malloc'd names; expansion builds a private list
 * first and moves it in only when the whole expression parsed, so a failed
 * push leaves the list as it was.
 * Caveat: compression keys on trailing digits only, like Slurm; it never
 * rebuilds multi-bracket or suffix forms ("r1n1,r1n2" -> "r1n[1-2]").
 */
#include "hostlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "macros.h"

#define HOSTLIST_SEPS	    ", \t\n"
#define HOSTLIST_DIGITS_MAX 18 /* keeps every number and hi - lo + 1 in uint64_t */

struct hostlist {
	char **hosts;
	size_t n;
	size_t cap;
};

/* ---- list storage ---- */

static int hl_reserve(struct hostlist *hl, size_t extra)
{
	size_t cap;
	char **p;

	if (hl->n + extra <= hl->cap)
		return 0;
	cap = hl->cap ? hl->cap : 16;
	while (cap < hl->n + extra)
		cap *= 2;
	p = realloc(hl->hosts, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	hl->hosts = p;
	hl->cap = cap;
	return 0;
}

static int hl_append(struct hostlist *hl, const char *name, size_t len)
{
	char *s;

	if (hl_reserve(hl, 1) < 0 || !(s = strndup(name, len)))
		return -ENOMEM;
	hl->hosts[hl->n++] = s;
	return 0;
}

static void hl_clear(struct hostlist *hl)
{
	for (size_t i = 0; i < hl->n; i++)
		free(hl->hosts[i]);
	free(hl->hosts);
	*hl = (struct hostlist){0};
}

struct hostlist *hostlist_free(struct hostlist *hl)
{
	if (hl) {
		hl_clear(hl);
		free(hl);
	}
	return NULL;
}

/* ---- expansion ---- */

struct range {
	uint64_t lo, hi;
	int width; /* digits written for lo */
};

/* One bracket group and the literal text in front of it. */
struct group {
	const char *lit;
	size_t lit_len;
	struct range *ranges;
	size_t nranges;
};

struct token {
	struct group *groups;
	size_t ngroups;
	const char *tail;
	size_t tail_len;
};

static void token_done(struct token *t)
{
	for (size_t i = 0; i < t->ngroups; i++)
		free(t->groups[i].ranges);
	free(t->groups);
	*t = (struct token){0};
}

static int parse_number(const char **p, const char *end, uint64_t *ret, int *ret_digits)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	while (s < end && isdigit((unsigned char)*s)) {
		if (++digits > HOSTLIST_DIGITS_MAX)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s++ - '0');
	}
	if (digits == 0)
		return -EINVAL;
	*p = s;
	*ret = v;
	*ret_digits = digits;
	return 0;
}

/* "1-3,5,07-09" (between the brackets) -> ranges. */
static int parse_range_list(const char *s, const char *end, struct group *g)
{
	size_t cap = 1;

	for (const char *c = s; c < end; c++)
		cap += *c == ',';
	g->ranges = calloc(cap, sizeof(*g->ranges));
	if (!g->ranges)
		return -ENOMEM;
	for (;;) {
		struct range *r = &g->ranges[g->nranges];
		int digits;

		if (parse_number(&s, end, &r->lo, &r->width) < 0)
			return -EINVAL;
		r->hi = r->lo;
		if (s < end && *s == '-') {
			s++;
			if (parse_number(&s, end, &r->hi, &digits) < 0 || r->hi < r->lo)
				return -EINVAL;
		}
		g->nranges++;
		if (s == end)
			return 0;
		if (*s++ != ',')
			return -EINVAL;
	}
}

/* Split tok into literal/bracket groups; brackets were checked balanced. */
static int parse_token(const char *tok, size_t len, struct token *t)
{
	const char *p = tok, *end = tok + len;

	for (;;) {
		const char *open = memchr(p, '[', (size_t)(end - p));
		const char *close;
		struct group *g;
		int r;

		if (!open) {
			t->tail = p;
			t->tail_len = (size_t)(end - p);
			return 0;
		}
		close = memchr(open, ']', (size_t)(end - open));
		g = realloc(t->groups, (t->ngroups + 1) * sizeof(*g));
		if (!g)
			return -ENOMEM;
		t->groups = g;
		g = &t->groups[t->ngroups++];
		*g = (struct group){.lit = p, .lit_len = (size_t)(open - p)};
		r = parse_range_list(open + 1, close, g);
		if (r < 0)
			return r;
		p = close + 1;
	}
}

/* Hosts the token expands to, or SIZE_MAX when over SL_HOSTLIST_MAX. */
static size_t token_count(const struct token *t)
{
	size_t total = 1;

	for (size_t i = 0; i < t->ngroups; i++) {
		uint64_t n = 0;

		for (size_t j = 0; j < t->groups[i].nranges; j++) {
			n += t->groups[i].ranges[j].hi - t->groups[i].ranges[j].lo + 1;
			if (n > SL_HOSTLIST_MAX)
				return SIZE_MAX;
		}
		total *= (size_t)n;
		if (total > SL_HOSTLIST_MAX)
			return SIZE_MAX;
	}
	return total;
}

/* Emit every host of t; rightmost group varies fastest. */
static int token_expand(const struct token *t, struct hostlist *out)
{
	_cleanup_free_ size_t *ri = calloc(t->ngroups + 1, sizeof(size_t));
	_cleanup_free_ uint64_t *val = calloc(t->ngroups + 1, sizeof(uint64_t));
	char name[SL_NAME_MAX + 1];

	if (!ri || !val)
		return -ENOMEM;
	for (size_t i = 0; i < t->ngroups; i++)
		val[i] = t->groups[i].ranges[0].lo;
	for (;;) {
		size_t len = 0;
		int n, r;

		for (size_t i = 0; i < t->ngroups && len <= SL_NAME_MAX; i++) {
			const struct group *g = &t->groups[i];

			n = snprintf(name + len, sizeof(name) - len, "%.*s%0*llu", (int)g->lit_len,
				     g->lit, g->ranges[ri[i]].width, (unsigned long long)val[i]);
			len += (size_t)n;
		}
		if (len <= SL_NAME_MAX) {
			n = snprintf(name + len, sizeof(name) - len, "%.*s", (int)t->tail_len,
				     t->tail);
			len += (size_t)n;
		}
		if (len == 0 || len > SL_NAME_MAX)
			return -EINVAL;
		r = hl_append(out, name, len);
		if (r < 0)
			return r;

		/* odometer step */
		size_t i = t->ngroups;
		while (i > 0) {
			const struct group *g = &t->groups[--i];

			if (val[i] < g->ranges[ri[i]].hi) {
				val[i]++;
				break;
			}
			if (ri[i] + 1 < g->nranges) {
				val[i] = g->ranges[++ri[i]].lo;
				break;
			}
			ri[i] = 0;
			val[i] = g->ranges[0].lo;
			if (i == 0)
				return 0;
		}
		if (t->ngroups == 0)
			return 0;
	}
}

/* Next token of expr at *pos; brackets must balance and not nest. */
static int next_token(const char *expr, size_t *pos, const char **ret_tok, size_t *ret_len)
{
	size_t i = *pos, start;
	int depth = 0;

	while (expr[i] && strchr(HOSTLIST_SEPS, expr[i]))
		i++;
	start = i;
	for (; expr[i]; i++) {
		if (expr[i] == '[') {
			if (depth++)
				return -EINVAL;
		} else if (expr[i] == ']') {
			if (!depth--)
				return -EINVAL;
		} else if (!depth && strchr(HOSTLIST_SEPS, expr[i])) {
			break;
		}
	}
	if (depth)
		return -EINVAL;
	*pos = i;
	*ret_tok = expr + start;
	*ret_len = i - start;
	return 0;
}

/* Expand expr into out, which already holds `have' hosts of the cap max
 * (out NULL: only count, into *counted). */
static int expand_expr(const char *expr, size_t have, size_t max, struct hostlist *out,
		       size_t *counted)
{
	size_t pos = 0, len;
	const char *tok;
	int r;

	for (;;) {
		_cleanup_(token_done) struct token t = {0};
		size_t count;

		r = next_token(expr, &pos, &tok, &len);
		if (r < 0)
			return r;
		if (len == 0)
			return 0;
		r = parse_token(tok, len, &t);
		if (r < 0)
			return r;
		count = token_count(&t);
		if (count == SIZE_MAX || have + (out ? out->n : *counted) + count > max)
			return -E2BIG;
		if (!out) {
			*counted += count;
			continue;
		}
		r = hl_reserve(out, count);
		if (r < 0)
			return r;
		r = token_expand(&t, out);
		if (r < 0)
			return r;
	}
}

/* One plain host name: nothing to expand. */
static bool is_plain_host(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

int hostlist_push(struct hostlist *hl, const char *expr)
{
	struct hostlist tmp = {0};
	int r;

	if (!expr)
		return 0;
	/* the common case (a slurm.conf node line, a step's one node) without
	 * the expander's copies and formatting */
	if (is_plain_host(expr) && strlen(expr) <= SL_NAME_MAX)
		return hostlist_push_host(hl, expr);
	r = expand_expr(expr, hl->n, SL_HOSTLIST_MAX, &tmp, NULL);
	if (r == 0)
		r = hl_reserve(hl, tmp.n);
	if (r < 0) {
		hl_clear(&tmp);
		return r;
	}
	if (tmp.n) {
		memcpy(hl->hosts + hl->n, tmp.hosts, tmp.n * sizeof(*tmp.hosts));
		hl->n += tmp.n;
	}
	free(tmp.hosts); /* the names moved to hl */
	return 0;
}

int hostlist_new(const char *expr, struct hostlist **ret)
{
	struct hostlist *hl = calloc(1, sizeof(*hl));
	int r;

	if (!hl)
		return -ENOMEM;
	r = hostlist_push(hl, expr);
	if (r < 0) {
		hostlist_free(hl);
		return r;
	}
	*ret = hl;
	return 0;
}

int hostlist_count_expr(const char *expr, size_t max, size_t *ret)
{
	size_t n = 0;
	int r;

	if (max > SL_HOSTLIST_MAX)
		max = SL_HOSTLIST_MAX;
	r = expr ? expand_expr(expr, 0, max, NULL, &n) : 0;
	if (r == 0 && ret)
		*ret = n;
	return r;
}

int hostlist_push_host(struct hostlist *hl, const char *host)
{
	size_t len;

	if (!host || !*host || (len = strlen(host)) > SL_NAME_MAX)
		return -EINVAL;
	if (hl->n >= SL_HOSTLIST_MAX)
		return -E2BIG;
	return hl_append(hl, host, len);
}

size_t hostlist_count(const struct hostlist *hl)
{
	return hl ? hl->n : 0;
}

const char *hostlist_nth(const struct hostlist *hl, size_t i)
{
	return hl && i < hl->n ? hl->hosts[i] : NULL;
}

long hostlist_find(const struct hostlist *hl, const char *host)
{
	if (!hl || !host)
		return -1;
	for (size_t i = 0; i < hl->n; i++)
		if (streq(hl->hosts[i], host))
			return (long)i;
	return -1;
}

/* ---- host names as prefix + number ---- */

struct hname {
	const char *prefix;
	size_t plen;
	uint64_t num;
	int width;	/* digits written */
	bool is_single; /* no usable trailing number */
};

static struct hname hname_parse(const char *host)
{
	size_t len = strlen(host), i = len;
	struct hname h = {.prefix = host, .plen = len, .is_single = true};

	while (i > 0 && isdigit((unsigned char)host[i - 1]))
		i--;
	if (i == len || len - i > HOSTLIST_DIGITS_MAX)
		return h;
	h.plen = i;
	h.width = (int)(len - i);
	h.is_single = false;
	for (; i < len; i++)
		h.num = h.num * 10 + (uint64_t)(host[i] - '0');
	return h;
}

static int zero_pad(uint64_t num, int width)
{
	int digits = 1;

	while (num /= 10)
		digits++;
	return width > digits ? width - digits : 0;
}

/* Can numbers n (written *wn wide) and m (*wm) share one format width?
 * Yes when one width pads neither number differently; the width that
 * changes nothing is adopted by the other side, as in Slurm. */
static bool width_compatible(uint64_t n, int *wn, uint64_t m, int *wm)
{
	if (*wn == *wm)
		return true;
	if (zero_pad(n, *wn) == zero_pad(n, *wm)) {
		*wn = *wm;
		return true;
	}
	if (zero_pad(m, *wm) == zero_pad(m, *wn)) {
		*wm = *wn;
		return true;
	}
	return false;
}

static bool prefix_eq(const struct hname *a, const struct hname *b)
{
	return a->plen == b->plen && memcmp(a->prefix, b->prefix, a->plen) == 0;
}

/* Natural order: digit runs compare by value, other bytes as unsigned. */
static int natcmp(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0, j = 0;

	while (i < alen && j < blen) {
		if (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[j])) {
			size_t si, sj, ei, ej;

			while (i < alen && a[i] == '0')
				i++;
			while (j < blen && b[j] == '0')
				j++;
			for (si = i; i < alen && isdigit((unsigned char)a[i]); i++)
				;
			for (sj = j; j < blen && isdigit((unsigned char)b[j]); j++)
				;
			ei = i - si;
			ej = j - sj;
			if (ei != ej)
				return ei < ej ? -1 : 1;
			int c = memcmp(a + si, b + sj, ei);
			if (c)
				return c;
			continue;
		}
		if (a[i] != b[j])
			return (unsigned char)a[i] < (unsigned char)b[j] ? -1 : 1;
		i++;
		j++;
	}
	return (i < alen) - (j < blen);
}

static int host_cmp(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
	struct hname ha = hname_parse(a), hb = hname_parse(b);
	int c = natcmp(ha.prefix, ha.plen, hb.prefix, hb.plen);

	if (c == 0 && ha.is_single != hb.is_single)
		c = ha.is_single ? -1 : 1;
	if (c == 0 && !ha.is_single) {
		int wa = ha.width, wb = hb.width;

		if (width_compatible(ha.num, &wa, hb.num, &wb))
			c = (ha.num > hb.num) - (ha.num < hb.num);
		else
			c = (ha.width > hb.width) - (ha.width < hb.width);
	}
	return c ? c : strcmp(a, b);
}

void hostlist_sort(struct hostlist *hl)
{
	if (hl && hl->n > 1)
		qsort(hl->hosts, hl->n, sizeof(*hl->hosts), host_cmp);
}

void hostlist_uniq(struct hostlist *hl)
{
	size_t out = 0;

	if (!hl || hl->n == 0)
		return;
	for (size_t i = 1; i < hl->n; i++) {
		if (streq(hl->hosts[out], hl->hosts[i]))
			free(hl->hosts[i]);
		else
			hl->hosts[++out] = hl->hosts[i];
	}
	hl->n = out + 1;
}

/* ---- compression ---- */

struct hrange {
	struct hname h; /* num is the low end */
	uint64_t hi;
};

/* Output bound of one range: ",prefix[" + two numbers of at most
 * HOSTLIST_DIGITS_MAX digits (the padding width is one of the host's own
 * digit counts) + "-" + "]" or ",". */
#define RANGE_OUT_MAX(plen) ((plen) + 2 * HOSTLIST_DIGITS_MAX + 4)

/* Both numbered with the same prefix: they share one bracket. */
static bool same_bracket(const struct hrange *a, const struct hrange *b)
{
	return !a->h.is_single && !b->h.is_single && prefix_eq(&a->h, &b->h);
}

static void put_ranges(char *out, const struct hrange *r, size_t n)
{
	*out = '\0';
	for (size_t i = 0; i < n;) {
		bool bracket =
		    r[i].hi > r[i].h.num || (i + 1 < n && same_bracket(&r[i], &r[i + 1]));

		/* out is sized by RANGE_OUT_MAX, so sprintf always fits */
		out += sprintf(out, "%s%.*s%s", i ? "," : "", (int)r[i].h.plen, r[i].h.prefix,
			       bracket ? "[" : "");
		for (;;) {
			const struct hrange *c = &r[i++];

			if (!c->h.is_single)
				out += sprintf(out, "%0*llu", c->h.width,
					       (unsigned long long)c->h.num);
			if (c->hi > c->h.num)
				out +=
				    sprintf(out, "-%0*llu", c->h.width, (unsigned long long)c->hi);
			if (i == n || !same_bracket(c, &r[i]))
				break;
			*out++ = ',';
		}
		if (bracket)
			*out++ = ']';
		*out = '\0';
	}
}

char *hostlist_ranged_string(const struct hostlist *hl)
{
	size_t n = hostlist_count(hl), nr = 0, size = 1;
	_cleanup_free_ struct hrange *r = calloc(n ? n : 1, sizeof(*r));
	char *out;

	if (!r)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct hname h = hname_parse(hl->hosts[i]);
		struct hrange *tail = nr ? &r[nr - 1] : NULL;

		/* join only a perfect successor, as Slurm's push does */
		if (tail && !tail->h.is_single && !h.is_single && prefix_eq(&tail->h, &h)
		    && tail->hi + 1 == h.num
		    && width_compatible(tail->h.num, &tail->h.width, h.num, &h.width)) {
			tail->hi = h.num;
			continue;
		}
		r[nr++] = (struct hrange){.h = h, .hi = h.num};
		size += RANGE_OUT_MAX(h.plen);
	}
	out = malloc(size);
	if (out)
		put_ranges(out, r, nr);
	return out;
}

char *hostlist_compress(const char *expr)
{
	struct hostlist *hl = NULL;
	char *s;

	if (hostlist_new(expr, &hl) < 0)
		return NULL;
	s = hostlist_ranged_string(hl);
	hostlist_free(hl);
	return s;
}
