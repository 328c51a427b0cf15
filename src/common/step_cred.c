/* step_cred.c - see step_cred.h. */
#include "step_cred.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "auth_munge.h"
#include "hostlist.h"
#include "limits.h"
#include "macros.h"
#include "msg.h"
#include "pack.h"
#include "sl_errno.h"

#define RUN_MIN_BYTES 24 /* count, tasks, cpus, mem, gpus length */

static bool same_str(const char *a, const char *b)
{
	return streq(a ? a : "", b ? b : "");
}

static bool same_grant(const struct step_node *a, const struct step_node *b)
{
	return a->tasks == b->tasks && a->cpus == b->cpus && a->mem == b->mem
	       && same_str(a->gpus, b->gpus);
}

int step_cred_from_resp(const struct step_create_resp *r, uint64_t ctime_us, struct step_cred *ret)
{
	struct step_cred c = {
	    .job_id = r->job_id,
	    .step_id = r->step_id,
	    .uid = r->uid,
	    .gid = r->gid,
	    .ctime_us = ctime_us,
	    .expire = (time_t)(ctime_us / 1000000) + STEP_CRED_EXPIRE_S,
	    .num_tasks = r->num_tasks,
	};

	*ret = (struct step_cred){0};
	c.step_nodes = strdup(r->step_nodes ? r->step_nodes : "");
	if (r->node_count)
		c.runs = calloc(r->node_count, sizeof(*c.runs));
	if (!c.step_nodes || (r->node_count && !c.runs)) {
		step_cred_done(&c);
		return -ENOMEM;
	}
	if (r->map.nblocks) {
		c.map.blocks = calloc(r->map.nblocks, sizeof(*c.map.blocks));
		if (!c.map.blocks) {
			step_cred_done(&c);
			return -ENOMEM;
		}
		memcpy(c.map.blocks, r->map.blocks, r->map.nblocks * sizeof(*c.map.blocks));
		c.map.nblocks = r->map.nblocks;
	}
	for (uint32_t i = 0; i < r->node_count; i++) {
		const struct step_node *n = &r->nodes[i];
		struct step_cred_run *run;

		if (i > 0 && same_grant(n, &r->nodes[i - 1])) {
			c.runs[c.run_count - 1].count++;
			continue;
		}
		run = &c.runs[c.run_count++];
		*run = (struct step_cred_run){
		    .count = 1, .tasks = n->tasks, .cpus = n->cpus, .mem = n->mem};
		if (n->gpus && *n->gpus && !(run->gpus = strdup(n->gpus))) {
			step_cred_done(&c);
			return -ENOMEM;
		}
	}
	*ret = c;
	return 0;
}

void step_cred_done(struct step_cred *c)
{
	free(c->step_nodes);
	for (uint32_t i = 0; c->runs && i < c->run_count; i++)
		free(c->runs[i].gpus);
	free(c->runs);
	task_map_done(&c->map);
	*c = (struct step_cred){0};
}

void step_cred_pack(const struct step_cred *c, struct pack_buf *b)
{
	pack_u16(b, STEP_CRED_VERSION);
	pack_u32(b, c->job_id);
	pack_u32(b, c->step_id);
	pack_u32(b, c->uid);
	pack_u32(b, c->gid);
	pack_u64(b, c->ctime_us);
	pack_time(b, c->expire);
	pack_str(b, c->step_nodes);
	pack_u32(b, c->num_tasks);
	pack_u32(b, c->run_count);
	for (uint32_t i = 0; i < c->run_count; i++) {
		pack_u32(b, c->runs[i].count);
		pack_u32(b, c->runs[i].tasks);
		pack_u32(b, c->runs[i].cpus);
		pack_u64(b, c->runs[i].mem);
		pack_str(b, c->runs[i].gpus);
	}
	task_map_pack(&c->map, b);
}

static int unpack_runs(struct pack_buf *b, struct step_cred *c)
{
	uint32_t n;

	unpack_count(b, &n, SL_ARRAY_MAX, RUN_MIN_BYTES);
	if (b->err || n == 0)
		return b->err ? b->err : -EINVAL;
	c->runs = calloc(n, sizeof(*c->runs));
	if (!c->runs)
		return -ENOMEM;
	c->run_count = n;
	for (uint32_t i = 0; i < n && !b->err; i++) {
		unpack_u32(b, &c->runs[i].count);
		unpack_u32(b, &c->runs[i].tasks);
		unpack_u32(b, &c->runs[i].cpus);
		unpack_u64(b, &c->runs[i].mem);
		unpack_str(b, &c->runs[i].gpus, SL_STR_MAX);
	}
	return b->err;
}

int step_cred_unpack(const void *data, size_t len, struct step_cred *ret)
{
	struct pack_buf b = pack_buf_view(data, len);
	struct step_cred c = {0};
	uint16_t version = 0;

	*ret = c;
	unpack_u16(&b, &version);
	if (b.err || version != STEP_CRED_VERSION)
		return -ESLURMD_INVALID_JOB_CREDENTIAL;
	unpack_u32(&b, &c.job_id);
	unpack_u32(&b, &c.step_id);
	unpack_u32(&b, &c.uid);
	unpack_u32(&b, &c.gid);
	unpack_u64(&b, &c.ctime_us);
	unpack_time(&b, &c.expire);
	unpack_str(&b, &c.step_nodes, SL_STR_MAX);
	unpack_u32(&b, &c.num_tasks);
	if (!b.err && unpack_runs(&b, &c) == 0)
		task_map_unpack(&b, &c.map);
	if (b.err || !c.step_nodes || !c.map.nblocks || pack_remaining(&b)) {
		step_cred_done(&c);
		return -ESLURMD_INVALID_JOB_CREDENTIAL;
	}
	*ret = c;
	return 0;
}

int step_cred_create(const char *munge_socket, const struct step_cred *c, char **ret)
{
	_cleanup_(pack_buf_done) struct pack_buf b = {0};
	munge_err_t e;

	*ret = NULL;
	step_cred_pack(c, &b);
	if (b.err)
		return b.err;
	if (b.len > STEP_CRED_PAYLOAD_MAX)
		return -ESLURM_INVALID_JOB_CREDENTIAL;
	e = auth_munge_encode(munge_socket, b.data, (int)b.len, ret, NULL);
	if (e == EMUNGE_SUCCESS)
		return 0;
	return auth_munge_cause(e).code;
}

int step_cred_decode(const char *munge_socket, const char *cred, uid_t slurm_uid,
		     struct step_cred *ret)
{
	void *payload = NULL;
	int len = 0, r = -ESLURMD_INVALID_JOB_CREDENTIAL;
	uid_t cred_uid = (uid_t)-1;
	gid_t cred_gid;
	munge_err_t e;

	*ret = (struct step_cred){0};
	if (!cred || !*cred)
		return r;
	e = auth_munge_decode(munge_socket, cred, &payload, &len, &cred_uid, &cred_gid, NULL);
	/* A step on several nodes of one munged decodes the same credential
	 * once per node: munged calls that a replay, but it is still ours
	 * (cred_state refuses a second launch on one node). */
	if (e == EMUNGE_CRED_EXPIRED)
		r = -ESLURMD_CREDENTIAL_EXPIRED;
	else if (auth_munge_cause(e).is_local)
		r = auth_munge_cause(e).code; /* our munged failed, not the credential */
	if ((e == EMUNGE_SUCCESS || e == EMUNGE_CRED_REPLAYED) && payload && len > 0
	    && (cred_uid == 0 || cred_uid == slurm_uid))
		r = step_cred_unpack(payload, (size_t)len, ret);
	free(payload);
	return r;
}

/* The run of node index idx. */
static const struct step_cred_run *run_of(const struct step_cred *c, uint32_t idx)
{
	uint64_t nodes = 0;

	for (uint32_t i = 0; i < c->run_count; i++) {
		nodes += c->runs[i].count;
		if (idx < nodes)
			return &c->runs[i];
	}
	return NULL;
}

static uint64_t cred_node_count(const struct step_cred *c)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < c->run_count; i++)
		n += c->runs[i].count;
	return n;
}

/* This node's index in the credential's nodes: 0.., or -1 (not there or a
 * credential whose runs do not cover its hostlist). */
static long node_index(const struct step_cred *c, const char *node)
{
	struct hostlist *hl = NULL;
	long idx = -1;

	if (hostlist_new(c->step_nodes, &hl) < 0)
		return -1;
	if (hostlist_count(hl) == cred_node_count(c))
		idx = hostlist_find(hl, node);
	hostlist_free(hl);
	return idx;
}

/* Are gtids[0..n) exactly the ids the credential's map gives node idx,
 * in ascending order? */
static bool tasks_match(const struct step_cred *c, uint32_t idx, const uint32_t *gtids,
			uint32_t n)
{
	uint64_t nodes = cred_node_count(c);
	_cleanup_free_ uint32_t *node_of = NULL;
	uint32_t k = 0;

	if (nodes > UINT32_MAX || !c->num_tasks || c->num_tasks > TASK_MAP_TASKS_MAX)
		return false;
	node_of = calloc(c->num_tasks, sizeof(*node_of));
	if (!node_of || task_map_expand(&c->map, (uint32_t)nodes, c->num_tasks, node_of) < 0)
		return false;
	for (uint32_t t = 0; t < c->num_tasks; t++)
		if (node_of[t] == idx && (k >= n || gtids[k++] != t))
			return false;
	return k == n;
}

static const char *launch_mismatch(const struct step_cred *c, const struct launch_tasks_msg *m,
				   const char *node)
{
	const struct step_cred_run *run;
	long idx;

	if (m->job_id != c->job_id || m->step_id != c->step_id)
		return "job or step";
	if (m->uid != c->uid || m->gid != c->gid)
		return "user or group";
	idx = node_index(c, node);
	if (idx < 0)
		return "node not in the step";
	if (!same_str(m->step_nodes, c->step_nodes) || m->num_nodes != cred_node_count(c)
	    || m->node_id != (uint32_t)idx)
		return "step nodes";
	run = run_of(c, (uint32_t)idx);
	if (!run || m->num_tasks != c->num_tasks || m->ntasks_here != run->tasks
	    || (m->ntasks_here && !m->gtids))
		return "task count";
	if (!task_map_equal(&m->map, &c->map))
		return "task map";
	if (!tasks_match(c, (uint32_t)idx, m->gtids, m->ntasks_here))
		return "task ids";
	if (m->cpus_on_node != run->cpus)
		return "cpus";
	if (m->mem_limit != run->mem)
		return "memory limit";
	if (!same_str(m->gpus, run->gpus))
		return "GPUs";
	return NULL;
}

int step_cred_check_launch(const struct step_cred *c, const struct launch_tasks_msg *m,
			   const char *node, time_t now, const char **why)
{
	*why = launch_mismatch(c, m, node ? node : "");
	if (*why)
		return -ESLURMD_INVALID_JOB_CREDENTIAL;
	if (now > c->expire) {
		*why = "expired";
		return -ESLURMD_CREDENTIAL_EXPIRED;
	}
	return 0;
}
