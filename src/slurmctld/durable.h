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
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct ctld;
struct job;
struct rpc_req;

int durable_init(struct ctld *c);   /* replay; after nodes and partitions */
void durable_fini(struct ctld *c);  /* commits what is pending */
/* The log (size bytes) is due for a rewrite to the live jobs, the last
 * rewrite having left live bytes: past 16 MB and 3 times live (exposed for
 * unit tests). */
bool durable_compact_is_due(uint64_t size, uint64_t live);
/* Reply with msg (owned: freed with msg_free) once everything journaled so
 * far is on disk. */
void rpc_reply_durable(struct ctld *c, struct rpc_req *req, uint16_t type, void *msg);
