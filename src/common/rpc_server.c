/* rpc_server.c - listener and per-connection state machine; see rpc_server.h.
 *
 * A connection is READING until one whole frame has arrived, then
 * DISPATCHED (reading disabled) until the daemon replies, then CLOSING
 * until the reply has been written. If the peer goes away while a request
 * is with the daemon, the conn is only marked dead and is freed when the
 * reply comes (so a struct rpc_req never points at freed memory).
 * A reply in parts (rpc_reply_part) makes it STREAMING while a part is
 * being written; once the socket took it, the daemon gets the req back
 * (DISPATCHED) for the next part. A STREAMING conn that dies or times out
 * is handed back at once, marked dead, so the daemon frees its state.
 *
 * What a peer may cost us (conn_limit.h holds the numbers):
 * - time: a whole frame must be in within MessageTimeout of the accept
 *   (one deadline, not per byte, so a trickle of one byte a second is
 *   closed too); the reply must be taken within MessageTimeout as well;
 * - file descriptors: at most limit.max_open connections. When a new one
 *   comes over that, the oldest connection not being served (still
 *   reading its frame, or not taking its reply) is closed: a slow-loris
 *   holds the oldest ones, while a real client's frame is in within
 *   milliseconds, so a flood cannot starve slurmd's, root's or a user's
 *   requests. Out of descriptors all the same (EMFILE), the listener
 *   closes such a connection, or pauses 100 ms when there is none: it
 *   never spins on accept();
 * - memory: frames being read hold at most limit.max_buffered bytes
 *   together (only large, already authenticated frames are refused by it);
 * - the daemon: at most limit.max_per_uid requests of one user being
 *   served at once, root and SlurmUser exempt (the uid is the credential's,
 *   so this cap applies after authentication); a request counts until its
 *   reply has been written, not only until the daemon answered;
 * - memory for replies: the bytes a peer has not taken yet (its output
 *   buffer, followed by an evbuffer callback) count against its user's
 *   limit.max_out_per_uid and everyone's limit.max_out. Over a budget, the
 *   connection whose reply has waited longest is closed, until it holds
 *   again: a client that does not read loses its oldest replies, and the
 *   user's next command, whose reply is the newest, goes through. Root and
 *   SlurmUser (slurmd, admins, slurmrestd) count in the total but are never
 *   closed for it; the connection being written to never is either, so one
 *   reply of any size always goes out;
 * - munge: a peer that did not authenticate (wrong version, bad or missing
 *   credential, garbage) is answered with an unsigned frame or closed;
 *   only an authenticated request gets a signed reply (munge_encode).
 * Caveat: this is daemon plumbing, so unlike the rest of src/common it
 * logs refusals at error level: they are security events an admin wants.
 * A flood would turn that into a flood of lines, so at most
 * RPC_LOG_BURST refusal lines a second are written and the rest counted.
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "conn_limit.h"
#include "errprintf.h"
#include "frame.h"
#include "limits.h"
#include "log.h"
#include "msg.h"
#include "pack.h"
#include "sl_errno.h"

#define RPC_LOG_BURST	    100	 /* refusal lines a second; the rest are counted */
#define RPC_LISTEN_BACKLOG  4096 /* as Slurm's daemons; the kernel caps it at somaxconn */
#define RPC_ACCEPT_PAUSE_MS 100	 /* out of descriptors with nothing to close */

enum conn_state { CONN_READING, CONN_DISPATCHED, CONN_STREAMING, CONN_CLOSING };

struct rpc_conn {
	struct rpc_server *srv;
	struct bufferevent *bev;
	struct event *deadline; /* the whole frame (READING), the whole reply (CLOSING) */
	enum conn_state state;
	bool is_dead;            /* peer gone while dispatched */
	bool is_pre_authed;      /* a large frame's credential was checked early */
	bool is_uid_counted;	 /* one of uid's requests in srv->limit */
	bool is_authed;		 /* the credential was verified: uid is known */
	bool is_privileged;	 /* signed by root or SlurmUser */
	uid_t uid;		 /* the signer, once is_authed */
	size_t out;		 /* reply bytes not yet taken, counted in srv->limit */
	uint64_t out_seq;	 /* srv->out_seq when out last left 0: lower waited longer */
	struct frame_auth auth;  /* valid when is_pre_authed */
	uint16_t req_type;	 /* of the request, once its header is read: for the logs */
	struct rpc_req *stream_req; /* STREAMING: the daemon's, handed back to */
	rpc_more_fn *stream_fn;	    /* stream_fn(stream_arg, req) when the part is taken */
	void *stream_arg;
	struct rpc_req *held_req; /* DISPATCHED and held (rpc_req_hold): its peer is watched */
	rpc_gone_fn *gone_fn;	  /* gone_fn(gone_arg, held_req) when that peer goes */
	void *gone_arg;
	size_t buffered;	 /* input bytes counted in srv->limit */
	struct rpc_conn *next;	 /* server's list of live conns, oldest first */
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
	struct conn_limit limit;
	const struct timeval *deadline_tv; /* MessageTimeout, a libevent common timeout */
	struct event *resume;		   /* the listener again after a pause */
	time_t log_sec;			   /* refusal lines written in this second */
	unsigned log_n;
	unsigned log_dropped;
	uint64_t out_seq;
	struct rpc_conn *conns;
	struct rpc_conn *tail;
};

/* At most RPC_LOG_BURST refusal lines a second; the count of the others
 * is written with the first line of a later second. */
static bool srv_may_log(struct rpc_server *s)
{
	time_t now = time(NULL);

	if (!s)
		return true;
	if (now != s->log_sec) {
		if (s->log_dropped)
			error("%u more refused or closed connections were not logged",
			      s->log_dropped);
		s->log_sec = now;
		s->log_n = s->log_dropped = 0;
	}
	if (s->log_n < RPC_LOG_BURST) {
		s->log_n++;
		return true;
	}
	s->log_dropped++;
	return false;
}

#define srv_error(s, ...)                                                                          \
	do {                                                                                       \
		if (srv_may_log(s))                                                                \
			error(__VA_ARGS__);                                                        \
	} while (0)

/* Out of the server's list and counts; the conn itself stays. */
static void conn_unlink(struct rpc_conn *c)
{
	struct rpc_server *s = c->srv;

	if (!s)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		s->tail = c->prev;
	c->next = c->prev = NULL;
	conn_limit_buffer(&s->limit, c->buffered, 0);
	c->buffered = 0;
	conn_limit_out(&s->limit, c->is_uid_counted ? &c->uid : NULL, c->out, 0);
	c->out = 0;
	if (c->is_uid_counted)
		conn_limit_uid_put(&s->limit, c->uid);
	c->is_uid_counted = false;
	s->limit.open--;
	c->srv = NULL;
}

/* The output buffer changed (a reply written, or the socket took some):
 * what it holds counts against the budgets of replies not yet taken. */
static void conn_out_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
	struct rpc_conn *c = arg;
	size_t len = info->orig_size + info->n_added - info->n_deleted;

	(void)buf;
	if (!c->srv)
		return;
	if (c->out == 0 && len > 0)
		c->out_seq = ++c->srv->out_seq;
	conn_limit_out(&c->srv->limit, c->is_uid_counted ? &c->uid : NULL, c->out, len);
	c->out = len;
}

/* The socket and what it still had to write go; the conn stays. The
 * output is drained first: bufferevent_free frees its buffers only later,
 * from the loop (a finalizer), after every request of this round was
 * served, and replies of closed connections would pile up until then. */
static void conn_drop_bev(struct rpc_conn *c)
{
	if (c->bev) {
		struct evbuffer *out = bufferevent_get_output(c->bev);

		evbuffer_unfreeze(out, 1); /* a socket bufferevent's start is frozen */
		evbuffer_drain(out, evbuffer_get_length(out));
	}
	if (c->srv)
		conn_limit_out(&c->srv->limit, c->is_uid_counted ? &c->uid : NULL, c->out, 0);
	c->out = 0;
	if (c->bev)
		bufferevent_free(c->bev);
	c->bev = NULL;
}

static void conn_free(struct rpc_conn *c)
{
	conn_unlink(c);
	if (c->deadline)
		event_free(c->deadline);
	conn_drop_bev(c);
	free(c);
}

/* A part of the reply was written (or the conn died): the daemon gets
 * its req back, for the next part or to free what it keeps. */
static void conn_stream_next(struct rpc_conn *c)
{
	struct rpc_req *req = c->stream_req;

	c->stream_req = NULL;
	c->state = CONN_DISPATCHED;
	if (c->deadline)
		event_del(c->deadline);
	c->stream_fn(c->stream_arg, req);
}

/* Close now unless the daemon still holds a request on this conn. */
static void conn_close(struct rpc_conn *c)
{
	if (c->state == CONN_STREAMING) {
		conn_drop_bev(c);
		c->is_dead = true;
		conn_stream_next(c); /* the daemon's reply then frees c */
		return;
	}
	if (c->state == CONN_DISPATCHED) {
		struct rpc_req *held = c->held_req;

		conn_drop_bev(c);
		c->is_dead = true;
		c->held_req = NULL;
		if (held)
			c->gone_fn(c->gone_arg, held); /* its reply then frees c */
		return;
	}
	conn_free(c);
}

/* Close the oldest connection that is not being served (reading its
 * frame, or not taking its reply). false when every one is served. */
static bool srv_close_oldest(struct rpc_server *s, const char *why)
{
	for (struct rpc_conn *c = s->conns; c; c = c->next) {
		if (c->state == CONN_DISPATCHED)
			continue;
		srv_error(s, "%s: closed, %s: the oldest connection %s", c->peer, why,
			  c->state == CONN_READING ? "without a whole frame"
						   : "not taking its reply");
		conn_close(c);
		return true;
	}
	return false;
}

/* The unprivileged connection, other than c (of c's user when is_same_uid),
 * whose reply has waited longest; NULL when there is none. */
static struct rpc_conn *srv_slowest_reader(struct rpc_server *s, const struct rpc_conn *c,
					   bool is_same_uid)
{
	struct rpc_conn *slowest = NULL;

	for (struct rpc_conn *o = s->conns; o; o = o->next) {
		if (o == c || o->out == 0 || o->is_privileged)
			continue;
		if (is_same_uid && !(o->is_uid_counted && o->uid == c->uid))
			continue;
		if (!slowest || o->out_seq < slowest->out_seq)
			slowest = o;
	}
	return slowest;
}

/* Close v for its unread reply. A STREAMING one goes back to the daemon
 * from the loop (its deadline, made active), not from inside the reply
 * being sent now: rpc_more_fn is never called from within rpc_reply*. */
static void conn_evict(struct rpc_conn *v, const char *whose, size_t budget)
{
	struct rpc_server *s = v->srv;

	if (v->is_authed)
		srv_error(s,
			  "%s: closed, uid=%u: %zu reply bytes unread, the oldest while %s "
			  "replies not taken passed %zu bytes",
			  v->peer, (unsigned)v->uid, v->out, whose, budget);
	else
		srv_error(s,
			  "%s: closed: %zu reply bytes unread, the oldest while %s replies not "
			  "taken passed %zu bytes",
			  v->peer, v->out, whose, budget);
	if (v->state != CONN_STREAMING)
		return conn_free(v); /* CLOSING: the only other state with output */
	conn_drop_bev(v);
	v->is_dead = true;
	event_active(v->deadline, EV_TIMEOUT, 1); /* conn_close hands it back */
}

/* c's reply was just written: over a budget of replies not taken, close
 * the slowest readers (never c) until it holds again. */
static void srv_trim_out(struct rpc_server *s, struct rpc_conn *c)
{
	struct rpc_conn *v;

	while (c->is_uid_counted && conn_limit_uid_is_over_out(&s->limit, c->uid)
	       && (v = srv_slowest_reader(s, c, true)))
		conn_evict(v, "the user's", s->limit.max_out_per_uid);
	while (conn_limit_is_over_out(&s->limit) && (v = srv_slowest_reader(s, c, false)))
		conn_evict(v, "all users'", s->limit.max_out);
}

static int conn_send(struct rpc_conn *c, uint16_t type, const void *msg, bool is_signed)
{
	struct pack_buf out = { 0 };
	struct sl_error err = {""};
	int r;

	if (is_signed)
		r = frame_build(type, msg, c->srv->munge_socket, &out, &err);
	else
		r = frame_build_unsigned(type, msg, &out);
	if (r < 0)
		error("%s: %s reply to %s not sent: %s", c->peer, msg_type_name(type),
		      c->req_type ? msg_type_name(c->req_type) : "an unread request",
		      err.text[0] ? err.text : sl_strerror(r));
	if (r == 0 && bufferevent_write(c->bev, out.data, out.len) < 0)
		r = -SLURM_COMMUNICATIONS_SEND_ERROR;
	pack_buf_done(&out);
	c->state = CONN_CLOSING;
	if (r < 0) {
		conn_free(c);
		return r;
	}
	event_add(c->deadline, c->srv->deadline_tv); /* the reply must be taken in time too */
	srv_trim_out(c->srv, c);
	return 0;
}

enum refuse_reply {
	REFUSE_CLOSE,	 /* garbage: no reply */
	REFUSE_UNSIGNED, /* not authenticated: an rc the peer can read, at no munge cost */
	REFUSE_SIGNED,	 /* authenticated: a signed rc, as any reply */
};

/* Refuse before dispatch: one log line, an rc reply when it helps the
 * peer understand, then close. */
static void conn_refuse(struct rpc_conn *c, int rc, const char *why, enum refuse_reply how)
{
	struct rc_msg m = { .rc = (uint32_t)-rc };

	srv_error(c->srv, "%s: %s refused: %s (%s)", c->peer,
		  c->req_type ? msg_type_name(c->req_type) : "request", why, sl_strerror(rc));
	if (how == REFUSE_CLOSE)
		return conn_free(c);
	bufferevent_disable(c->bev, EV_READ);
	conn_send(c, RESPONSE_SLURM_RC, &m, how == REFUSE_SIGNED);
}

/* The per-user cap on requests being served; root and SlurmUser are not
 * counted. false: refused (c is gone). */
static bool conn_count_uid(struct rpc_conn *c, uid_t uid)
{
	struct rpc_server *s = c->srv;
	char why[96];
	int r;

	if (uid == 0 || uid == s->opts.admin_uid)
		return true;
	r = conn_limit_uid_take(&s->limit, uid);
	if (r == 0) {
		c->is_uid_counted = true;
		return true;
	}
	snprintf(why, sizeof(why), "uid=%u has %u requests being served already", (unsigned)uid,
		 (unsigned)conn_limit_uid_count(&s->limit, uid));
	conn_refuse(c, r, why, REFUSE_SIGNED);
	return false;
}

/* The on-behalf mark (frame.h): honoured only from root or SlurmUser,
 * whose request then counts as the marked user's. uid and gid become the
 * marked user's, and auth_uid stays the signer. false: refused (c is gone). */
static bool conn_take_as(struct rpc_conn *c, struct frame *f, uid_t *uid, gid_t *gid,
			 uid_t *auth_uid)
{
	struct frame_as as;
	char why[128];
	int r;

	*auth_uid = *uid;
	r = frame_take_as(f, &as);
	if (r == 0)
		return true;
	if (r < 0) {
		conn_refuse(c, r, "malformed on-behalf mark", REFUSE_SIGNED);
		return false;
	}
	if (*uid != 0 && *uid != c->srv->opts.admin_uid) {
		snprintf(why, sizeof(why),
			 "Security violation: request on behalf of uid=%u from uid=%u, neither "
			 "root nor SlurmUser",
			 (unsigned)as.uid, (unsigned)*uid);
		conn_refuse(c, -ESLURM_ACCESS_DENIED, why, REFUSE_SIGNED);
		return false;
	}
	*uid = as.uid;
	*gid = as.gid;
	return true;
}

static void conn_handle_frame(struct rpc_conn *c, const uint8_t *data, uint32_t len)
{
	struct rpc_req *req;
	struct frame f;
	struct sl_error err = {""};
	void *body = NULL;
	uid_t uid, auth_uid;
	gid_t gid;
	int r;

	r = frame_parse(data, len, &f);
	if (r < 0) {
		frame_done(&f);
		if (r == -SLURM_PROTOCOL_VERSION_ERROR)
			return conn_refuse(c, r, "protocol version mismatch", REFUSE_UNSIGNED);
		return conn_refuse(c, r, "malformed frame", REFUSE_CLOSE);
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
		return conn_refuse(c, r, err.text, REFUSE_UNSIGNED);
	}
	if (!conn_take_as(c, &f, &uid, &gid, &auth_uid)) {
		frame_done(&f);
		return;
	}
	c->uid = auth_uid;
	c->is_authed = true;
	c->is_privileged = auth_uid == 0 || auth_uid == c->srv->opts.admin_uid;
	if (!conn_count_uid(c, auth_uid)) {
		frame_done(&f);
		return;
	}
	r = msg_unpack_body(f.type, f.body, f.body_len, f.version, &body);
	if (r < 0) {
		bool known = msg_lookup(f.type) != NULL;

		error("%s: %s from uid=%u: %s", c->peer, msg_type_name(f.type), (unsigned)uid,
		      known ? "malformed body" : "unknown message type");
		frame_done(&f);
		return conn_refuse(c, known ? r : -SLURM_UNEXPECTED_MSG_ERROR,
				   known ? "malformed body" : "unknown message type",
				   REFUSE_SIGNED);
	}
	req = calloc(1, sizeof(*req));
	if (!req) {
		msg_free(msg_lookup(f.type), body);
		frame_done(&f);
		return conn_refuse(c, -ENOMEM, "out of memory", REFUSE_CLOSE);
	}
	req->conn = c;
	req->type = f.type;
	req->body = body;
	req->uid = uid;
	req->gid = gid;
	req->auth_uid = auth_uid;
	snprintf(req->peer, sizeof(req->peer), "%s", c->peer);
	frame_done(&f);
	c->state = CONN_DISPATCHED;
	event_del(c->deadline); /* the daemon answers in its own time */
	bufferevent_disable(c->bev, EV_READ);
	debug2("%s: %s from uid=%u (signed by uid=%u)", c->peer, msg_type_name(req->type),
	       (unsigned)uid, (unsigned)auth_uid);
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
		conn_refuse(c, r, err.text, REFUSE_UNSIGNED);
		return false;
	}
	c->is_pre_authed = true;
	return true;
}

static void conn_read_cb(struct bufferevent *bev, void *arg)
{
	struct rpc_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t have = evbuffer_get_length(in);
	uint32_t be_len, len;
	uint8_t *data;

	if (c->held_req) {
		/* one request per connection: more bytes while its answer is
		 * held are not ours to buffer for an hour */
		debug("%s: data after a held request, closing", c->peer);
		conn_close(c);
		return;
	}
	if (c->state != CONN_READING)
		return;
	if (!conn_limit_buffer(&c->srv->limit, c->buffered, have)) {
		c->buffered = have;
		srv_error(
		    c->srv,
		    "%s: frame refused, closing: frames being read hold %zu bytes (limit %zu)",
		    c->peer, c->srv->limit.buffered, c->srv->limit.max_buffered);
		conn_free(c);
		return;
	}
	c->buffered = have;
	if (have < sizeof(be_len))
		return;
	evbuffer_copyout(in, &be_len, sizeof(be_len));
	len = be32toh(be_len);
	if (len < FRAME_MIN || len > c->srv->opts.max_frame) {
		srv_error(c->srv, "%s: frame of %u bytes refused (limit %u), closing", c->peer, len,
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

	if (evbuffer_get_length(bufferevent_get_output(bev)) != 0)
		return;
	if (c->state == CONN_CLOSING)
		conn_free(c);
	else if (c->state == CONN_STREAMING)
		conn_stream_next(c);
}

static void conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct rpc_conn *c = arg;

	(void)bev;
	if ((what & BEV_EVENT_TIMEOUT) && (c->state == CONN_CLOSING || c->state == CONN_STREAMING))
		debug("%s: reply not taken within MessageTimeout, closing", c->peer); /* as the deadline */
	else if (what & BEV_EVENT_TIMEOUT)
		srv_error(c->srv, "%s: connection timed out, closing", c->peer);
	else if ((what & BEV_EVENT_ERROR) && c->state == CONN_READING)
		debug("%s: connection error: %s", c->peer, strerror(EVUTIL_SOCKET_ERROR()));
	else if ((what & BEV_EVENT_EOF) && c->state == CONN_READING
		 && evbuffer_get_length(bufferevent_get_input(c->bev)) > 0)
		srv_error(c->srv, "%s: peer closed in the middle of a frame", c->peer);
	conn_close(c);
}

/* Whole frame (or whole reply) not in within MessageTimeout. */
static void conn_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rpc_conn *c = arg;

	(void)fd;
	(void)what;
	if (c->state == CONN_READING)
		srv_error(c->srv,
			  "%s: timed out: no whole frame within MessageTimeout (%u s), closing",
			  c->peer, c->srv->opts.timeout_s);
	else
		debug("%s: reply not taken within MessageTimeout, closing", c->peer);
	conn_close(c);
}

static void peer_name(const struct sockaddr *sa, evutil_socket_t fd, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(buf, size, "%s:%u", ip, ntohs(in->sin_port));
	} else {
		snprintf(buf, size, "fd%d", (int)fd);
	}
}

static void server_accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
			     int salen, void *arg)
{
	struct rpc_server *s = arg;
	struct rpc_conn *c;
	struct timeval tv = { .tv_sec = s->opts.timeout_s };
	char peer[64];

	(void)l;
	(void)salen;
	peer_name(sa, fd, peer, sizeof(peer));
	if (conn_limit_is_full(&s->limit) && !srv_close_oldest(s, "connection limit reached")) {
		srv_error(s, "%s: refused: %u connections open, every one being served", peer,
			  s->limit.open);
		evutil_closesocket(fd);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		evutil_closesocket(fd);
		return;
	}
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	c->srv = s;
	c->bev = bufferevent_socket_new(s->base, fd, BEV_OPT_CLOSE_ON_FREE);
	c->deadline = evtimer_new(s->base, conn_deadline_cb, c);
	if (!c->bev || !c->deadline) {
		if (c->bev)
			bufferevent_free(c->bev);
		else
			evutil_closesocket(fd);
		if (c->deadline)
			event_free(c->deadline);
		free(c);
		return;
	}
	c->prev = s->tail; /* oldest first: the list is in accept order */
	if (s->tail)
		s->tail->next = c;
	else
		s->conns = c;
	s->tail = c;
	s->limit.open++;
	bufferevent_setcb(c->bev, conn_read_cb, conn_write_cb, conn_event_cb, c);
	evbuffer_add_cb(bufferevent_get_output(c->bev), conn_out_cb, c);
	bufferevent_set_timeouts(c->bev, &tv, &tv);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	event_add(c->deadline, s->deadline_tv);
}

/* accept() failed. Out of descriptors, a connection not being served is
 * closed to make room; with none to close, the listener pauses for
 * RPC_ACCEPT_PAUSE_MS instead of spinning on a socket that stays readable. */
static void server_accept_error_cb(struct evconnlistener *l, void *arg)
{
	struct rpc_server *s = arg;
	int e = EVUTIL_SOCKET_ERROR();
	struct timeval tv = {.tv_usec = RPC_ACCEPT_PAUSE_MS * 1000};

	if (e != EMFILE && e != ENFILE && e != ENOBUFS && e != ENOMEM) {
		debug("accept: %s", strerror(e));
		return;
	}
	if (srv_close_oldest(s, "out of file descriptors"))
		return;
	srv_error(s, "accept: %s: no new connection for %u ms", strerror(e), RPC_ACCEPT_PAUSE_MS);
	evconnlistener_disable(l);
	event_add(s->resume, &tv);
}

static void server_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rpc_server *s = arg;

	(void)fd;
	(void)what;
	evconnlistener_enable(s->listener);
}

/* Fill in the caps left 0 from RLIMIT_NOFILE and the frame size. */
static void server_limits(struct rpc_server *s, const struct rpc_server_opts *o)
{
	struct rlimit rl = {0};
	uint64_t nofile = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;

	s->limit.max_open = o->max_conns ? o->max_conns : conn_limit_max_open(nofile);
	s->limit.max_per_uid =
	    o->max_per_uid ? o->max_per_uid : conn_limit_max_per_uid(s->limit.max_open);
	s->limit.max_buffered =
	    o->max_buffered ? o->max_buffered : conn_limit_max_buffered(o->max_frame);
	s->limit.max_out_per_uid = o->max_out_per_uid ? o->max_out_per_uid : CONN_LIMIT_OUT_PER_UID;
	s->limit.max_out = o->max_out ? o->max_out : CONN_LIMIT_OUT_TOTAL;
	debug("listener caps: %u connections, %u requests per user, %zu bytes being read, "
	      "%zu reply bytes not taken per user, %zu in all",
	      s->limit.max_open, s->limit.max_per_uid, s->limit.max_buffered,
	      s->limit.max_out_per_uid, s->limit.max_out);
}

int rpc_server_new(struct event_base *base, const char *addr, uint16_t port,
		   const struct rpc_server_opts *opts, rpc_dispatch_fn *fn, void *arg,
		   struct rpc_server **ret)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval deadline = {.tv_sec = opts->timeout_s ? opts->timeout_s : 10};
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
	s->opts.timeout_s = (uint32_t)deadline.tv_sec;
	server_limits(s, opts);
	s->deadline_tv = event_base_init_common_timeout(base, &deadline);
	s->resume = evtimer_new(base, server_resume_cb, s);
	if (!s->deadline_tv || !s->resume
	    || (opts->munge_socket && !(s->munge_socket = strdup(opts->munge_socket)))) {
		rpc_server_free(s);
		return -ENOMEM;
	}
	s->opts.munge_socket = s->munge_socket;
	s->fn = fn;
	s->arg = arg;
	s->listener = evconnlistener_new_bind(
	    base, server_accept_cb, s,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC, RPC_LISTEN_BACKLOG,
	    (struct sockaddr *)&sin, sizeof(sin));
	if (!s->listener) {
		int r = -errno;

		rpc_server_free(s);
		return r ? r : -EADDRINUSE;
	}
	evconnlistener_set_error_cb(s->listener, server_accept_error_cb);
	*ret = s;
	return 0;
}

struct rpc_server *rpc_server_free(struct rpc_server *s)
{
	if (!s)
		return NULL;
	if (s->listener)
		evconnlistener_free(s->listener);
	if (s->resume)
		event_free(s->resume);
	while (s->conns) {
		struct rpc_conn *c = s->conns;

		if (c->state == CONN_DISPATCHED || c->state == CONN_STREAMING) {
			/* the daemon holds the req (or gets it back now, the
			 * conn dead): detach, it frees later */
			conn_drop_bev(c);
			conn_unlink(c);
			if (c->deadline)
				event_free(c->deadline);
			c->deadline = NULL;
			c->is_dead = true;
			if (c->state == CONN_STREAMING)
				conn_stream_next(c);
			continue;
		}
		conn_free(c);
	}
	conn_limit_done(&s->limit);
	free(s->munge_socket);
	free(s);
	return NULL;
}

static void req_free(struct rpc_req *req)
{
	msg_free(msg_lookup(req->type), req->body);
	free(req);
}

void rpc_req_hold(struct rpc_req *req, rpc_gone_fn *fn, void *arg)
{
	struct rpc_conn *c = req->conn;
	struct timeval wtv = {.tv_sec = c->srv ? c->srv->opts.timeout_s : 10};

	if (c->is_dead || !c->bev)
		return; /* gone already: the daemon's reply frees req */
	c->held_req = req;
	c->gone_fn = fn;
	c->gone_arg = arg;
	if (c->is_uid_counted && c->srv) {
		conn_limit_uid_put(&c->srv->limit, c->uid);
		c->is_uid_counted = false;
	}
	/* no read timeout: the peer says nothing until the reply; EOF is read */
	bufferevent_set_timeouts(c->bev, NULL, &wtv);
	bufferevent_enable(c->bev, EV_READ);
}

int rpc_reply(struct rpc_req *req, uint16_t type, const void *msg)
{
	struct rpc_conn *c = req->conn;
	int r;

	c->held_req = NULL;
	req_free(req);
	if (c->bev)
		bufferevent_disable(c->bev, EV_READ); /* reading again only while held */
	if (c->is_dead) {
		conn_free(c); /* unlinks (unless the server went first); its bev is gone */
		return -SLURM_COMMUNICATIONS_SEND_ERROR;
	}
	/* still counted against its user until the reply is written (conn_free) */
	r = conn_send(c, type, msg, true);
	return r;
}

int rpc_reply_part(struct rpc_req *req, uint16_t type, const void *msg, rpc_more_fn *fn,
		   void *arg)
{
	struct rpc_conn *c = req->conn;
	struct pack_buf out = {0};
	struct sl_error err = {""};
	int r;

	c->held_req = NULL;
	if (c->is_dead) {
		req_free(req);
		conn_free(c);
		return -SLURM_COMMUNICATIONS_SEND_ERROR;
	}
	r = frame_build(type, msg, c->srv->munge_socket, &out, &err);
	if (r < 0)
		error("%s: %s reply to %s not sent: %s", c->peer, msg_type_name(type),
		      msg_type_name(c->req_type), err.text[0] ? err.text : sl_strerror(r));
	if (r == 0 && bufferevent_write(c->bev, out.data, out.len) < 0)
		r = -SLURM_COMMUNICATIONS_SEND_ERROR;
	pack_buf_done(&out);
	if (r < 0) {
		req_free(req);
		conn_free(c);
		return r;
	}
	c->stream_req = req;
	c->stream_fn = fn;
	c->stream_arg = arg;
	c->state = CONN_STREAMING;
	event_add(c->deadline, c->srv->deadline_tv); /* each part must be taken in time */
	srv_trim_out(c->srv, c);
	return 0;
}

bool rpc_req_is_gone(const struct rpc_req *req)
{
	return req->conn->is_dead;
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

const struct rpc_handler *rpc_table_find(const struct rpc_table *t, uint16_t type)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->rows[i].type == type)
			return &t->rows[i];
	return NULL;
}

int rpc_table_check(const struct rpc_table *t, void *ctx, uint16_t type, uid_t uid,
		    const struct rpc_handler **ret_row)
{
	const struct rpc_handler *h = rpc_table_find(t, type);

	if (!h)
		return -SLURM_UNEXPECTED_MSG_ERROR;
	if (h->priv != PRIV_ANY && !t->is_admin(ctx, uid))
		return -ESLURM_USER_ID_MISSING;
	*ret_row = h;
	return 0;
}

void rpc_table_dispatch(const struct rpc_table *t, void *ctx, struct rpc_req *req)
{
	const struct rpc_handler *h = NULL;
	uint16_t type = req->type;
	uid_t uid = req->uid;
	struct timespec t0, t1;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = rpc_table_check(t, ctx, type, uid, &h);
	if (r == -SLURM_UNEXPECTED_MSG_ERROR)
		error("%s: unexpected %s from uid=%u", req->peer, msg_type_name(type),
		      (unsigned)uid);
	else if (r < 0)
		error("Security violation, %s RPC from uid=%u", msg_type_name(type),
		      (unsigned)uid);
	else
		r = t->call(ctx, h, req);
	if (r < 0)
		rpc_reply_rc(req, r);
	if (!t->timed)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	t->timed(ctx, type, uid,
		 (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec))
		     / 1000);
}
