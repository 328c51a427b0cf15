/* io_proto.h - the task I/O stream between srun and its slurmstepds.
 * Header-only: srun and slurmstepd both include it.
 *
 * Each step's slurmstepd (one per node) opens one TCP connection to the
 * io_host:io_port of its REQUEST_LAUNCH_TASKS and keeps it for the life
 * of the step. Everything on it is a frame, big-endian:
 *
 *   frame := u16 type | u16 gtid | u16 ltid | u32 len | len bytes of payload
 *
 * stepd -> srun
 *   IO_INIT       first frame: payload = u32 node_id | u32 ntasks_here |
 *                 io_key bytes (the launch's io_key, no NUL). srun drops a
 *                 connection whose key is wrong.
 *   IO_STDOUT     task gtid wrote payload on stdout; len 0: its stdout is
 *   IO_STDERR     closed (EOF). Output of one task keeps its order.
 *   IO_TASK_EXIT  task gtid ended: payload = u32 wait status. Sent after
 *                 that task's IO_STDOUT/IO_STDERR EOFs.
 *   IO_MESSAGE    a line from slurmstepd itself for srun's stderr, as is
 *                 (e.g. "slurmstepd: error: *** STEP 12.0 ON n1 CANCELLED
 *                 AT ... ***"), no trailing newline. gtid unused.
 *   IO_PMI_ABORT  --mpi=pmi2/pmix: a task called PMI abort (MPI_Abort):
 *                 payload = u32 exit code; srun terminates the whole step.
 *   IO_PMI_FENCE  --mpi=pmi2: every local task entered a PMI fence; the
 *                 payload is a chunk of the node's puts since the last
 *                 fence, records u32 klen | key | u32 vlen | value; ltid 1:
 *                 more chunks follow, 0: the last one.
 * srun -> stepd
 *   IO_STDIN      payload for task gtid's stdin; len 0: close it (EOF).
 *   IO_ALLSTDIN   payload for every task of this node; len 0: EOF to all.
 *   IO_SIGNAL     payload = u32 signal number, for every task of the step
 *                 on this node (srun forwarding Ctrl-C and friends).
 *   IO_WINSIZE    --pty: payload = u16 rows | u16 cols of srun's terminal,
 *                 for task gtid's pseudo-terminal (sent at the start and
 *                 on every SIGWINCH).
 *   IO_PMI_KVS    every node's IO_PMI_FENCE arrived: the puts of all of
 *                 them, as chunks of the same records (ltid 1: more
 *                 follow, 0: the last), sent to every node; it ends the
 *                 fence there.
 *
 * The stepd closes the connection after its last IO_TASK_EXIT. When srun
 * goes away first (EOF or error on the connection before every task
 * ended), the stepd kills the step's tasks: nobody is left to read them.
 */
#pragma once
#include <endian.h>
#include <stdint.h>
#include <string.h>

enum io_type {
	IO_STDIN = 0,
	IO_STDOUT = 1,
	IO_STDERR = 2,
	IO_ALLSTDIN = 3,
	IO_INIT = 10,
	IO_TASK_EXIT = 11,
	IO_MESSAGE = 12,
	IO_SIGNAL = 13,
	IO_PMI_FENCE = 14,
	IO_PMI_KVS = 15,
	IO_WINSIZE = 16,
	IO_PMI_ABORT = 17,
};

#define IO_HDR_LEN 10u
#define IO_PAYLOAD_MAX (64u << 10) /* a larger len is a protocol error */

struct io_hdr {
	uint16_t type;
	uint16_t gtid;
	uint16_t ltid;
	uint32_t len;
};

static inline void io_hdr_pack(const struct io_hdr *h, uint8_t out[IO_HDR_LEN])
{
	uint16_t t = htobe16(h->type), g = htobe16(h->gtid), l = htobe16(h->ltid);
	uint32_t n = htobe32(h->len);

	memcpy(out, &t, 2);
	memcpy(out + 2, &g, 2);
	memcpy(out + 4, &l, 2);
	memcpy(out + 6, &n, 4);
}

/* 0, or -1 when len is over IO_PAYLOAD_MAX. */
static inline int io_hdr_unpack(const uint8_t in[IO_HDR_LEN], struct io_hdr *h)
{
	uint16_t t, g, l;
	uint32_t n;

	memcpy(&t, in, 2);
	memcpy(&g, in + 2, 2);
	memcpy(&l, in + 4, 2);
	memcpy(&n, in + 6, 4);
	h->type = be16toh(t);
	h->gtid = be16toh(g);
	h->ltid = be16toh(l);
	h->len = be32toh(n);
	return h->len > IO_PAYLOAD_MAX ? -1 : 0;
}
