/* job_state.c - pack/unpack of the controller's durable records; see
 * job_state.h.
 *
 * The job body is a straight list of fields in groups; each pack_* group
 * is mirrored line for line by its unpack_* twin below it (docs/style.md R15).
 * Unpack builds into a zeroed job whose pointers are set before anything
 * can fail, so job_free() cleans up any partial result.
 * Caveat: every field of struct job must appear here; test_job_state
 * checks sizeof(struct job) to catch a field added without a line.
 */
#include "job_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/limits.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/msg_family.h"
#include "common/pack.h"
#include "blob_store.h"
#include "job.h"
#include "step.h"

/* Smallest packed sel_alloc: index, empty name (u32 0), cpus, tasks, mem, gpus. */
#define ALLOC_NODE_MIN_LEN (4 + 4 + 2 + 2 + 8 + 8)
/* Smallest packed step_node_rec: index, empty name, tasks, cpus, mem, gpus, is_done. */
#define STEP_NODE_MIN_LEN (4 + 4 + 4 + 2 + 8 + 8 + 1)
/* Smallest packed acct_usage: six u64, three u32. */
#define USAGE_LEN (6 * 8 + 3 * 4)
/* Smallest packed step: every string empty, no node records. */
#define STEP_MIN_LEN                                                                               \
	(4 + 4 + 4 + 4 + 4 + 4 + 4 + 4 + 2 + 2 + 1 + 4 + 8 + 8 + 4 + 4 + USAGE_LEN + 4 + 4 + 4 + 1 \
	 + 1 + 1 + 4 + 2 + 4 + 8)

static void set_err(struct pack_buf *b, int r)
{
	if (!b->err)
		b->err = r;
}

int job_state_rec_type(const uint8_t *data, size_t len)
{
	return data && len ? data[0] : -EBADMSG;
}

static void pack_header(struct pack_buf *b, enum journal_rec_type type, uint16_t ver)
{
	pack_u8(b, (uint8_t)type);
	pack_u16(b, ver);
}

static uint16_t unpack_header(struct pack_buf *b, enum journal_rec_type type, uint16_t max_ver)
{
	uint8_t t;
	uint16_t ver;

	unpack_u8(b, &t);
	unpack_u16(b, &ver);
	if (!b->err && (t != type || ver == 0))
		b->err = -EBADMSG;
	if (!b->err && ver > max_ver)
		b->err = -EPROTONOSUPPORT;
	return ver;
}

/* A whole record and nothing after it. */
static int unpack_end(struct pack_buf *b)
{
	if (!b->err && pack_remaining(b))
		b->err = -EBADMSG;
	return b->err;
}

static void pack_ids(const struct job *job, struct pack_buf *b)
{
	pack_u32(b, job->job_id);
	pack_u32(b, (uint32_t)job->uid);
	pack_u32(b, (uint32_t)job->gid);
	pack_str(b, job->user_name);
	if (job->ngids && !job->gids)
		set_err(b, -EINVAL);
	pack_u32(b, job->ngids);
	for (uint32_t i = 0; i < job->ngids && !b->err; i++)
		pack_u32(b, job->gids[i]);
}

static void unpack_ids(struct job *job, struct pack_buf *b)
{
	uint32_t uid, gid, n;

	unpack_u32(b, &job->job_id);
	unpack_u32(b, &uid);
	unpack_u32(b, &gid);
	job->uid = (uid_t)uid;
	job->gid = (gid_t)gid;
	unpack_str(b, &job->user_name, SL_NAME_MAX);
	unpack_count(b, &n, SL_ARRAY_MAX, 4);
	if (b->err || !n)
		return;
	job->gids = calloc(n, sizeof(*job->gids));
	if (!job->gids) {
		set_err(b, -ENOMEM);
		return;
	}
	job->ngids = n;
	for (uint32_t i = 0; i < n; i++)
		unpack_u32(b, &job->gids[i]);
}

static void pack_request(const struct job *job, struct pack_buf *b)
{
	pack_u32(b, job->state);
	pack_u16(b, (uint16_t)job->reason);
	pack_str(b, job->state_desc);
	pack_u32(b, job->priority);
	pack_bool(b, job->is_user_hold);
	pack_str(b, job->partition);
	pack_u32(b, job->time_limit);
	pack_u32(b, job->min_nodes);
	pack_u32(b, job->max_nodes);
	pack_u32(b, job->num_tasks);
	pack_u16(b, job->cpus_per_task);
	pack_u64(b, job->mem_per_cpu);
	pack_u64(b, job->mem_per_node);
	pack_u16(b, job->gpus_per_node);
	pack_u32(b, job->gpus_total);
	pack_time(b, job->submit_time);
	pack_time(b, job->eligible_time);
	pack_time(b, job->start_time);
	pack_time(b, job->end_time);
	pack_time(b, job->last_sched_eval);
	pack_u32(b, job->next_step_id);
}

static void unpack_request(struct job *job, struct pack_buf *b)
{
	uint16_t reason;

	unpack_u32(b, &job->state);
	unpack_u16(b, &reason);
	job->reason = (enum job_state_reason)reason;
	if (!b->err && reason >= _JOB_REASON_MAX)
		b->err = -EBADMSG;
	unpack_str(b, &job->state_desc, SL_STR_MAX);
	unpack_u32(b, &job->priority);
	unpack_bool(b, &job->is_user_hold);
	unpack_str(b, &job->partition, SL_NAME_MAX);
	unpack_u32(b, &job->time_limit);
	unpack_u32(b, &job->min_nodes);
	unpack_u32(b, &job->max_nodes);
	unpack_u32(b, &job->num_tasks);
	unpack_u16(b, &job->cpus_per_task);
	unpack_u64(b, &job->mem_per_cpu);
	unpack_u64(b, &job->mem_per_node);
	unpack_u16(b, &job->gpus_per_node);
	unpack_u32(b, &job->gpus_total);
	unpack_time(b, &job->submit_time);
	unpack_time(b, &job->eligible_time);
	unpack_time(b, &job->start_time);
	unpack_time(b, &job->end_time);
	unpack_time(b, &job->last_sched_eval);
	unpack_u32(b, &job->next_step_id);
}

static void pack_alloc(const struct sel_result *a, job_state_node_name_fn *name_fn, void *arg,
		       struct pack_buf *b)
{
	if (a->count && (!a->nodes || !name_fn))
		set_err(b, -EINVAL);
	pack_u32(b, a->count);
	pack_u32(b, a->total_cpus);
	for (uint32_t i = 0; i < a->count && !b->err; i++) {
		const struct sel_alloc *n = &a->nodes[i];
		const char *name = name_fn(arg, n->node);

		if (!name)
			set_err(b, -ENOENT);
		pack_u32(b, n->node);
		pack_str(b, name);
		pack_u16(b, n->cpus);
		pack_u16(b, n->tasks);
		pack_u64(b, n->mem);
		pack_u64(b, n->gpus);
	}
}

static int alloc_cmp(const void *x, const void *y)
{
	const struct sel_alloc *a = x, *c = y;

	return a->node < c->node ? -1 : a->node > c->node;
}

/* After names were mapped to today's indexes: ascending, no duplicates. */
static void alloc_resort(struct sel_result *a, struct pack_buf *b)
{
	if (b->err || a->count < 2)
		return;
	qsort(a->nodes, a->count, sizeof(*a->nodes), alloc_cmp);
	for (uint32_t i = 1; i < a->count; i++)
		if (a->nodes[i].node == a->nodes[i - 1].node)
			set_err(b, -EBADMSG);
}

static void unpack_alloc(struct sel_result *a, job_state_node_index_fn *index_fn, void *arg,
			 struct pack_buf *b)
{
	uint32_t n;

	unpack_count(b, &n, SL_ARRAY_MAX, ALLOC_NODE_MIN_LEN);
	unpack_u32(b, &a->total_cpus);
	if (b->err || !n)
		return;
	a->nodes = calloc(n, sizeof(*a->nodes));
	if (!a->nodes) {
		set_err(b, -ENOMEM);
		return;
	}
	a->count = n;
	for (uint32_t i = 0; i < n && !b->err; i++) {
		struct sel_alloc *an = &a->nodes[i];
		char *name = NULL;

		unpack_u32(b, &an->node);
		unpack_str(b, &name, SL_NAME_MAX);
		unpack_u16(b, &an->cpus);
		unpack_u16(b, &an->tasks);
		unpack_u64(b, &an->mem);
		unpack_u64(b, &an->gpus);
		if (!b->err && !name)
			b->err = -EBADMSG;
		if (!b->err && index_fn) {
			int r = index_fn(arg, name, &an->node);

			if (r < 0)
				b->err = r;
		}
		free(name);
	}
	if (index_fn)
		alloc_resort(a, b);
}

static void pack_run(const struct job *job, struct pack_buf *b)
{
	pack_str(b, job->nodes);
	pack_str(b, job->batch_host);
	pack_u32(b, job->exit_code);
	pack_u16(b, job->restart_cnt);
	pack_bool(b, job->is_cancelled);
	pack_bool(b, job->is_timed_out);
	pack_u32(b, (uint32_t)job->cancelled_by);
	pack_bool(b, job->is_requeued);
	pack_bool(b, job->is_requeue_hold);
	pack_bool(b, job->is_warned);
	pack_u32(b, job->array_job_id);
	pack_u32(b, job->array_task_id);
	pack_u32(b, job->array_throttle);
	pack_u32(b, job->array_pending_count);
	for (uint32_t i = 0; i < job->array_pending_count; i++)
		pack_u32(b, job->array_pending[i]);
}

static void unpack_run(struct job *job, struct pack_buf *b)
{
	uint32_t by, n;

	unpack_str(b, &job->nodes, SL_STR_MAX);
	unpack_str(b, &job->batch_host, SL_NAME_MAX);
	unpack_u32(b, &job->exit_code);
	unpack_u16(b, &job->restart_cnt);
	unpack_bool(b, &job->is_cancelled);
	unpack_bool(b, &job->is_timed_out);
	unpack_u32(b, &by);
	job->cancelled_by = (uid_t)by;
	unpack_bool(b, &job->is_requeued);
	unpack_bool(b, &job->is_requeue_hold);
	unpack_bool(b, &job->is_warned);
	unpack_u32(b, &job->array_job_id);
	unpack_u32(b, &job->array_task_id);
	unpack_u32(b, &job->array_throttle);
	unpack_count(b, &n, SL_ARRAY_MAX, 4);
	if (b->err || !n)
		return;
	job->array_pending = calloc(n, sizeof(*job->array_pending));
	if (!job->array_pending) {
		set_err(b, -ENOMEM);
		return;
	}
	job->array_pending_count = n;
	for (uint32_t i = 0; i < n; i++)
		unpack_u32(b, &job->array_pending[i]);
}

/* The request as submitted, after a tag for its layout: PROTOCOL_VERSION
 * for records written before job_desc had features, prefer, licenses and
 * reservation, DESC_TAG_2 before it had the GPU options, DESC_TAG_3
 * before --ntasks-per-socket, DESC_TAG_4 since. */
#define DESC_TAG_2 ((uint16_t)(PROTOCOL_VERSION | 1))
#define DESC_TAG_3 ((uint16_t)(PROTOCOL_VERSION | 2))
#define DESC_TAG_4 ((uint16_t)(PROTOCOL_VERSION | 3))
static void pack_desc(const struct job_desc *desc, struct pack_buf *b)
{
	pack_bool(b, desc != NULL);
	if (!desc)
		return;
	pack_u16(b, DESC_TAG_4);
	job_desc_pack(desc, b, PROTOCOL_VERSION);
}

static void unpack_desc(struct job_desc **ret, struct pack_buf *b)
{
	bool has_desc;
	uint16_t ver;

	unpack_bool(b, &has_desc);
	if (b->err || !has_desc)
		return;
	unpack_u16(b, &ver);
	if (!b->err && ver != PROTOCOL_VERSION && ver != DESC_TAG_2 && ver != DESC_TAG_3
	    && ver != DESC_TAG_4)
		b->err = -EPROTONOSUPPORT;
	if (b->err)
		return;
	*ret = calloc(1, sizeof(**ret));
	if (!*ret) {
		set_err(b, -ENOMEM);
		return;
	}
	/* the tag PROTOCOL_VERSION: written before the layout-2 fields */
	(void)job_desc_unpack(*ret, b,
			      ver == DESC_TAG_4	  ? PROTOCOL_VERSION
			      : ver == DESC_TAG_3 ? JOB_DESC_LAYOUT_3
			      : ver == DESC_TAG_2 ? JOB_DESC_LAYOUT_2
						  : JOB_DESC_LAYOUT_1);
}

/* ---- steps (version 2) ---- */

static void pack_step_nodes(const struct step *s, job_state_node_name_fn *name_fn, void *arg,
			    struct pack_buf *b)
{
	if (s->node_count && (!s->nodes || !name_fn))
		set_err(b, -EINVAL);
	pack_u32(b, s->node_count);
	for (uint32_t i = 0; i < s->node_count && !b->err; i++) {
		const struct step_node_rec *n = &s->nodes[i];
		const char *name = name_fn(arg, n->node);

		if (!name)
			set_err(b, -ENOENT);
		pack_u32(b, n->node);
		pack_str(b, name);
		pack_u32(b, n->tasks);
		pack_u16(b, n->cpus);
		pack_u64(b, n->mem);
		pack_u64(b, n->gpus);
		pack_bool(b, n->is_done);
	}
}

/* job_node: each node's place in the job's (re-sorted) allocation. A
 * running step must lie within it, once per node; a finished step's nodes
 * may not (a requeued job ran elsewhere): NO_VAL, never read (step.h). */
static void step_nodes_locate(struct step_node_rec *v, uint32_t n, bool is_running,
			      const struct sel_result *a, struct pack_buf *b)
{
	_cleanup_free_ bool *seen = calloc(a->count ? a->count : 1, sizeof(*seen));

	if (!seen) {
		set_err(b, -ENOMEM);
		return;
	}
	for (uint32_t i = 0; i < n && !b->err; i++) {
		uint32_t k = 0;

		while (k < a->count && a->nodes[k].node != v[i].node)
			k++;
		if (k == a->count) {
			v[i].job_node = NO_VAL;
			if (is_running)
				b->err = -EBADMSG;
			continue;
		}
		if (seen[k])
			b->err = -EBADMSG;
		seen[k] = true;
		v[i].job_node = k;
	}
}

/* A node gone from the slurm.conf: a finished step is kept without its
 * node records (nodes_str still names them); a running one is refused
 * with index_fn's -ENOENT, as the allocation is. */
static void unpack_step_nodes(struct step *s, const struct sel_result *a,
			      job_state_node_index_fn *index_fn, void *arg, struct pack_buf *b)
{
	bool is_gone = false;
	uint32_t n;

	unpack_count(b, &n, SL_ARRAY_MAX, STEP_NODE_MIN_LEN);
	if (b->err || !n)
		return;
	s->nodes = calloc(n, sizeof(*s->nodes));
	if (!s->nodes) {
		set_err(b, -ENOMEM);
		return;
	}
	s->node_count = n;
	for (uint32_t i = 0; i < n && !b->err; i++) {
		struct step_node_rec *sn = &s->nodes[i];
		char *name = NULL;

		unpack_u32(b, &sn->node);
		unpack_str(b, &name, SL_NAME_MAX);
		unpack_u32(b, &sn->tasks);
		unpack_u16(b, &sn->cpus);
		unpack_u64(b, &sn->mem);
		unpack_u64(b, &sn->gpus);
		unpack_bool(b, &sn->is_done);
		if (!b->err && !name)
			b->err = -EBADMSG;
		if (!b->err && index_fn) {
			int r = index_fn(arg, name, &sn->node);

			if (r == -ENOENT && !step_is_running(s))
				is_gone = true;
			else if (r < 0)
				b->err = r;
		}
		free(name);
	}
	if (b->err)
		return;
	if (is_gone) {
		free(s->nodes);
		s->nodes = NULL;
		s->node_count = 0;
		return;
	}
	step_nodes_locate(s->nodes, n, step_is_running(s), a, b);
}

static void pack_step(const struct step *s, job_state_node_name_fn *name_fn, void *arg,
		      struct pack_buf *b)
{
	pack_u32(b, s->step_id);
	pack_str(b, s->name);
	pack_str(b, s->command);
	pack_u32(b, s->state);
	pack_step_nodes(s, name_fn, arg, b);
	pack_str(b, s->nodes_str);
	pack_u32(b, s->num_tasks);
	pack_u32(b, s->num_cpus);
	pack_u16(b, s->cpus_per_task);
	pack_u16(b, s->flags);
	pack_bool(b, s->is_gpus_held);
	pack_u32(b, s->time_limit);
	pack_time(b, s->start_time);
	pack_time(b, s->end_time);
	pack_u32(b, s->exit_code);
	pack_u32(b, s->nodes_done);
	acct_usage_pack(&s->usage, b);
	pack_str(b, s->max_rss_node);
	pack_str(b, s->max_vm_node);
	pack_u32(b, s->kill_requid);
	pack_bool(b, s->is_oom);
	pack_bool(b, s->is_cancelled);
	pack_bool(b, s->is_timed_out);
	pack_str(b, s->srun_host);
	pack_u16(b, s->srun_port);
	pack_u32(b, s->srun_pid);
	pack_time(b, s->last_srun_ping);
}

static void unpack_step(struct step *s, const struct sel_result *a,
			job_state_node_index_fn *index_fn, void *arg, struct pack_buf *b)
{
	unpack_u32(b, &s->step_id);
	unpack_str(b, &s->name, SL_NAME_MAX);
	unpack_str(b, &s->command, SL_STR_MAX);
	unpack_u32(b, &s->state);
	unpack_step_nodes(s, a, index_fn, arg, b);
	unpack_str(b, &s->nodes_str, SL_STR_MAX);
	unpack_u32(b, &s->num_tasks);
	unpack_u32(b, &s->num_cpus);
	unpack_u16(b, &s->cpus_per_task);
	unpack_u16(b, &s->flags);
	unpack_bool(b, &s->is_gpus_held);
	unpack_u32(b, &s->time_limit);
	unpack_time(b, &s->start_time);
	unpack_time(b, &s->end_time);
	unpack_u32(b, &s->exit_code);
	unpack_u32(b, &s->nodes_done);
	acct_usage_unpack(&s->usage, b);
	unpack_str(b, &s->max_rss_node, SL_NAME_MAX);
	unpack_str(b, &s->max_vm_node, SL_NAME_MAX);
	unpack_u32(b, &s->kill_requid);
	unpack_bool(b, &s->is_oom);
	unpack_bool(b, &s->is_cancelled);
	unpack_bool(b, &s->is_timed_out);
	unpack_str(b, &s->srun_host, SL_NAME_MAX);
	unpack_u16(b, &s->srun_port);
	unpack_u32(b, &s->srun_pid);
	unpack_time(b, &s->last_srun_ping);
}

/* The batch step's usage, then the steps in id order. */
static void pack_steps(const struct job *job, job_state_node_name_fn *name_fn, void *arg,
		       struct pack_buf *b)
{
	acct_usage_pack(job_batch_usage(job), b);
	if (job->step_count && !job->steps)
		set_err(b, -EINVAL);
	pack_u32(b, job->step_count);
	for (uint32_t i = 0; i < job->step_count && !b->err; i++)
		pack_step(&job->steps[i], name_fn, arg, b);
}

/* After the allocation: step nodes are located in it. step_count grows
 * with each step begun, so job_free() frees exactly what was built. */
static void unpack_steps(struct job *job, job_state_node_index_fn *index_fn, void *arg,
			 struct pack_buf *b)
{
	struct acct_usage usage = {0};
	uint32_t n;

	acct_usage_unpack(&usage, b);
	if (!b->err && job_set_batch_usage(job, &usage) < 0)
		set_err(b, -ENOMEM);
	unpack_count(b, &n, SL_ARRAY_MAX, STEP_MIN_LEN);
	if (b->err || !n)
		return;
	job->steps = calloc(n, sizeof(*job->steps));
	if (!job->steps) {
		set_err(b, -ENOMEM);
		return;
	}
	for (uint32_t i = 0; i < n && !b->err; i++) {
		struct step *s = &job->steps[job->step_count++];

		unpack_step(s, &job->alloc, index_fn, arg, b);
		/* step_find() searches by id */
		if (!b->err && i && s->step_id <= s[-1].step_id)
			b->err = -EBADMSG;
	}
}

/* ---- script and environment in the blob store (version 3) ---- */

static void pack_blobs(const struct job *job, struct pack_buf *b)
{
	pack_bool(b, job->script_blob != NULL);
	if (job->script_blob)
		blob_pack_ref(job->script_blob, b);
	pack_bool(b, job->env_blob != NULL);
	if (job->env_blob)
		blob_pack_ref(job->env_blob, b);
}

/* Detached blobs: job_files_store() takes them into the store. */
static void unpack_blobs(struct job *job, struct pack_buf *b)
{
	bool has;

	unpack_bool(b, &has);
	if (has)
		job->script_blob = blob_unpack_ref(b);
	unpack_bool(b, &has);
	if (has && !b->err)
		job->env_blob = blob_unpack_ref(b);
}

/* ---- nodes whose Epilog the job waits for (version 4) ---- */

static void pack_epilogs(const struct job *job, job_state_node_name_fn *name_fn, void *arg,
			 struct pack_buf *b)
{
	pack_u32(b, job->epilog_count);
	for (uint32_t i = 0; i < job->epilog_count; i++)
		pack_str(b, name_fn ? name_fn(arg, job->epilog_nodes[i]) : NULL);
	pack_bool(b, job->is_epilog_ctld);
}

static void unpack_epilogs(struct job *job, job_state_node_index_fn *index_fn, void *arg,
			   struct pack_buf *b)
{
	uint32_t n;

	unpack_count(b, &n, SL_ARRAY_MAX, 5);
	if (b->err || !n)
		goto out;
	job->epilog_nodes = calloc(n, sizeof(*job->epilog_nodes));
	if (!job->epilog_nodes) {
		set_err(b, -ENOMEM);
		return;
	}
	for (uint32_t i = 0; i < n && !b->err; i++) {
		char *name = NULL;

		unpack_str(b, &name, SL_NAME_MAX);
		if (!b->err && !name)
			b->err = -EBADMSG;
		if (!b->err && index_fn) {
			int r = index_fn(arg, name, &job->epilog_nodes[job->epilog_count]);

			if (r == 0)
				job->epilog_count++;
			else if (r != -ENOENT) /* a node gone from the config owes nothing */
				b->err = r;
		}
		free(name);
	}
	if (!job->epilog_count) {
		free(job->epilog_nodes);
		job->epilog_nodes = NULL;
	}
out:
	unpack_bool(b, &job->is_epilog_ctld);
}

int job_state_pack(const struct job *job, job_state_node_name_fn *name_fn, void *arg,
		   struct pack_buf *b)
{
	if (!b)
		return -EINVAL;
	if (!job)
		set_err(b, -EINVAL);
	if (b->err)
		return b->err;
	pack_header(b, JOURNAL_REC_JOB, JOB_STATE_VERSION);
	pack_ids(job, b);
	pack_request(job, b);
	pack_alloc(&job->alloc, name_fn, arg, b);
	pack_run(job, b);
	pack_desc(job->desc, b);
	pack_steps(job, name_fn, arg, b);
	pack_blobs(job, b);
	pack_epilogs(job, name_fn, arg, b);
	pack_u32(b, job->resv_id); /* version 5 */
	return b->err;
}

int job_state_unpack(const uint8_t *data, size_t len, job_state_node_index_fn *index_fn,
		     void *arg, struct job **ret)
{
	struct pack_buf b = pack_buf_view(data, len);
	struct job *job;
	uint16_t ver;
	int r;

	if ((!data && len) || !ret)
		return -EINVAL;
	job = calloc(1, sizeof(*job));
	if (!job)
		return -ENOMEM;
	ver = unpack_header(&b, JOURNAL_REC_JOB, JOB_STATE_VERSION);
	unpack_ids(job, &b);
	unpack_request(job, &b);
	unpack_alloc(&job->alloc, index_fn, arg, &b);
	unpack_run(job, &b);
	unpack_desc(&job->desc, &b);
	/* an operator's --priority stays as given (an update's is not kept) */
	job->is_prio_fixed = job->desc && job->desc->priority && job->priority;
	if (ver >= 2) /* version 1: no steps, no usage */
		unpack_steps(job, index_fn, arg, &b);
	if (ver >= 3) /* before: script and environment in the request */
		unpack_blobs(job, &b);
	if (ver >= 4) /* before: no Epilog waited for */
		unpack_epilogs(job, index_fn, arg, &b);
	if (ver >= 5) /* before: no ResvID */
		unpack_u32(&b, &job->resv_id);
	r = unpack_end(&b);
	if (r < 0) {
		job_free(job);
		return r;
	}
	*ret = job;
	return 0;
}

int job_state_seq_pack(const struct job_state_seq *seq, struct pack_buf *b)
{
	if (!b)
		return -EINVAL;
	if (!seq)
		set_err(b, -EINVAL);
	if (b->err)
		return b->err;
	pack_header(b, JOURNAL_REC_SEQ, JOB_STATE_SEQ_VERSION);
	pack_u32(b, seq->next_job_id);
	pack_u32(b, seq->lowest_prio);
	return b->err;
}

int job_state_seq_unpack(const uint8_t *data, size_t len, struct job_state_seq *ret)
{
	struct pack_buf b = pack_buf_view(data, len);
	struct job_state_seq seq;
	int r;

	if ((!data && len) || !ret)
		return -EINVAL;
	(void)unpack_header(&b, JOURNAL_REC_SEQ, JOB_STATE_SEQ_VERSION);
	unpack_u32(&b, &seq.next_job_id);
	unpack_u32(&b, &seq.lowest_prio);
	r = unpack_end(&b);
	if (r < 0)
		return r;
	*ret = seq;
	return 0;
}

int job_state_gone_pack(uint32_t job_id, struct pack_buf *b)
{
	if (!b)
		return -EINVAL;
	if (b->err)
		return b->err;
	pack_header(b, JOURNAL_REC_GONE, JOB_STATE_GONE_VERSION);
	pack_u32(b, job_id);
	return b->err;
}

int job_state_gone_unpack(const uint8_t *data, size_t len, uint32_t *ret_job_id)
{
	struct pack_buf b = pack_buf_view(data, len);
	uint32_t id = 0;
	int r;

	if ((!data && len) || !ret_job_id)
		return -EINVAL;
	(void)unpack_header(&b, JOURNAL_REC_GONE, JOB_STATE_GONE_VERSION);
	unpack_u32(&b, &id);
	r = unpack_end(&b);
	if (r < 0)
		return r;
	*ret_job_id = id;
	return 0;
}
