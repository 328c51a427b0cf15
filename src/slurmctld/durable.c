/* durable.c - see durable.h. */
#include "durable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_res.h"
#include "job_state.h"
#include "journal.h"
#include "node.h"

/* The log is rewritten to the live jobs once it is both past COMPACT_MIN and
 * COMPACT_FACTOR times what the last rewrite left: the rewrite's cost then
 * stays proportional to what was appended since, however many jobs are
 * kept (a fixed threshold rewrote the whole file on every commit once the
 * live jobs alone passed it). */
#define COMPACT_MIN	(16u << 20)
#define COMPACT_FACTOR	3
#define COMMIT_PRIORITY 2      /* of 3: after every request of the turn */

struct durable_waiter {
	struct durable_waiter *next;
	struct rpc_req *req;
	uint16_t type;
	void *msg;
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
	struct job_state_seq seq = { c->next_job_id, c->lowest_prio };
	struct pack_buf b = { 0 };

	if (job_state_seq_pack(&seq, &b) == 0)
		journal_append(c->journal, b.data, b.len);
	pack_buf_done(&b);
}

/* The job_changed() hook: its record joins this turn's commit. */
static void durable_job_changed(struct ctld *c, struct job *job)
{
	struct pack_buf b = { 0 };

	if (!c->journal)
		return;
	if (job_state_pack(job, node_name_of, c, &b) == 0)
		journal_append(c->journal, b.data, b.len);
	else
		error("JobId=%u: cannot journal: %d", job->job_id, b.err);
	pack_buf_done(&b);
	seq_append(c);
	event_active(c->commit_ev, EV_TIMEOUT, 0);
}

void rpc_reply_durable(struct ctld *c, struct rpc_req *req, uint16_t type, void *msg)
{
	struct durable_waiter *w = calloc(1, sizeof(*w));

	if (!w || !c->journal || !journal_has_pending(c->journal)) {
		free(w);
		rpc_reply(req, type, msg);
		msg_free(msg_lookup(type), msg);
		return;
	}
	*w = (struct durable_waiter){ .req = req, .type = type, .msg = msg };
	*c->waiters_tail = w;
	c->waiters_tail = &w->next;
}

static void waiters_reply(struct ctld *c)
{
	struct durable_waiter *w = c->waiters;

	c->waiters = NULL;
	c->waiters_tail = &c->waiters;
	while (w) {
		struct durable_waiter *next = w->next;

		rpc_reply(w->req, w->type, w->msg);
		msg_free(msg_lookup(w->type), w->msg);
		free(w);
		w = next;
	}
}

/* The live jobs, and the id sequence, as the whole new log. */
static int durable_compact(struct ctld *c)
{
	struct pack_buf *bufs = calloc(c->job_count + 1, sizeof(*bufs));
	struct iovec *iov = calloc(c->job_count + 1, sizeof(*iov));
	struct job_state_seq seq = { c->next_job_id, c->lowest_prio };
	size_t n = 0;
	int r = -ENOMEM;

	if (bufs && iov) {
		r = job_state_seq_pack(&seq, &bufs[n++]);
		for (uint32_t i = 0; i < c->job_count && r == 0; i++)
			r = job_state_pack(c->jobs[i], node_name_of, c, &bufs[n++]);
		for (size_t i = 0; i < n; i++)
			iov[i] = (struct iovec){ bufs[i].data, bufs[i].len };
		if (r == 0)
			r = journal_compact(c->journal, iov, n);
		if (r == 0)
			c->journal_live_bytes = journal_size(c->journal);
	}
	for (size_t i = 0; bufs && i < n; i++)
		pack_buf_done(&bufs[i]);
	free(bufs);
	free(iov);
	return r;
}

bool durable_compact_is_due(uint64_t size, uint64_t live)
{
	return size > COMPACT_MIN && size > COMPACT_FACTOR * live;
}

static void commit_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *c = arg;
	int r;

	(void)fd;
	(void)what;
	r = journal_commit(c->journal);
	if (r < 0) {
		/* keep the replies: nothing was promised yet; try again soon */
		error("job journal: commit failed: %s; retrying", strerror(-r));
		event_add(c->commit_ev, &(struct timeval){ .tv_sec = 1 });
		return;
	}
	waiters_reply(c);
	if (durable_compact_is_due(journal_size(c->journal), c->journal_live_bytes)
	    && durable_compact(c) < 0)
		error("job journal: compaction failed");
}

/* Replay: later records of a job replace earlier ones. */
static int replay_rec(void *arg, const uint8_t *data, size_t len)
{
	struct ctld *c = arg;
	struct job_state_seq seq;
	struct job *job = NULL, *old;
	int r;

	switch (job_state_rec_type(data, len)) {
	case JOURNAL_REC_SEQ:
		if (job_state_seq_unpack(data, len, &seq) == 0) {
			c->next_job_id = seq.next_job_id;
			c->lowest_prio = seq.lowest_prio;
		}
		return 0;
	case JOURNAL_REC_JOB:
		r = job_state_unpack(data, len, node_index_of, c, &job);
		if (r < 0) {
			error("job journal: a job record cannot be recovered: %s", strerror(-r));
			return 0;
		}
		old = job_find(c, job->job_id);
		if (old) {
			uint32_t i = 0;

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
	default:
		error("job journal: unknown record type");
		return 0;
	}
}

static const struct job_hook durable_hook = {
    .changed = durable_job_changed,
};

int durable_init(struct ctld *c)
{
	int r;

	r = job_hook_add(c, &durable_hook);
	if (r < 0)
		return r;
	c->waiters_tail = &c->waiters;
	c->commit_ev = event_new(c->base, -1, 0, commit_cb, c);
	if (!c->commit_ev)
		return -ENOMEM;
	event_priority_set(c->commit_ev, COMMIT_PRIORITY);
	r = journal_open(c->conf->state_save_location, &c->journal);
	if (r < 0)
		return log_errno(r, "cannot open the job journal in %s",
				 c->conf->state_save_location);
	if (c->is_clean_start)
		return durable_compact(c); /* -c: start from nothing */
	r = journal_replay(c->journal, replay_rec, c);
	if (r < 0 && !c->ignore_state_errors)
		return log_errno(r, "job journal unreadable (start with -i to ignore)");
	if (journal_dropped_bytes(c->journal))
		error("job journal: dropped a torn tail of %llu bytes",
		      (unsigned long long)journal_dropped_bytes(c->journal));
	if (c->job_count && c->next_job_id <= c->jobs[c->job_count - 1]->job_id)
		c->next_job_id = c->jobs[c->job_count - 1]->job_id + 1; /* never reuse an id */
	for (uint32_t i = 0; i < c->job_count; i++)
		if (job_is_running(c->jobs[i]))
			job_res_charge(c, c->jobs[i]);
	if (c->job_count)
		info("Recovered information about %u jobs", c->job_count);
	return durable_compact(c);
}

void durable_fini(struct ctld *c)
{
	if (c->journal && journal_has_pending(c->journal))
		journal_commit(c->journal);
	if (c->waiters)
		waiters_reply(c);
	c->journal = journal_free(c->journal);
	if (c->commit_ev)
		event_free(c->commit_ev);
	c->commit_ev = NULL;
}
