/* journal.h - the controller's append-only record log (DESIGN "Controller
 * state and durability"), file `job_journal` in StateSaveLocation.
 *
 *   record := u32 len (big-endian) | u32 crc32c(payload) (big-endian) | payload
 *
 * Payloads are opaque here (job_state.h gives them meaning). Records are
 * appended to an in-memory batch and made durable together by
 * journal_commit(): one write and one fdatasync for every mutation of an
 * event-loop iteration (group commit). The log is valid up to its first bad
 * record; recovery drops everything from there on (a torn tail after a
 * crash) and truncates the file so new records follow good ones.
 * Caveat: not thread-safe; one owner (the event loop).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JOURNAL_FILE "job_journal"
#define JOURNAL_FILE_NEW "job_journal.new"   /* compaction's temporary */
#define JOURNAL_REC_MAX (64u << 20)         /* payload cap; longer = corrupt */
#define JOURNAL_HDR_LEN 8u

struct iovec;
struct journal;

/* Called once per record, in file order. data is borrowed and valid only
 * during the call. Return 0 to go on, or <0 to stop the replay with that
 * code. */
typedef int journal_rec_fn(void *arg, const uint8_t *data, size_t len);

/* Open dir/job_journal, creating it (0600, and fsyncing dir so the new
 * name is durable) when missing. dir must exist. A job_journal.new left by
 * a compaction that crashed before its rename is removed. Both descriptors
 * are O_CLOEXEC; the log is O_APPEND. *ret is set only on success.
 * Returns 0, -EINVAL, -ENOMEM or -errno from open/stat. */
int journal_open(const char *dir, struct journal **ret);
/* Close without committing (pending records are lost). NULL-safe;
 * returns NULL. */
struct journal *journal_free(struct journal *j);

/* Call fn on every valid record in order. At the first record that is
 * short, has a length of 0 or over JOURNAL_REC_MAX, or fails its CRC, the
 * replay stops, and that record and EVERYTHING after it are dropped: the
 * file is truncated back to the end of the last good record (and synced),
 * the count is logged (info for a torn last record, error for damage
 * before the end) and kept for journal_dropped_bytes(). Such a tail is not
 * an error: the return is 0.
 * fn returning <0 stops the replay and returns that code; nothing is
 * truncated then. Other errors: -errno from mmap/ftruncate/fdatasync.
 * Pending (uncommitted) records are not seen and stay pending. */
int journal_replay(struct journal *j, journal_rec_fn *fn, void *arg);
/* Bytes dropped by the last journal_replay() (0 when the log was clean). */
uint64_t journal_dropped_bytes(const struct journal *j);

/* Copy one record into the pending batch; nothing is written yet.
 * Returns 0, -EINVAL (len 0, or data NULL), -EMSGSIZE (len over
 * JOURNAL_REC_MAX) or -ENOMEM; the batch is unchanged on failure. */
int journal_append(struct journal *j, const void *data, size_t len);
bool journal_has_pending(const struct journal *j);
/* Write the whole pending batch with one write (looping only on short
 * writes) and make it durable with one fdatasync; then the batch is
 * empty. Nothing pending: returns 0 without any system call. On failure
 * returns -errno, keeps the batch (commit again to retry) and cuts the
 * file back to its last committed size, so a half-written batch never
 * stays in front of later records. */
int journal_commit(struct journal *j);

/* Replace the log by exactly recs[0..n) (n may be 0: an empty log):
 * written to job_journal.new, fsynced, renamed over job_journal, the
 * directory fsynced, and the journal then appends to the new file. A
 * crash at any point leaves either the old log or the new one. Records
 * pending at the call stay pending and follow the new records at the
 * next commit (the last record of a key wins on replay, so that is safe).
 * Returns 0; -EINVAL/-EMSGSIZE for a bad record (checked before anything
 * is written); -errno from the file system, with the old log in place and
 * still in use, except for a failed directory fsync (-errno after the
 * rename): then the new log is in use but its name may not be durable,
 * and the caller should compact again. */
int journal_compact(struct journal *j, const struct iovec *recs, size_t n);

/* Committed bytes in the log file (what compaction would shrink). */
uint64_t journal_size(const struct journal *j);
