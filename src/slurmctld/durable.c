/* durable.c - see durable.h.
 *
 * StateSaveLocation failing (full, read-only, I/O errors): a failed commit
 * keeps its batch and its held replies (nothing was promised), and is
 * retried every RETRY_S; meanwhile durable_admit() refuses the requests
 * that would add more to it. The first failure and the recovery are
 * logged once each. A node_state save that failed (node_state.c) is
 * retried by the same event.
 */
#include "durable.h"

#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <event2/event.h>

#include "blob_store.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_epilog.h"
#include "job_array.h"
#include "job_cancel.h"
#include "job_place.h"
#include "job_res.h"
#include "job_state.h"
#include "journal.h"
#include "node.h"
#include "node_state.h"

/* The log is rewritten to the live jobs once it is both past COMPACT_MIN and
 * COMPACT_FACTOR times what the last rewrite left: the rewrite's cost then
 * stays proportional to what was appended since, however many jobs are
 * kept (a fixed threshold would rewrite the whole file on every commit once the
 * live jobs alone passed it). The loop only packs the live jobs; writing
 * and syncing them is journal.c's thread's, and commits go on meanwhile
 * (journal_compact_start). */
#define COMPACT_MIN	(16u << 20)
#define COMPACT_FACTOR	3
#define COMMIT_PRIORITY 2      /* of 3: after every request of the turn */
#define RETRY_S		  1	 /* a failed write is tried again this often */
#define COMPACT_BACKOFF_S 60	 /* a failed compaction waits this long */
#define COMPACT_POLL_US	  50000	 /* a background compaction is checked this often */

struct durable_waiter {
	struct durable_waiter *next;
	struct rpc_req *req;
	uint16_t type;
	void *msg;
};

/* The journal and its group commit. The commit event itself, and
 * StateSaveLocation's error, are in struct ctld: node_state.c, a lower
 * floor, reports its failed saves there and has the event retry them. */
struct durable {
	struct journal *journal;
	uint64_t journal_live_bytes;	/* its size after the last compaction */
	bool is_journal_behind;		/* a change could not be journaled */
	bool is_sched_after_commit;	/* a batch job waits for its record */
	time_t compact_retry_after;	/* a failed compaction backs off */
	struct event *compact_ev;	/* polls a background compaction */
	struct durable_waiter *waiters; /* replies held until the next commit */
	struct durable_waiter **waiters_tail;
};

static const char *node_name_of(void *arg, uint32_t index)
{
	struct ctld *c = arg;

	return index < c->node_count ? node_name(&c->nodes[index]) : NULL;
}

static int node_index_of(void *arg, const char *name, uint32_t *ret)
{
	struct ctld *c = arg;
	struct node *n = node_find(c, name);

	if (!n)
		return -ENOENT;
	*ret = (uint32_t)(n - c->nodes);
	return 0;
}

static void seq_append(struct ctld *c)
{
	struct durable *d = c->durable;
	struct job_state_seq seq = { c->next_job_id, c->lowest_prio };
	struct pack_buf b = { 0 };

	if (job_state_seq_pack(&seq, &b) == 0)
		journal_append(d->journal, b.data, b.len);
	pack_buf_done(&b);
}

/* The job_changed() hook: its record joins this turn's commit. A record
 * that cannot be appended (out of memory, over JOURNAL_REC_MAX) leaves a
 * new job unsaved for good (its submission is refused at its reply), and
 * an older one ahead of the disk until the next rewrite of the log, which
 * is then due at once. */
static void durable_job_changed(struct ctld *c, struct job *job)
{
	struct durable *d = c->durable;
	struct pack_buf b = { 0 };
	int r;

	if (!d || !d->journal)
		return;
	r = job_state_pack(job, node_name_of, c, &b);
	if (r == 0)
		r = journal_append(d->journal, b.data, b.len);
	if (r < 0) {
		error("JobId=%u: cannot journal its record of %zu bytes: %s", job->job_id, b.len,
		      sl_strerror(r));
		if (!job->saved_seq)
			job->saved_seq = DURABLE_SEQ_NEVER;
		else
			d->is_journal_behind = true;
	} else if (!job->saved_seq) {
		job->saved_seq = journal_seq(d->journal);
	}
	pack_buf_done(&b);
	seq_append(c);
	event_active(c->commit_ev, EV_TIMEOUT, 0);
}

bool durable_job_is_saved(struct ctld *c, const struct job *job)
{
	struct durable *d = c->durable;

	if (!d || !d->journal || job_is_interactive(job))
		return true; /* its client is told only once it is saved: nothing runs before */
	if (job->saved_seq != DURABLE_SEQ_NEVER
	    && job->saved_seq <= journal_committed_seq(d->journal))
		return true;
	d->is_sched_after_commit = true;
	return false;
}

/* The job a submission's reply names, 0 for other replies. */
static uint32_t submitted_job_id(uint16_t type, const void *msg)
{
	if (type == RESPONSE_SUBMIT_BATCH_JOB)
		return ((const struct submit_response *)msg)->job_id;
	if (type == RESPONSE_RESOURCE_ALLOCATION)
		return ((const struct alloc_response *)msg)->job_id;
	return 0;
}

/* A submission that will not be on disk now: the client is told so at
 * once, rather than left waiting into a timeout after which it would
 * submit again, and the job is cancelled (that record is written with the
 * rest once the disk has room), never run. */
static void submission_refused(struct ctld *c, struct rpc_req *req, uint16_t type, void *msg,
			       int why)
{
	uint32_t id = submitted_job_id(type, msg);
	struct job *job = job_find(c, id);

	rpc_reply_rc(req, -ESLURM_WRITING_TO_FILE);
	msg_free(msg_lookup(type), msg);
	if (!job)
		return;
	error("JobId=%u: submission refused, its record could not be saved: %s; the job is "
	      "cancelled",
	      id, sl_strerror(why));
	job->saved_seq = DURABLE_SEQ_NEVER;
	(void)job_cancel_signal(c, job, SIGKILL, 0, c->conf->slurm_user_id);
}

void rpc_reply_durable(struct ctld *c, struct rpc_req *req, uint16_t type, void *msg)
{
	struct durable *d = c->durable;
	uint32_t id = submitted_job_id(type, msg);
	struct job *job = id ? job_find(c, id) : NULL;
	struct durable_waiter *w;

	if (job && job->saved_seq == DURABLE_SEQ_NEVER) {
		submission_refused(c, req, type, msg, -ENOMEM);
		return;
	}
	w = calloc(1, sizeof(*w));
	if (!w || !d || !d->journal || !journal_has_pending(d->journal)) {
		free(w);
		rpc_reply(req, type, msg);
		msg_free(msg_lookup(type), msg);
		return;
	}
	*w = (struct durable_waiter){ .req = req, .type = type, .msg = msg };
	*d->waiters_tail = w;
	d->waiters_tail = &w->next;
}

/* A commit failed: the held submissions are refused (the other replies
 * stay held until it succeeds). */
static void waiters_refuse_submissions(struct ctld *c, int why)
{
	struct durable *d = c->durable;
	struct durable_waiter *w = d->waiters, *refused = NULL;

	d->waiters = NULL;
	d->waiters_tail = &d->waiters;
	while (w) {
		struct durable_waiter *next = w->next;

		w->next = NULL;
		if (submitted_job_id(w->type, w->msg)) {
			w->next = refused;
			refused = w;
		} else {
			*d->waiters_tail = w;
			d->waiters_tail = &w->next;
		}
		w = next;
	}
	/* after the list is whole again: a cancel below may hold a reply */
	while (refused) {
		struct durable_waiter *next = refused->next;

		submission_refused(c, refused->req, refused->type, refused->msg, why);
		free(refused);
		refused = next;
	}
}

/* Answer every held reply: with its message once its change is on disk
 * (rc 0), or with rc when it never will be (shutting down with the write
 * failing). */
static void waiters_answer(struct ctld *c, int rc)
{
	struct durable *d = c->durable;
	struct durable_waiter *w = d->waiters;

	d->waiters = NULL;
	d->waiters_tail = &d->waiters;
	while (w) {
		struct durable_waiter *next = w->next;

		if (rc < 0)
			rpc_reply_rc(w->req, rc);
		else
			rpc_reply(w->req, w->type, w->msg);
		msg_free(msg_lookup(w->type), w->msg);
		free(w);
		w = next;
	}
}

/* The live jobs, and the id sequence, as the whole new log: written now
 * (at start), or by journal.c's thread (is_background). */
static int durable_compact_how(struct ctld *c, bool is_background)
{
	struct durable *d = c->durable;
	/* every record in one buffer: one allocation that grows by doubling
	 * (and goes back to the kernel when freed), not one a job */
	struct pack_buf all = {0};
	size_t *end = calloc(c->job_count + 2, sizeof(*end));
	struct iovec *iov = calloc(c->job_count + 2, sizeof(*iov));
	struct job_state_seq seq = { c->next_job_id, c->lowest_prio };
	size_t n = 0;
	int r = -ENOMEM;

	if (end && iov) {
		r = job_state_seq_pack(&seq, &all);
		end[n++] = all.len;
		for (uint32_t i = 0; i < c->job_count && r == 0; i++) {
			r = job_state_pack(c->jobs[i], node_name_of, c, &all);
			end[n++] = all.len;
		}
		if (r == 0 && all.err)
			r = all.err;
	}
	if (r == 0) {
		for (size_t i = 0; i < n; i++) {
			size_t from = i ? end[i - 1] : 0;

			iov[i] = (struct iovec){ all.data + from, end[i] - from };
		}
		if (is_background)
			r = journal_compact_start(d->journal, iov, n);
		else
			r = journal_compact(d->journal, iov, n);
		if (r == 0 && !is_background)
			d->journal_live_bytes = journal_size(d->journal);
	}
	pack_buf_done(&all);
	free(end);
	free(iov);
	return r;
}

static int durable_compact(struct ctld *c)
{
	return durable_compact_how(c, false);
}

bool durable_compact_is_due(uint64_t size, uint64_t live)
{
	return size > COMPACT_MIN && size > COMPACT_FACTOR * live;
}

int durable_admit(const struct ctld *c, uint16_t msg_type)
{
	if (!c->state_save_err)
		return 0;
	switch (msg_type) {
	case REQUEST_SUBMIT_BATCH_JOB:
	case REQUEST_RESOURCE_ALLOCATION:
	case REQUEST_UPDATE_JOB:
	case REQUEST_JOB_REQUEUE:
	case REQUEST_KILL_JOB:
	case REQUEST_COMPLETE_JOB_ALLOCATION:
	case REQUEST_JOB_STEP_CREATE:
	case REQUEST_UPDATE_NODE:
		return -ESLURM_WRITING_TO_FILE;
	case REQUEST_COMPLETE_BATCH_SCRIPT:
	case REQUEST_STEP_COMPLETE:
		/* an errno, which slurmstepd retries (a code of ours is final):
		 * the end lands once it can be written */
		return c->state_save_err;
	default:
		return 0;
	}
}

static void state_save_failed(struct ctld *c, int r)
{
	if (!c->state_save_err)
		error("StateSaveLocation %s: cannot write the job journal: %s; job submissions "
		      "and other state changes are refused until it is writable again",
		      c->conf->state_save_location, strerror(-r));
	else
		debug("StateSaveLocation %s: job journal still not writable: %s",
		      c->conf->state_save_location, strerror(-r));
	c->state_save_err = r;
	event_add(c->commit_ev, &(struct timeval){.tv_sec = RETRY_S});
}

static void compact_failed(struct ctld *c, int r, time_t now)
{
	struct durable *d = c->durable;
	/* the old log stays in use: nothing is lost, only not shrunk */
	error("job journal: compaction failed: %s; next try in %d s", strerror(-r),
	      COMPACT_BACKOFF_S);
	d->compact_retry_after = now + COMPACT_BACKOFF_S;
}

/* A background compaction is over: its new log takes over (or not). */
static void compact_poll_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	struct durable *d = c->durable;
	uint64_t live = 0;
	int r;

	(void)fd;
	(void)what;
	r = journal_compact_poll(d->journal, &live);
	if (r == -EINPROGRESS) {
		evtimer_add(d->compact_ev, &(struct timeval){.tv_usec = COMPACT_POLL_US});
		return;
	}
	if (r < 0) {
		compact_failed(c, r, time(NULL));
		return;
	}
	d->journal_live_bytes = live;
	verbose("job journal: rewritten, %llu bytes of live jobs", (unsigned long long)live);
}

/* Past its threshold the log is rewritten by journal.c's thread: the loop
 * only packs the live jobs, commits go on meanwhile. */
static void compact_if_due(struct ctld *c)
{
	struct durable *d = c->durable;
	time_t now;
	int r;

	if (journal_compact_is_running(d->journal)
	    || !(d->is_journal_behind
		 || durable_compact_is_due(journal_size(d->journal), d->journal_live_bytes)))
		return;
	now = time(NULL);
	if (now < d->compact_retry_after)
		return;
	r = durable_compact_how(c, true);
	if (r < 0) {
		compact_failed(c, r, now);
		return;
	}
	d->is_journal_behind = false; /* every live job is in the new log */
	evtimer_add(d->compact_ev, &(struct timeval){.tv_usec = COMPACT_POLL_US});
}

static void commit_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	struct durable *d = c->durable;
	int r;

	(void)fd;
	(void)what;
	/* the blobs first: a record never names bytes not on disk */
	r = blob_store_sync(c->blobs);
	if (r == 0)
		r = journal_commit(d->journal);
	if (r < 0) {
		/* nothing was promised yet: the other replies wait */
		state_save_failed(c, r);
		waiters_refuse_submissions(c, r);
		return;
	}
	waiters_answer(c, 0);
	if (d->is_sched_after_commit) { /* a batch job waited for its record */
		d->is_sched_after_commit = false;
		ctld_sched_request(c);
	}
	if (c->is_node_state_dirty && node_state_save(c) < 0)
		return; /* it logged, and asked for another try */
	if (c->state_save_err) {
		info("StateSaveLocation %s writable again", c->conf->state_save_location);
		c->state_save_err = 0;
	}
	compact_if_due(c);
}

void durable_commit_now(struct ctld *c)
{
	if (c->commit_ev)
		event_active(c->commit_ev, EV_TIMEOUT, 0);
}

/* What replay_rec() saw that it could not use. */
struct replay_ctx {
	struct ctld *c;
	uint32_t skipped; /* with -i: records that could not be read */
	uint32_t gone;	  /* jobs on nodes no longer configured */
};

/* A record that cannot be read: the start stops, or with -i it is
 * skipped (and the file will be kept aside). */
static int replay_bad(struct replay_ctx *x, int r, const char *what)
{
	if (!x->c->ignore_state_errors)
		return log_errno(r, "job journal: %s", what);
	error("job journal: %s: %s; skipped (-i)", what, sl_strerror(r));
	x->skipped++;
	return 0;
}

static int replay_job(struct replay_ctx *x, const uint8_t *data, size_t len)
{
	struct ctld *c = x->c;
	struct job *job = NULL, *old;
	int r;

	r = job_state_unpack(data, len, node_index_of, c, &job);
	if (job)
		job->saved_seq = JOURNAL_SEQ_OPENED; /* it is on disk */
	if (r == -ENOENT) {
		/* slurm.conf no longer has one of its nodes: not damage */
		error("job journal: a job on a node no longer in slurm.conf cannot be "
		      "recovered; dropped");
		x->gone++;
		return 0;
	}
	if (r < 0)
		return replay_bad(x, r, "a job record cannot be read");
	old = job_find(c, job->job_id);
	if (old) {
		uint32_t i = 0;

		(void)job_files_store(c->blobs, job); /* as job_table_add */
		while (c->jobs[i] != old)
			i++;
		c->jobs[i] = job;
		job_free(old);
		return 0;
	}
	if (c->job_count && c->jobs[c->job_count - 1]->job_id > job->job_id) {
		job_free(job); /* out of order: cannot happen with one writer */
		return 0;
	}
	return job_table_add(c, job);
}

/* A purge: the job its earlier records made leaves the table. */
static int replay_gone(struct replay_ctx *x, const uint8_t *data, size_t len)
{
	uint32_t id;
	int r;

	r = job_state_gone_unpack(data, len, &id);
	if (r < 0)
		return replay_bad(x, r, "a purge record cannot be read");
	(void)job_table_remove(x->c, id);
	return 0;
}

/* Replay: later records of a job replace earlier ones. */
static int replay_rec(void *arg, const uint8_t *data, size_t len)
{
	struct replay_ctx *x = arg;
	struct job_state_seq seq;
	int r;

	switch (job_state_rec_type(data, len)) {
	case JOURNAL_REC_SEQ:
		r = job_state_seq_unpack(data, len, &seq);
		if (r < 0)
			return replay_bad(x, r, "the job id record cannot be read");
		x->c->next_job_id = seq.next_job_id;
		x->c->lowest_prio = seq.lowest_prio;
		return 0;
	case JOURNAL_REC_JOB:
		return replay_job(x, data, len);
	case JOURNAL_REC_GONE:
		return replay_gone(x, data, len);
	default:
		return replay_bad(x, -EBADMSG, "a record of an unknown type");
	}
}

/* A purged job is still in the log until the next rewrite: a
 * JOURNAL_REC_GONE record says a restart must forget it, and its bytes no
 * longer count as live, so the rewrite comes once they outweigh the rest
 * (compact_if_due, after this commit). A GONE record that cannot be
 * appended makes the rewrite due at once (it leaves the job out). */
static void durable_job_purged(struct ctld *c, const struct job *job)
{
	struct durable *d = c->durable;
	struct pack_buf b = {0};
	int r;

	if (!d || !d->journal)
		return;
	if (job_state_pack(job, node_name_of, c, &b) == 0)
		d->journal_live_bytes -=
		    b.len < d->journal_live_bytes ? b.len : d->journal_live_bytes;
	pack_buf_done(&b);
	b = (struct pack_buf){0};
	r = job_state_gone_pack(job->job_id, &b);
	if (r == 0)
		r = journal_append(d->journal, b.data, b.len);
	pack_buf_done(&b);
	if (r < 0) {
		error("JobId=%u: cannot journal its purge: %s; the log is rewritten instead",
		      job->job_id, sl_strerror(r));
		d->is_journal_behind = true;
	}
	event_active(c->commit_ev, EV_TIMEOUT, 0);
}

static const struct job_hook durable_hook = {
    .changed = durable_job_changed,
    .purged = durable_job_purged,
};

/* The start stops on a journal that cannot be read: say where, which jobs
 * the records past the damage name (lost), and how to get past it. */
static int replay_refused(struct ctld *c, int r, const char *lost)
{
	struct durable *d = c->durable;
	log_msg(LOG_LEVEL_FATAL,
		"job journal %s/%s: %s at offset %" PRId64 " (%s); slurmctld will not start. "
		"Start it with -i to recover the jobs of the readable records and keep the file "
		"as %s.bad.<time>, or with -c to start without any saved jobs (discarding it)%s%s",
		c->conf->state_save_location, JOURNAL_FILE,
		r == -EBADMSG ? "corrupt" : "unreadable record", journal_bad_offset(d->journal),
		sl_strerror(r), JOURNAL_FILE, lost ? ". " : "", lost ? lost : "");
	return r;
}

/* -i and something could not be read: keep the file as it is, aside, and
 * go on with a new log (rewritten from the jobs recovered). */
static int replay_set_aside(struct ctld *c, const struct replay_ctx *x)
{
	struct durable *d = c->durable;
	int64_t bad = journal_bad_offset(d->journal);
	uint64_t dropped = journal_dropped_bytes(d->journal);
	char name[64];
	int r;

	r = journal_set_aside(d->journal, time(NULL), name, sizeof(name));
	if (r < 0)
		return log_errno(r, "job journal: cannot set %s/%s aside",
				 c->conf->state_save_location, JOURNAL_FILE);
	if (bad >= 0)
		error("job journal: -i: nothing from offset %" PRId64 " on (%" PRIu64 " bytes) "
		      "could be read",
		      bad, dropped);
	if (x->skipped)
		error("job journal: -i: %u records could not be read", x->skipped);
	error("job journal: -i: the file is kept as %s/%s; going on with the %u jobs recovered",
	      c->conf->state_save_location, name, c->job_count);
	return 0;
}

/* What the records past the damage (journal_scan_damaged) show: the job
 * ids, and the id to hand out next. They are hints (the bytes of a script
 * may frame as a record), so the ids are only reported, and only raise
 * the next id (within MaxJobId), never restore a job. */
struct damage {
	uint32_t *ids; /* JOB records' ids, as found */
	uint32_t n, cap;
	uint32_t next_job_id;
};

#define DAMAGE_IDS_MAX 100000u /* reported; past it the count only */

static int damage_rec(void *arg, const uint8_t *data, size_t len)
{
	struct damage *d = arg;
	struct job_state_seq seq;
	struct job *job = NULL;
	uint32_t next = 0;

	if (job_state_rec_type(data, len) == JOURNAL_REC_SEQ
	    && job_state_seq_unpack(data, len, &seq) == 0)
		next = seq.next_job_id;
	else if (job_state_rec_type(data, len) == JOURNAL_REC_JOB
		 && job_state_unpack(data, len, NULL, NULL, &job) == 0)
		next = job->job_id + 1;
	if (job && d->n < DAMAGE_IDS_MAX) {
		if (d->n == d->cap) {
			uint32_t cap = d->cap ? d->cap * 2 : 64;
			uint32_t *p = realloc(d->ids, cap * sizeof(*p));

			if (p) {
				d->ids = p;
				d->cap = cap;
			}
		}
		if (d->n < d->cap)
			d->ids[d->n++] = job->job_id;
	}
	job_free(job);
	if (next > d->next_job_id)
		d->next_job_id = next;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* "jobs lost (named by records past the damage): 12-14; jobs recovered as
 * they were before the damage: 9", or NULL when those records name no
 * job. */
static char *damage_text(struct ctld *c, struct damage *d)
{
	uint32_t n_lost = 0, n_old = 0;
	_cleanup_free_ uint32_t *lost = NULL, *old = NULL;
	_cleanup_free_ char *lost_s = NULL, *old_s = NULL;
	char *s = NULL;

	if (!d->n)
		return NULL;
	qsort(d->ids, d->n, sizeof(*d->ids), cmp_u32);
	lost = calloc(d->n, sizeof(*lost));
	old = calloc(d->n, sizeof(*old));
	if (!lost || !old)
		return NULL;
	for (uint32_t i = 0; i < d->n; i++) {
		if (i && d->ids[i] == d->ids[i - 1])
			continue;
		if (job_find(c, d->ids[i]))
			old[n_old++] = d->ids[i];
		else
			lost[n_lost++] = d->ids[i];
	}
	lost_s = n_lost ? job_array_ranges(lost, n_lost) : NULL;
	old_s = n_old ? job_array_ranges(old, n_old) : NULL;
	if (asprintf(
		&s, "%s%s%s%s%s", lost_s ? "jobs lost (named by records past the damage): " : "",
		lost_s ? lost_s : "", lost_s && old_s ? "; " : "",
		old_s ? "jobs recovered as they were before the damage: " : "", old_s ? old_s : "")
	    < 0)
		s = NULL;
	return s;
}

static int durable_replay(struct ctld *c)
{
	struct replay_ctx x = {.c = c};
	struct journal *j = c->durable->journal;
	struct damage dmg = {0};
	_cleanup_free_ char *lost = NULL;
	int r;

	r = journal_replay(j, c->ignore_state_errors, replay_rec, &x);
	if (journal_bad_offset(j) >= 0) {
		(void)journal_scan_damaged(j, damage_rec, &dmg);
		lost = damage_text(c, &dmg);
		free(dmg.ids);
	}
	if (r < 0)
		return replay_refused(c, r, lost);
	if (dmg.next_job_id > c->next_job_id && dmg.next_job_id <= c->conf->max_job_id)
		c->next_job_id = dmg.next_job_id; /* never hand out an id seen past the damage */
	if (lost)
		error("job journal: -i: %s", lost);
	if ((journal_bad_offset(j) >= 0 || x.skipped) && replay_set_aside(c, &x) < 0)
		return -EIO;
	if (x.gone)
		error("job journal: %u jobs ran on nodes no longer in slurm.conf and were dropped",
		      x.gone);
	return 0;
}

int durable_init(struct ctld *c)
{
	struct durable *d = calloc(1, sizeof(*d));
	int r;

	if (!d)
		return -ENOMEM;
	c->durable = d; /* durable_fini frees what a failed start left */
	d->waiters_tail = &d->waiters;
	r = job_hook_add(c, &durable_hook);
	if (r < 0)
		return r;
	c->commit_ev = event_new(c->base, -1, 0, commit_cb, c);
	d->compact_ev = evtimer_new(c->base, compact_poll_cb, c);
	if (!c->commit_ev || !d->compact_ev)
		return -ENOMEM;
	event_priority_set(c->commit_ev, COMMIT_PRIORITY);
	r = journal_open(c->conf->state_save_location, &d->journal);
	if (r < 0)
		return log_errno(r, "cannot open the job journal in %s",
				 c->conf->state_save_location);
	r = blob_store_open(c->conf->state_save_location, &c->blobs);
	if (r < 0)
		return log_errno(r, "cannot open the job blob store in %s",
				 c->conf->state_save_location);
	if (c->is_clean_start) { /* -c: start from nothing */
		r = durable_compact(c);
		if (r == 0)
			(void)blob_store_sweep(c->blobs);
		return r;
	}
	r = durable_replay(c);
	if (r < 0)
		return r;
	/* a journal of an older version had them in its records */
	r = blob_store_sync(c->blobs);
	if (r < 0)
		return log_errno(r, "cannot write jobs' scripts and environments to %s",
				 c->conf->state_save_location);
	if (c->job_count && c->next_job_id <= c->jobs[c->job_count - 1]->job_id)
		c->next_job_id = c->jobs[c->job_count - 1]->job_id + 1; /* never reuse an id */
	for (uint32_t i = 0; i < c->job_count; i++)
		if (job_is_running(c->jobs[i]) && !c->jobs[i]->epilog_count) {
			job_place_restore(c, c->jobs[i]); /* shared cores, whole nodes */
			job_res_charge(c, c->jobs[i]); /* one owing epilogs gave them back */
		}
	job_epilog_recover(c);
	if (c->job_count)
		info("Recovered information about %u jobs", c->job_count);
	r = durable_compact(c);
	if (r < 0 && journal_size(d->journal) == 0 && c->job_count)
		return log_errno(r, "job journal: cannot write the recovered jobs");
	if (r < 0) /* the log replayed stays in use: nothing is lost */
		error("job journal: compaction at start failed: %s", strerror(-r));
	else if (blob_store_sweep(c->blobs))
		debug("job blobs: the segments no job uses were removed");
	return 0;
}

void durable_fini(struct ctld *c)
{
	struct durable *d = c->durable;
	int r = 0;

	if (!d)
		return;
	if (d->journal && journal_has_pending(d->journal)) {
		r = c->blobs ? blob_store_sync(c->blobs) : 0;
		if (r == 0)
			r = journal_commit(d->journal);
	}
	if (r < 0)
		error("StateSaveLocation %s: the last changes could not be written: %s; they "
		      "are lost",
		      c->conf->state_save_location, strerror(-r));
	if (d->waiters) /* the controller is going away: a failed change is lost */
		waiters_answer(c, r < 0 ? -ESLURM_WRITING_TO_FILE : 0);
	d->journal = journal_free(d->journal); /* waits for a compaction's thread */
	if (c->commit_ev)
		event_free(c->commit_ev);
	if (d->compact_ev)
		event_free(d->compact_ev);
	c->commit_ev = NULL;
	blob_store_free(c->blobs); /* the jobs' blobs are detached, freed with them */
	c->blobs = NULL;
	free(d);
	c->durable = NULL;
}

struct journal *durable_journal(const struct ctld *c)
{
	return c->durable ? c->durable->journal : NULL;
}
