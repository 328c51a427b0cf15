/* job_place.h - a job's request as select/cons_tres sees it, on the
 * controller's nodes: the node array (what each node has and uses), the
 * request (-w/-x, ExclusiveUser, memory), one placement. Shared by the main
 * pass, backfill's snapshot and --test-only.
 */
#pragma once
#include <stdbool.h>

#include "select.h"

struct ctld;
struct job;
struct node;
struct part;

/* Up, registered, not drained/failed/not responding. */
bool job_place_node_usable(const struct node *n);
/* Every node of c with its current use (idle: none); only p's usable nodes
 * are usable (all of p's with idle; none when p is NULL). NULL on ENOMEM;
 * free(). */
struct sel_node *job_place_nodes(const struct ctld *c, const struct part *p, bool idle);
/* job's request on p into *r (reservations' nodes kept from it only with
 * is_resv: backfill plans their windows instead) (r->order is c->node_order: copy it to keep
 * the request beyond this loop turn), with its -w (*ret_req, NULL when none) and
 * -x/ExclusiveUser/-C/reservation filter (*ret_exc, NULL when none;
 * ExclusiveUser and reservations only when !idle) node flags and -C's
 * alternatives and counts (*ret_feat, also
 * r->feat; NULL when none), which the caller frees. 0, -ENOMEM,
 * -ESLURM_INVALID_NODE_NAME or -ESLURM_INVALID_FEATURE. */
int job_place_request(struct ctld *c, const struct job *job, const struct part *p, bool idle,
		      bool is_resv, struct sel_req *r, bool **ret_req, bool **ret_exc,
		      struct sel_feat **ret_feat);
/* Place job on p: 0 with *ret, -EAGAIN (busy), -ENOSPC (never), or a
 * Slurm code for bad -w/-x names. With --prefer (and !idle), its
 * features are tried first, then -C's. A request with no memory asks for every
 * node's whole memory, as Slurm does with --mem=0. */
int job_place(struct ctld *c, const struct job *job, const struct part *p, bool idle,
	      struct sel_result *ret);
/* Whether job would start now on p if no reservation kept nodes from it
 * (why it waits). */
/* After a restart, before its cores are charged again: how a running job
 * was placed (shared cores, whole nodes), from its partition's
 * OverSubscribe= and its options, which the job record does not keep. */
void job_place_restore(const struct ctld *c, struct job *job);

bool job_place_fits_without_resv(struct ctld *c, const struct job *job, const struct part *p);
/* The allocation's nodes as a ranged hostlist; NULL on ENOMEM. */
char *job_place_hostlist(const struct ctld *c, const struct sel_result *res);
