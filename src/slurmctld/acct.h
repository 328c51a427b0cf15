/* acct.h - the controller's accounting store (docs/design.md, "Accounting").
 *
 * AccountingStorageType=accounting_storage/sqlite (the default; also used
 * for accounting_storage/slurmdbd, which we do not speak) keeps one row
 * per job run and one per step in an SQLite file: AccountingStorageLoc,
 * or StateSaveLocation/job_accounting.db. accounting_storage/none turns it
 * off (sacct then says so).
 *
 * The event loop never touches the file. Every journaled change of a job
 * (job_changed(), through the hook acct_init registers) queues a snapshot
 * of the job and its steps; one accounting thread writes the queue in transactions and answers
 * REQUEST_ACCT_QUERY in queue order, so a query sees every change queued before it. Replies come
 * back to the loop through an eventfd.
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
struct acct_query_req;
struct rpc_req;
struct assoc_mgr_resp;

/* After durable_init(): open the store, start the thread, queue every job
 * in the table. A store that cannot be opened is logged and accounting is
 * off (queries answer ESLURM_DISABLED); returns a negative code only when
 * the thread or its eventfd cannot be made. */
int acct_init(struct ctld *c);
/* Write what is queued, stop the thread, close the store. NULL-safe state. */
void acct_fini(struct ctld *c);
/* From the job timer: after rows could not be written (disk full, a
 * locked file), queue them again, at most once a minute (a job's current
 * row rebuilt from the job; every job when a row could not even be
 * queued), so that the store catches up and MinJobAge purging resumes
 * without a restart. */
void acct_retry_lost(struct ctld *c, time_t now);
/* REQUEST_ACCT_QUERY: queue q (its strings taken, *q zeroed) for req,
 * answered on the loop once the thread has run it, after every row queued
 * before it. -ESLURM_DISABLED when accounting is off, -EAGAIN when too
 * many queries wait (the client retries), -ENOMEM; q is untouched then. */
int acct_query(struct ctld *c, struct rpc_req *req, struct acct_query_req *q);
/* sacctmgr: save the association table as it is now (a copy) through the
 * thread, then answer req (NULL: nobody) with resp (taken, *resp zeroed;
 * its rc set when the save failed). -ESLURM_DISABLED when accounting is
 * off, -ENOMEM; resp untouched then. */
int acct_assoc_save(struct ctld *c, struct rpc_req *req, struct assoc_mgr_resp *resp);
