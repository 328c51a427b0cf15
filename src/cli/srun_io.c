/* srun_io.c - srun's poll loop over its step; see srun_io.h.
 *
 * Purpose: accept each node's stepd connection (IO_INIT with the right
 * key), print task output as srun_out.c shapes it, feed stdin once every
 * node is connected, collect IO_TASK_EXIT statuses and report them per
 * node as Slurm does ("srun: error: n1: tasks 0-3: Exited with exit code
 * 1"), answer SRUN_* notices, and act on signals the way Slurm's srun
 * does (first Ctrl-C prints the step's status, a second within a second
 * forwards SIGINT, more force the termination; SIGTERM/SIGHUP/SIGQUIT
 * force it; other signals are forwarded).
 * Owns: every connection it accepts (closed when the loop ends, which
 * tells the stepds to kill what is left).
 * Caveat: output goes out with blocking writes: a slow reader of srun's
 * stdout slows the tasks down, as a pipe would, and nothing is dropped.
 */
#include "cli/srun_io.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/alloc_client.h"
#include "cli/alloc_sig.h"
#include "cli/srun_fmt.h"
#include "cli/srun_out.h"
#include "cli/srun_step.h"
#include "common/conf.h"
#include "common/io_proto.h"
#include "common/log.h"
#include "common/msg.h"

#define RBUF_CAP (IO_HDR_LEN + IO_PAYLOAD_MAX)
#define STDIN_QUEUE_MAX (1u << 20) /* stop reading stdin while this much waits */
#define CONNECT_TIMEOUT_MS 60000   /* a launched node that never connects: lost */
#define CLOSE_GRACE_MS 2000	   /* after the last exit, wait this long for EOFs */
#define STATUS_LOST (-1)
#define PMI_KVS_MAX (64u << 20) /* one node's puts of one fence */

struct io_conn {
	int fd;
	bool authed;
	uint32_t node;
	uint8_t *rbuf;
	size_t rlen;
	struct srun_buf w; /* frames waiting to go out */
	size_t wpos;
	struct srun_buf pmi; /* --mpi=pmi2: this node's puts of the current fence */
	bool is_in_fence;    /* its last IO_PMI_FENCE chunk came */
};

struct io_task {
	bool exited;
	bool reported;	/* its end was already printed (-K) */
	int status; /* wait status, or STATUS_LOST */
	struct srun_out_stream out[2];
};

struct srun_io {
	const struct srun_io_cfg *c;
	struct io_conn *conns;
	size_t nconns;
	struct io_task *tasks;
	uint32_t nexited;
	uint32_t *node_left;   /* tasks not yet ended, per node */
	bool *node_seen;       /* connected (IO_INIT accepted) */
	uint32_t nodes_seen, nodes_launched;
	struct srun_out_fmt fmt;
	struct srun_buf scratch;
	bool stdin_open;
	int64_t start_ms, last_int_ms, first_exit_ms, abort_ms, done_ms;
	int int_sent, kill_sent;
	bool max_wait_fired, quit;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = {.fd = fd, .events = POLLOUT};

			(void)poll(&pf, 1, 1000);
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* EPIPE: nobody reads any more */
		p += w;
		n -= (size_t)w;
	}
}

static uint32_t step_id(const struct srun_io *io)
{
	return io->c->resp->step_id;
}

static uint32_t job_id(const struct srun_io *io)
{
	return io->c->resp->job_id;
}

/* ---- frames to the stepds ---- */

static void queue_frame(struct io_conn *k, uint16_t type, uint16_t gtid, uint16_t ltid,
			const void *data, uint32_t len)
{
	struct io_hdr h = {.type = type, .gtid = gtid, .ltid = ltid, .len = len};
	uint8_t hdr[IO_HDR_LEN];

	if (k->fd < 0)
		return;
	io_hdr_pack(&h, hdr);
	if (srun_buf_add(&k->w, hdr, sizeof(hdr)) < 0 || srun_buf_add(&k->w, data, len) < 0)
		error("out of memory queueing task input");
}

static void flush_conn(struct io_conn *k)
{
	while (k->fd >= 0 && k->wpos < k->w.len) {
		ssize_t n = send(k->fd, k->w.data + k->wpos, k->w.len - k->wpos, MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			k->w.len = k->wpos = 0; /* the read side notices the loss */
			return;
		}
		k->wpos += (size_t)n;
	}
	k->w.len = k->wpos = 0;
}

static void forward_signal(struct srun_io *io, int sig)
{
	uint32_t be = htobe32((uint32_t)sig);

	for (size_t i = 0; i < io->nconns; i++)
		if (io->conns[i].authed) {
			queue_frame(&io->conns[i], IO_SIGNAL, 0, 0, &be, sizeof(be));
			flush_conn(&io->conns[i]);
		}
}

static struct io_conn *conn_of_node(struct srun_io *io, uint32_t node)
{
	for (size_t i = 0; i < io->nconns; i++)
		if (io->conns[i].authed && io->conns[i].node == node && io->conns[i].fd >= 0)
			return &io->conns[i];
	return NULL;
}

/* ---- status ---- */

static void print_group(struct srun_io *io, const char *what, int kind)
{
	uint32_t *ids = calloc(io->c->lay->ntasks, sizeof(*ids));
	size_t n = 0;
	char *r;

	for (uint32_t t = 0; ids && t < io->c->lay->ntasks; t++) {
		const struct io_task *k = &io->tasks[t];
		int is = !k->exited ? 0 : k->status == STATUS_LOST ? 3 : k->status == 0 ? 1 : 2;

		if (is == kind)
			ids[n++] = t;
	}
	if (n && (r = srun_ranges_str(ids, n))) {
		info("StepId=%u.%u task%s %s: %s", job_id(io), step_id(io), n > 1 ? "s" : "", r,
		     what);
		free(r);
	}
	free(ids);
}

static void print_status(struct srun_io *io)
{
	print_group(io, "running", 0);
	print_group(io, "exited", 1);
	print_group(io, "exited abnormally", 2);
	print_group(io, "unknown", 3);
}

/* Slurm's job_force_termination(): SIGKILL to the tasks, then through
 * the controller. */
static void force_termination(struct srun_io *io)
{
	if (io->kill_sent == 0) {
		info("forcing job termination");
		forward_signal(io, SIGKILL);
	} else {
		info("job abort in progress");
		if (io->kill_sent == 1)
			(void)srun_step_signal(io->c->conf, job_id(io), step_id(io), SIGKILL);
	}
	io->kill_sent++;
}

static void terminate_step(struct srun_io *io)
{
	if (io->kill_sent)
		return;
	info("Terminating StepId=%u.%u", job_id(io), step_id(io));
	forward_signal(io, SIGKILL);
	io->kill_sent++;
}

static void on_interrupt(struct srun_io *io)
{
	int64_t now = now_ms();

	if (io->c->quit_on_interrupt) {
		force_termination(io);
		return;
	}
	if (!io->c->disable_status && now - io->last_int_ms > 1000) {
		info("interrupt (%s)", io->kill_sent ? "abort already in progress"
						     : "one more within 1 sec to abort");
		print_status(io);
		io->last_int_ms = now;
	} else if (!io->kill_sent && io->int_sent++ < 1) {
		info("sending Ctrl-C to StepId=%u.%u", job_id(io), step_id(io));
		forward_signal(io, SIGINT);
	} else {
		force_termination(io);
		io->quit = io->kill_sent > 1; /* a user insisting: leave now */
	}
}

/* --pty: our terminal's size to task 0's node (IO_WINSIZE). */
static void send_winsize(struct srun_io *io)
{
	uint32_t node = io->c->lay->node_of[0];
	struct winsize ws;
	uint16_t v[2];

	if (!io->c->pty || ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) < 0 || !ws.ws_row)
		return;
	v[0] = htobe16(ws.ws_row);
	v[1] = htobe16(ws.ws_col);
	for (size_t i = 0; i < io->nconns; i++)
		if (io->conns[i].fd >= 0 && io->conns[i].authed && io->conns[i].node == node) {
			queue_frame(&io->conns[i], IO_WINSIZE, 0, 0, v, sizeof(v));
			flush_conn(&io->conns[i]);
		}
}

static void on_signals(struct srun_io *io)
{
	static const int fwd[] = {SIGUSR1, SIGUSR2, SIGCONT};

	for (int n = alloc_sig_take(SIGINT); n > 0; n--)
		on_interrupt(io);
	if (alloc_sig_take(SIGTERM) + alloc_sig_take(SIGHUP) + alloc_sig_take(SIGQUIT))
		force_termination(io);
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		if (alloc_sig_take(fwd[i]))
			forward_signal(io, fwd[i]);
	alloc_sig_take(SIGPIPE);
	if (alloc_sig_take(SIGWINCH))
		send_winsize(io);
}

/* ---- task ends ---- */

/* Slurm's per-node lines for tasks that did not end with 0. */
static void report_node(struct srun_io *io, uint32_t node)
{
	const struct srun_layout *lay = io->c->lay;
	const uint32_t *here = lay->ids + lay->first[node];
	uint32_t cnt = io->c->resp->nodes[node].tasks;
	uint32_t *ids = calloc(cnt, sizeof(*ids));
	bool *done = calloc(cnt, sizeof(*done));

	for (uint32_t i = 0; ids && done && i < cnt; i++) {
		int st = io->tasks[here[i]].status;
		char buf[128], *r;
		size_t n = 0;

		if (done[i] || st == 0 || io->tasks[here[i]].reported)
			continue;
		for (uint32_t j = i; j < cnt; j++)
			if (!done[j] && !io->tasks[here[j]].reported
			    && io->tasks[here[j]].status == st) {
				done[j] = true;
				ids[n++] = here[j];
			}
		r = srun_ranges_str(ids, n);
		if (r)
			error("%s: task%s %s: %s", io->c->resp->nodes[node].name, n > 1 ? "s" : "", r,
			      st == STATUS_LOST ? "Unknown" : srun_status_text(st, buf, sizeof(buf)));
		free(r);
	}
	free(ids);
	free(done);
}

static void task_ended(struct srun_io *io, uint32_t t, int status)
{
	struct io_task *k = &io->tasks[t];
	uint32_t node = io->c->lay->node_of[t];

	if (k->exited)
		return;
	debug2("task %u ended with status %d", t, status);
	k->exited = true;
	k->status = status;
	if (++io->nexited == io->c->lay->ntasks)
		io->done_ms = now_ms();
	if (!io->first_exit_ms)
		io->first_exit_ms = now_ms();
	if (status != 0 && status != STATUS_LOST && io->c->kill_bad_exit && !io->kill_sent) {
		char buf[128];

		error("%s: task %u: %s", io->c->resp->nodes[node].name, t,
		      srun_status_text(status, buf, sizeof(buf)));
		k->reported = true;
		terminate_step(io);
	}
	if (t == 0 && io->c->tty_restore)
		io->c->tty_restore(); /* before any line of ours */
	if (--io->node_left[node] == 0)
		report_node(io, node);
}

/* ---- output ---- */

static void task_output(struct srun_io *io, uint32_t t, int stream, const char *p, size_t len)
{
	int only = stream == 0 ? io->c->out_task : io->c->err_task;

	if (only >= 0 && (uint32_t)only != t)
		return;
	io->scratch.len = 0;
	if (srun_out_feed(&io->tasks[t].out[stream], &io->fmt, t, p, len, len == 0,
			  &io->scratch) < 0) {
		error("out of memory buffering task output");
		return;
	}
	write_all(stream == 0 ? STDOUT_FILENO : STDERR_FILENO, io->scratch.data, io->scratch.len);
}

static void flush_task(struct srun_io *io, uint32_t t)
{
	for (int s = 0; s < 2; s++)
		if (io->tasks[t].out[s].part.len || io->tasks[t].out[s].mid_line)
			task_output(io, t, s, NULL, 0);
}

/* ---- connections ---- */

static void conn_close(struct srun_io *io, struct io_conn *k)
{
	if (k->fd < 0)
		return;
	close(k->fd);
	k->fd = -1;
	debug2("I/O connection of node %u closed", k->node);
	if (!k->authed)
		return;
	for (uint32_t i = 0; i < io->c->resp->nodes[k->node].tasks; i++) {
		uint32_t t = srun_layout_task(io->c->lay, k->node, i);

		flush_task(io, t);
		task_ended(io, t, STATUS_LOST);
	}
}

static void conn_init(struct srun_io *io, struct io_conn *k, const uint8_t *p, uint32_t len)
{
	size_t keylen = strlen(io->c->key);
	uint32_t node, ntasks;

	if (len != 8 + keylen || memcmp(p + 8, io->c->key, keylen)) {
		debug("I/O connection with a wrong key dropped");
		conn_close(io, k);
		return;
	}
	memcpy(&node, p, 4);
	memcpy(&ntasks, p + 4, 4);
	node = be32toh(node);
	ntasks = be32toh(ntasks);
	if (node >= io->c->lay->nnodes || io->node_seen[node]
	    || ntasks != io->c->resp->nodes[node].tasks) {
		debug("I/O connection for node %u dropped", node);
		conn_close(io, k);
		return;
	}
	debug2("I/O connection of node %u (%u tasks)", node, ntasks);
	k->authed = true;
	k->node = node;
	io->node_seen[node] = true;
	io->nodes_seen++;
	/* -i N: every other task of this node reads nothing */
	for (uint32_t i = 0; io->c->in_task >= 0 && i < ntasks; i++) {
		uint32_t t = srun_layout_task(io->c->lay, node, i);

		if (t != (uint32_t)io->c->in_task)
			queue_frame(k, IO_STDIN, (uint16_t)t, (uint16_t)i, NULL, 0);
	}
	if (io->c->pty && node == io->c->lay->node_of[0])
		send_winsize(io);
	flush_conn(k);
}

/* --mpi=pmi2: a chunk of a node's fence. Once every launched node is in
 * the fence, all of their puts go back to each of them (IO_PMI_KVS). */
static void pmi_fence(struct srun_io *io, struct io_conn *k, const struct io_hdr *h,
		      const uint8_t *p)
{
	struct srun_buf all = {0};
	uint32_t in = 0;
	int r = 0;

	if (k->is_in_fence || k->pmi.len + h->len > PMI_KVS_MAX
	    || srun_buf_add(&k->pmi, p, h->len) < 0) {
		error("PMI: bad fence from node %u: its connection is closed", k->node);
		conn_close(io, k);
		return;
	}
	if (h->ltid)
		return; /* more chunks follow */
	k->is_in_fence = true;
	for (size_t i = 0; i < io->nconns; i++)
		in += io->conns[i].fd >= 0 && io->conns[i].authed && io->conns[i].is_in_fence;
	if (in < io->nodes_launched)
		return;
	for (size_t i = 0; i < io->nconns && r == 0; i++)
		if (io->conns[i].is_in_fence)
			r = srun_buf_add(&all, io->conns[i].pmi.data, io->conns[i].pmi.len);
	if (r < 0)
		error("PMI: out of memory for the fence");
	debug2("PMI fence of %u nodes: %zu bytes", in, all.len);
	for (size_t i = 0; i < io->nconns; i++) {
		struct io_conn *c = &io->conns[i];
		size_t off = 0;

		if (!c->is_in_fence)
			continue;
		do {
			size_t n = all.len - off > IO_PAYLOAD_MAX ? IO_PAYLOAD_MAX : all.len - off;

			queue_frame(c, IO_PMI_KVS, 0, off + n < all.len, all.data + off, (uint32_t)n);
			off += n;
		} while (off < all.len);
		flush_conn(c);
		c->is_in_fence = false;
		c->pmi.len = 0;
	}
	srun_buf_done(&all);
}

static bool task_of_conn(struct srun_io *io, const struct io_conn *k, uint16_t gtid)
{
	return gtid < io->c->lay->ntasks && io->c->lay->node_of[gtid] == k->node;
}

static void conn_frame(struct srun_io *io, struct io_conn *k, const struct io_hdr *h,
		       const uint8_t *p)
{
	uint32_t st;

	if (!k->authed) {
		if (h->type == IO_INIT)
			conn_init(io, k, p, h->len);
		else
			conn_close(io, k);
		return;
	}
	switch (h->type) {
	case IO_STDOUT:
	case IO_STDERR:
		if (task_of_conn(io, k, h->gtid))
			task_output(io, h->gtid, h->type == IO_STDERR, (const char *)p, h->len);
		break;
	case IO_TASK_EXIT:
		if (h->len == 4 && task_of_conn(io, k, h->gtid)) {
			memcpy(&st, p, 4);
			flush_task(io, h->gtid);
			task_ended(io, h->gtid, (int)be32toh(st));
		}
		break;
	case IO_PMI_FENCE:
		pmi_fence(io, k, h, p);
		break;
	case IO_PMI_ABORT: /* MPI_Abort somewhere: the whole step goes */
		memcpy(&st, p, h->len == 4 ? 4 : 0);
		error("%s: task %u called MPI abort (exit code %d)", io->c->resp->nodes[k->node].name,
		      (unsigned)h->gtid, h->len == 4 ? (int)be32toh(st) : -1);
		terminate_step(io);
		break;
	case IO_MESSAGE:
		io->scratch.len = 0;
		if (srun_buf_add(&io->scratch, p, h->len) == 0
		    && srun_buf_add(&io->scratch, "\n", 1) == 0)
			write_all(STDERR_FILENO, io->scratch.data, io->scratch.len);
		break;
	default:
		break;
	}
}

static void conn_read(struct srun_io *io, struct io_conn *k)
{
	ssize_t n = recv(k->fd, k->rbuf + k->rlen, RBUF_CAP - k->rlen, 0);
	size_t off = 0;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(io, k);
		return;
	}
	k->rlen += (size_t)n;
	while (k->fd >= 0 && k->rlen - off >= IO_HDR_LEN) {
		struct io_hdr h;

		if (io_hdr_unpack(k->rbuf + off, &h) < 0) {
			conn_close(io, k);
			return;
		}
		if (k->rlen - off < IO_HDR_LEN + h.len)
			break;
		conn_frame(io, k, &h, k->rbuf + off + IO_HDR_LEN);
		off += IO_HDR_LEN + h.len;
	}
	if (k->fd >= 0 && off) {
		memmove(k->rbuf, k->rbuf + off, k->rlen - off);
		k->rlen -= off;
	}
}

static void conn_accept(struct srun_io *io)
{
	int fd = accept4(io->c->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct io_conn *k;

	if (fd < 0)
		return;
	k = realloc(io->conns, (io->nconns + 1) * sizeof(*k));
	if (!k) {
		close(fd);
		return;
	}
	io->conns = k;
	k = &io->conns[io->nconns];
	*k = (struct io_conn){.fd = fd, .rbuf = malloc(RBUF_CAP)};
	if (!k->rbuf) {
		close(fd);
		return;
	}
	io->nconns++;
}

/* ---- stdin ---- */

static size_t queued(const struct srun_io *io)
{
	size_t q = 0;

	for (size_t i = 0; i < io->nconns; i++)
		q += io->conns[i].w.len - io->conns[i].wpos;
	return q;
}

static bool want_stdin(const struct srun_io *io)
{
	return io->stdin_open && io->nodes_seen >= io->nodes_launched
	       && queued(io) < STDIN_QUEUE_MAX;
}

static void stdin_read(struct srun_io *io)
{
	static char buf[IO_PAYLOAD_MAX];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
	int t = io->c->in_task;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		n = 0;
		io->stdin_open = false;
	}
	if (t >= 0) {
		struct io_conn *k = conn_of_node(io, io->c->lay->node_of[t]);

		if (k)
			queue_frame(k, IO_STDIN, (uint16_t)t, (uint16_t)io->c->lay->ltid_of[t], buf,
				    (uint32_t)n);
		return;
	}
	for (size_t i = 0; i < io->nconns; i++)
		if (io->conns[i].authed)
			queue_frame(&io->conns[i], IO_ALLSTDIN, 0, 0, buf, (uint32_t)n);
}

/* ---- notices and timers ---- */

/* SRUN_NODE_FAIL: a node of a --no-kill step failed; its tasks are lost,
 * the others go on (Slurm's "Node failure on X"). */
static void node_failed(struct srun_io *io, const char *name)
{
	for (uint32_t n = 0; name && n < io->c->lay->nnodes; n++) {
		struct io_conn *k;

		if (strcmp(io->c->resp->nodes[n].name, name) != 0)
			continue;
		error("Node failure on %s", name);
		k = conn_of_node(io, n);
		if (k)
			conn_close(io, k);
		if (!io->node_seen[n]) {
			io->node_seen[n] = true;
			io->nodes_seen++;
		}
		for (uint32_t i = 0; i < io->c->resp->nodes[n].tasks; i++)
			task_ended(io, srun_layout_task(io->c->lay, n, i), STATUS_LOST);
	}
}

static void on_notice(struct srun_io *io)
{
	const struct srun_notice_msg *n;
	uint16_t type;
	void *m;

	if (alloc_listener_recv(io->c->conf, io->c->notice, &type, &m) < 0)
		return;
	n = m;
	if (type == SRUN_JOB_COMPLETE && n->job_id == job_id(io)
	    && (n->step_id == step_id(io) || n->step_id == SL_ALL_STEPS) && !io->abort_ms) {
		uint32_t wait_s = io->c->conf->kill_wait + 2;

		info("Job step aborted: Waiting up to %u seconds for job step to finish.", wait_s);
		io->abort_ms = now_ms() + (int64_t)wait_s * 1000;
	} else if (type == SRUN_NODE_FAIL && n->job_id == job_id(io)
		   && n->step_id == step_id(io)) {
		node_failed(io, n->node_name);
	} else if (type == SRUN_TIMEOUT && n->job_id == job_id(io)) {
		verbose("StepId=%u.%u reaches its time limit", job_id(io), step_id(io));
	}
	msg_free(msg_lookup(type), m);
}

/* Timers; returns the poll timeout in ms. */
static int on_timers(struct srun_io *io)
{
	int64_t now = now_ms();

	if (io->c->max_wait > 0 && io->first_exit_ms && !io->max_wait_fired
	    && io->nexited < io->c->lay->ntasks
	    && now >= io->first_exit_ms + (int64_t)io->c->max_wait * 1000) {
		io->max_wait_fired = true;
		info("First task exited %ds ago", io->c->max_wait);
		print_status(io);
		terminate_step(io);
	}
	if (now - io->start_ms > CONNECT_TIMEOUT_MS)
		for (uint32_t n = 0; n < io->c->lay->nnodes; n++)
			if (io->c->launched[n] && !io->node_seen[n]) {
				error("%s: no I/O connection from the step", io->c->resp->nodes[n].name);
				io->node_seen[n] = true;
				io->nodes_seen++;
				for (uint32_t i = 0; i < io->c->resp->nodes[n].tasks; i++)
					task_ended(io, srun_layout_task(io->c->lay, n, i), STATUS_LOST);
			}
	if (io->abort_ms && now >= io->abort_ms) {
		error("Timed out waiting for job step to complete");
		io->quit = true;
	}
	return 500;
}

static bool finished(const struct srun_io *io)
{
	bool open = false;

	for (size_t i = 0; i < io->nconns; i++)
		open |= io->conns[i].fd >= 0 && io->conns[i].authed;
	if (io->nexited < io->c->lay->ntasks)
		return false;
	return !open || now_ms() - io->done_ms > CLOSE_GRACE_MS;
}

/* ---- the loop ---- */

static void poll_once(struct srun_io *io)
{
	size_t n = 0, cap = io->nconns + 3;
	struct pollfd *p = calloc(cap, sizeof(*p));
	int timeout = on_timers(io), r;
	bool with_stdin = want_stdin(io);

	if (!p)
		return;
	p[n++] = (struct pollfd){.fd = io->c->listen_fd, .events = POLLIN};
	p[n++] = (struct pollfd){.fd = io->c->notice->fd, .events = POLLIN};
	p[n++] = (struct pollfd){.fd = with_stdin ? STDIN_FILENO : -1, .events = POLLIN};
	for (size_t i = 0; i < io->nconns; i++) {
		const struct io_conn *k = &io->conns[i];

		p[n++] = (struct pollfd){.fd = k->fd,
					 .events = (short)(POLLIN | (k->w.len > k->wpos ? POLLOUT : 0))};
	}
	r = alloc_sig_poll(p, n, timeout);
	if (r < 0 && errno == EINTR)
		on_signals(io);
	if (r > 0) {
		for (size_t i = 0; i < io->nconns && i + 3 < n; i++) {
			struct io_conn *k = &io->conns[i];

			if (k->fd >= 0 && (p[i + 3].revents & POLLOUT))
				flush_conn(k);
			if (k->fd >= 0 && (p[i + 3].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
				conn_read(io, k);
		}
		if (p[2].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
			stdin_read(io);
		for (size_t i = 0; i < io->nconns; i++)
			flush_conn(&io->conns[i]);
		if (p[1].revents & POLLIN)
			on_notice(io);
		if (p[0].revents & POLLIN)
			conn_accept(io);
	}
	free(p);
}

/* Slurm's rule: the highest exit code of the tasks that exited; only when
 * none exited non-zero does a task killed by a signal decide (128 + sig).
 * So with -K the failing task's code wins over the tasks killed for it. */
static int exit_code(const struct srun_io *io, uint32_t *ret_status)
{
	int rc_exit = 0, rc_sig = 0;
	uint32_t st_exit = 0, st_sig = 0;

	for (uint32_t t = 0; t < io->c->lay->ntasks; t++) {
		const struct io_task *k = &io->tasks[t];
		bool lost = !k->exited || k->status == STATUS_LOST;
		int code = lost ? 1 : srun_status_code(k->status);
		uint32_t st = lost ? 1u << 8 : (uint32_t)k->status;

		if (!lost && WIFSIGNALED(k->status)) {
			if (code > rc_sig) {
				rc_sig = code;
				st_sig = st;
			}
		} else if (code > rc_exit) {
			rc_exit = code;
			st_exit = st;
		}
	}
	*ret_status = rc_exit ? st_exit : st_sig;
	return rc_exit ? rc_exit : rc_sig;
}

int srun_io_run(const struct srun_io_cfg *c, uint32_t *ret_status)
{
	struct srun_io io = {
	    .c = c,
	    .fmt = {.label_width = c->label ? srun_label_width(c->lay->ntasks) : 0,
		    .unbuffered = c->unbuffered},
	    .stdin_open = c->in_task != SRUN_IN_NONE,
	    .start_ms = now_ms(),
	};
	int rc;

	io.tasks = calloc(c->lay->ntasks, sizeof(*io.tasks));
	io.node_left = calloc(c->lay->nnodes, sizeof(*io.node_left));
	io.node_seen = calloc(c->lay->nnodes, sizeof(*io.node_seen));
	if (!io.tasks || !io.node_left || !io.node_seen) {
		error("out of memory");
		*ret_status = 1u << 8;
		rc = 1;
		goto out;
	}
	for (uint32_t n = 0; n < c->lay->nnodes; n++) {
		io.node_left[n] = c->resp->nodes[n].tasks;
		io.nodes_launched += c->launched[n];
		if (!c->launched[n]) { /* nothing will come from there */
			io.node_seen[n] = true;
			for (uint32_t i = 0; i < c->resp->nodes[n].tasks; i++)
				task_ended(&io, srun_layout_task(c->lay, n, i), STATUS_LOST);
		}
	}
	while (!io.quit && !finished(&io))
		poll_once(&io);
	rc = exit_code(&io, ret_status);
out:
	for (size_t i = 0; i < io.nconns; i++) {
		if (io.conns[i].fd >= 0)
			close(io.conns[i].fd);
		free(io.conns[i].rbuf);
		srun_buf_done(&io.conns[i].w);
		srun_buf_done(&io.conns[i].pmi);
	}
	for (uint32_t t = 0; io.tasks && t < c->lay->ntasks; t++)
		for (int s = 0; s < 2; s++)
			srun_out_stream_done(&io.tasks[t].out[s]);
	free(io.conns);
	free(io.tasks);
	free(io.node_left);
	free(io.node_seen);
	srun_buf_done(&io.scratch);
	return rc;
}
