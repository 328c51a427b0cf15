/* job_feat.c - see job_feat.h.
 *
 * Purpose: the bridge between feature_expr.h (the language, pure) and
 * select.h (placement, pure). The expression is parsed again at each
 * placement: a few microseconds against the pass's node loop, and no
 * parsed state to keep or journal.
 */
#include "job_feat.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/feature_expr.h"
#include "common/log.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "node.h"
#include "select.h"

static int name_known(const char *name, uint32_t len, void *arg)
{
	const struct ctld *c = arg;

	for (uint32_t i = 0; i < c->node_count; i++)
		if (feat_list_has(node_features(&c->nodes[i]), name, len))
			return 0;
	info("Invalid feature specification: no node has feature %.*s", (int)len, name);
	return -ESLURM_INVALID_FEATURE;
}

int job_feat_check(const struct ctld *c, const char *expr)
{
	struct feat_expr e = {0};
	int r;

	if (!expr || !*expr)
		return 0;
	r = feat_expr_parse(expr, &e);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		info("Invalid feature specification: %s", expr);
		return -ESLURM_INVALID_FEATURE;
	}
	r = feat_expr_foreach_name(&e, name_known, (void *)c);
	feat_expr_free(&e);
	return r;
}

/* One block: the struct, its pointer arrays, the needs, then the flags. */
static struct sel_feat *feat_block(const struct ctld *c, const struct feat_expr *e)
{
	uint32_t n = c->node_count, rows = e->alt_count + e->count_count;
	size_t size = sizeof(struct sel_feat) + rows * sizeof(bool *)
		      + e->count_count * sizeof(uint32_t) + (size_t)rows * (n + 1);
	struct sel_feat *f = calloc(1, size);
	const bool **ptrs;
	uint32_t *need;
	bool *flags;

	if (!f)
		return NULL;
	ptrs = (const bool **)(f + 1);
	need = (uint32_t *)(ptrs + rows);
	flags = (bool *)(need + e->count_count);
	*f = (struct sel_feat){
	    .alt_count = e->alt_count,
	    .alt_ok = e->alt_count ? ptrs : NULL,
	    .count_n = e->count_count,
	    .count_ok = e->count_count ? ptrs + e->alt_count : NULL,
	    .count_need = e->count_count ? need : NULL,
	    .count_sum = e->count_sum,
	};
	for (uint32_t row = 0; row < rows; row++) {
		const struct feat_node *fe =
		    row < e->alt_count ? e->alts[row] : e->counts[row - e->alt_count].e;
		bool *ok = flags + (size_t)row * (n + 1);

		for (uint32_t i = 0; i < n; i++)
			ok[i] = feat_node_match(fe, node_features_act(&c->nodes[i]));
		ptrs[row] = ok;
	}
	for (uint32_t t = 0; t < e->count_count; t++)
		need[t] = e->counts[t].count;
	return f;
}

int job_feat_request(const struct ctld *c, const char *expr, bool **exc, struct sel_feat **ret_feat)
{
	struct feat_expr e = {0};
	int r;

	*ret_feat = NULL;
	if (!expr || !*expr)
		return 0;
	r = feat_expr_parse(expr, &e);
	if (r < 0)
		return r == -ENOMEM ? r : -ESLURM_INVALID_FEATURE;
	for (uint32_t i = 0; e.filter && i < c->node_count; i++) {
		if (feat_node_match(e.filter, node_features_act(&c->nodes[i])))
			continue;
		if (!*exc && !(*exc = calloc(c->node_count + 1, sizeof(bool)))) {
			feat_expr_free(&e);
			return -ENOMEM;
		}
		(*exc)[i] = true;
	}
	r = 0;
	if ((e.alt_count || e.count_count) && !(*ret_feat = feat_block(c, &e)))
		r = -ENOMEM;
	feat_expr_free(&e);
	return r;
}
