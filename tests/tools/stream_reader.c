/* stream_reader.c - test tool: a client of the streamed job listing
 * (JOB_SHOW_STREAM, docs/protocol.md) that misbehaves on purpose.
 *
 *   stream_reader gone      read the first frame, then close the connection
 *   stream_reader stall S   a 4 KiB receive buffer and 536-byte segments,
 *                           read nothing for S seconds, then read to the end
 *   stream_reader paged     no stream: ask for each page (after_job_id), as
 *                           a client of before streaming does; prints
 *                           "pages=N jobs=M last=ID"
 *
 * Prints "frames=N bytes=B last_more=M eof=E": the reply frames read
 * whole, their bytes, whether the last one said more jobs follow (its
 * is_more, unpacked with frame_open), and whether the controller closed
 * the connection before the last page. Exits 0 when the request was sent.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/frame.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/rpc_client.h"

static int read_all(int fd, void *p, size_t n)
{
	while (n > 0) {
		ssize_t got = recv(fd, p, n, 0);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		p = (char *)p + got;
		n -= (size_t)got;
	}
	return 0;
}

/* The listing as a client without JOB_SHOW_STREAM gets it: one request
 * a page. */
static int paged(void)
{
	struct job_info_req req = {.show_flags = 0};
	struct sl_error err = {{0}};
	struct sl_conf *conf = NULL;
	unsigned pages = 0, jobs = 0;
	bool more = true;

	if (conf_load(conf_default_path(), &conf, &err) < 0) {
		fprintf(stderr, "%s\n", err.text);
		return 2;
	}
	while (more) {
		struct job_info_msg *m;
		uint16_t type = 0;
		void *msg = NULL;
		int r = rpc_call_ctld(conf, REQUEST_JOB_INFO, &req, &type, &msg);

		if (r < 0 || type != RESPONSE_JOB_INFO) {
			fprintf(stderr, "page %u: rc=%d type=%u\n", pages + 1, r, (unsigned)type);
			msg_free(msg_lookup(type), msg);
			conf_free(conf);
			return 1;
		}
		m = msg;
		pages++;
		jobs += m->count;
		more = m->is_more;
		req.after_job_id = m->last_job_id;
		msg_free(msg_lookup(type), msg);
	}
	printf("pages=%u jobs=%u last=%u\n", pages, jobs, req.after_job_id);
	conf_free(conf);
	return 0;
}

int main(int argc, char **argv)
{
	struct job_info_req req = {.show_flags = JOB_SHOW_STREAM};
	struct sl_error err = {{0}};
	struct sl_conf *conf = NULL;
	struct pack_buf out = {0};
	struct sockaddr_in sa;
	unsigned frames = 0, last_more = 0, bytes = 0;
	int fd, rcvbuf = 4096, mss = 536, stall = 0, eof = 0;
	bool gone;

	if (argc < 2 || (strcmp(argv[1], "gone") && strcmp(argv[1], "stall") &&
			 strcmp(argv[1], "paged")) ||
	    (!strcmp(argv[1], "stall") && argc != 3)) {
		fprintf(stderr, "usage: stream_reader gone | stall SECONDS | paged\n");
		return 2;
	}
	if (!strcmp(argv[1], "paged"))
		return paged();
	gone = !strcmp(argv[1], "gone");
	if (!gone)
		stall = atoi(argv[2]);
	if (conf_load(conf_default_path(), &conf, &err) < 0) {
		fprintf(stderr, "%s\n", err.text);
		return 2;
	}
	if (rpc_resolve(conf->control_addr ? conf->control_addr : conf->control_machine,
			conf->slurmctld_port, &sa) < 0)
		return 2;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 2;
	/* Small segments keep the controller's send buffer small too: its
	 * autotuning sizes it by segment size, and with loopback's 64 KiB
	 * segments it would take in some MiB of a stalled reader's pages,
	 * leaving the controller nothing unread to account for. */
	if (!gone) {
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
		(void)setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss));
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("connect");
		return 2;
	}
	if (frame_build(REQUEST_JOB_INFO, &req, conf->munge_socket, &out, &err) < 0 ||
	    send(fd, out.data, out.len, MSG_NOSIGNAL) != (ssize_t)out.len) {
		fprintf(stderr, "request not sent: %s\n", err.text);
		return 2;
	}
	pack_buf_done(&out);
	if (stall)
		sleep((unsigned)stall);
	for (;;) {
		uint32_t be_len, len;
		uint8_t *data;
		uint16_t type;
		void *msg = NULL;
		uid_t uid;

		if (read_all(fd, &be_len, sizeof(be_len)) < 0) {
			eof = 1;
			break;
		}
		len = be32toh(be_len);
		data = malloc(len ? len : 1);
		if (!data || read_all(fd, data, len) < 0) {
			free(data);
			eof = 1;
			break;
		}
		frames++;
		bytes += len + 4;
		last_more = 0;
		if (frame_open(data, len, conf->munge_socket, &type, &msg, &uid, &err) == 0) {
			if (type == RESPONSE_JOB_INFO)
				last_more = ((struct job_info_msg *)msg)->is_more;
			msg_free(msg_lookup(type), msg);
		}
		free(data);
		if (gone || !last_more)
			break;
	}
	printf("frames=%u bytes=%u last_more=%u eof=%d\n", frames, bytes, last_more, eof);
	close(fd);
	conf_free(conf);
	return 0;
}
