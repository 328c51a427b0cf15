/* assoc_edit.h - sacctmgr's changes to the association table: add,
 * modify, delete of clusters, accounts, users and QOS, with Slurm's
 * messages and refusals. Pure table logic (no RPC, no store): unit-tested
 * on a table built in memory.
 */
#pragma once
#include <stdbool.h>
#include <stdio.h>

struct assoc_mgr_req;
struct assoc_table;

/* Apply req to t. Messages for stdout go to out, refusals to err.
 * Returns 1 when something changed, 0 when nothing did (" Nothing new
 * added."), a negative sl_errno when the request is refused: t may then
 * be half-changed (still consistent), so the caller runs it on a copy
 * first (assoc_edit_checked). cluster: ClusterName. */
int assoc_edit(struct assoc_table *t, const char *cluster, const struct assoc_mgr_req *req,
	       FILE *out, FILE *err);
/* assoc_edit on a copy of t; when that succeeds and is_commit, again on t
 * itself. Same returns; t is unchanged on a refusal. */
int assoc_edit_checked(struct assoc_table *t, const char *cluster, const struct assoc_mgr_req *req,
		       bool is_commit, FILE *out, FILE *err);
