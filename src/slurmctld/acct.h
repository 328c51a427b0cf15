/* acct.h - the controller's accounting store (DESIGN "Accounting").
 *
 * AccountingStorageType=accounting_storage/sqlite (the default; also used
 * for accounting_storage/slurmdbd, which we do not speak) keeps one row
 * per job run and one per step in an SQLite file: AccountingStorageLoc,
 * or StateSaveLocation/job_accounting.db. accounting_storage/none turns it
 * off (sacct then says so).
 *
 * The event loop never touches the file. Every journaled change of a job
 * (job_touch) queues a snapshot of the job and its steps; one accounting
 * thread writes the queue in transactions and answers REQUEST_ACCT_QUERY
 * in queue order, so a query sees every change queued before it. Replies
 * come back to the loop through an eventfd.
 *
 * Nothing is lost when the controller dies: at start every job the
 * journal brought back is queued again (rows are upserts keyed by job id
 * and run), and MinJobAge purging waits until the queue is written, so a
 * job leaves the journal only after its final row is on disk.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct job;
struct rpc_req;

/* After durable_init(): open the store, start the thread, queue every job
 * in the table. A store that cannot be opened is logged and accounting is
 * off (queries answer ESLURM_DISABLED); returns a negative code only when
 * the thread or its eventfd cannot be made. */
int acct_init(struct ctld *c);
/* Write what is queued, stop the thread, close the store. NULL-safe state. */
void acct_fini(struct ctld *c);
/* The job changed (called by job_touch): queue its row and its steps'.
 * Steps that are over are marked with the snapshot's number
 * (step_mark_recorded), so that they may leave the job once it is written. */
void acct_job_changed(struct ctld *c, struct job *job);
/* The job's current run ends REQUEUED at now (before it is reset to
 * PENDING with restart_cnt + 1, which starts a new row). */
void acct_job_requeued(struct ctld *c, struct job *job, time_t now);
/* From the job timer: after rows could not be written (disk full, a
 * locked file), queue them again, at most once a minute (a job's current
 * row rebuilt from the job; every job when a row could not even be
 * queued), so that the store catches up and MinJobAge purging resumes
 * without a restart. */
void acct_retry_lost(struct ctld *c, time_t now);
/* Snapshot seq (job->acct_seq, a step's acct_seq; 0: none) is committed,
 * and no row is lost; always true when accounting is off. A job leaves
 * memory (MinJobAge) only once its latest row is written. */
bool acct_seq_is_written(const struct ctld *c, uint64_t seq);
/* REQUEST_ACCT_QUERY (rpc_table.c). */
int rpc_acct_query(struct ctld *c, struct rpc_req *req);
