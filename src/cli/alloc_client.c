/* alloc_client.c - the interactive allocation client shared by srun and
 * salloc; see alloc_client.h.
 *
 * Purpose: one listener (grant and notices), the allocation request, the
 * wait for a pending job's grant, and the completion request.
 * Owns: nothing global. Caveat: a connection is served in full (read,
 * reply) before the next one is accepted; the controller sends its frame
 * at once, and a stalled peer costs at most MessageTimeout.
 */
#include "cli/alloc_client.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "cli/alloc_sig.h"
#include "common/conf.h"
#include "common/errprintf.h"
#include "common/frame.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"

void alloc_local_addr(const struct sl_conf *conf, char *buf, size_t n)
{
	const char *host = conf ? (conf->control_addr ? conf->control_addr : conf->control_machine)
				: NULL;
	struct sockaddr_in sa, me;
	socklen_t len = sizeof(me);
	_cleanup_close_ int fd = -1;

	snprintf(buf, n, "127.0.0.1");
	if (!host || rpc_resolve(host, conf->slurmctld_port ? conf->slurmctld_port : 6817, &sa) < 0)
		return;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0
	    || getsockname(fd, (struct sockaddr *)&me, &len) < 0)
		return;
	if (me.sin_addr.s_addr != htonl(INADDR_ANY))
		inet_ntop(AF_INET, &me.sin_addr, buf, (socklen_t)n);
}

int alloc_tcp_listen(const char *host, int *ret_fd, uint16_t *ret_port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	_cleanup_close_ int fd = -1;

	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, SOMAXCONN) < 0
	    || getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		return -errno;
	*ret_port = ntohs(sa.sin_port);
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int alloc_listener_open(const struct sl_conf *conf, struct alloc_listener *l)
{
	l->fd = -1;
	alloc_local_addr(conf, l->host, sizeof(l->host));
	return alloc_tcp_listen(l->host, &l->fd, &l->port);
}

void alloc_listener_close(struct alloc_listener *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

static int io_wait(int fd, short ev, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = ev};
	int n;

	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	return n > 0 ? 0 : n == 0 ? -ETIMEDOUT : -errno;
}

static int io_full(int fd, uint8_t *p, size_t n, bool is_write, int timeout_ms)
{
	while (n > 0) {
		ssize_t r = is_write ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);

		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			int w = io_wait(fd, is_write ? POLLOUT : POLLIN, timeout_ms);

			if (w < 0)
				return w;
			continue;
		}
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ECONNRESET;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static bool sender_ok(const struct sl_conf *conf, uid_t uid)
{
	return uid == 0 || uid == (uid_t)conf->slurm_user_id;
}

int alloc_listener_recv(const struct sl_conf *conf, struct alloc_listener *l, uint16_t *ret_type,
			void **ret_msg)
{
	int timeout_ms = (int)(conf->message_timeout ? conf->message_timeout : 10) * 1000;
	uint32_t max = conf->max_message_size ? conf->max_message_size : (64u << 20);
	struct rc_msg rc = {0};
	struct pack_buf out = {0};
	_cleanup_free_ uint8_t *data = NULL;
	_cleanup_close_ int fd = -1;
	struct sl_error err = {""};
	uint32_t be_len, len;
	uint16_t type = 0;
	void *msg = NULL;
	uid_t uid = (uid_t)-1;
	int r;

	fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return -EAGAIN;
	if (io_full(fd, (uint8_t *)&be_len, sizeof(be_len), false, timeout_ms) < 0)
		return -EAGAIN;
	len = be32toh(be_len);
	if (len < FRAME_MIN || len > max || !(data = malloc(len)))
		return -EAGAIN;
	if (io_full(fd, data, len, false, timeout_ms) < 0)
		return -EAGAIN;
	r = frame_open(data, len, conf->munge_socket, &type, &msg, &uid, &err);
	if (r < 0) {
		debug("message on %s:%u refused: %s", l->host, l->port, err.text);
		return -EAGAIN;
	}
	if (!sender_ok(conf, uid)) {
		debug("%s from uid %u ignored", msg_type_name(type), (unsigned)uid);
		msg_free(msg_lookup(type), msg);
		return -EAGAIN;
	}
	if (frame_build(RESPONSE_SLURM_RC, &rc, conf->munge_socket, &out, &err) == 0)
		(void)io_full(fd, out.data, out.len, true, timeout_ms);
	else
		debug("reply to %s on %s:%u not sent: %s", msg_type_name(type), l->host, l->port,
		      err.text);
	pack_buf_done(&out);
	*ret_type = type;
	*ret_msg = msg;
	return 0;
}

void alloc_grant_free(struct alloc_response *r)
{
	if (r)
		msg_free(msg_lookup(RESPONSE_RESOURCE_ALLOCATION), r);
}

int alloc_request(const struct sl_conf *conf, const struct job_desc *d,
		  struct alloc_response **ret, char **ret_user_msg)
{
	struct alloc_response *a = NULL;
	int r;

	*ret = NULL;
	*ret_user_msg = NULL;
	r = ctld_fetch(conf, REQUEST_RESOURCE_ALLOCATION, d, RESPONSE_RESOURCE_ALLOCATION,
		       (void **)&a);
	if (r < 0)
		return r;
	if (a->error_code) {
		r = -(int)a->error_code;
		*ret_user_msg = TAKE_PTR(a->user_msg);
		alloc_grant_free(a);
		return r;
	}
	*ret = a;
	return 0;
}

/* Milliseconds from now until deadline (CLOCK_MONOTONIC), at least 0. */
static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000
	     + (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : ms > INT32_MAX ? INT32_MAX : (int)ms;
}

enum alloc_wait alloc_wait_grant(const struct sl_conf *conf, struct alloc_listener *l,
				 uint32_t job_id, int timeout_ms, struct alloc_response **ret)
{
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	for (;;) {
		struct pollfd p = {.fd = l->fd, .events = POLLIN};
		uint16_t type;
		void *m = NULL;
		int left = timeout_ms < 0 ? -1 : ms_left(&deadline);
		int n = left == 0 ? 0 : alloc_sig_poll(&p, 1, left);

		if (n < 0 && errno == EINTR)
			return ALLOC_SIGNALLED;
		if (n == 0 && timeout_ms >= 0 && ms_left(&deadline) == 0)
			return ALLOC_TIMED_OUT;
		if (n <= 0 || alloc_listener_recv(conf, l, &type, &m) < 0)
			continue;
		if (type == RESPONSE_RESOURCE_ALLOCATION) {
			struct alloc_response *a = m;

			if (a->job_id == job_id && !a->error_code && a->node_list) {
				*ret = a;
				return ALLOC_GRANTED;
			}
			if (a->job_id == job_id && a->error_code) {
				alloc_grant_free(a);
				return ALLOC_REVOKED;
			}
		} else if (type == SRUN_JOB_COMPLETE
			   && ((struct srun_notice_msg *)m)->job_id == job_id) {
			msg_free(msg_lookup(type), m);
			return ALLOC_REVOKED;
		}
		msg_free(msg_lookup(type), m);
	}
}

int alloc_complete(const struct sl_conf *conf, uint32_t job_id, uint32_t rc)
{
	struct complete_alloc_msg m = {.job_id = job_id, .job_rc = rc};

	return rpc_call_ctld_rc(conf, REQUEST_COMPLETE_JOB_ALLOCATION, &m);
}

void alloc_short_hostname(char *buf, size_t n)
{
	buf[0] = '\0';
	if (gethostname(buf, n - 1) < 0)
		buf[0] = '\0';
	buf[n - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
}
