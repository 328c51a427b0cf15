/* job_place.c - see job_place.h.
 *
 * Node usage lives in struct node (cpus_used, mem_used, gpus_used); each
 * placement copies it into a struct sel_node array, so select.c stays a
 * pure function.
 */
#include "job_place.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/conf.h"
#include "common/gres_detect.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld.h"
#include "job.h"
#include "job_feat.h"
#include "job_gpu.h"
#include "node.h"
#include "part.h"
#include "resv_mask.h"

bool job_place_node_usable(const struct node *n)
{
	uint32_t base = n->state & NODE_STATE_BASE;

	if (n->state
	    & (NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND | NODE_STATE_REBOOT_ISSUED))
		return false;
	if (n->epilogs) /* COMPLETING: an Epilog of an earlier job runs there */
		return false;
	return n->is_registered
	       && (base == NODE_STATE_IDLE || base == NODE_STATE_MIXED
		   || base == NODE_STATE_ALLOCATED);
}

/* Node array for select: only p's nodes are usable; idle = usage cleared. */
struct sel_node *job_place_nodes(const struct ctld *c, const struct part *p, bool idle)
{
	struct sel_node *s = calloc(c->node_count + 1, sizeof(*s));

	if (!s)
		return NULL;
	for (uint32_t i = 0; i < c->node_count; i++) {
		const struct node *n = &c->nodes[i];
		const struct conf_node *cfg = n->cfg;

		s[i] = (struct sel_node){
		    .sockets = cfg->sockets,
		    .cores_per_socket = cfg->cores_per_socket,
		    .threads_per_core = cfg->threads_per_core,
		    .cpus = cfg->cpus,
		    .real_memory = cfg->real_memory,
		    .gpus = (uint16_t)gres_count(cfg->gres, "gpu"),
		    .gpu_type_mask = n->gpu_type_mask,
		};
		if (!idle) {
			s[i].cpus_used = n->cpus_used;
			s[i].cpus_shared = n->cpus_shared;
			s[i].mem_used = n->mem_used;
			s[i].gpus_used = n->gpus_used;
			s[i].is_exclusive_used = n->is_exclusive_used;
		}
	}
	for (uint32_t i = 0; p && i < p->node_count; i++) {
		const struct node *n = &c->nodes[p->node_idx[i]];

		s[p->node_idx[i]].is_usable = idle || job_place_node_usable(n);
	}
	return s;
}

static void sel_req_of(const struct job *job, struct sel_req *r, bool *req, bool *exc)
{
	const struct job_desc *d = job->desc;

	*r = (struct sel_req){
	    .min_nodes = job->min_nodes,
	    /* no maximum given: as many nodes as the tasks need */
	    .max_nodes = job->max_nodes
			     ? job->max_nodes
			     : (job->num_tasks > job->min_nodes ? job->num_tasks : job->min_nodes),
	    .num_tasks = job->num_tasks,
	    .cpus_per_task = job->cpus_per_task,
	    .ntasks_per_node = d && d->ntasks_per_node != NO_VAL16 ? d->ntasks_per_node : 0,
	    .mem_per_node = job->mem_per_node,
	    .mem_per_cpu = job->mem_per_cpu,
	    .gpus_per_node = job->gpus_per_node,
	    .gpus_total = job->gpus_total,
	    .min_cpus = d ? d->min_cpus : 0,
	    .ntasks_per_socket = d ? d->ntasks_per_socket : 0,
	    .is_exclusive = d && (d->flags & JOB_DESC_EXCLUSIVE),
	    .is_required = req,
	    .is_excluded = exc,
	};
}

/* -w / -x as per-node flags; -EINVAL when a name is not a node. */
static int node_flags(struct ctld *c, const char *expr, bool *flags)
{
	struct hostlist *hl = NULL;
	int r = 0;

	if (!expr)
		return 0;
	if (hostlist_new(expr, &hl) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	for (size_t i = 0; i < hostlist_count(hl) && r == 0; i++) {
		struct node *n = node_find(c, hostlist_nth(hl, i));

		if (!n)
			r = -ESLURM_INVALID_NODE_NAME;
		else
			flags[n - c->nodes] = true;
	}
	hostlist_free(hl);
	return r;
}

/* ExclusiveUser=YES: a job of such a partition gets no node that runs
 * another user's job, and a node that runs a job of such a partition
 * takes no other user's job (whatever its partition). --exclusive=user
 * does the same for one job. */
static bool is_excl_user_job(const struct job *job)
{
	return job->desc && (job->desc->flags & JOB_DESC_EXCLUSIVE_USER);
}

static bool any_exclusive_user(const struct ctld *c, const struct job *job)
{
	if (c->excl_user_jobs || is_excl_user_job(job))
		return true;
	for (uint32_t i = 0; i < c->part_count; i++)
		if (c->parts[i].cfg->exclusive_user)
			return true;
	return false;
}

static void exclude_other_users(const struct ctld *c, const struct job *job, const struct part *p,
				bool *exc)
{
	bool is_excl = p->cfg->exclusive_user || is_excl_user_job(job), is_any = is_excl;

	for (uint32_t i = 0; c->excl_user_jobs && i < c->node_count; i++)
		if (c->nodes[i].excl_user_jobs && c->nodes[i].excl_user_uid != job->uid)
			exc[i] = true; /* held by another user's --exclusive=user job */
	for (uint32_t i = 0; i < c->part_count && !is_any; i++)
		is_any = c->parts[i].cfg->exclusive_user;
	for (uint32_t i = 0; is_any && i < c->job_count; i++) {
		const struct job *o = c->jobs[i];
		const struct part *op;

		if (o == job || o->uid == job->uid || !job_is_running(o))
			continue;
		op = is_excl ? NULL : part_find(c, o->partition);
		if (!is_excl && !(op && op->cfg->exclusive_user))
			continue;
		for (uint32_t k = 0; k < o->alloc.count; k++)
			exc[o->alloc.nodes[k].node] = true;
	}
}

/* --tmp, --sockets-per-node, --cores-per-socket (-B): nodes with less are
 * excluded (*exc allocated when needed). */
static int exclude_by_hardware(const struct ctld *c, const struct job_desc *d, bool **exc)
{
	if (!d || (!d->tmp_mb && !d->sockets_per_node && !d->cores_per_socket))
		return 0;
	for (uint32_t i = 0; i < c->node_count; i++) {
		const struct conf_node *cfg = c->nodes[i].cfg;

		if (cfg->tmp_disk >= d->tmp_mb && cfg->sockets >= d->sockets_per_node
		    && cfg->cores_per_socket >= d->cores_per_socket)
			continue;
		if (!*exc && !(*exc = calloc(c->node_count + 1, sizeof(bool))))
			return -ENOMEM;
		(*exc)[i] = true;
	}
	return 0;
}

/* Partition OverSubscribe= with the job's --exclusive / -s: EXCLUSIVE
 * gives whole nodes; YES[:N] lets a job that asked (-s) share each core
 * with up to N jobs, FORCE[:N] every job that is not --exclusive; N
 * defaults to 4, as in Slurm. */
static void part_share(const struct part *p, const struct job_desc *d, struct sel_req *r)
{
	const char *os = p ? p->cfg->over_subscribe : NULL;
	const char *colon = os ? strchr(os, ':') : NULL;
	unsigned long n = colon ? strtoul(colon + 1, NULL, 10) : 4;

	if (!os)
		return;
	if (!strncasecmp(os, "EXCLUSIVE", 9)) {
		r->is_exclusive = true;
		return;
	}
	if (r->is_exclusive || n < 2)
		return;
	if (!strncasecmp(os, "FORCE", 5)
	    || (!strncasecmp(os, "YES", 3) && d && (d->flags & JOB_DESC_OVERSUBSCRIBE)))
		r->share = (uint16_t)(n < UINT16_MAX ? n : UINT16_MAX);
}

/* The GPU options beyond per node and per job; a type no node has any
 * more (a reconfigure dropped it) excludes every node. */
static int gpu_req(struct ctld *c, const struct part *p, const struct job_desc *d,
		   struct sel_req *r, bool **exc)
{
	struct job_gpu g;
	int type;

	if (!d || job_gpu_parse(d, &g) < 0)
		return 0; /* checked at submit */
	job_gpu_defaults(c->conf, p ? p->cfg : NULL, d, &g);
	r->gpus_per_task = g.per_task;
	r->ntasks_per_gpu = g.ntasks_per_gpu;
	r->cpus_per_gpu = g.cpus_per_gpu;
	r->mem_per_gpu = g.mem_per_gpu;
	if (g.per_task && g.cpus_per_gpu && r->cpus_per_task < g.per_task * g.cpus_per_gpu)
		r->cpus_per_task = (uint16_t)(g.per_task * g.cpus_per_gpu);
	type = job_gpu_type_id(c, g.type);
	if (type >= 0) {
		r->gpu_type = (uint8_t)type;
		return 0;
	}
	if (!*exc && !(*exc = calloc(c->node_count + 1, sizeof(bool))))
		return -ENOMEM;
	memset(*exc, 1, c->node_count * sizeof(bool));
	return 0;
}

/* job_place_request() with the constraint expr (the job's -C, or its
 * --prefer). */
static int request_with(struct ctld *c, const struct job *job, const struct part *p, bool idle,
			bool is_resv, const char *expr, struct sel_req *r, bool **ret_req,
			bool **ret_exc, struct sel_feat **ret_feat)
{
	const struct job_desc *d = job->desc;
	bool *req = NULL, *exc = NULL;
	struct sel_feat *feat = NULL;
	int rc = -ENOMEM;

	*ret_req = *ret_exc = NULL;
	*ret_feat = NULL;
	if (d && d->req_nodes && !(req = calloc(c->node_count + 1, sizeof(bool))))
		goto fail;
	if ((d && d->exc_nodes) || (!idle && any_exclusive_user(c, job)))
		if (!(exc = calloc(c->node_count + 1, sizeof(bool))))
			goto fail;
	rc = node_flags(c, d ? d->req_nodes : NULL, req);
	if (rc == 0)
		rc = node_flags(c, d ? d->exc_nodes : NULL, exc);
	if (rc == 0)
		rc = job_feat_request(c, expr, &exc, &feat);
	if (rc == 0)
		rc = exclude_by_hardware(c, d, &exc);
	if (rc == 0 && !idle && is_resv && c->resv_count) /* idle: could it ever run */
		rc = resv_mask_exclude(c, job, time(NULL), &exc, NULL);
	if (rc < 0)
		goto fail;
	if (exc && !idle)
		exclude_other_users(c, job, p, exc);
	sel_req_of(job, r, req, exc);
	rc = gpu_req(c, p, d, r, &exc);
	if (rc < 0)
		goto fail;
	r->is_excluded = exc;
	part_share(p, d, r);
	r->feat = feat;
	r->order = c->node_order; /* Weight, then config order (node.c) */
	if (!r->mem_per_node && !r->mem_per_cpu && !r->mem_per_gpu)
		r->is_whole_memory = true;
	*ret_req = req;
	*ret_exc = exc;
	*ret_feat = feat;
	return 0;
fail:
	free(req);
	free(exc);
	free(feat);
	return rc;
}

int job_place_request(struct ctld *c, const struct job *job, const struct part *p, bool idle,
		      bool is_resv, struct sel_req *r, bool **ret_req, bool **ret_exc,
		      struct sel_feat **ret_feat)
{
	return request_with(c, job, p, idle, is_resv, job->desc ? job->desc->features : NULL, r,
			    ret_req, ret_exc, ret_feat);
}

static int place_with(struct ctld *c, const struct job *job, const struct part *p, bool idle,
		      bool is_resv, const char *expr, bool is_try, struct sel_result *ret)
{
	_cleanup_free_ bool *req = NULL;
	_cleanup_free_ bool *exc = NULL;
	_cleanup_free_ struct sel_feat *feat = NULL;
	_cleanup_free_ struct sel_node *nodes = job_place_nodes(c, p, idle);
	struct sel_req r;
	int rc;

	if (!nodes)
		return -ENOMEM;
	rc = request_with(c, job, p, idle, is_resv, expr, &r, &req, &exc, &feat);
	if (rc < 0)
		return rc;
	return is_try ? select_try(nodes, c->node_count, &r, ret)
		      : select_place(nodes, c->node_count, &r, ret);
}

int job_place(struct ctld *c, const struct job *job, const struct part *p, bool idle,
	      struct sel_result *ret)
{
	const struct job_desc *d = job->desc;

	/* --prefer: its features when they can be had now, else -C's */
	if (!idle && d && d->prefer && *d->prefer
	    && place_with(c, job, p, idle, true, d->prefer, true, ret) == 0)
		return 0;
	return place_with(c, job, p, idle, true, d ? d->features : NULL, false, ret);
}

void job_place_restore(const struct ctld *c, struct job *job)
{
	const struct job_desc *d = job->desc;
	struct sel_req r = {.is_exclusive = d && (d->flags & JOB_DESC_EXCLUSIVE)};

	part_share(part_find(c, job->partition), d, &r);
	job->alloc.share = r.is_exclusive ? 0 : r.share;
	job->alloc.is_exclusive = r.is_exclusive;
}

bool job_place_fits_without_resv(struct ctld *c, const struct job *job, const struct part *p)
{
	struct sel_result res = {0};
	int r = place_with(c, job, p, false, false, job->desc ? job->desc->features : NULL, true,
			   &res);

	sel_result_done(&res);
	return r == 0;
}

char *job_place_hostlist(const struct ctld *c, const struct sel_result *res)
{
	struct hostlist *hl = NULL;
	char *s;

	if (hostlist_new(NULL, &hl) < 0)
		return NULL;
	for (uint32_t i = 0; i < res->count; i++)
		hostlist_push_host(hl, node_name(&c->nodes[res->nodes[i].node]));
	s = hostlist_ranged_string(hl);
	hostlist_free(hl);
	return s;
}
