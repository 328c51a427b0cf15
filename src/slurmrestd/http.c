/* http.c - the loop's side of slurmrestd: listeners, bounded reading of
 * each request, handing it to the workers and sending their replies.
 *
 * Bounds: headers RESTD_MAX_HEADERS, body RESTD_MAX_BODY (evhttp answers
 * 413 itself and, with lingering close, reads and drops the rest so the
 * client sees the answer), RESTD_TIMEOUT_S without progress closes a
 * connection (a client that sends half a request and stalls), a request
 * not whole RESTD_REQUEST_S after its first byte too (one that trickles), at most
 * RESTD_MAX_CONNS connections (conn_cap.c), RESTD_MAX_QUEUED requests
 * waiting for a worker (503 beyond).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "common/log.h"
#include "common/macros.h"
#include "common/sl_errno.h"
#include "conn_cap.h"
#include "pool.h"
#include "reply.h"
#include "req_log.h"
#include "restd.h"
#include "www.h"

void rest_req_free(struct rest_req *r)
{
	if (!r)
		return;
	if (r->done_ev)
		event_free(r->done_ev);
	free(r->path);
	free(r->query);
	free(r->body);
	free(r->hdr_user);
	if (r->hdr_token)
		explicit_bzero(r->hdr_token, strlen(r->hdr_token));
	free(r->hdr_token);
	free(r->user);
	free(r->out);
	free(r);
}

static void send_reply(struct evhttp_request *req, int status, const char *body, size_t len)
{
	struct evbuffer *b = evbuffer_new();
	const char *reason = status == 200 ? "OK" : status == 401 ? "Unauthorized"
			   : status == 404 ? "Not Found" : status == 405 ? "Method Not Allowed"
			   : status == 400 ? "Bad Request" : status == 503 ? "Service Unavailable"
			   : status == 501 ? "Not Implemented" : "Error";

	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "application/json");
	if (b && body)
		evbuffer_add(b, body, len);
	evhttp_send_reply(req, status, reason, b);
	if (b)
		evbuffer_free(b);
}

static void conn_close_cb(struct evhttp_connection *evcon, void *arg)
{
	struct rest_req *r = arg;

	(void)evcon;
	r->http = NULL; /* the request went with its connection */
}

static void done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rest_req *r = arg;

	(void)fd;
	(void)what;
	if (r->http) {
		struct evhttp_connection *evcon = evhttp_request_get_connection(r->http);

		if (evcon) {
			evhttp_connection_set_closecb(evcon, NULL, NULL);
			conn_cap_set_busy(r->rd->cap, evhttp_connection_get_bufferevent(evcon),
					  false); /* its output buffer keeps it until written */
		}
		send_reply(r->http, r->status ? r->status : 500, r->out, r->out_len);
	}
	rest_req_free(r);
}

/* A worker's run of one request: authenticate, route (the controller RPCs
 * block here), then hand it back to the loop, which replies and frees it. */
static void req_run(void *item, void *arg)
{
	struct rest_req *r = item;

	(void)arg;
	if (rest_auth(r) == 0)
		rest_route(r);
	event_active(r->done_ev, EV_TIMEOUT, 0); /* evthread_use_pthreads(): safe here */
}

static enum rest_method method_of(struct evhttp_request *req)
{
	switch (evhttp_request_get_command(req)) {
	case EVHTTP_REQ_GET:
		return RM_GET;
	case EVHTTP_REQ_POST:
		return RM_POST;
	case EVHTTP_REQ_DELETE:
		return RM_DELETE;
	default:
		return RM_OTHER;
	}
}

/* Peer address for the logs; on a unix socket, its uid and gid. */
static void peer_of(struct evhttp_request *req, struct rest_req *r)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	evutil_socket_t fd = bev ? bufferevent_getfd(bev) : -1;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	char *host = NULL;
	ev_uint16_t port = 0;

	r->peer_uid = (uid_t)-1;
	r->peer_gid = (gid_t)-1;
	snprintf(r->peer, sizeof(r->peer), "?");
	if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	if (ss.ss_family == AF_UNIX) {
		r->is_unix = true;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0) {
			r->peer_uid = cred.uid;
			r->peer_gid = cred.gid;
			snprintf(r->peer, sizeof(r->peer), "unix:pid=%d", (int)cred.pid);
		}
		return;
	}
	evhttp_connection_get_peer(evcon, &host, &port);
	snprintf(r->peer, sizeof(r->peer), "%s:%u", host ? host : "?", (unsigned)port);
}

static char *header_dup(struct evhttp_request *req, const char *name)
{
	const char *v = evhttp_find_header(evhttp_request_get_input_headers(req), name);

	return v ? strdup(v) : NULL;
}

/* The parts of req a worker needs, copied: req stays the loop's. */
static int req_copy(struct evhttp_request *req, struct rest_req *r)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	const char *query = uri ? evhttp_uri_get_query(uri) : NULL;
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t plen = 0, blen = evbuffer_get_length(in);

	r->method = method_of(req);
	r->path = evhttp_uridecode(path && *path ? path : "/", 0, &plen);
	if (!r->path || strlen(r->path) != plen)
		return -EINVAL; /* an encoded NUL */
	if (query && !(r->query = strdup(query)))
		return -ENOMEM;
	r->hdr_user = header_dup(req, "X-SLURM-USER-NAME");
	r->hdr_token = header_dup(req, "X-SLURM-USER-TOKEN");
	if (blen > RESTD_MAX_BODY)
		return -EFBIG;
	if (blen) {
		r->body = malloc(blen + 1);
		if (!r->body)
			return -ENOMEM;
		evbuffer_remove(in, r->body, blen);
		r->body[blen] = '\0';
		r->body_len = blen;
	}
	peer_of(req, r);
	return 0;
}

static void reply_now(struct evhttp_request *req, struct rest_req *r, int status, int code)
{
	rest_reply_error(r, status, code, NULL);
	send_reply(req, r->status, r->out, r->out_len);
	rest_req_free(r);
}

/* The dashboard's files need no worker: they are in memory, and carry no
 * data of anyone's (the page asks the API for that, with the user's token).
 * true when req was answered here. */
static bool serve_www(struct restd *rd, struct evhttp_request *req)
{
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	const struct www_file *f;
	struct evkeyvalq *h;
	struct evbuffer *b;

	if (!rd->www || (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD))
		return false;
	f = www_find(rd->www, path && *path ? path : "/");
	if (!f)
		return false;
	h = evhttp_request_get_output_headers(req);
	evhttp_add_header(h, "Content-Type", f->type);
	evhttp_add_header(h, "Content-Security-Policy", www_csp);
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
	evhttp_add_header(h, "X-Frame-Options", "DENY");
	evhttp_add_header(h, "Referrer-Policy", "no-referrer");
	evhttp_add_header(h, "Cache-Control", "no-cache");
	b = evbuffer_new();
	if (!b) {
		evhttp_send_error(req, 500, NULL);
		return true;
	}
	/* the bytes live as long as the daemon: no copy */
	if (cmd == EVHTTP_REQ_GET)
		evbuffer_add_reference(b, f->data, f->len, NULL, NULL);
	evhttp_send_reply(req, 200, "OK", b);
	evbuffer_free(b);
	return true;
}

static void http_cb(struct evhttp_request *req, void *arg)
{
	struct restd *rd = arg;
	struct rest_req *r;
	int rc;

	if (evhttp_request_get_connection(req))
		conn_cap_request_done(rd->cap, evhttp_connection_get_bufferevent(
						   evhttp_request_get_connection(req)));
	if (serve_www(rd, req))
		return;
	r = calloc(1, sizeof(*r));
	if (!r) {
		evhttp_send_error(req, 500, NULL);
		return;
	}
	r->rd = rd;
	rc = req_copy(req, r);
	if (rc < 0) {
		reply_now(req, r, rc == -EFBIG ? 413 : 400,
				 rc == -EFBIG ? ESLURM_DATA_TOO_LARGE : ESLURM_REST_INVALID_QUERY);
		return;
	}
	r->done_ev = event_new(rd->base, -1, 0, done_cb, r);
	if (!r->done_ev) {
		reply_now(req, r, 500, ENOMEM);
		return;
	}
	r->http = req;
	evhttp_connection_set_closecb(evhttp_request_get_connection(req), conn_close_cb, r);
	if (pool_push(rd->pool, r) < 0) {
		evhttp_connection_set_closecb(evhttp_request_get_connection(req), NULL, NULL);
		req_log(LOG_LEVEL_ERROR, "%s: %s refused: %u requests wait already", r->peer,
			r->path, RESTD_MAX_QUEUED);
		reply_now(req, r, 503, EAGAIN);
		return;
	}
	conn_cap_set_busy(
	    rd->cap, evhttp_connection_get_bufferevent(evhttp_request_get_connection(req)), true);
}

int restd_http_init(struct restd *rd)
{
	int r;

	rd->http = evhttp_new(rd->base);
	if (!rd->http)
		return -ENOMEM;
	evhttp_set_max_body_size(rd->http, RESTD_MAX_BODY);
	evhttp_set_max_headers_size(rd->http, RESTD_MAX_HEADERS);
	evhttp_set_timeout(rd->http, RESTD_TIMEOUT_S);
	evhttp_set_flags(rd->http, EVHTTP_SERVER_LINGERING_CLOSE);
	evhttp_set_allowed_methods(rd->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_DELETE
						 | EVHTTP_REQ_PUT | EVHTTP_REQ_PATCH
						 | EVHTTP_REQ_HEAD | EVHTTP_REQ_OPTIONS);
	evhttp_set_gencb(rd->http, http_cb, rd);
	r = conn_cap_new(rd->base, rd->http, RESTD_MAX_CONNS, RESTD_REQUEST_S, &rd->cap);
	return r;
}

int restd_http_workers(struct restd *rd, unsigned workers)
{
	return pool_new(workers, RESTD_MAX_QUEUED, req_run, rd, &rd->pool);
}

void restd_http_fini(struct restd *rd)
{
	if (rd->http)
		evhttp_free(rd->http);
	rd->http = NULL;
	conn_cap_free(rd->cap);
	rd->cap = NULL;
}

static int listen_unix(struct restd *rd, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path); /* a previous run's */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 128) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	/* who may connect is decided per request from SO_PEERCRED */
	chmod(path, 0777);
	if (!evhttp_accept_socket_with_handle(rd->http, fd)) {
		close(fd);
		return -EINVAL;
	}
	info("listening on unix:%s", path);
	return 0;
}

int restd_listen(struct restd *rd, const char *spec)
{
	_cleanup_free_ char *host = NULL;
	const char *colon;
	char *end = NULL;
	unsigned long port;

	if (strncmp(spec, "unix:", 5) == 0)
		return listen_unix(rd, spec + 5);
	colon = strrchr(spec, ':');
	if (!colon || colon == spec)
		return -EINVAL;
	port = strtoul(colon + 1, &end, 10);
	if (*end || !colon[1] || port == 0 || port > 65535)
		return -EINVAL;
	host = strndup(spec, (size_t)(colon - spec));
	if (!host)
		return -ENOMEM;
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	if (!evhttp_bind_socket_with_handle(rd->http, host, (ev_uint16_t)port))
		return -EADDRINUSE;
	info("listening on %s", spec);
	return 0;
}
