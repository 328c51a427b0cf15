/* acct_store.h - the SQLite file behind accounting. Used only by the
 * accounting thread (acct.c); nothing here touches controller state, so it
 * is unit-tested on a temporary file.
 *
 * Tables: job (one row per job run, key job_id + submit + restart_cnt, with a
 * growing row index `inx` that pages queries) and step (key job row +
 * step id; the batch step is stored as -5 so it sorts before step 0).
 * The file is in WAL mode with synchronous=FULL: a committed transaction
 * survives a crash of the controller and of the machine.
 */
#pragma once
#include <stdint.h>

struct acct_job_rec;
struct acct_query_req;
struct acct_query_resp;
struct acct_store;

/* Open (creating the file 0600 and the schema when missing). Returns 0 or
 * a negative code; *ret set only on success. */
int acct_store_open(const char *path, struct acct_store **ret);
void acct_store_close(struct acct_store *st); /* NULL-safe */

/* Group writes: one transaction (and one fsync) per batch. */
int acct_store_begin(struct acct_store *st);
int acct_store_commit(struct acct_store *st);

/* Insert or replace the job's row (rec->inx ignored; an existing row keeps
 * its index) and each of rec->steps (the steps not in rec are left as
 * they are). Returns 0 or a negative code: -E2BIG or -EINVAL when the
 * store refuses this row itself (too big, a constraint), which no retry
 * mends. */
int acct_store_put(struct acct_store *st, const struct acct_job_rec *rec);

/* Rows (by index) one query page looks at, whatever its filters: a page
 * that matched nothing in them still ends, with is_more and last at the
 * end of the range, so no query holds the thread for long (tests lower it). */
extern uint32_t acct_store_scan_rows;
/* Jobs with inx > q->after matching every filter of q, in inx order, at
 * most q->limit (clamped to 1..ACCT_Q_LIMIT_MAX), each with its steps in
 * step order (batch first) unless q->flags has ACCT_Q_NO_STEPS. q->uids is
 * taken as given (NULL: every user); the caller resolved "own jobs" and
 * PrivateData before. Fills resp->jobs/count/last/is_more (owned by resp).
 * Returns 0 or a negative code (resp then empty). */
int acct_store_query(struct acct_store *st, const struct acct_query_req *q,
		     struct acct_query_resp *resp);
