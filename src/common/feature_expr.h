/* feature_expr.h - a job's -C/--constraint and --prefer expression, as
 * Slurm 22.05 writes it, parsed once and matched against nodes' features.
 *
 * The language (sbatch(1) -C):
 *   name            one feature: letters, digits, '_', '-', '.', ':', '=', '+'
 *   name*N          at least N of the job's nodes have it (N >= 1)
 *   a&b  a|b        AND, OR, evaluated left to right with no precedence
 *                   (as Slurm: "a|b&c" is "(a|b)&c")
 *   (expr)          grouping; "(a&b)*2" counts a group
 *   [a|b|c]         matching OR: every node of the job has the same one
 *                   of the alternatives (each may be a name or a group)
 *   [a*2&b*4]       several counts: 2 nodes with a and 4 with b
 * A bracket appears at most once and only at the top level, joined to
 * the rest by '&'. Counts are only joined by '&' (Slurm refuses "a*2|b").
 * Spaces are not allowed; an empty expression is an error.
 *
 * The parse gives three parts, all over one node's feature set:
 *   filter  every node of the job satisfies it (NULL: any node);
 *   alts    matching OR: the job's nodes all satisfy one alternative;
 *   counts  each term: at least count of the job's nodes satisfy it.
 * "a&b*2&[x|y]" is filter a, counts {b:2}, alts {x, y}.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#define FEAT_EXPR_MAX_LEN   1024 /* longer expressions are refused */
#define FEAT_EXPR_MAX_TERMS 64	 /* names in one expression, at most */

struct feat_node; /* one parsed per-node expression (opaque) */

struct feat_count {
	const struct feat_node *e;
	uint32_t count;
};

struct feat_expr {
	const struct feat_node *filter; /* NULL: any node */
	const struct feat_node **alts;
	uint32_t alt_count; /* 0: no matching OR */
	struct feat_count *counts;
	uint32_t count_count; /* 0: no counts */
	uint32_t count_sum;   /* sum of the counts' nodes */
	/* private: the arena the nodes live in */
	void *mem;
};

/* Parse s into *ret (free with feat_expr_free). 0, -EINVAL for a bad
 * expression, -ENOMEM. On error *ret is left zeroed. */
int feat_expr_parse(const char *s, struct feat_expr *ret);
void feat_expr_free(struct feat_expr *e);

/* Whether a node whose features are the comma list `features` (NULL or
 * "" : none) satisfies e; NULL e: true. Names compare exactly (case
 * matters, as Slurm). No allocation. */
bool feat_node_match(const struct feat_node *e, const char *features);

/* Calls fn on every feature name of the expression, in order, with its
 * length (the names are not NUL-terminated); stops at and returns the
 * first non-zero return of fn. */
int feat_expr_foreach_name(const struct feat_expr *e,
			   int (*fn)(const char *name, uint32_t len, void *arg), void *arg);

/* Whether the comma list `features` holds name[0..len). */
bool feat_list_has(const char *features, const char *name, uint32_t len);
