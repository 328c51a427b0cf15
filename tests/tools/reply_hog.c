/* reply_hog.c - test tool: a client that asks for big replies and never
 * reads them (test_security_replies.py).
 *
 *   reply_hog N
 *
 * Opens N connections to slurmctld, each with a 4 KiB receive buffer, and
 * sends a non-streamed REQUEST_JOB_INFO (one page of up to 8 MiB) on
 * every one, then reads nothing. Prints "sent S" once the requests are
 * out, then "answered A" once every connection has a reply byte or an
 * end (or after 60 s), then holds them all until it is killed. Exits 2
 * when nothing could be sent.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/frame.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/rpc_client.h"

#define HOG_WAIT_S 60

static int hog_connect(const struct sockaddr_in *sa, const struct pack_buf *req)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), rcvbuf = 4096;

	if (fd < 0)
		return -1;
	/* a small window keeps the reply in the controller, not in our kernel */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0
	    || send(fd, req->data, req->len, MSG_NOSIGNAL) != (ssize_t)req->len) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Until every connection has something to read (a reply's first bytes,
 * or the end when the controller closed it), or HOG_WAIT_S. */
static unsigned wait_answered(struct pollfd *p, unsigned n)
{
	time_t end = time(NULL) + HOG_WAIT_S;
	unsigned answered = 0;

	for (unsigned i = 0; i < n; i++)
		p[i].events = POLLIN;
	while (answered < n && time(NULL) < end) {
		if (poll(p, n, 1000) < 0 && errno != EINTR)
			break;
		answered = 0;
		for (unsigned i = 0; i < n; i++) {
			if (p[i].revents)
				p[i].events = 0; /* answered: no need to ask again */
			if (!p[i].events)
				answered++;
		}
	}
	return answered;
}

int main(int argc, char **argv)
{
	struct job_info_req req = {.show_flags = 0}; /* no JOB_SHOW_STREAM: one whole page */
	struct sl_error err = {{0}};
	struct sl_conf *conf = NULL;
	struct rlimit rl;
	struct sockaddr_in sa;
	struct pollfd *p;
	unsigned n, sent = 0;

	if (argc != 2 || (n = (unsigned)atoi(argv[1])) == 0) {
		fprintf(stderr, "usage: reply_hog N\n");
		return 2;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (conf_load(conf_default_path(), &conf, &err) < 0) {
		fprintf(stderr, "%s\n", err.text);
		return 2;
	}
	if (rpc_resolve(conf->control_addr ? conf->control_addr : conf->control_machine,
			conf->slurmctld_port, &sa)
	    < 0)
		return 2;
	p = calloc(n, sizeof(*p));
	if (!p)
		return 2;
	for (unsigned i = 0; i < n; i++) {
		struct pack_buf out = {0};
		int fd = -1;

		/* a credential per frame: munge refuses a replayed one */
		if (frame_build(REQUEST_JOB_INFO, &req, conf->munge_socket, &out, &err) == 0)
			fd = hog_connect(&sa, &out);
		pack_buf_done(&out);
		if (fd < 0) {
			fprintf(stderr, "connection %u: %s\n", i,
				err.text[0] ? err.text : strerror(errno));
			break;
		}
		p[sent++].fd = fd;
	}
	printf("sent %u\n", sent);
	fflush(stdout);
	if (!sent)
		return 2;
	printf("answered %u\n", wait_answered(p, sent));
	fflush(stdout);
	for (;;)
		pause(); /* hold every connection, unread, until killed */
}
