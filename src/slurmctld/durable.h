/* durable.h - jobs reach the disk before anyone is told about them.
 *
 * Every change of a job (job_changed(), through the hook durable_init
 * registers) appends its whole record to the journal
 * (journal.c); all changes of one loop turn are written and fsynced
 * together by one low-priority event that runs after the turn's requests
 * (group commit), and only then are the replies that depend on them sent.
 * So a job id printed by sbatch is on disk, and kill -9 of the controller
 * at any moment loses no such job. At start the journal is replayed, the
 * running jobs' resources are charged to their nodes again, and the log is
 * compacted to the live jobs.
 *
 * When StateSaveLocation cannot be written (full, read-only, EIO), the
 * submissions waiting for the failed commit are refused and their jobs
 * cancelled; other replies waiting for it are held (the change is retried
 * every second, and replied to once it is on disk); requests that would change
 * saved state are refused (durable_admit), reads go on, and the first
 * write that succeeds again ends it ("StateSaveLocation writable again").
 * A journal that cannot be read at start stops the controller, naming the
 * file and the offset; with -i what could be read is kept, and the file is
 * set aside as job_journal.bad.<time>. A torn last record is dropped.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#define DURABLE_SEQ_NEVER UINT64_MAX /* job->saved_seq: it could not be journaled */

struct ctld;
struct job;
struct journal;
struct rpc_req;

/* Makes c->durable (the journal, the held replies) and c->commit_ev, and
 * replays; after nodes and partitions. */
int durable_init(struct ctld *c);
/* Commits what is pending and frees c->durable; also after a failed
 * durable_init(), and a second time. */
void durable_fini(struct ctld *c);
/* 0 when a request of msg_type may be handled now, else the code to
 * refuse it with: while StateSaveLocation cannot be written, the requests
 * that change journaled jobs or node states get ESLURM_WRITING_TO_FILE
 * ("I/O error writing script/environment to file", Slurm's code for a
 * failed state write), and slurmstepd's job and step ends the write's
 * errno, which it retries. Reads are always admitted. */
int durable_admit(const struct ctld *c, uint16_t msg_type);
/* Commit (or retry a failed commit) at the end of this loop turn. */
void durable_commit_now(struct ctld *c);
/* The first record of job (its submission) is on disk, so it may start:
 * no job runs that a crash could make the controller forget. A pass that
 * is told no here is asked for again after the next commit. */
bool durable_job_is_saved(struct ctld *c, const struct job *job);
/* Reply with msg (owned: freed with msg_free) once everything journaled so
 * far is on disk. A submission's reply (RESPONSE_SUBMIT_BATCH_JOB,
 * RESPONSE_RESOURCE_ALLOCATION) whose job cannot be journaled, or whose
 * commit fails, is answered ESLURM_WRITING_TO_FILE at once and the job is
 * cancelled, never run: the client knows it failed and may resubmit
 * without a duplicate appearing once the disk has room again. */
void rpc_reply_durable(struct ctld *c, struct rpc_req *req, uint16_t type, void *msg);

/* ---- exposed for unit testing only ---------------------------------- */

/* The log (size bytes) is due for a rewrite to the live jobs, the last
 * rewrite having left live bytes: past 16 MB and 3 times live. */
bool durable_compact_is_due(uint64_t size, uint64_t live);
/* The open journal (borrowed), NULL before durable_init() or after
 * durable_fini(). */
struct journal *durable_journal(const struct ctld *c);
