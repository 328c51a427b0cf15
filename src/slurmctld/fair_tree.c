/* fair_tree.c - see fair_tree.h. */
#include "fair_tree.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "assoc.h"
#include "common/macros.h"

#define SHARES_PARENT INFINITE /* Fairshare=parent */

struct ft {
	struct assoc_table *t;
	uint32_t *first, *count; /* children of assoc i: kids[first[i] .. +count[i]] */
	uint32_t *kids;
	uint32_t users; /* live user associations */
	uint32_t rank;	/* the next user's (counts down) */
	uint32_t rnt;	/* the last rank given, shared by who ties with it */
};

static bool is_live(const struct assoc *a)
{
	return a && !a->is_deleted;
}

static bool is_parent_shares(const struct assoc *a)
{
	return !a->user && a->shares_raw == SHARES_PARENT;
}

static int64_t index_of(const struct assoc_table *t, const struct assoc *a)
{
	for (uint32_t i = 0; a && i < t->assoc_count; i++) /* id order: small tables */
		if (t->assocs[i] == a)
			return i;
	return -1;
}

/* children lists, by counting then filling */
static int build_children(struct ft *f)
{
	struct assoc_table *t = f->t;
	uint32_t n = t->assoc_count, *fill;
	int64_t *par = calloc(n ? n : 1, sizeof(*par));

	f->first = calloc(n + 1, sizeof(*f->first));
	f->count = calloc(n + 1, sizeof(*f->count));
	f->kids = calloc(n + 1, sizeof(*f->kids));
	fill = calloc(n + 1, sizeof(*fill));
	if (!par || !f->first || !f->count || !f->kids || !fill) {
		free(par);
		free(fill);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		par[i] = is_live(t->assocs[i]) ? index_of(t, t->assocs[i]->parent) : -1;
		if (par[i] >= 0)
			f->count[par[i]]++;
		if (is_live(t->assocs[i]) && t->assocs[i]->user)
			f->users++;
	}
	for (uint32_t i = 1; i < n; i++)
		f->first[i] = f->first[i - 1] + f->count[i - 1];
	for (uint32_t i = 0; i < n; i++)
		if (par[i] >= 0)
			f->kids[f->first[par[i]] + fill[par[i]]++] = i;
	free(par);
	free(fill);
	return 0;
}

/* Appends the children of p to out (those of Fairshare=parent accounts in
 * their place); returns the new length. */
static uint32_t gather(const struct ft *f, uint32_t p, uint32_t *out, uint32_t len, int depth)
{
	for (uint32_t k = 0; k < f->count[p]; k++) {
		uint32_t c = f->kids[f->first[p] + k];

		if (is_parent_shares(f->t->assocs[c]) && depth < 64)
			len = gather(f, c, out, len, depth + 1);
		else
			out[len++] = c;
	}
	return len;
}

/* Level fairshare of each of one sibling set. */
static void level_fs(const struct ft *f, const uint32_t *set, uint32_t n)
{
	double shares = 0, usage = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct assoc *a = f->t->assocs[set[i]];

		shares += a->shares_raw == SHARES_PARENT ? 1 : a->shares_raw;
		usage += a->usage_raw > 0 ? a->usage_raw : 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct assoc *a = f->t->assocs[set[i]];
		double s = a->shares_raw == SHARES_PARENT ? 1 : a->shares_raw;
		double u = usage > 0 && a->usage_raw > 0 ? a->usage_raw / usage : 0;

		a->level_fs = !s ? 0 : !u ? INFINITY : (s / shares) / u;
	}
}

static int cmp_level(const void *pa, const void *pb, void *arg)
{
	const struct assoc_table *t = arg;
	const struct assoc *a = t->assocs[*(const uint32_t *)pa];
	const struct assoc *b = t->assocs[*(const uint32_t *)pb];
	int r;

	if (a->level_fs != b->level_fs)
		return a->level_fs > b->level_fs ? -1 : 1;
	if (!a->user != !b->user) /* users of a tie first */
		return a->user ? -1 : 1;
	r = strcmp(a->acct ? a->acct : "", b->acct ? b->acct : "");
	return r ? r : strcmp(a->user ? a->user : "", b->user ? b->user : "");
}

static int rank_set(struct ft *f, uint32_t *set, uint32_t n, int depth, bool is_tied);

/* One group of siblings tied on level fairshare: its users share a rank,
 * its accounts' children are ranked together, the first of them with that
 * same rank. is_tied: the group ties with the user ranked last (the
 * first children of an account that tied with a user). */
static int rank_tie(struct ft *f, const uint32_t *grp, uint32_t n, int depth, bool is_tied)
{
	uint32_t tied_rank = is_tied ? f->rnt : f->rank, len = 0, *merged;
	bool has_users = false;
	int rc;

	for (uint32_t i = 0; i < n; i++) {
		struct assoc *a = f->t->assocs[grp[i]];

		if (!a->user)
			continue;
		a->fs_factor = a->shares_raw && f->users ? (double)tied_rank / f->users : 0;
		f->rank--;
		has_users = true;
	}
	if (has_users)
		f->rnt = tied_rank;
	merged = malloc((f->t->assoc_count + 1) * sizeof(*merged));
	if (!merged)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t start = len;

		if (f->t->assocs[grp[i]]->user)
			continue;
		len = gather(f, grp[i], merged, len, 0);
		level_fs(f, merged + start, len - start);
	}
	rc = len ? rank_set(f, merged, len, depth + 1, has_users || is_tied) : 0;
	free(merged);
	return rc;
}

static int rank_set(struct ft *f, uint32_t *set, uint32_t n, int depth, bool is_tied)
{
	if (depth > 64) /* a tree deeper than any real one (or a loop) */
		return 0;
	qsort_r(set, n, sizeof(*set), cmp_level, f->t);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		int rc;

		while (j < n && f->t->assocs[set[j]]->level_fs == f->t->assocs[set[i]]->level_fs)
			j++;
		rc = rank_tie(f, set + i, j - i, depth, is_tied && i == 0);
		if (rc < 0)
			return rc;
		i = j;
	}
	return 0;
}

int fair_tree_compute(struct assoc_table *t)
{
	struct ft f = {.t = t};
	uint32_t *top = NULL, n = 0;
	int rc;

	if (!t->assoc_count)
		return 0;
	rc = build_children(&f);
	if (!rc && !(top = malloc(t->assoc_count * sizeof(*top))))
		rc = -ENOMEM;
	if (!rc) {
		for (uint32_t i = 0; i < t->assoc_count; i++) {
			struct assoc *a = t->assocs[i];

			a->fs_factor = 0;
			a->level_fs = 0;
			if (is_live(a) && !a->parent) /* roots: ranked as one set */
				top[n++] = i;
		}
		for (uint32_t i = 0; i < n; i++)
			t->assocs[top[i]]->level_fs = INFINITY;
		f.rank = f.users;
		rc = rank_tie(&f, top, n, 0, false);
	}
	free(top);
	free(f.first);
	free(f.count);
	free(f.kids);
	return rc;
}
