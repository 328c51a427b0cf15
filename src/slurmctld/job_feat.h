/* job_feat.h - a job's -C/--constraint and --prefer on the controller's
 * nodes: refused at submission when it names a feature no node has, and
 * turned into what select.c places with (a per-node filter folded into
 * the excluded nodes, and the matching-OR alternatives and counted terms
 * as struct sel_feat). Nodes match on their active features.
 */
#pragma once
#include <stdbool.h>

struct ctld;
struct sel_feat;

/* 0 (expr NULL or empty too), or -ESLURM_INVALID_FEATURE: a bad
 * expression, or a name that no node has among its available features. */
int job_feat_check(const struct ctld *c, const char *expr);

/* For placing with expr (NULL or empty: nothing, 0): nodes that fail its
 * filter are set in *exc (allocated, c->node_count + 1 flags, when it is
 * NULL and some node fails), and *ret_feat gets the alternatives and
 * counts (one block to free(); NULL when there are none). 0, -ENOMEM, or
 * -ESLURM_INVALID_FEATURE for an expression that does not parse. */
int job_feat_request(const struct ctld *c, const char *expr, bool **exc,
		     struct sel_feat **ret_feat);
