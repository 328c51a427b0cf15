/* journal.h - the controller's append-only record log (docs/design.md,
 * "Durability"), file `job_journal` in StateSaveLocation.
 *
 *   record := u32 len (big-endian) | u32 crc32c(payload) (big-endian) | payload
 *
 * Payloads are opaque here (job_state.h gives them meaning). Records are
 * appended to an in-memory batch and made durable together by
 * journal_commit(): one write and one fdatasync for every mutation of an
 * event-loop iteration (group commit). A failed commit (ENOSPC, EIO, EROFS)
 * leaves the file as it was before it, so no half record ever sits in
 * front of a later one.
 * At load, a bad record with no whole record after it is a torn tail (a
 * crash during the last append): it is dropped and the file truncated so
 * new records follow good ones. A bad record WITH whole records after it
 * is corruption of committed data: the replay refuses, and the caller
 * decides (slurmctld stops, or with -i sets the file aside).
 * Caveat: not thread-safe; one owner (the event loop).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

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

/* Call fn on every valid record in order, up to the first bad one (short,
 * a length of 0 or over JOURNAL_REC_MAX, or a CRC mismatch); the bad
 * record is logged with the file's name and its offset.
 * - None: returns 0.
 * - A torn tail (no whole record after the bad one): it is dropped, the
 *   file truncated back to the end of the last good record (and synced);
 *   returns 0, journal_dropped_bytes() says how much.
 * - Corruption (whole records after the bad one): the file is left
 *   untouched and journal_bad_offset() gives the offset; returns -EBADMSG,
 *   or 0 when is_salvage (the caller keeps what fn got, and should
 *   journal_set_aside() the file before writing).
 * fn returning <0 stops the replay and returns that code, with the
 * record's offset in journal_bad_offset(); nothing is truncated then.
 * Other errors: -errno from mmap/ftruncate/fdatasync.
 * Pending (uncommitted) records are not seen and stay pending. */
int journal_replay(struct journal *j, bool is_salvage, journal_rec_fn *fn, void *arg);
/* Bytes dropped (torn tail) or not read (corruption) by the last replay. */
uint64_t journal_dropped_bytes(const struct journal *j);
/* Offset of the corrupt record (or of the one fn refused) found by the
 * last replay; -1 when there was none. */
int64_t journal_bad_offset(const struct journal *j);
/* After a salvage replay met corruption: call fn on every whole record
 * found past the damage, resyncing byte by byte. Such records may be
 * anything that happens to frame and check (even bytes inside a job's
 * script), so they are hints, not state: slurmctld only reads job ids
 * from them, never to hand one out again. Returns 0, fn's code, -EINVAL
 * (no corruption found) or -errno from mmap. */
int journal_scan_damaged(struct journal *j, journal_rec_fn *fn, void *arg);
/* Keep the log as it is under job_journal.bad.<now> (never replacing a
 * file: .bad.<now>.1 and so on) and go on with a new, empty job_journal;
 * pending records stay pending. ret_name (len bytes) gets the name kept.
 * Returns 0 or -errno; the log is then unchanged, or (when only the new
 * file could not be made) no longer named job_journal. */
int journal_set_aside(struct journal *j, time_t now, char *ret_name, size_t len);
/* The same for any file name in the directory dir_fd (node_state): a hard
 * link to the new name, then the old name removed, the directory synced. */
int journal_file_set_aside(int dir_fd, const char *name, time_t now, char *ret_name, size_t len);

/* Copy one record into the pending batch; nothing is written yet.
 * Returns 0, -EINVAL (len 0, or data NULL), -EMSGSIZE (len over
 * JOURNAL_REC_MAX) or -ENOMEM; the batch is unchanged on failure. */
int journal_append(struct journal *j, const void *data, size_t len);
bool journal_has_pending(const struct journal *j);
/* The number of the last record appended, and of the last one durable:
 * record N is on disk once journal_committed_seq() >= N. Numbers start
 * past JOURNAL_SEQ_OPENED, which stands for what the file held at open. */
#define JOURNAL_SEQ_OPENED 1
uint64_t journal_seq(const struct journal *j);
uint64_t journal_committed_seq(const struct journal *j);
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

/* The same without blocking the caller on the disk: recs are framed into
 * one buffer now (the caller may free them on return), and a thread
 * writes and fsyncs job_journal.new. Commits go on meanwhile into the old
 * log; the batches committed are also kept, and appended to the new file
 * when journal_compact_poll() finds the thread done. Returns 0, -EBUSY
 * (one is running), -EINVAL/-EMSGSIZE (a bad record), -ENOMEM or -errno
 * (open, thread). */
int journal_compact_start(struct journal *j, const struct iovec *recs, size_t n);
bool journal_compact_is_running(const struct journal *j);
/* -EINPROGRESS while the thread writes. Then: the committed batches are
 * appended to the new file, synced, and it is renamed over the log, which
 * is used from then on: 0, with *ret_size (may be NULL) the size of the
 * rewritten live records alone. On a failure the new file is removed and
 * the old log, complete, stays in use: -errno. A failed directory fsync
 * after the rename returns -errno with the new log in use (as
 * journal_compact). journal_free() waits for a running thread. */
int journal_compact_poll(struct journal *j, uint64_t *ret_size);

/* Committed bytes in the log file (what compaction would shrink). */
uint64_t journal_size(const struct journal *j);

/* Exposed for unit tests only: the calls every write to the log goes
 * through, so a test can fail them (ENOSPC part way through a write, EIO
 * from fdatasync). NULL restores the real ones. */
struct journal_syscalls {
	ssize_t (*writev)(int fd, const struct iovec *iov, int n);
	int (*fdatasync)(int fd);
	int (*fsync)(int fd);
	int (*ftruncate)(int fd, off_t len);
};
void journal_set_syscalls(struct journal *j, const struct journal_syscalls *sys);
