/* rpc_job.c - job handlers: submit, will-run, info, kill, update, batch
 * completion. Thin: decode (done) -> look up -> authorize -> domain call
 * -> reply (R18).
 */
#include "rpc.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "durable.h"
#include "job.h"
#include "job_epilog.h"
#include "job_script.h"
#include "job_array.h"
#include "job_cancel.h"
#include "job_end.h"
#include "job_info.h"
#include "job_sched.h"
#include "job_submit.h"
#include "job_submit_lua.h"
#include "job_update.h"

/* The reply goes out once the job is on disk (msg is taken). */
static int reply_submit(struct ctld *c, struct rpc_req *req, uint32_t job_id, int rc, char *msg)
{
	struct submit_response *resp = calloc(1, sizeof(*resp));

	if (!resp) {
		free(msg);
		return -ENOMEM;
	}
	resp->job_id = job_id;
	resp->error_code = (uint32_t)(rc < 0 ? -rc : rc);
	resp->user_msg = msg;
	rpc_reply_durable(c, req, RESPONSE_SUBMIT_BATCH_JOB, resp);
	return 0;
}

/* RESPONSE_SLURM_RC 0 once this turn's changes are on disk. */
static int reply_ok_durable(struct ctld *c, struct rpc_req *req)
{
	struct rc_msg *rc = calloc(1, sizeof(*rc));

	if (!rc)
		return -ENOMEM;
	rpc_reply_durable(c, req, RESPONSE_SLURM_RC, rc);
	return 0;
}

int rpc_job_submit(struct ctld *c, struct rpc_req *req)
{
	struct job_desc *d = rpc_req_take_body(req, sizeof(struct job_desc));
	struct job *job = NULL;
	char *msg = NULL, *lua_msg = NULL;
	int r;

	if (!d)
		return -ENOMEM;
	/* JobSubmitPlugins=lua: job_submit.lua may change or refuse it */
	r = job_submit_lua_submit(c, d, req->uid, req->gid, &lua_msg);
	if (r == 0)
		r = job_submit_build(c, d, req->uid, req->gid, &job, &msg);
	msg = job_submit_lua_msg_join(lua_msg, msg);
	if (r < 0) {
		job_desc_done(d);
		free(d);
		info("%s: submit from uid=%u refused: %s", req->peer, (unsigned)req->uid,
		     sl_strerror(r));
		return reply_submit(c, req, 0, r, msg);
	}
	r = job_submit_commit(c, job);
	if (r < 0)
		return reply_submit(c, req, 0, r, msg);
	info("_slurm_rpc_submit_batch_job: JobId=%u InitPrio=%u usec=0", job->job_id,
	     job->priority);
	ctld_sched_request(c);
	return reply_submit(c, req, job->job_id, 0, msg);
}

int rpc_job_will_run(struct ctld *c, struct rpc_req *req)
{
	struct job_desc *d = rpc_req_take_body(req, sizeof(struct job_desc));
	struct submit_response resp = { 0 };
	struct job *job = NULL;
	char *msg = NULL;
	int r;

	if (!d)
		return -ENOMEM;
	/* JobSubmitPlugins=lua: job_submit.lua may change or refuse it (a
	 * will-run reply carries none of its lines) */
	r = job_submit_lua_submit(c, d, req->uid, req->gid, &msg);
	free(TAKE_PTR(msg));
	if (r == 0)
		r = job_submit_build(c, d, req->uid, req->gid, &job, &msg);
	if (r < 0) {
		job_desc_done(d);
		free(d);
		free(msg);
		return r;
	}
	uint32_t cpus = 0;
	time_t start = 0;

	r = job_sched_will_run(c, job, &resp.node_list, &cpus, &start);
	if (r < 0) {
		job_free(job);
		free(msg);
		return r;
	}
	resp.job_id = c->next_job_id;
	resp.start_time = start;
	resp.proc_cnt = cpus;
	resp.partition = job->partition;
	rpc_reply(req, RESPONSE_JOB_WILL_RUN, &resp);
	free(resp.node_list);
	job_free(job);
	free(msg);
	return 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* "12,13_4,..." (squeue -j, scontrol show job): the ids, sorted, parsed
 * once per request (the string may be 1 MiB: never walked per job). Only
 * the job part of "13_4" counts; the client filters tasks exactly. */
static int ids_parse(const char *ids, uint32_t **ret, size_t *ret_n)
{
	size_t n = 0, cap = 1;
	uint32_t *v;

	for (const char *p = ids; *p; p++)
		cap += *p == ',';
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (const char *p = ids; p && *p;) {
		char *end;
		unsigned long id = strtoul(p, &end, 10);

		if (end != p && id <= UINT32_MAX)
			v[n++] = (uint32_t)id;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	qsort(v, n, sizeof(*v), u32_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Which jobs a listing asks for, both lists sorted: those of ids (job
 * ids; NULL: any) of the users of uids (NULL: any). */
struct job_pick {
	uint32_t *ids;
	size_t n_ids;
	uint32_t *uids;
	size_t n_uids;
	uint32_t state_bases, state_flags; /* job_info_req's; both 0: any */
	char *parts;			   /* job_info_req's partitions; NULL: any */
};

static void job_pick_done(struct job_pick *p)
{
	free(p->ids);
	free(p->uids);
	free(p->parts);
	*p = (struct job_pick){0};
}

/* From the request: the ids parsed, the users copied, both sorted, the
 * partitions copied. 0, -ENOMEM or -ESLURM_INVALID_PARTITION_NAME. */
static int job_pick_of(const struct job_info_req *m, struct job_pick *ret)
{
	*ret = (struct job_pick){.state_bases = m->state_bases, .state_flags = m->state_flags};
	if (m->job_ids && ids_parse(m->job_ids, &ret->ids, &ret->n_ids) < 0)
		return -ENOMEM;
	if (m->partitions && strlen(m->partitions) > JOB_INFO_PARTS_MAX) {
		job_pick_done(ret);
		return -ESLURM_INVALID_PARTITION_NAME;
	}
	if (m->partitions && !(ret->parts = strdup(m->partitions))) {
		job_pick_done(ret);
		return -ENOMEM;
	}
	if (m->n_user_ids) {
		ret->uids = malloc(m->n_user_ids * sizeof(*ret->uids));
		if (!ret->uids) {
			job_pick_done(ret);
			return -ENOMEM;
		}
		memcpy(ret->uids, m->user_ids, m->n_user_ids * sizeof(*ret->uids));
		ret->n_uids = m->n_user_ids;
		qsort(ret->uids, ret->n_uids, sizeof(*ret->uids), u32_cmp);
	}
	return 0;
}

/* Is the name of len bytes in the comma list? */
static bool name_in_list(const char *list, const char *name, size_t len)
{
	for (const char *p = list; *p;) {
		size_t tl = strcspn(p, ",");

		if (tl == len && !memcmp(p, name, len))
			return true;
		p += tl + (p[tl] == ',');
	}
	return false;
}

/* Is any partition of parts (a pending job's may be a comma list) in
 * the list asked for? */
static bool part_listed(const char *want, const char *parts)
{
	for (const char *p = parts ? parts : ""; *p;) {
		size_t tl = strcspn(p, ",");

		if (tl && name_in_list(want, p, tl))
			return true;
		p += tl + (p[tl] == ',');
	}
	return false;
}

/* Is job listed? An array's id ("12" or "12_4") lists its meta record
 * and every task (squeue picks the task); a user's jobs, and the jobs in
 * the states and partitions asked for, are picked before they are
 * packed, not only filtered by the client. */
static bool job_listed(const struct job *job, const struct job_pick *p)
{
	uint32_t uid = (uint32_t)job->uid, base = job->state & JOB_STATE_BASE;

	if (p->uids && !bsearch(&uid, p->uids, p->n_uids, sizeof(uid), u32_cmp))
		return false;
	if ((p->state_bases || p->state_flags) && base < 32 && !(p->state_bases & (1u << base))
	    && !(job->state & p->state_flags))
		return false;
	if (p->parts && !part_listed(p->parts, job->partition))
		return false;
	return !p->ids || bsearch(&job->job_id, p->ids, p->n_ids, sizeof(*p->ids), u32_cmp)
	       || (job->array_job_id
		   && bsearch(&job->array_job_id, p->ids, p->n_ids, sizeof(*p->ids), u32_cmp));
}

/* Index of the first job with an id above after (the table is sorted). */
static uint32_t first_after(const struct ctld *c, uint32_t after)
{
	uint32_t lo = 0, hi = c->job_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->jobs[mid]->job_id <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One page: the visible jobs of pick after `after`, stopping after the
 * one that takes the page over limit bytes; the records packed into
 * *recs (resp->packed points into it). */
static int job_info_page(struct ctld *c, const struct job_pick *pick, uid_t uid, uint32_t after,
			 size_t limit, bool brief, struct job_info_msg *resp, struct pack_buf *recs)
{
	uint32_t i = first_after(c, after);
	time_t now = time(NULL);
	int r = 0;

	*resp = (struct job_info_msg){.last_update = c->job_last_update};
	*recs = (struct pack_buf){0};
	for (; i < c->job_count && r == 0; i++) {
		if (!job_listed(c->jobs[i], pick) || !job_is_visible(c, c->jobs[i], uid))
			continue;
		if (recs->len >= limit) {
			resp->is_more = true;
			break;
		}
		r = job_info_pack_job(c, c->jobs[i], brief, now, recs);
		resp->count++;
		resp->last_job_id = c->jobs[i]->job_id;
	}
	resp->packed = recs->data;
	resp->packed_len = recs->len;
	return r;
}

/* A streamed listing (JOB_SHOW_STREAM): the pages go out one after the
 * other on the request's connection, each built when the socket took the
 * one before, so the client works on a page while the next is built and
 * other requests are served between pages. */
struct job_stream {
	struct ctld *c;
	struct job_pick pick;
	uint32_t after;
	size_t limit; /* of the next page: small first, so the client starts early */
	bool brief;   /* JOB_SHOW_BRIEF */
};

static void job_stream_free(struct job_stream *s)
{
	job_pick_done(&s->pick);
	free(s);
}

static void job_stream_more(void *arg, struct rpc_req *req);

/* Sends the next page; frees s after the last one or on error. */
static void job_stream_send(struct job_stream *s, struct rpc_req *req)
{
	struct job_info_msg resp;
	struct pack_buf recs;
	int r;

	r = job_info_page(s->c, &s->pick, req->uid, s->after, s->limit, s->brief, &resp, &recs);
	if (r < 0) {
		rpc_reply_rc(req, r);
	} else if (resp.is_more) {
		debug("REQUEST_JOB_INFO uid=%u: a page of %u jobs, more after JobId=%u (streamed)",
		      (unsigned)req->uid, resp.count, resp.last_job_id);
		s->after = resp.last_job_id;
		s->limit = s->limit < JOB_STREAM_PAGE_MAX / 2 ? s->limit * 2 : JOB_STREAM_PAGE_MAX;
		if (rpc_reply_part(req, RESPONSE_JOB_INFO, &resp, job_stream_more, s) == 0)
			s = NULL; /* back in job_stream_more */
	} else {
		rpc_reply(req, RESPONSE_JOB_INFO, &resp);
	}
	pack_buf_done(&recs);
	if (s)
		job_stream_free(s);
}

static void job_stream_more(void *arg, struct rpc_req *req)
{
	struct job_stream *s = arg;

	if (rpc_req_is_gone(req)) {
		rpc_reply_rc(req, 0); /* only frees it */
		job_stream_free(s);
		return;
	}
	job_stream_send(s, req);
}

/* One page (docs/protocol.md): the jobs after m->after_job_id, stopping
 * after the one that takes the page over JOB_INFO_PAGE_BYTES, so that no
 * reply comes near MaxMessageSize however big the records are; or, with
 * JOB_SHOW_STREAM, every page on this connection. */
int rpc_job_info(struct ctld *c, struct rpc_req *req)
{
	const struct job_info_req *m = req->body;
	struct job_info_msg resp;
	struct pack_buf recs;
	struct job_pick pick;
	int r;

	if (m->last_update && m->last_update >= c->job_last_update)
		return -SLURM_NO_CHANGE_IN_DATA;
	r = job_pick_of(m, &pick);
	if (r < 0)
		return r;
	if (m->show_flags & JOB_SHOW_STREAM) {
		struct job_stream *s = calloc(1, sizeof(*s));

		if (!s) {
			job_pick_done(&pick);
			return -ENOMEM;
		}
		*s = (struct job_stream){.c = c,
					 .pick = pick,
					 .after = m->after_job_id,
					 .limit = JOB_STREAM_PAGE_MIN,
					 .brief = m->show_flags & JOB_SHOW_BRIEF};
		job_stream_send(s, req);
		return 0;
	}
	r = job_info_page(c, &pick, req->uid, m->after_job_id, JOB_INFO_PAGE_BYTES,
			  m->show_flags & JOB_SHOW_BRIEF, &resp, &recs);
	job_pick_done(&pick);
	if (r == 0 && resp.is_more)
		debug("REQUEST_JOB_INFO uid=%u: a page of %u jobs, more after JobId=%u",
		      (unsigned)req->uid, resp.count, resp.last_job_id);
	if (r == 0)
		rpc_reply(req, RESPONSE_JOB_INFO, &resp);
	pack_buf_done(&recs);
	return r;
}

/* "12" -> job 12; anything else (array forms come later) is invalid. */
static struct job *job_by_str(struct ctld *c, const char *s)
{
	char *end;
	unsigned long id;

	if (!s || !*s)
		return NULL;
	id = strtoul(s, &end, 10);
	if (*end || id == 0 || id > UINT32_MAX)
		return NULL;
	return job_find(c, (uint32_t)id);
}

int rpc_job_kill(struct ctld *c, struct rpc_req *req)
{
	const struct kill_job_msg *m = req->body;
	int r;

	r = job_cancel_target(c, m->sjob_id, m->signal ? m->signal : 9, m->flags, req->uid);
	if (r == -ESLURM_ACCESS_DENIED)
		error("Security violation, REQUEST_KILL_JOB RPC for %s from uid=%u", m->sjob_id,
		      (unsigned)req->uid);
	if (r < 0)
		return r;
	return reply_ok_durable(c, req);
}

int rpc_job_complete(struct ctld *c, struct rpc_req *req)
{
	int r = job_end_complete(c, req->body);

	if (r < 0)
		return r;
	return reply_ok_durable(c, req); /* the stepd retries until this is on disk */
}

int rpc_prolog_complete(struct ctld *c, struct rpc_req *req)
{
	int r = job_script_node_prolog(c, req->body);

	if (r < 0)
		return r;
	return reply_ok_durable(c, req); /* slurmd sends it again until then */
}

int rpc_epilog_complete(struct ctld *c, struct rpc_req *req)
{
	int r = job_epilog_complete(c, req->body);

	if (r < 0)
		return r;
	return reply_ok_durable(c, req); /* slurmd sends it again until then */
}

/* The job named by s, if the caller owns it or is an admin. Anyone else
 * gets what Slurm answers for update/hold/requeue: "Invalid user id". */
static int job_for_owner(struct ctld *c, const struct rpc_req *req, const char *s,
			 struct job **ret)
{
	struct job *job = job_by_str(c, s);

	if (!job)
		return -ESLURM_INVALID_JOB_ID;
	if (!job_cancel_may_touch(c, job, req->uid)) {
		error("Security violation, %s RPC for JobId=%u from uid=%u",
		      msg_type_name(req->type), job->job_id, (unsigned)req->uid);
		return -ESLURM_USER_ID_MISSING;
	}
	*ret = job;
	return 0;
}

int rpc_job_update(struct ctld *c, struct rpc_req *req)
{
	const struct update_job_msg *m = req->body;
	struct job *job;
	int r = job_for_owner(c, req, m->sjob_id, &job);

	if (r < 0)
		return r;
	r = job_update(c, job, m, req->uid, ctld_is_admin(c, req->uid));
	if (r < 0)
		return r;
	return reply_ok_durable(c, req);
}

int rpc_job_requeue(struct ctld *c, struct rpc_req *req)
{
	const struct update_job_msg *m = req->body;
	struct job *job;
	int r = job_for_owner(c, req, m->sjob_id, &job);

	if (r < 0)
		return r;
	r = job_end_requeue(c, job, m->requeue_op == 2, req->uid, ctld_is_admin(c, req->uid));
	if (r < 0)
		return r;
	return reply_ok_durable(c, req);
}
