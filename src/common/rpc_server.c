/* rpc_server.c - listener and per-connection state machine; see rpc_server.h.
 *
 * A connection is READING until one whole frame has arrived, then
 * DISPATCHED (reading disabled) until the daemon replies, then CLOSING
 * until the reply has been written. If the peer goes away while a request
 * is with the daemon, the conn is only marked dead and is freed when the
 * reply comes (so a struct rpc_req never points at freed memory).
 * Caveat: this is daemon plumbing, so unlike the rest of src/common it
 * logs refusals at error level: they are security events an admin wants.
 */
#include "rpc_server.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "errprintf.h"
#include "frame.h"
#include "limits.h"
#include "log.h"
#include "msg.h"
#include "pack.h"
#include "sl_errno.h"

enum conn_state { CONN_READING, CONN_DISPATCHED, CONN_CLOSING };

struct rpc_conn {
	struct rpc_server *srv;
	struct bufferevent *bev;
	enum conn_state state;
	bool is_dead;            /* peer gone while dispatched */
	bool is_pre_authed;      /* a large frame's credential was checked early */
	struct frame_auth auth;  /* valid when is_pre_authed */
	uint16_t req_type;	 /* of the request, once its header is read: for the logs */
	struct rpc_conn *next;   /* server's list of live conns */
	struct rpc_conn *prev;
	char peer[64];
};

struct rpc_server {
	struct event_base *base;
	struct evconnlistener *listener;
	struct rpc_server_opts opts;
	char *munge_socket;
	rpc_dispatch_fn *fn;
	void *arg;
	struct rpc_conn *conns;
};

static void conn_free(struct rpc_conn *c)
{
	if (c->bev)
		bufferevent_free(c->bev);
	if (c->prev)
		c->prev->next = c->next;
	else if (c->srv)
		c->srv->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
}

/* Close now unless the daemon still holds a request on this conn. */
static void conn_close(struct rpc_conn *c)
{
	if (c->state == CONN_DISPATCHED) {
		if (c->bev)
			bufferevent_free(c->bev);
		c->bev = NULL;
		c->is_dead = true;
		return;
	}
	conn_free(c);
}

static int conn_send(struct rpc_conn *c, uint16_t type, const void *msg)
{
	struct pack_buf out = { 0 };
	struct sl_error err = {""};
	int r;

	r = frame_build(type, msg, c->srv->munge_socket, &out, &err);
	if (r < 0)
		error("%s: %s reply to %s not sent: %s", c->peer, msg_type_name(type),
		      c->req_type ? msg_type_name(c->req_type) : "an unread request", err.text);
	if (r == 0 && bufferevent_write(c->bev, out.data, out.len) < 0)
		r = -SLURM_COMMUNICATIONS_SEND_ERROR;
	pack_buf_done(&out);
	c->state = CONN_CLOSING;
	if (r < 0)
		conn_free(c);
	return r;
}

/* Refuse before dispatch: one log line, an rc reply when it helps the
 * peer understand (version, auth), then close. */
static void conn_refuse(struct rpc_conn *c, int rc, const char *why, bool do_reply)
{
	struct rc_msg m = { .rc = (uint32_t)-rc };

	error("%s: %s refused: %s (%s)", c->peer,
	      c->req_type ? msg_type_name(c->req_type) : "request", why, sl_strerror(rc));
	if (do_reply) {
		bufferevent_disable(c->bev, EV_READ);
		conn_send(c, RESPONSE_SLURM_RC, &m);
		return;
	}
	conn_free(c);
}

static void conn_handle_frame(struct rpc_conn *c, const uint8_t *data, uint32_t len)
{
	struct rpc_req *req;
	struct frame f;
	struct sl_error err = {""};
	void *body = NULL;
	uid_t uid;
	gid_t gid;
	int r;

	r = frame_parse(data, len, &f);
	if (r < 0) {
		frame_done(&f);
		if (r == -SLURM_PROTOCOL_VERSION_ERROR)
			return conn_refuse(c, r, "protocol version mismatch", true);
		return conn_refuse(c, r, "malformed frame", false);
	}
	c->req_type = f.type;
	if (c->is_pre_authed) {
		r = frame_auth_check(&f, &c->auth, &err);
		uid = c->auth.uid;
		gid = c->auth.gid;
	} else {
		r = frame_verify(&f, c->srv->munge_socket, &uid, &gid, &err);
	}
	if (r < 0) {
		frame_done(&f);
		return conn_refuse(c, r, err.text, true);
	}
	r = msg_unpack_body(f.type, f.body, f.body_len, f.version, &body);
	if (r < 0) {
		bool known = msg_lookup(f.type) != NULL;

		error("%s: %s from uid=%u: %s", c->peer, msg_type_name(f.type), (unsigned)uid,
		      known ? "malformed body" : "unknown message type");
		frame_done(&f);
		return conn_refuse(c, known ? r : -SLURM_UNEXPECTED_MSG_ERROR,
				   known ? "malformed body" : "unknown message type", true);
	}
	req = calloc(1, sizeof(*req));
	if (!req) {
		msg_free(msg_lookup(f.type), body);
		frame_done(&f);
		return conn_refuse(c, -ENOMEM, "out of memory", false);
	}
	req->conn = c;
	req->type = f.type;
	req->body = body;
	req->uid = uid;
	req->gid = gid;
	snprintf(req->peer, sizeof(req->peer), "%s", c->peer);
	frame_done(&f);
	c->state = CONN_DISPATCHED;
	bufferevent_disable(c->bev, EV_READ);
	debug2("%s: %s from uid=%u", c->peer, msg_type_name(req->type), (unsigned)uid);
	c->srv->fn(c->srv->arg, req);
}

/* A frame larger than SL_FRAME_PREAUTH is buffered only for a peer whose
 * credential munged accepts: check it as soon as header and credential
 * are in. Returns true when the frame may be read on; false when more
 * bytes are needed or the conn was refused (and freed). */
static bool conn_pre_auth(struct rpc_conn *c, struct evbuffer *in)
{
	size_t avail = evbuffer_get_length(in) - sizeof(uint32_t), need;
	size_t head = sizeof(uint32_t) + FRAME_HDR_LEN + 4 + SL_CRED_MAX;
	struct sl_error err = {""};
	uint8_t *data;
	char *cred = NULL;
	int r;

	data = evbuffer_pullup(in, avail + sizeof(uint32_t) < head ? -1 : (ssize_t)head);
	if (!data) {
		conn_free(c);
		return false;
	}
	r = frame_peek_cred(data + sizeof(uint32_t), avail, &need, &cred);
	if (r == -EAGAIN)
		return false;
	if (r == 0)
		r = frame_cred_decode(cred, c->srv->munge_socket, &c->auth, &err);
	else
		errprintf(&err, r, "%s",
			  r == -SLURM_PROTOCOL_VERSION_ERROR ? "protocol version mismatch"
							     : "bad credential on a large frame");
	free(cred);
	if (r < 0) {
		conn_refuse(c, r, err.text, true);
		return false;
	}
	c->is_pre_authed = true;
	return true;
}

static void conn_read_cb(struct bufferevent *bev, void *arg)
{
	struct rpc_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	uint32_t be_len, len;
	uint8_t *data;

	if (c->state != CONN_READING)
		return;
	if (evbuffer_get_length(in) < sizeof(be_len))
		return;
	evbuffer_copyout(in, &be_len, sizeof(be_len));
	len = be32toh(be_len);
	if (len < FRAME_MIN || len > c->srv->opts.max_frame) {
		error("%s: frame of %u bytes refused (limit %u), closing", c->peer, len,
		      c->srv->opts.max_frame);
		conn_free(c);
		return;
	}
	if (len > SL_FRAME_PREAUTH && !c->is_pre_authed && !conn_pre_auth(c, in))
		return; /* refused (c is gone), or header and credential not in yet */
	if (evbuffer_get_length(in) < sizeof(be_len) + len)
		return; /* wait for the rest */
	evbuffer_drain(in, sizeof(be_len));
	data = evbuffer_pullup(in, len);
	if (!data) {
		conn_free(c);
		return;
	}
	conn_handle_frame(c, data, len); /* may free c: touch nothing after */
}

static void conn_write_cb(struct bufferevent *bev, void *arg)
{
	struct rpc_conn *c = arg;

	if (c->state == CONN_CLOSING && evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		conn_free(c);
}

static void conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct rpc_conn *c = arg;

	(void)bev;
	if (what & BEV_EVENT_TIMEOUT)
		error("%s: connection timed out, closing", c->peer);
	else if ((what & BEV_EVENT_ERROR) && c->state == CONN_READING)
		debug("%s: connection error: %s", c->peer, strerror(EVUTIL_SOCKET_ERROR()));
	else if ((what & BEV_EVENT_EOF) && c->state == CONN_READING
		 && evbuffer_get_length(bufferevent_get_input(c->bev)) > 0)
		error("%s: peer closed in the middle of a frame", c->peer);
	conn_close(c);
}

static void server_accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
			     int salen, void *arg)
{
	struct rpc_server *s = arg;
	struct rpc_conn *c;
	struct timeval tv = { .tv_sec = s->opts.timeout_s };
	char ip[INET6_ADDRSTRLEN] = "?";

	(void)l;
	(void)salen;
	c = calloc(1, sizeof(*c));
	if (!c) {
		evutil_closesocket(fd);
		return;
	}
	if (sa->sa_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(c->peer, sizeof(c->peer), "%s:%u", ip, ntohs(in->sin_port));
	} else {
		snprintf(c->peer, sizeof(c->peer), "fd%d", (int)fd);
	}
	c->srv = s;
	c->bev = bufferevent_socket_new(s->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev) {
		evutil_closesocket(fd);
		free(c);
		return;
	}
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	bufferevent_setcb(c->bev, conn_read_cb, conn_write_cb, conn_event_cb, c);
	bufferevent_set_timeouts(c->bev, &tv, &tv);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
}

int rpc_server_new(struct event_base *base, const char *addr, uint16_t port,
		   const struct rpc_server_opts *opts, rpc_dispatch_fn *fn, void *arg,
		   struct rpc_server **ret)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct rpc_server *s;

	if (addr && inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return -EINVAL;
	if (!addr)
		sin.sin_addr.s_addr = htonl(INADDR_ANY);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->base = base;
	s->opts = *opts;
	if (opts->munge_socket && !(s->munge_socket = strdup(opts->munge_socket))) {
		free(s);
		return -ENOMEM;
	}
	s->opts.munge_socket = s->munge_socket;
	s->fn = fn;
	s->arg = arg;
	s->listener = evconnlistener_new_bind(
		base, server_accept_cb, s,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC, 128,
		(struct sockaddr *)&sin, sizeof(sin));
	if (!s->listener) {
		int r = -errno;

		free(s->munge_socket);
		free(s);
		return r ? r : -EADDRINUSE;
	}
	*ret = s;
	return 0;
}

struct rpc_server *rpc_server_free(struct rpc_server *s)
{
	if (!s)
		return NULL;
	if (s->listener)
		evconnlistener_free(s->listener);
	while (s->conns) {
		struct rpc_conn *c = s->conns;

		if (c->state == CONN_DISPATCHED) {
			/* the daemon still holds the req: detach, it frees later */
			s->conns = c->next;
			if (s->conns)
				s->conns->prev = NULL;
			c->srv = NULL;
			c->next = c->prev = NULL;
			if (c->bev)
				bufferevent_free(c->bev);
			c->bev = NULL;
			c->is_dead = true;
			continue;
		}
		conn_free(c);
	}
	free(s->munge_socket);
	free(s);
	return NULL;
}

static void req_free(struct rpc_req *req)
{
	msg_free(msg_lookup(req->type), req->body);
	free(req);
}

int rpc_reply(struct rpc_req *req, uint16_t type, const void *msg)
{
	struct rpc_conn *c = req->conn;
	int r;

	req_free(req);
	if (c->is_dead) {
		if (c->srv)
			conn_free(c); /* unlinks; its bev is already gone */
		else
			free(c); /* the server went first and detached it */
		return -SLURM_COMMUNICATIONS_SEND_ERROR;
	}
	r = conn_send(c, type, msg);
	return r;
}

int rpc_reply_rc(struct rpc_req *req, int rc)
{
	struct rc_msg m = { .rc = (uint32_t)(rc < 0 ? -rc : rc) };

	return rpc_reply(req, RESPONSE_SLURM_RC, &m);
}

void *rpc_req_take_body(struct rpc_req *req, size_t size)
{
	void *body = malloc(size);

	if (!body)
		return NULL;
	memcpy(body, req->body, size);
	memset(req->body, 0, size);
	return body;
}
