/* acct.c - the accounting queue and its writer thread (acct.h).
 *
 * Purpose: the event loop never touches the SQLite file. It copies a
 * job's row (acct_rec.c) or a query into an item, appends the item to a
 * queue under a mutex and signals a condvar; that is all it does.
 * One thread owns the store (acct_store.c): it takes everything queued so
 * far, writes the rows in one transaction, runs the queries in queue
 * order (each after the rows queued before it are committed), and hands
 * the finished queries back through an eventfd that a libevent event of
 * the loop watches; the loop sends the replies (rpc_reply runs only on
 * the loop thread).
 * Owns: the queue, the thread, the store, the eventfd.
 * Caveats: the store is opened at start, before the loop runs; when it
 * cannot be, or AccountingStorageType=accounting_storage/none, accounting
 * is off: queries answer ESLURM_DISABLED and MinJobAge purging does not
 * wait. A reconfigure does not reopen the store. A commit that keeps
 * failing is retried a few times; then its rows are kept aside and
 * MinJobAge purging stops, so those jobs stay in memory and in the
 * journal, until acct_retry_lost (once a minute) has queued them again
 * and they were written, or a restart did the same.
 * Each job carries the number of its latest queued row: it is purged
 * once that row is written, whatever else is queued behind it. A row the
 * store refuses for its content (too big, a constraint: acct_store_put's
 * -E2BIG/-EINVAL) is not retried: it is logged and counts as handled, so
 * that one job cannot stop the purge of all.
 */
#include "acct.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <event2/event.h>

#include "acct_rec.h"
#include "acct_store.h"
#include "assoc_store.h"
#include "common/msg_assoc.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "step.h"

#define COMMIT_TRIES 3 /* a failing commit is tried this often, a second apart */
#define QUERIES_MAX 32 /* queries waiting at once; more are refused (EAGAIN) */
#define LOST_RETRY_S 60 /* rows that could not be written are queued again this often */

enum item_kind {
	ITEM_JOB,   /* rec: a row (and its steps) to insert or replace */
	ITEM_QUERY, /* req + q: answered with resp */
	ITEM_ASSOC, /* dump: the association table to save; req answered with mgr */
};

struct item {
	struct item *next;
	enum item_kind kind;
	struct acct_job_rec rec;
	struct rpc_req *req;
	struct acct_query_req q; /* the request's fields, moved out of req->body */
	struct acct_query_resp resp;
	bool is_lost; /* ITEM_JOB: its row could not be written (acct_retry_lost) */
	struct assoc_dump dump;	   /* ITEM_ASSOC */
	struct assoc_mgr_resp mgr; /* ITEM_ASSOC's reply (req may be NULL) */
};

struct acct {
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct item *head, **tail;	  /* to the thread */
	struct item *done, **done_tail;	  /* answered queries, back to the loop */
	uint64_t queued_seq, written_seq; /* rows queued / handled by the thread */
	/* Rows that could not be written wait in lost for acct_retry_lost,
	 * which queues them again; nothing counts as written until they are
	 * (barrier_seq). needs_all: a row could not even be queued. */
	struct item *lost;
	bool has_lost, needs_all;
	uint64_t barrier_seq;
	time_t next_retry; /* loop side: acct_retry_lost's next try */
	uint32_t queries_waiting; /* queued or running queries (loop side only) */
	bool is_stopping;
	bool has_thread;
	pthread_t thread;
	struct acct_store *store; /* the thread's once started */
	struct assoc_store *astore; /* sacctmgr's tables, the thread's too */
	char *path;
	int efd;
	struct event *done_ev;
};

static void item_free(struct item *it)
{
	if (!it)
		return;
	acct_job_rec_done(&it->rec);
	msg_lookup(REQUEST_ACCT_QUERY)->free(&it->q);
	msg_lookup(RESPONSE_ACCT_QUERY)->free(&it->resp);
	assoc_dump_free(&it->dump);
	msg_lookup(RESPONSE_ASSOC_MGR)->free(&it->mgr);
	free(it);
}

/* ---- the thread ---- */

/* Write the rows of items [from, to) in one transaction; the items whose
 * row did not go in are marked is_lost. */
static void write_rows(struct acct *a, struct item *from, struct item *to)
{
	uint32_t n = 0;
	int r = 0;

	for (int tries = 1; tries <= COMMIT_TRIES; tries++) {
		n = 0;
		r = acct_store_begin(a->store);
		for (struct item *it = from; it != to && r == 0; it = it->next) {
			int pr = acct_store_put(a->store, &it->rec);
			/* refused for what it holds: retrying would pin every
			 * finished job in memory for ever (no purge while rows
			 * are lost), so the row is given up, loudly */
			bool is_refused = pr == -E2BIG || pr == -EINVAL;

			it->is_lost = pr < 0 && !is_refused; /* this row only */
			if (is_refused)
				error(
				    "accounting: JobId=%u: the store refuses its row (%s); the job "
				    "is not recorded and leaves memory after MinJobAge",
				    it->rec.job_id, sl_strerror(pr));
			else if (pr < 0)
				error("accounting: JobId=%u not recorded: %s", it->rec.job_id,
				      sl_strerror(pr));
			n++;
		}
		if (r == 0)
			r = acct_store_commit(a->store);
		if (r == 0)
			return;
		error("accounting: writing %u rows to %s failed: %s%s", n, a->path, sl_strerror(r),
		      tries < COMMIT_TRIES ? "; retrying" : "");
		if (tries < COMMIT_TRIES)
			sleep(1);
	}
	error("accounting: %u job rows not written; finished jobs stay in the controller "
	      "(no MinJobAge purge) until they are (tried again every %d s)",
	      n, LOST_RETRY_S);
	for (struct item *it = from; it != to; it = it->next)
		it->is_lost = true;
}

static void run_query(struct acct *a, struct item *it)
{
	if (it->kind == ITEM_ASSOC) {
		int r = a->astore ? assoc_store_save(a->astore, &it->dump) : -ESLURM_DISABLED;

		if (r < 0) {
			error("accounting: associations not saved: %s", sl_strerror(r));
			it->mgr.rc = (uint32_t)-r;
		}
		return;
	}
	int r = acct_store_query(a->store, &it->q, &it->resp);

	if (r < 0) {
		error("accounting: query from uid %u failed: %s", (unsigned)it->req->uid,
		      sl_strerror(r));
		it->resp = (struct acct_query_resp){.error_code = (uint32_t)-r};
	}
}

/* Rows in runs between queries; every query after the rows before it.
 * Returns the answered queries (the rows' items are freed). */
static struct item *run_batch(struct acct *a, struct item *batch)
{
	struct item *answered = NULL, **tail = &answered;

	while (batch) {
		struct item *end = batch;

		while (end && end->kind == ITEM_JOB)
			end = end->next;
		if (end != batch)
			write_rows(a, batch, end);
		while (batch != end) {
			struct item *next = batch->next;

			if (batch->is_lost) { /* kept for acct_retry_lost */
				pthread_mutex_lock(&a->lock);
				batch->next = a->lost;
				a->lost = batch;
				a->has_lost = true;
				pthread_mutex_unlock(&a->lock);
			} else {
				item_free(batch);
			}
			batch = next;
		}
		if (!batch)
			break;
		batch = end->next; /* end is a query */
		run_query(a, end);
		end->next = NULL;
		*tail = end;
		tail = &end->next;
	}
	return answered;
}

static void *acct_thread(void *arg)
{
	struct acct *a = arg;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		struct item *batch, *answered;
		uint64_t seq;

		while (!a->head && !a->is_stopping)
			pthread_cond_wait(&a->more, &a->lock);
		if (!a->head)
			break; /* stopping, and everything is written */
		batch = a->head;
		a->head = NULL;
		a->tail = &a->head;
		seq = a->queued_seq;
		pthread_mutex_unlock(&a->lock);

		answered = run_batch(a, batch);

		pthread_mutex_lock(&a->lock);
		a->written_seq = seq;
		if (answered) {
			*a->done_tail = answered;
			while (answered->next)
				answered = answered->next;
			a->done_tail = &answered->next;
			if (write(a->efd, &(uint64_t){1}, sizeof(uint64_t)) < 0)
				error("accounting: cannot wake the event loop: %m");
		}
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* ---- the loop side ---- */

/* Returns the item's number: it is written once written_seq reaches it. */
static uint64_t enqueue(struct acct *a, struct item *it)
{
	uint64_t seq;

	pthread_mutex_lock(&a->lock);
	*a->tail = it;
	a->tail = &it->next;
	seq = ++a->queued_seq;
	pthread_cond_signal(&a->more);
	pthread_mutex_unlock(&a->lock);
	return seq;
}

static void reply_done(struct acct *a)
{
	struct item *it;

	pthread_mutex_lock(&a->lock);
	it = a->done;
	a->done = NULL;
	a->done_tail = &a->done;
	pthread_mutex_unlock(&a->lock);
	while (it) {
		struct item *next = it->next;

		if (it->kind == ITEM_ASSOC && it->req)
			rpc_reply(it->req, RESPONSE_ASSOC_MGR, &it->mgr);
		else if (it->kind == ITEM_QUERY)
			rpc_reply(it->req, RESPONSE_ACCT_QUERY, &it->resp);
		if (it->kind == ITEM_QUERY)
			a->queries_waiting--;
		it->req = NULL;
		item_free(it);
		it = next;
	}
}

static void done_cb(evutil_socket_t fd, short what, void *arg)
{
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		error("accounting: eventfd read: %m");
	reply_done(arg);
}

static int acct_start(struct ctld *c, struct acct *a)
{
	sigset_t all, old;
	int r;

	a->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (a->efd < 0)
		return log_errno(-errno, "accounting: eventfd");
	a->done_ev = event_new(c->base, a->efd, EV_READ | EV_PERSIST, done_cb, a);
	if (!a->done_ev || event_add(a->done_ev, NULL) < 0)
		return log_errno(-ENOMEM, "accounting: cannot watch the eventfd");
	/* the thread takes no signals: the loop's handlers run on the loop */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&a->thread, NULL, acct_thread, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		return log_errno(-r, "accounting: cannot start the writer thread");
	a->has_thread = true;
	return 0;
}

static struct acct *acct_free(struct acct *a)
{
	struct item *it;

	if (!a)
		return NULL;
	if (a->has_thread) {
		pthread_mutex_lock(&a->lock);
		a->is_stopping = true;
		pthread_cond_signal(&a->more);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
	}
	reply_done(a); /* queries answered while stopping */
	if (a->lost)
		error("accounting: rows not written at exit; the journal queues their jobs again "
		      "at the next start");
	while (a->lost) {
		it = a->lost;
		a->lost = it->next;
		item_free(it);
	}
	for (it = a->head; it;) { /* only when the thread never ran */
		struct item *next = it->next;

		if (it->req)
			rpc_reply_rc(it->req, -ESLURM_DISABLED);
		it->req = NULL;
		item_free(it);
		it = next;
	}
	if (a->done_ev)
		event_free(a->done_ev);
	if (a->efd >= 0)
		close(a->efd);
	acct_store_close(a->store);
	assoc_store_close(a->astore);
	pthread_cond_destroy(&a->more);
	pthread_mutex_destroy(&a->lock);
	free(a->path);
	free(a);
	return NULL;
}

/* sacctmgr's tables, read before the loop serves (like the store's open). */
static int assoc_load(struct ctld *c, struct acct *a)
{
	struct assoc_dump d;
	int r = assoc_store_open(a->path, &a->astore);

	if (r == 0)
		r = assoc_store_load(a->astore, &d);
	if (r < 0)
		return log_errno(r, "accounting: cannot read the associations of %s", a->path);
	r = assoc_table_load(&c->assoc, &d); /* a broken table leaves it empty */
	assoc_dump_free(&d);
	if (r == 0)
		r = assoc_table_ensure_normal(&c->assoc);
	if (r < 0)
		return log_errno(r, "accounting: the associations of %s are broken", a->path);
	c->assoc.is_loaded = true;
	info("accounting: %u associations, %u QOS", c->assoc.assoc_count, c->assoc.qos_count);
	return 0;
}

static struct acct *acct_new(void)
{
	struct acct *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->efd = -1;
	a->tail = &a->head;
	a->done_tail = &a->done;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->more, NULL);
	return a;
}

static void acct_job_changed(struct ctld *c, struct job *job);
static void acct_job_requeued(struct ctld *c, struct job *job, time_t now);
static bool acct_seq_is_written(const struct ctld *c, uint64_t seq);

/* job_changed() and friends reach accounting through this hook alone. */
static const struct job_hook acct_hook = {
    .changed = acct_job_changed,
    .requeued = acct_job_requeued,
    .is_recorded = acct_seq_is_written,
};

int acct_init(struct ctld *c)
{
	const struct sl_conf *conf = c->conf;
	struct acct *a;
	int r;

	if (!conf_is_acct_enabled(conf)) {
		info("AccountingStorageType=accounting_storage/none: no job accounting");
		return 0;
	}
	a = acct_new();
	if (!a || !(a->path = conf_acct_storage_path(conf))) {
		acct_free(a);
		return log_errno(-ENOMEM, "accounting: out of memory");
	}
	if (strcaseeq(conf->acct_storage_type, "accounting_storage/slurmdbd"))
		info("AccountingStorageType=accounting_storage/slurmdbd: slurmdbd is not used, "
		     "jobs are recorded in %s",
		     a->path);
	/* before the loop runs: the only time the loop thread waits on the file */
	r = acct_store_open(a->path, &a->store);
	if (r < 0) {
		error("accounting: cannot open %s: %s; job accounting is disabled", a->path,
		      sl_strerror(r));
		acct_free(a);
		return 0;
	}
	if (assoc_load(c, a) < 0) /* jobs are still recorded; enforcement refuses them */
		error("accounting: associations unavailable: sacctmgr is refused and "
		      "AccountingStorageEnforce finds no association");
	r = acct_start(c, a);
	if (r < 0) {
		acct_free(a);
		return r;
	}
	r = job_hook_add(c, &acct_hook);
	if (r < 0) {
		acct_free(a);
		return r;
	}
	c->acct = a;
	/* rows queued but not written when the controller stopped (upserts) */
	for (uint32_t i = 0; i < c->job_count; i++)
		acct_job_changed(c, c->jobs[i]);
	info("accounting: job records in %s", a->path);
	return 0;
}

void acct_fini(struct ctld *c)
{
	c->acct = acct_free(c->acct);
	assoc_table_free(&c->assoc);
}

/* Returns the row's queue number, 0 when none was queued. */
static uint64_t queue_row(struct ctld *c, struct item *it, int r)
{
	if (r < 0) {
		struct acct *a = c->acct;

		error("accounting: JobId=%u: no row queued: %s", it->rec.job_id, sl_strerror(r));
		item_free(it);
		pthread_mutex_lock(&a->lock);
		a->has_lost = a->needs_all = true; /* acct_retry_lost queues every job */
		pthread_mutex_unlock(&a->lock);
		return 0;
	}
	return enqueue(c->acct, it);
}

/* Queue the job's row as acct_rec_from_job (now 0) or, for a requeue,
 * acct_rec_requeued (the run that ends at now) builds it. Returns its
 * queue number, 0 when none was queued. */
static uint64_t queue_job(struct ctld *c, const struct job *job, time_t now)
{
	struct item *it;

	if (!c->acct)
		return 0;
	it = calloc(1, sizeof(*it));
	if (!it) {
		error("accounting: JobId=%u: out of memory", job->job_id);
		pthread_mutex_lock(&c->acct->lock);
		c->acct->has_lost = c->acct->needs_all = true; /* acct_retry_lost: every job */
		pthread_mutex_unlock(&c->acct->lock);
		return 0;
	}
	it->kind = ITEM_JOB;
	return queue_row(c, it,
			 now ? acct_rec_requeued(c, job, now, &it->rec)
			     : acct_rec_from_job(c, job, &it->rec));
}

static void acct_job_changed(struct ctld *c, struct job *job)
{
	uint64_t seq = queue_job(c, job, 0);

	job->acct_seq = seq;
	step_mark_recorded(job, seq);
}

static void acct_job_requeued(struct ctld *c, struct job *job, time_t now)
{
	job->acct_seq = queue_job(c, job, now ? now : 1);
}

/* A lost row of a job's current run is written again from the job as it
 * is now (the lost copy may be older than rows written since); a lost
 * row of an earlier run (REQUEUED) or of a job no longer here is queued
 * again as it was. */
void acct_retry_lost(struct ctld *c, time_t now)
{
	struct acct *a = c->acct;
	struct item *lost;
	bool is_lost, needs_all;
	uint32_t n = 0;

	if (!a || now < a->next_retry)
		return;
	pthread_mutex_lock(&a->lock);
	is_lost = a->has_lost;
	needs_all = a->needs_all;
	lost = a->lost;
	a->lost = NULL;
	a->has_lost = a->needs_all = false;
	pthread_mutex_unlock(&a->lock);
	if (!is_lost)
		return;
	a->next_retry = now + LOST_RETRY_S;
	while (lost) {
		struct item *it = lost;
		struct job *job = job_find(c, it->rec.job_id);
		bool is_current = job && job->restart_cnt == it->rec.restart_cnt
				  && job->submit_time == it->rec.submit;

		lost = it->next;
		it->next = NULL;
		it->is_lost = false;
		n++;
		if (!is_current) {
			enqueue(a, it);
			continue;
		}
		item_free(it);
		if (!needs_all) /* else written with every job below */
			acct_job_changed(c, job);
	}
	for (uint32_t i = 0; needs_all && i < c->job_count; i++)
		acct_job_changed(c, c->jobs[i]);
	info("accounting: writing %u lost rows%s again", n, needs_all ? " and every job's" : "");
	pthread_mutex_lock(&a->lock);
	a->barrier_seq = a->queued_seq; /* nothing counts as written before these are */
	pthread_mutex_unlock(&a->lock);
}

static bool acct_seq_is_written(const struct ctld *c, uint64_t seq)
{
	struct acct *a = c->acct;
	bool is_written;

	if (!a)
		return true;
	pthread_mutex_lock(&a->lock);
	is_written =
	    seq && a->written_seq >= seq && a->written_seq >= a->barrier_seq && !a->has_lost;
	pthread_mutex_unlock(&a->lock);
	return is_written;
}

int acct_query(struct ctld *c, struct rpc_req *req, struct acct_query_req *q)
{
	struct item *it;

	if (!c->acct)
		return -ESLURM_DISABLED;
	if (c->acct->queries_waiting >= QUERIES_MAX)
		return -EAGAIN; /* many sacct at once: the writer comes first */
	it = calloc(1, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->kind = ITEM_QUERY;
	it->q = *q;
	*q = (struct acct_query_req){0}; /* the strings are the item's now */
	it->req = req; /* answered by reply_done, on the loop */
	c->acct->queries_waiting++;
	enqueue(c->acct, it);
	return 0;
}

int acct_assoc_save(struct ctld *c, struct rpc_req *req, struct assoc_mgr_resp *resp)
{
	struct item *it;
	int r;

	if (!c->acct)
		return -ESLURM_DISABLED;
	it = calloc(1, sizeof(*it));
	if (!it)
		return -ENOMEM;
	r = assoc_table_dump(&c->assoc, &it->dump);
	if (r < 0) {
		free(it);
		return r;
	}
	it->kind = ITEM_ASSOC;
	it->mgr = *resp;
	*resp = (struct assoc_mgr_resp){0}; /* the item's now */
	it->req = req;
	enqueue(c->acct, it);
	return 0;
}
