/* stepd_proto.h - the private protocol between slurmd and its slurmstepds.
 * Header-only and in common: slurmd and slurmstepd are separate programs,
 * and neither includes the other's folder.
 *
 * Both channels carry the same frame, with no credential (the channel
 * itself is the authentication):
 *   frame := u32 body_len | u16 protocol_version | u16 msg_type | body
 * body packed by the message table (msg.h). Every answer is one
 *   u32 rc (0 or a positive Slurm code), big-endian.
 *
 * 1. Launch. slurmd execs slurmstepd with stdin = a pipe carrying one
 *    REQUEST_BATCH_JOB_LAUNCH or REQUEST_LAUNCH_TASKS frame, stdout = a pipe on which the stepd
 *    writes the rc once it is ready to start the script (socket bound,
 *    script written, output files open) or has failed. The stepd only
 *    starts the script when that rc reached slurmd.
 * 2. Control. Each stepd listens on the unix socket
 *    <SlurmdSpoolDir>/<NodeName>_<jobid>.<stepid> (Slurm's name; the batch
 *    script's step id is 4294967291) and accepts connections from root or
 *    its own uid only (SO_PEERCRED). One request per connection:
 *    REQUEST_SIGNAL_TASKS, REQUEST_TERMINATE_JOB or REQUEST_KILL_TIMELIMIT
 *    with a struct signal_job_msg, or REQUEST_PING (struct empty_msg:
 *    rc 0 while the script runs, ESLURM_ALREADY_DONE after it ended).
 * 3. Completion. When its tasks ended, the stepd writes its
 *    REQUEST_COMPLETE_BATCH_SCRIPT or REQUEST_STEP_COMPLETE frame (with
 *    the end time and usage) to "<socket path>.done" (fsynced, renamed
 *    into place), holds an flock() on it, removes its socket, and sends
 *    the completion until the controller acknowledges it; then it removes
 *    the file. A ".done" file nobody holds is one whose stepd died first:
 *    slurmd resends it (spool.c). So the controller never loses a
 *    completion, and a new run of the job never finds the old socket.
 */
#pragma once
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/msg.h"
#include "common/pack.h"

#define STEPD_BATCH_STEP_ID 4294967291u    /* Slurm's SLURM_BATCH_SCRIPT */
#define STEPD_HDR_LEN 8
#define STEPD_CTL_BODY_MAX (64u << 10)     /* control requests are tiny */

/* "<spool>/<node>_<job>.<step>" into buf (the batch script's step is
 * STEPD_BATCH_STEP_ID); -ENAMETOOLONG when it does not fit (a unix socket
 * path is at most 107 bytes). */
static inline int stepd_step_socket_path(char *buf, size_t size, const char *spool,
					 const char *node, uint32_t job_id, uint32_t step_id)
{
	int n = snprintf(buf, size, "%s/%s_%u.%u", spool, node, (unsigned)job_id,
			 (unsigned)step_id);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The batch script's socket: "<spool>/<node>_<job>.4294967291". */
static inline int stepd_socket_path(char *buf, size_t size, const char *spool, const char *node,
				    uint32_t job_id)
{
	return stepd_step_socket_path(buf, size, spool, node, job_id, STEPD_BATCH_STEP_ID);
}

/* "<spool>/<node>_<job>.<step>.done": the completion kept until taken. */
static inline int stepd_done_path(char *buf, size_t size, const char *spool, const char *node,
				  uint32_t job_id, uint32_t step_id)
{
	int n = snprintf(buf, size, "%s/%s_%u.%u.done", spool, node, (unsigned)job_id,
			 (unsigned)step_id);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Pack one frame into out (zeroed by the caller). 0 or the pack error. */
static inline int stepd_frame_pack(uint16_t type, const void *msg, struct pack_buf *out)
{
	const struct msg_type *t = msg_lookup(type);
	uint32_t be;

	if (!t)
		return -EINVAL;
	pack_u32(out, 0); /* body_len, patched below */
	pack_u16(out, PROTOCOL_VERSION);
	pack_u16(out, type);
	t->pack(msg, out, PROTOCOL_VERSION);
	if (out->err)
		return out->err;
	be = htobe32((uint32_t)(out->len - STEPD_HDR_LEN));
	memcpy(out->data, &be, sizeof(be));
	return 0;
}

/* Header fields; -EBADMSG on a wrong version or a body over max. */
static inline int stepd_frame_header(const uint8_t hdr[STEPD_HDR_LEN], uint32_t max,
				     uint32_t *ret_len, uint16_t *ret_type)
{
	uint32_t len;
	uint16_t ver, type;

	memcpy(&len, hdr, 4);
	memcpy(&ver, hdr + 4, 2);
	memcpy(&type, hdr + 6, 2);
	len = be32toh(len);
	if (be16toh(ver) != PROTOCOL_VERSION || len > max)
		return -EBADMSG;
	*ret_len = len;
	*ret_type = be16toh(type);
	return 0;
}

/* Blocking full write; 0 or -errno (EPIPE when the reader is gone). */
static inline int stepd_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n > 0) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Full read, each wait bounded by timeout_ms (-1: none). 0, -ETIMEDOUT,
 * -ECONNRESET at EOF, or -errno. */
static inline int stepd_read_all(int fd, void *p, size_t n, int timeout_ms)
{
	uint8_t *b = p;

	while (n > 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t r;
		int k = poll(&pfd, 1, timeout_ms);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ETIMEDOUT;
		r = read(fd, b, n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ECONNRESET;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

static inline int stepd_write_rc(int fd, int rc)
{
	uint32_t be = htobe32((uint32_t)(rc < 0 ? -rc : rc));

	return stepd_write_all(fd, &be, sizeof(be));
}
