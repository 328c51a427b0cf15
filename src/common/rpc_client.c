/* rpc_client.c - blocking request/reply for CLIs; see rpc_client.h.
 *
 * Every wait (connect, send, each read) is bounded by MessageTimeout with
 * poll(), so a stalled peer costs a CLI at most that long.
 */
#include "rpc_client.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "errprintf.h"
#include "frame.h"
#include "limits.h"
#include "log.h"
#include "macros.h"
#include "msg.h"
#include "pack.h"
#include "sl_errno.h"

int rpc_resolve(const char *host, uint16_t port, struct sockaddr_in *ret)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;

	*ret = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port) };
	if (inet_pton(AF_INET, host, &ret->sin_addr) == 1)
		return 0;
	if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
		return -EHOSTUNREACH;
	ret->sin_addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
	return 0;
}

static int wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return -ETIMEDOUT;
	return n < 0 ? -errno : 0;
}

static int connect_timeout(const struct sockaddr_in *sa, int timeout_ms, int *ret_fd)
{
	_cleanup_close_ int fd = -1;
	socklen_t len = sizeof(int);
	int err = 0, r;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		if (errno != EINPROGRESS)
			return -errno;
		r = wait_fd(fd, POLLOUT, timeout_ms);
		if (r < 0)
			return r;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			return -errno;
		if (err)
			return -err;
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

static int send_all(int fd, const uint8_t *p, size_t n, int timeout_ms)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			int r = wait_fd(fd, POLLOUT, timeout_ms);

			if (r < 0)
				return r;
			continue;
		}
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int recv_all(int fd, uint8_t *p, size_t n, int timeout_ms)
{
	while (n > 0) {
		ssize_t got = recv(fd, p, n, 0);

		if (got < 0 && (errno == EAGAIN || errno == EINTR)) {
			int r = wait_fd(fd, POLLIN, timeout_ms);

			if (r < 0)
				return r;
			continue;
		}
		if (got < 0)
			return -errno;
		if (got == 0)
			return -ECONNRESET;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

bool rpc_signer_is_daemon(const struct sl_conf *conf, uid_t uid)
{
	return uid == 0 || uid == conf->slurm_user_id;
}

static int msg_timeout_ms(const struct sl_conf *conf)
{
	return (int)(conf->message_timeout ? conf->message_timeout : 10) * 1000;
}

/* Connect to host:port and send the request; *ret_fd is the connection. */
static int call_send(const struct sl_conf *conf, const char *host, uint16_t port,
		     const struct frame_as *as, uint16_t type, const void *req, int *ret_fd)
{
	int timeout_ms = msg_timeout_ms(conf);
	struct pack_buf out = { 0 };
	_cleanup_close_ int fd = -1;
	struct sockaddr_in sa;
	struct sl_error err = {""};
	int r;

	r = rpc_resolve(host, port, &sa);
	if (r < 0)
		return -SLURM_COMMUNICATIONS_CONNECTION_ERROR;
	r = connect_timeout(&sa, timeout_ms, &fd);
	if (r < 0) {
		debug("connect to %s:%u: %s", host, (unsigned)port, strerror(-r));
		return -SLURM_COMMUNICATIONS_CONNECTION_ERROR;
	}
	r = frame_build_as(type, req, conf->munge_socket, as, &out, &err);
	if (r < 0) {
		debug("%s to %s:%u not sent: %s", msg_type_name(type), host, (unsigned)port,
		      err.text);
		pack_buf_done(&out);
		return r;
	}
	r = send_all(fd, out.data, out.len, timeout_ms);
	pack_buf_done(&out);
	if (r < 0)
		return -SLURM_COMMUNICATIONS_SEND_ERROR;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* Read and verify one reply frame from fd into *buf (grown as needed,
 * kept by the caller for the next frame); ret->body points into *buf. */
static int call_recv_raw(const struct sl_conf *conf, int fd, const char *host, uint16_t port,
			 int timeout_ms, uint8_t **buf, size_t *cap, struct frame_body *ret)
{
	struct sl_error err = {""};
	uint32_t be_len, len;
	uid_t uid = (uid_t)-1;
	int r;

	r = recv_all(fd, (uint8_t *)&be_len, sizeof(be_len), timeout_ms);
	if (r < 0)
		return -SLURM_COMMUNICATIONS_RECEIVE_ERROR;
	len = be32toh(be_len);
	if (len < FRAME_MIN || len > (conf->max_message_size ? conf->max_message_size
							   : (64u << 20)))
		return -SLURM_COMMUNICATIONS_RECEIVE_ERROR;
	if (len > *cap) {
		uint8_t *p = realloc(*buf, len);

		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = len;
	}
	r = recv_all(fd, *buf, len, timeout_ms);
	if (r < 0)
		return -SLURM_COMMUNICATIONS_RECEIVE_ERROR;
	r = frame_open_raw(*buf, len, conf->munge_socket, ret, &uid, &err);
	if (r < 0) {
		debug("reply from %s:%u refused: %s", host, (unsigned)port, err.text);
		return r;
	}
	if (!rpc_signer_is_daemon(conf, uid)) {
		/* someone else listens on a daemon's port (bound while it was
		 * down): what they say is not the daemon's answer */
		error("reply from %s:%u refused: signed by uid %u, neither root nor SlurmUser "
		      "(uid %u): %s",
		      host, (unsigned)port, (unsigned)uid, (unsigned)conf->slurm_user_id,
		      sl_strerror(-SLURM_PROTOCOL_AUTHENTICATION_ERROR));
		return -SLURM_PROTOCOL_AUTHENTICATION_ERROR;
	}
	return 0;
}

/* call_recv_raw, then the message unpacked (owned by the caller). */
static int call_recv(const struct sl_conf *conf, int fd, const char *host, uint16_t port,
		     int timeout_ms, uint8_t **buf, size_t *cap, uint16_t *ret_type, void **ret_msg)
{
	struct frame_body b;
	int r;

	r = call_recv_raw(conf, fd, host, port, timeout_ms, buf, cap, &b);
	if (r < 0)
		return r;
	r = msg_unpack_body(b.type, b.body, b.len, b.version, ret_msg);
	if (r < 0) {
		debug("reply from %s:%u refused: %s", host, (unsigned)port,
		      msg_lookup(b.type) ? "malformed message body" : "unknown message type");
		return r;
	}
	*ret_type = b.type;
	return 0;
}

static int call_addr(const struct sl_conf *conf, const char *host, uint16_t port,
		     const struct frame_as *as, uint16_t type, const void *req, uint16_t *ret_type,
		     void **ret_msg)
{
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t cap = 0;
	int r;

	r = call_send(conf, host, port, as, type, req, &fd);
	if (r == 0)
		r = call_recv(conf, fd, host, port, msg_timeout_ms(conf), &buf, &cap, ret_type,
			      ret_msg);
	return r;
}

int rpc_call_addr(const struct sl_conf *conf, const char *host, uint16_t port, uint16_t type,
		  const void *req, uint16_t *ret_type, void **ret_msg)
{
	return call_addr(conf, host, port, NULL, type, req, ret_type, ret_msg);
}

int rpc_call_ctld(const struct sl_conf *conf, uint16_t type, const void *req, uint16_t *ret_type,
		  void **ret_msg)
{
	return rpc_call_ctld_as(conf, NULL, type, req, ret_type, ret_msg);
}

/* Connection errors as the controller's (sl_strerror(): "Unable to
 * contact slurm controller ..."). */
static int ctld_code(int r)
{
	switch (-r) {
	case SLURM_COMMUNICATIONS_CONNECTION_ERROR:
		return -SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR;
	case SLURM_COMMUNICATIONS_SEND_ERROR:
		return -SLURMCTLD_COMMUNICATIONS_SEND_ERROR;
	case SLURM_COMMUNICATIONS_RECEIVE_ERROR:
		return -SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR;
	default:
		return r;
	}
}

struct ctld_stream {
	rpc_part_fn *fn;	 /* frames lent */
	rpc_owned_part_fn *give; /* or frames given */
	void *arg;
};

/* A call to the controller: one request, then one reply frame (stream
 * NULL) or frames handed to stream until it returns 0. */
static int ctld_call(const struct sl_conf *conf, const struct frame_as *as, uint16_t type,
		     const void *req, uint32_t wait_s, uint16_t *ret_type, void **ret_msg,
		     const struct ctld_stream *stream)
{
	int reply_ms = msg_timeout_ms(conf) + (int)(wait_s * 1000);
	const char *host = conf->control_addr ? conf->control_addr : conf->control_machine;
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t cap = 0;
	int r;

	if (!host)
		return -SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR;
	/* A controller being restarted refuses connections for a moment:
	 * like Slurm's commands, try again each second for MessageTimeout
	 * seconds before saying it cannot be contacted. Only the connect is
	 * retried: a request that was sent may have been acted on. */
	for (time_t start = time(NULL);;) {
		r = call_send(conf, host, conf->slurmctld_port, as, type, req, &fd);
		if (r != -SLURM_COMMUNICATIONS_CONNECTION_ERROR
		    || time(NULL) - start + 1 >= (time_t)conf->message_timeout)
			break;
		debug("slurmctld at %s:%u does not answer; retrying", host,
		      (unsigned)conf->slurmctld_port);
		sleep(1);
	}
	if (r == 0 && !stream)
		r = call_recv(conf, fd, host, conf->slurmctld_port, reply_ms, &buf, &cap, ret_type,
			      ret_msg);
	while (r == 0 && stream) {
		struct frame_body b;

		r = call_recv_raw(conf, fd, host, conf->slurmctld_port, reply_ms, &buf, &cap, &b);
		if (r < 0)
			break;
		if (stream->give) {
			r = stream->give(stream->arg, &b, TAKE_PTR(buf));
			cap = 0;
		} else {
			r = stream->fn(stream->arg, &b);
		}
		if (r <= 0)
			break;
		r = 0;
	}
	return ctld_code(r);
}

int rpc_call_ctld_as(const struct sl_conf *conf, const struct frame_as *as, uint16_t type,
		     const void *req, uint16_t *ret_type, void **ret_msg)
{
	return ctld_call(conf, as, type, req, 0, ret_type, ret_msg, NULL);
}

int rpc_call_ctld_wait(const struct sl_conf *conf, uint16_t type, const void *req,
		       uint32_t wait_s, uint16_t *ret_type, void **ret_msg)
{
	if (wait_s > SL_WAIT_TIMEOUT_MAX)
		wait_s = SL_WAIT_TIMEOUT_MAX;
	return ctld_call(conf, NULL, type, req, wait_s, ret_type, ret_msg, NULL);
}

int rpc_stream_ctld_as(const struct sl_conf *conf, const struct frame_as *as, uint16_t type,
		       const void *req, rpc_part_fn *fn, void *arg)
{
	struct ctld_stream st = {.fn = fn, .arg = arg};

	return ctld_call(conf, as, type, req, 0, NULL, NULL, &st);
}

int rpc_stream_ctld_owned(const struct sl_conf *conf, uint16_t type, const void *req,
			  rpc_owned_part_fn *fn, void *arg)
{
	struct ctld_stream st = {.give = fn, .arg = arg};

	return ctld_call(conf, NULL, type, req, 0, NULL, NULL, &st);
}

int rpc_call_ctld_rc(const struct sl_conf *conf, uint16_t type, const void *req)
{
	return rpc_call_ctld_as_rc(conf, NULL, type, req);
}

int rpc_call_ctld_as_rc(const struct sl_conf *conf, const struct frame_as *as, uint16_t type,
			const void *req)
{
	uint16_t rtype;
	void *resp = NULL;
	int r;

	r = rpc_call_ctld_as(conf, as, type, req, &rtype, &resp);
	if (r < 0)
		return r;
	if (rtype == RESPONSE_SLURM_RC)
		r = -(int)((struct rc_msg *)resp)->rc;
	else
		r = -SLURM_UNEXPECTED_MSG_ERROR;
	msg_free(msg_lookup(rtype), resp);
	return r;
}
