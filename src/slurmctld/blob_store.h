/* blob_store.h - jobs' scripts and environments kept in StateSaveLocation,
 * not in the controller's memory, and read back when a job starts (Slurm
 * keeps them as files of its state directory too).
 *
 * A blob is immutable bytes named by their SHA-256. Jobs with the same
 * script or environment (a sweep, an array's tasks) share one, counted;
 * the last blob_unref() forgets it. New blobs are appended to the current
 * segment file, `job_blobs.<N>` (0600), at offsets fixed when they are
 * made; blob_store_sync() writes and fdatasyncs them, and durable.c calls
 * it before each journal commit, so a journaled record never names bytes
 * that are not on disk. A segment is removed once it is not the current
 * one and holds no live blob; a new one begins past BLOB_SEG_MAX bytes and
 * at every start (a segment is never appended to after a restart, so a
 * torn tail is never written after). Bytes read back are checked against
 * their digest: a damaged or missing file fails the read (the job's launch
 * fails), it never yields other bytes.
 * With no directory (blob_store_open(NULL)) the bytes stay in memory.
 * Caveat: not thread-safe; one owner (the event loop). Its writes and
 * their fdatasync run on the loop in the group commit, beside the
 * journal's, and a launch's read is one pread on the loop (recent blobs
 * are in the page cache), as Slurm reads a job's script file.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

#define BLOB_SEG_PREFIX "job_blobs."
#define BLOB_SEG_MAX	(64u << 20) /* a segment this big is closed for appends */
#define BLOB_MAX	(64u << 20) /* one blob; longer is refused (a job record's cap) */

struct blob;
struct blob_store;
struct pack_buf;

/* Open the store of directory dir (created files go there), or a store
 * in memory when dir is NULL. The current segment is one past every
 * `job_blobs.N` there. *ret is set only on success; -errno otherwise. */
int blob_store_open(const char *dir, struct blob_store **ret);
/* Frees the store; blobs still referenced are detached from it (their
 * blob_unref only frees them). NULL-safe. */
void blob_store_free(struct blob_store *s);

/* A reference to the blob of len bytes at data: found by digest, or made
 * (its bytes wait for blob_store_sync()). NULL on ENOMEM or len over
 * BLOB_MAX. */
struct blob *blob_put(struct blob_store *s, const void *data, size_t len);
/* One more reference to b (returned). */
struct blob *blob_ref(struct blob *b);
/* Drops a reference; NULL-safe. The last one forgets the blob, and the
 * segment it was in when that was its last live blob (not the current). */
void blob_unref(struct blob *b);
/* Its length in bytes. */
size_t blob_len(const struct blob *b);

/* A malloc'd copy of b's bytes (plus a NUL past them, not counted) in
 * *ret, length *ret_len. -EINVAL for a blob of no store, -ENOENT when its
 * segment is gone, -EIO when the bytes read are not the blob's, -errno,
 * -ENOMEM. */
int blob_read(const struct blob *b, uint8_t **ret, size_t *ret_len);

/* Write the blobs made since the last sync to the current segment and
 * fdatasync it (creating it, and syncing the directory, the first time).
 * 0 with nothing to write (or s NULL). A failed sync leaves them pending: the next
 * call writes them again at the same offsets. -errno. */
int blob_store_sync(struct blob_store *s);
/* Remove the segment files no live blob is in (at start, after every job
 * took its blobs). Returns how many were removed. */
unsigned blob_store_sweep(struct blob_store *s);
/* Blobs alive and their bytes (sdiag, tests). */
void blob_store_stats(const struct blob_store *s, uint64_t *ret_blobs, uint64_t *ret_bytes);

/* A reference in a durable record: segment, offset, length, digest. */
void blob_pack_ref(const struct blob *b, struct pack_buf *p);
/* Unpacks one into a blob of no store (one reference), to blob_adopt().
 * NULL with p->err set when short, or -EBADMSG for a length over
 * BLOB_MAX. */
struct blob *blob_unpack_ref(struct pack_buf *p);
/* The store's blob for detached d's digest (d's reference moves to it and
 * d is freed), or d itself taken into the store. NULL-safe. */
struct blob *blob_adopt(struct blob_store *s, struct blob *d);
