/* job_state.h - the controller's durable records: what the journal (and a
 * snapshot) holds, packed with the wire primitives.
 *
 *   record := u8 type (enum journal_rec_type) | u16 version | body
 *
 * JOURNAL_REC_JOB carries a whole struct job, the allocation with each
 * node's NAME beside its index (recovery maps names back to the indexes of
 * the slurm.conf in force, which may have changed) and the job_desc it
 * was submitted with; since version 2 also the batch step's usage
 * (job->batch_usage) and every step of job->steps, running or finished,
 * each with its node records named the same way (job_node is found again
 * in the re-sorted allocation). JOURNAL_REC_SEQ carries the job-id
 * counter. Each record is the full state of its key: on replay the last
 * one wins. A later field is added at the end of the body under a new
 * version; unpack reads older versions (a version 1 job has no steps and
 * zero usage) and refuses newer ones and leftover bytes.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

struct job;
struct pack_buf;

enum journal_rec_type {
	JOURNAL_REC_JOB = 1,
	JOURNAL_REC_SEQ = 2,
	JOURNAL_REC_GONE = 3, /* a job purged: replay forgets it */
};

#define JOB_STATE_VERSION 5     /* JOURNAL_REC_JOB body; 2: + batch_usage, steps;
				 * 3: + blob references; 4: + nodes owing an Epilog,
				 * EpilogSlurmctld running; 5: + ResvID */
#define JOB_STATE_SEQ_VERSION 1 /* JOURNAL_REC_SEQ body */
#define JOB_STATE_GONE_VERSION 1 /* JOURNAL_REC_GONE body */

/* Node index -> name at pack time; NULL for an index it does not know. */
typedef const char *job_state_node_name_fn(void *arg, uint32_t index);
/* Node name -> index at unpack time: 0, or -ENOENT for a node no longer
 * configured (any other negative code is passed through). */
typedef int job_state_node_index_fn(void *arg, const char *name, uint32_t *ret_index);

struct job_state_seq {
	uint32_t next_job_id;
	uint32_t lowest_prio;
};

/* The type of a record (its first byte), or -EBADMSG when it is empty.
 * For dispatching in a journal_rec_fn. */
int job_state_rec_type(const uint8_t *data, size_t len);

/* Append a JOURNAL_REC_JOB for job to b. name_fn names each node of the
 * allocation and of each step. Returns 0, or -ENOENT when name_fn has no
 * name for a node, -EINVAL for a bad argument, or b's error (-ENOMEM); on
 * failure b->err is set (sticky) and b must be discarded. */
int job_state_pack(const struct job *job, job_state_node_name_fn *name_fn, void *arg,
		   struct pack_buf *b);
/* Rebuild a job from one whole JOURNAL_REC_JOB. index_fn maps each node's
 * name (allocation and steps) to its current index (the allocation is
 * then re-sorted by index); with index_fn NULL the packed indexes are
 * trusted (tools, tests). A finished step on a node that is gone is kept
 * without node records (node_count 0; nodes_str still names them).
 * *ret (free with job_free) is set only on success. Returns 0; -ENOENT
 * (or index_fn's code) for a node of the allocation or of a running step
 * that is gone; -EBADMSG for another record type, a bad value, leftover
 * bytes, two nodes mapping to one index, a running step on a node outside
 * the allocation, or steps out of id order; -EPROTONOSUPPORT for a newer
 * version; pack.h's codes for short or oversized input; -ENOMEM. */
int job_state_unpack(const uint8_t *data, size_t len, job_state_node_index_fn *index_fn,
		     void *arg, struct job **ret);

/* JOURNAL_REC_SEQ: the next job id to hand out and priority/basic's
 * lowest priority so far. Same conventions as the job pair. */
int job_state_seq_pack(const struct job_state_seq *seq, struct pack_buf *b);
int job_state_seq_unpack(const uint8_t *data, size_t len, struct job_state_seq *ret);

/* JOURNAL_REC_GONE: job_id left the table (MinJobAge purge); a replay
 * drops the job its earlier records made. Same conventions. */
int job_state_gone_pack(uint32_t job_id, struct pack_buf *b);
int job_state_gone_unpack(const uint8_t *data, size_t len, uint32_t *ret_job_id);
