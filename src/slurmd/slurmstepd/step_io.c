/* step_io.c - the step's task I/O with srun (io_proto.h), non-blocking.
 *
 * Output: each task's stdout/stderr pipe is read up to IO_READ_MAX at a
 * time into an IO_STDOUT/IO_STDERR frame appended to the out buffer, which
 * is written to srun as its socket takes it. While more than OUT_HIGH
 * bytes wait there the pipes are not read (the tasks block: back-pressure
 * without ever blocking the stepd). Input: frames from srun are parsed as
 * they arrive; stdin goes into the task's own buffer, written as its pipe
 * takes it; while one task holds more than IN_HIGH unread bytes srun's
 * socket is not read (a task that never reads stdin costs at most that).
 *
 * A task is reported (IO_TASK_EXIT) once it was reaped and both of its
 * streams reached EOF, or EXIT_GRACE_MS after it was reaped when a child
 * it left behind keeps a pipe open: its streams are then closed with
 * EOF frames. EOF or an error on srun's socket before the end means srun
 * is gone: every task is killed, output is dropped from then on.
 */
#include "step_io.h"

#include <arpa/inet.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/io_proto.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"
#include "iobuf.h"
#include "loop.h"
#include "proctree.h"
#include "step.h"
#include "stepd.h"

#define IO_READ_MAX	   (16u << 10)
#define OUT_HIGH	   (1u << 20)
#define IN_HIGH		   (1u << 20)
#define EXIT_GRACE_MS	   1000
#define CONNECT_TIMEOUT_MS 10000
#define RD_CAP		   (IO_HDR_LEN + IO_PAYLOAD_MAX)

static void step_io_srun_gone(struct stepd *s, const char *why);

void step_io_frame(struct stepd *s, uint16_t type, uint32_t gtid, uint32_t ltid,
		   const void *payload, size_t len)
{
	struct step *st = s->step;
	struct io_hdr h = {
	    .type = type, .gtid = (uint16_t)gtid, .ltid = (uint16_t)ltid, .len = (uint32_t)len};
	uint8_t hdr[IO_HDR_LEN];

	if (st->io_fd < 0 || len > IO_PAYLOAD_MAX)
		return;
	io_hdr_pack(&h, hdr);
	if (iobuf_append(&st->out, hdr, sizeof(hdr)) < 0
	    || (len && iobuf_append(&st->out, payload, len) < 0))
		step_io_srun_gone(s, "out of memory for its output");
}

void step_io_flush(struct stepd *s)
{
	struct step *st = s->step;
	int r;

	if (!st || st->io_fd < 0 || !iobuf_pending(&st->out))
		return;
	r = iobuf_flush(&st->out, st->io_fd);
	if (r < 0)
		step_io_srun_gone(s, strerror(-r));
}

int step_io_connect(struct stepd *s)
{
	const struct launch_tasks_msg *m = s->launch;
	struct step *st = s->step;
	struct sockaddr_in sa;
	struct pollfd p;
	uint8_t init[8 + 256];
	size_t key_len = m->io_key ? strlen(m->io_key) : 0;
	uint32_t be;
	int fd, one = 1, err = 0, r;
	socklen_t elen = sizeof(err);

	if (!m->io_host || !m->io_port || key_len > sizeof(init) - 8)
		return log_errno(-ESLURMD_IO_ERROR, "StepId=%u.%u: no usable I/O address",
				 s->job_id, s->step_id);
	r = rpc_resolve(m->io_host, m->io_port, &sa);
	if (r < 0)
		return log_errno(-ESLURMD_IO_ERROR, "StepId=%u.%u: cannot resolve %s", s->job_id,
				 s->step_id, m->io_host);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (r < 0 && errno == EINPROGRESS) {
		p = (struct pollfd){.fd = fd, .events = POLLOUT};
		do
			r = poll(&p, 1, CONNECT_TIMEOUT_MS);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			err = ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
			err = errno;
		r = err ? -1 : 0;
	} else if (r < 0) {
		err = errno;
	}
	if (r < 0) {
		close(fd);
		return log_errno(-ESLURMD_IO_ERROR, "StepId=%u.%u: connect to srun at %s:%u: %s",
				 s->job_id, s->step_id, m->io_host, (unsigned)m->io_port,
				 strerror(err));
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	st->io_fd = fd;
	be = htonl(m->node_id);
	memcpy(init, &be, 4);
	be = htonl(m->ntasks_here);
	memcpy(init + 4, &be, 4);
	if (key_len)
		memcpy(init + 8, m->io_key, key_len);
	step_io_frame(s, IO_INIT, 0, 0, init, 8 + key_len);
	return 0;
}

void step_io_close(struct stepd *s)
{
	struct step *st = s->step;

	if (!st)
		return;
	if (st->io_fd >= 0)
		close(st->io_fd);
	st->io_fd = -1;
	iobuf_done(&st->out);
	free(st->rd);
	st->rd = NULL;
	st->rd_len = 0;
}

static void step_io_close_in(struct step_task *t)
{
	if (t->in_fd >= 0)
		close(t->in_fd);
	t->in_fd = -1;
	iobuf_done(&t->in);
	t->is_in_eof = true;
}

/* srun is gone: close everything it fed, kill the tasks. */
static void step_io_srun_gone(struct stepd *s, const char *why)
{
	struct step *st = s->step;

	if (st->io_fd < 0)
		return;
	st->is_srun_gone = true;
	step_io_close(s);
	for (uint32_t i = 0; i < st->ntasks; i++)
		step_io_close_in(&st->tasks[i]);
	if (!s->has_exited) {
		error("StepId=%u.%u: srun is gone (%s): killing the tasks", s->job_id, s->step_id,
		      why);
		proctree_signal(s, SIGKILL);
	}
}

/* One stream of a task: EOF -> the zero-length frame, fd closed. */
static void step_io_eof(struct stepd *s, struct step_task *t, bool is_err)
{
	int *fd = is_err ? &t->err_fd : &t->out_fd;
	bool *sent = is_err ? &t->has_err_eof : &t->has_out_eof;

	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	if (!*sent)
		step_io_frame(s, is_err ? IO_STDERR : IO_STDOUT, t->gtid, t->ltid, NULL, 0);
	*sent = true;
}

static void step_io_read_task(struct stepd *s, struct step_task *t, bool is_err)
{
	uint8_t buf[IO_READ_MAX];
	int fd = is_err ? t->err_fd : t->out_fd;
	ssize_t n;

	do
		n = read(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0)
		return step_io_eof(s, t, is_err);
	step_io_frame(s, is_err ? IO_STDERR : IO_STDOUT, t->gtid, t->ltid, buf, (size_t)n);
}

static void step_io_stdin_write(struct step_task *t)
{
	int r = iobuf_flush(&t->in, t->in_fd);

	if (r < 0) { /* EPIPE: the task closed its stdin; the rest is dropped */
		debug("task %u: stdin: %s", t->gtid, strerror(-r));
		step_io_close_in(t);
		return;
	}
	if (t->is_in_eof && iobuf_pending(&t->in) == 0)
		step_io_close_in(t);
}

static void step_io_stdin_add(struct step_task *t, const uint8_t *p, size_t len)
{
	if (t->in_fd < 0 || t->is_in_eof)
		return; /* a file, /dev/null or already closed: dropped */
	if (len == 0)
		t->is_in_eof = true;
	else if (iobuf_append(&t->in, p, len) < 0)
		step_io_close_in(t);
	if (t->in_fd >= 0)
		step_io_stdin_write(t);
}

static struct step_task *step_io_task(struct step *st, uint32_t gtid)
{
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].gtid == gtid)
			return &st->tasks[i];
	return NULL;
}

static void step_io_frame_in(struct stepd *s, const struct io_hdr *h, const uint8_t *p)
{
	struct step *st = s->step;
	struct step_task *t;
	uint32_t sig;

	switch (h->type) {
	case IO_STDIN:
		t = step_io_task(st, h->gtid);
		if (t)
			step_io_stdin_add(t, p, h->len);
		break;
	case IO_ALLSTDIN:
		for (uint32_t i = 0; i < st->ntasks; i++)
			step_io_stdin_add(&st->tasks[i], p, h->len);
		break;
	case IO_SIGNAL:
		if (h->len != 4)
			break;
		memcpy(&sig, p, 4);
		sig = ntohl(sig);
		if (sig == 0 || sig >= (uint32_t)NSIG)
			break;
		verbose("StepId=%u.%u: srun sent signal %u", s->job_id, s->step_id, sig);
		if (!s->has_exited)
			proctree_signal(s, (int)sig);
		break;
	case IO_WINSIZE:
		t = step_io_task(st, h->gtid);
		if (t && t->is_pty && h->len == 4) {
			uint16_t v[2];
			struct winsize ws = {0};
			int fd = t->out_fd >= 0 ? t->out_fd : t->in_fd;

			memcpy(v, p, 4);
			ws.ws_row = ntohs(v[0]);
			ws.ws_col = ntohs(v[1]);
			if (fd >= 0 && ioctl(fd, TIOCSWINSZ, &ws) < 0)
				debug("task %u: TIOCSWINSZ: %s", t->gtid, strerror(errno));
		}
		break;
	case IO_PMI_KVS:
		if (st->on_pmi_frame) {
			st->on_pmi_frame(s, h, p);
			break;
		}
		__attribute__((fallthrough)); /* no PMI server here */
	default:
		debug("StepId=%u.%u: unexpected I/O frame type %u from srun", s->job_id, s->step_id,
		      (unsigned)h->type);
	}
}

size_t step_io_frames_in(struct stepd *s, const uint8_t *buf, size_t len)
{
	struct io_hdr h;
	size_t used = 0;

	while (len - used >= IO_HDR_LEN) {
		if (io_hdr_unpack(buf + used, &h) < 0) {
			step_io_srun_gone(s, "bad I/O frame");
			return len;
		}
		if (len - used < IO_HDR_LEN + h.len)
			break;
		step_io_frame_in(s, &h, buf + used + IO_HDR_LEN);
		used += IO_HDR_LEN + h.len;
		if (s->step->io_fd < 0)
			return len;
	}
	return used;
}

static void step_io_read_srun(struct stepd *s)
{
	struct step *st = s->step;
	size_t used;
	ssize_t n;

	if (!st->rd) {
		st->rd = malloc(RD_CAP);
		if (!st->rd)
			return step_io_srun_gone(s, "out of memory");
	}
	do
		n = read(st->io_fd, st->rd + st->rd_len, RD_CAP - st->rd_len);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0)
		return step_io_srun_gone(s, n == 0 ? "connection closed" : strerror(errno));
	st->rd_len += (size_t)n;
	used = step_io_frames_in(s, st->rd, st->rd_len);
	if (st->io_fd < 0)
		return;
	memmove(st->rd, st->rd + used, st->rd_len - used);
	st->rd_len -= used;
}

static bool step_io_stdin_is_full(const struct step *st)
{
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (iobuf_pending(&st->tasks[i].in) > IN_HIGH)
			return true;
	return false;
}

/* Before each poll: what each entry waits for now. srun's socket is not
 * read while a task holds too much unread stdin, the task pipes are not
 * read while too much output waits for srun (back-pressure). */
static void step_io_before_poll(void *arg)
{
	struct stepd *s = arg;
	struct step *st = s->step;
	bool is_out_full = iobuf_pending(&st->out) > OUT_HIGH;

	for (uint32_t i = 0; i <= 3 * st->ntasks; i++) {
		const struct step_io_src *src = &st->srcs[i];
		const struct step_task *t = src->t;

		if (!t)
			loop_fd_set(s->loop, src->id, st->io_fd,
				    (short)((step_io_stdin_is_full(st) ? 0 : POLLIN)
					    | (iobuf_pending(&st->out) ? POLLOUT : 0)));
		else if (src->which == 0)
			loop_fd_set(s->loop, src->id, iobuf_pending(&t->in) ? t->in_fd : -1,
				    POLLOUT);
		else if (is_out_full)
			loop_fd_set(s->loop, src->id, -1, POLLIN);
		else
			loop_fd_set(s->loop, src->id, src->which == 1 ? t->out_fd : t->err_fd,
				    POLLIN);
	}
}

static void step_io_ready(void *arg, short revents)
{
	const struct step_io_src *src = arg;
	struct step_task *t = src->t;
	const short rd = POLLIN | POLLHUP | POLLERR;

	if (!t) {
		if (src->s->step->io_fd >= 0 && (revents & rd))
			step_io_read_srun(src->s);
	} else if (src->which == 0) {
		if (t->in_fd >= 0 && (revents & (POLLOUT | POLLERR | POLLHUP)))
			step_io_stdin_write(t);
	} else if (revents & rd) {
		if ((src->which == 1 ? t->out_fd : t->err_fd) >= 0)
			step_io_read_task(src->s, t, src->which == 2);
	}
}

/* After the entries: write what srun's socket takes now. */
static void step_io_after_dispatch(void *arg)
{
	step_io_flush(arg);
}

int step_io_register(struct stepd *s)
{
	struct step *st = s->step;
	size_t n = 1 + 3 * (size_t)st->ntasks;

	st->srcs = calloc(n, sizeof(*st->srcs));
	if (!st->srcs)
		return -ENOMEM;
	/* the task streams first, srun's socket after them (the order a
	 * round handles them in) */
	for (size_t i = 0; i < n; i++) {
		struct step_io_src *src = &st->srcs[i];

		src->s = s;
		src->t = i + 1 < n ? &st->tasks[i / 3] : NULL;
		src->which = (int)(i % 3);
		src->id = loop_fd_add(s->loop, STEPD_PRIO_IO, -1, 0, step_io_ready, src);
		if (src->id < 0)
			return -ENOMEM;
	}
	if (loop_hook_add(s->loop, LOOP_BEFORE_POLL, step_io_before_poll, s) < 0
	    || loop_hook_add(s->loop, LOOP_AFTER_DISPATCH, step_io_after_dispatch, s) < 0)
		return -ENOMEM;
	return 0;
}

static void step_io_report_exit(struct stepd *s, struct step_task *t)
{
	uint32_t be = htonl((uint32_t)t->status);

	step_io_eof(s, t, false);
	step_io_eof(s, t, true);
	step_io_close_in(t);
	step_io_frame(s, IO_TASK_EXIT, t->gtid, t->ltid, &be, sizeof(be));
	t->is_reported = true;
	debug("StepId=%u.%u: task %u reported, status 0x%x", s->job_id, s->step_id, t->gtid,
	      (unsigned)t->status);
}

int step_io_report_exits(struct stepd *s)
{
	struct step *st = s->step;
	int64_t now = loop_now_ms();
	int next = -1;

	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];
		int64_t left;

		if (!t->has_exited || t->is_reported)
			continue;
		left = t->exit_ms + EXIT_GRACE_MS - now;
		if ((t->out_fd < 0 && t->err_fd < 0) || left <= 0) {
			step_io_report_exit(s, t);
			continue;
		}
		if (next < 0 || left < next)
			next = (int)left;
	}
	if (st->io_fd >= 0 && iobuf_pending(&st->out)) {
		int r = iobuf_flush(&st->out, st->io_fd);

		if (r < 0)
			step_io_srun_gone(s, strerror(-r));
	}
	return next;
}

bool step_io_is_done(const struct stepd *s)
{
	const struct step *st = s->step;

	for (uint32_t i = 0; i < st->ntasks; i++)
		if (!st->tasks[i].is_reported)
			return false;
	return st->io_fd < 0 || iobuf_pending(&st->out) == 0;
}
