/* rpc_async.c - see rpc_async.h. One struct call per outstanding request;
 * it owns its bufferevent and frees itself after calling done.
 */
#include "rpc_async.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "errprintf.h"
#include "frame.h"
#include "log.h"
#include "macros.h"
#include "msg.h"
#include "pack.h"
#include "rpc_client.h"
#include "sl_errno.h"

struct call {
	struct bufferevent *bev;
	char *munge_socket;
	uid_t peer_uid;
	uint16_t type; /* of the request: for the logs */
	char peer[64]; /* host:port: for the logs */
	rpc_async_done_fn *done;
	void *arg;
};

static void call_finish(struct call *c, int rc, uint16_t type, void *msg)
{
	bufferevent_free(c->bev);
	c->done(c->arg, rc, type, msg);
	if (msg)
		msg_free(msg_lookup(type), msg);
	free(c->munge_socket);
	free(c);
}

static void call_read_cb(struct bufferevent *bev, void *arg)
{
	struct call *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	uint16_t type = 0;
	uint32_t be_len, len;
	struct sl_error err = {""};
	void *msg = NULL;
	uid_t uid = 0;
	int r;

	if (evbuffer_get_length(in) < sizeof(be_len))
		return;
	evbuffer_copyout(in, &be_len, sizeof(be_len));
	len = be32toh(be_len);
	if (len < FRAME_MIN || len > (64u << 20)) {
		call_finish(c, -SLURM_COMMUNICATIONS_RECEIVE_ERROR, 0, NULL);
		return;
	}
	if (evbuffer_get_length(in) < sizeof(be_len) + len)
		return;
	evbuffer_drain(in, sizeof(be_len));
	r = frame_open(evbuffer_pullup(in, len), len, c->munge_socket, &type, &msg, &uid, &err);
	if (r == 0 && uid != 0 && uid != c->peer_uid) {
		msg_free(msg_lookup(type), msg);
		msg = NULL;
		r = errprintf(&err, -SLURM_PROTOCOL_AUTHENTICATION_ERROR,
			      "signed by an unexpected user %u", (unsigned)uid);
	}
	if (r < 0)
		error("%s: reply to %s refused: %s", c->peer, msg_type_name(c->type), err.text);
	call_finish(c, r, type, msg);
}

static void call_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct call *c = arg;

	(void)bev;
	if (what & BEV_EVENT_CONNECTED)
		return;
	debug("call ended by a connection event 0x%x: %s", (unsigned)what,
	      (what & BEV_EVENT_ERROR) ? evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR())
				       : "end of file or timeout");
	call_finish(c,
		    (what & BEV_EVENT_TIMEOUT) ? -SLURM_COMMUNICATIONS_RECEIVE_ERROR
						: -SLURM_COMMUNICATIONS_CONNECTION_ERROR,
		    0, NULL);
}

int rpc_async_call(struct event_base *base, const char *munge_socket, const char *host,
		   uint16_t port, uint16_t type, const void *req, uid_t peer_uid,
		   unsigned timeout_s, rpc_async_done_fn *done, void *arg)
{
	struct timeval tv = { .tv_sec = timeout_s ? timeout_s : 10 };
	struct pack_buf out = { 0 };
	struct sl_error err = {""};
	struct sockaddr_in sa;
	struct call *c;
	int r;

	r = rpc_resolve(host, port, &sa);
	if (r < 0)
		return r;
	r = frame_build(type, req, munge_socket, &out, &err);
	if (r < 0) {
		error("%s:%u: %s not sent: %s", host, (unsigned)port, msg_type_name(type),
		      err.text);
		goto fail;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		r = -ENOMEM;
		goto fail;
	}
	c->peer_uid = peer_uid;
	c->type = type;
	snprintf(c->peer, sizeof(c->peer), "%s:%u", host, (unsigned)port);
	c->done = done;
	c->arg = arg;
	c->munge_socket = sdup(munge_socket);
	c->bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev || (munge_socket && !c->munge_socket)) {
		if (c->bev)
			bufferevent_free(c->bev);
		free(c->munge_socket);
		free(c);
		r = -ENOMEM;
		goto fail;
	}
	bufferevent_setcb(c->bev, call_read_cb, NULL, call_event_cb, c);
	bufferevent_set_timeouts(c->bev, &tv, &tv);
	bufferevent_write(c->bev, out.data, out.len);
	pack_buf_done(&out);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	/* a refused connect is reported through call_event_cb, on the loop */
	if (bufferevent_socket_connect(c->bev, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/* libevent already freed nothing; report from the loop as promised */
		bufferevent_trigger_event(c->bev, BEV_EVENT_ERROR, BEV_TRIG_DEFER_CALLBACKS);
	}
	return 0;
fail:
	pack_buf_done(&out);
	return r;
}
