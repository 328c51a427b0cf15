/* feature_expr.c - parse a -C/--constraint expression into its filter,
 * matching OR and counts, and match the parts against a node's features.
 *
 * Purpose: one recursive descent parser over the language of
 * feature_expr.h, and the matcher that the scheduler calls per node.
 * Owns: one arena per parsed expression (feat_expr.mem), which holds a
 * private copy of the text, every node, the alts and counts arrays. The
 * nodes point into the copy (name and length), so the parse does not
 * depend on the caller's string.
 * Grammar, as parsed here:
 *   top     := item (op item)*            op := '&' | '|'
 *   item    := '[' bracket ']' | counted
 *   counted := term ['*' N]               N: decimal 1..FEAT_COUNT_MAX
 *   term    := name | '(' expr ')'
 *   expr    := term (op term)*            no counts, no brackets inside
 *   bracket := counted (op counted)*      all '|' and no counts: alts;
 *                                         all '&' and all counted: counts
 * '&' and '|' fold left to right with no precedence. At the top level
 * the plain items joined by '&' form the filter; a top level with a '|'
 * may hold neither counts nor a bracket, and is the filter as a whole.
 * Caveats: the names are the nodes' allocation order, which is their
 * order in the text, so feat_expr_foreach_name walks the node array.
 */
#include "feature_expr.h"

#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define FEAT_COUNT_MAX 100000 /* largest N in "name*N" */

enum feat_kind {
	FEAT_NAME,
	FEAT_AND,
	FEAT_OR,
};

struct feat_node {
	enum feat_kind kind;
	uint32_t len; /* FEAT_NAME: length of name */
	union {
		const char *name; /* FEAT_NAME: into the arena's copy */
		struct {
			const struct feat_node *l, *r; /* FEAT_AND, FEAT_OR */
		};
	};
};

/* The head of the arena; nodes, alts, counts and the copy follow it. */
struct feat_mem {
	struct feat_node *nodes;
	uint32_t node_count;
	uint32_t node_cap;
	uint32_t list_cap; /* room in alts and in counts */
};

struct parser {
	const char *p; /* cursor into the arena's copy */
	struct feat_mem *m;
	struct feat_expr *out;
	uint32_t name_count;
	bool has_bracket;
};

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
	       || c == '_' || c == '.' || c == ':' || c == '=' || c == '+' || c == '-';
}

static bool is_op(char c)
{
	return c == '&' || c == '|';
}

static size_t align_up(size_t n)
{
	size_t a = alignof(max_align_t);

	return (n + a - 1) / a * a;
}

/* The runs of name characters: every name and every N is one run, and
 * each N belongs to a term holding at least one name. */
static uint32_t count_runs(const char *s)
{
	uint32_t runs = 0;

	for (bool in_run = false; *s; s++) {
		bool c = is_name_char(*s);

		if (c && !in_run)
			runs++;
		in_run = c;
	}
	return runs;
}

static struct feat_node *node_new(struct parser *ps, enum feat_kind kind)
{
	struct feat_mem *m = ps->m;
	struct feat_node *n;

	if (m->node_count >= m->node_cap)
		return NULL; /* cannot happen: the arena is sized for 2 per run */
	n = &m->nodes[m->node_count++];
	n->kind = kind;
	return n;
}

static int join(struct parser *ps, char op, const struct feat_node *l, const struct feat_node *r,
		const struct feat_node **ret)
{
	struct feat_node *n;

	if (!l) {
		*ret = r;
		return 0;
	}
	n = node_new(ps, op == '|' ? FEAT_OR : FEAT_AND);
	if (!n)
		return -EINVAL;
	n->l = l;
	n->r = r;
	*ret = n;
	return 0;
}

static int parse_name(struct parser *ps, const struct feat_node **ret)
{
	const char *start = ps->p;
	struct feat_node *n;

	while (is_name_char(*ps->p))
		ps->p++;
	if (ps->p == start || ps->name_count >= FEAT_EXPR_MAX_TERMS)
		return -EINVAL;
	n = node_new(ps, FEAT_NAME);
	if (!n)
		return -EINVAL;
	n->name = start;
	n->len = (uint32_t)(ps->p - start);
	ps->name_count++;
	*ret = n;
	return 0;
}

static int parse_expr(struct parser *ps, const struct feat_node **ret);

static int parse_term(struct parser *ps, const struct feat_node **ret)
{
	int r;

	if (*ps->p != '(')
		return parse_name(ps, ret);
	ps->p++;
	r = parse_expr(ps, ret);
	if (r < 0)
		return r;
	if (*ps->p != ')')
		return -EINVAL;
	ps->p++;
	return 0;
}

/* term (op term)*, inside parentheses: stops at the first character
 * that is not an operator, which the caller checks. */
static int parse_expr(struct parser *ps, const struct feat_node **ret)
{
	const struct feat_node *acc, *t;
	int r;

	r = parse_term(ps, &acc);
	while (r == 0 && is_op(*ps->p)) {
		char op = *ps->p++;

		r = parse_term(ps, &t);
		if (r == 0)
			r = join(ps, op, acc, t, &acc);
	}
	if (r == 0)
		*ret = acc;
	return r;
}

/* '*' N after a term; *ret_count is 0 when there is no '*'. */
static int parse_count(struct parser *ps, uint32_t *ret_count)
{
	uint32_t v = 0;

	*ret_count = 0;
	if (*ps->p != '*')
		return 0;
	ps->p++;
	if (*ps->p < '0' || *ps->p > '9')
		return -EINVAL;
	for (; *ps->p >= '0' && *ps->p <= '9'; ps->p++) {
		v = v * 10 + (uint32_t)(*ps->p - '0');
		if (v > FEAT_COUNT_MAX)
			return -EINVAL;
	}
	if (v == 0)
		return -EINVAL;
	*ret_count = v;
	return 0;
}

static int parse_counted(struct parser *ps, const struct feat_node **ret, uint32_t *ret_count)
{
	int r = parse_term(ps, ret);

	return r < 0 ? r : parse_count(ps, ret_count);
}

static int add_count(struct parser *ps, const struct feat_node *t, uint32_t count)
{
	struct feat_expr *out = ps->out;

	if (out->count_count >= ps->m->list_cap)
		return -EINVAL;
	out->counts[out->count_count].e = t;
	out->counts[out->count_count].count = count;
	out->count_count++;
	out->count_sum = count > UINT32_MAX - out->count_sum ? UINT32_MAX : out->count_sum + count;
	return 0;
}

/* '[' ... ']': alternatives joined by '|', or counted terms joined by
 * '&'; a single term without a count is one alternative. */
static int parse_bracket(struct parser *ps)
{
	struct feat_expr *out = ps->out;
	bool saw_and = false, saw_or = false;
	uint32_t plain = 0, counted = 0;

	if (ps->has_bracket)
		return -EINVAL;
	ps->has_bracket = true;
	ps->p++;
	for (;;) {
		const struct feat_node *t;
		uint32_t count;
		int r = parse_counted(ps, &t, &count);

		if (r < 0)
			return r;
		if (count) {
			r = add_count(ps, t, count);
			if (r < 0)
				return r;
			counted++;
		} else {
			if (out->alt_count >= ps->m->list_cap)
				return -EINVAL;
			out->alts[out->alt_count++] = t;
			plain++;
		}
		if (*ps->p == ']')
			break;
		if (!is_op(*ps->p))
			return -EINVAL;
		saw_or |= *ps->p == '|';
		saw_and |= *ps->p == '&';
		ps->p++;
	}
	ps->p++;
	if (counted && (plain || saw_or))
		return -EINVAL;
	if (plain && saw_and)
		return -EINVAL;
	return 0;
}

/* The whole expression: items joined by operators up to the end. */
static int parse_top(struct parser *ps)
{
	struct feat_expr *out = ps->out;
	bool saw_or = false;
	char op = '&';

	for (;;) {
		const struct feat_node *t;
		uint32_t count;
		int r;

		if (*ps->p == '[') {
			r = parse_bracket(ps);
		} else {
			r = parse_counted(ps, &t, &count);
			if (r == 0 && count)
				r = add_count(ps, t, count);
			else if (r == 0)
				r = join(ps, op, out->filter, t, &out->filter);
		}
		if (r < 0)
			return r;
		if (*ps->p == '\0')
			break;
		if (!is_op(*ps->p))
			return -EINVAL;
		op = *ps->p++;
		saw_or |= op == '|';
	}
	/* Slurm refuses "a*2|b" and "[a|b]|c": with an OR at the top the
	 * expression is one filter. */
	if (saw_or && (out->count_count || ps->has_bracket))
		return -EINVAL;
	return 0;
}

/* One allocation for the head, the nodes, alts, counts and the copy. */
static struct feat_mem *arena_new(const char *s, size_t len, uint32_t runs, char **ret_copy,
				  struct feat_expr *out)
{
	size_t head = align_up(sizeof(struct feat_mem));
	size_t nodes = align_up(sizeof(struct feat_node) * 2 * runs);
	size_t alts = align_up(sizeof(*out->alts) * runs);
	size_t counts = align_up(sizeof(*out->counts) * runs);
	char *base = calloc(1, head + nodes + alts + counts + len + 1);
	struct feat_mem *m = (struct feat_mem *)base;

	if (!base)
		return NULL;
	m->nodes = (struct feat_node *)(base + head);
	m->node_cap = 2 * runs;
	m->list_cap = runs;
	out->alts = (const struct feat_node **)(base + head + nodes);
	out->counts = (struct feat_count *)(base + head + nodes + alts);
	*ret_copy = base + head + nodes + alts + counts;
	memcpy(*ret_copy, s, len + 1);
	return m;
}

int feat_expr_parse(const char *s, struct feat_expr *ret)
{
	struct feat_expr e = {0};
	struct parser ps = {0};
	uint32_t runs;
	size_t len;
	char *copy;
	int r;

	if (!ret)
		return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	if (!s)
		return -EINVAL;
	len = strnlen(s, FEAT_EXPR_MAX_LEN + 1);
	if (len == 0 || len > FEAT_EXPR_MAX_LEN)
		return -EINVAL;
	runs = count_runs(s);
	if (runs == 0 || runs > 2 * FEAT_EXPR_MAX_TERMS)
		return -EINVAL;
	ps.m = arena_new(s, len, runs, &copy, &e);
	if (!ps.m)
		return -ENOMEM;
	e.mem = ps.m;
	ps.out = &e;
	ps.p = copy;
	r = parse_top(&ps);
	if (r < 0) {
		feat_expr_free(&e);
		return r;
	}
	if (!e.alt_count)
		e.alts = NULL;
	if (!e.count_count)
		e.counts = NULL;
	*ret = e;
	return 0;
}

void feat_expr_free(struct feat_expr *e)
{
	if (!e)
		return;
	free(e->mem);
	memset(e, 0, sizeof(*e));
}

bool feat_list_has(const char *features, const char *name, uint32_t len)
{
	const char *p = features;

	if (!p || !name || len == 0)
		return false;
	while (*p) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) == len && memcmp(p, name, len) == 0)
			return true;
		if (!*end)
			break;
		p = end + 1;
	}
	return false;
}

bool feat_node_match(const struct feat_node *e, const char *features)
{
	if (!e)
		return true;
	switch (e->kind) {
	case FEAT_NAME:
		return feat_list_has(features, e->name, e->len);
	case FEAT_AND:
		return feat_node_match(e->l, features) && feat_node_match(e->r, features);
	case FEAT_OR:
		return feat_node_match(e->l, features) || feat_node_match(e->r, features);
	}
	return false;
}

int feat_expr_foreach_name(const struct feat_expr *e,
			   int (*fn)(const char *name, uint32_t len, void *arg), void *arg)
{
	const struct feat_mem *m;

	if (!e || !e->mem || !fn)
		return 0;
	m = e->mem;
	for (uint32_t i = 0; i < m->node_count; i++) {
		const struct feat_node *n = &m->nodes[i];
		int r;

		if (n->kind != FEAT_NAME)
			continue;
		r = fn(n->name, n->len, arg);
		if (r)
			return r;
	}
	return 0;
}
