/* conn_cap.h - at most N open HTTP connections. libevent 2.1's evhttp has
 * no such cap: we make each connection's bufferevent (evhttp_set_bevcb),
 * keep a reference to it, and see it closed when evhttp has dropped its
 * callbacks (swept each second and at every new connection). Over the cap,
 * the oldest open connection that is not being served is shut down (a
 * slow-loris holds the oldest), or the new one when all are being served,
 * and that is logged. The same list gives each request a deadline. */
#pragma once
#include <stdbool.h>

struct bufferevent;
struct conn_cap;
struct event_base;
struct evhttp;

/* deadline_s: a request must be whole within this long of its first byte
 * (checked each second), else its connection is closed. */
int conn_cap_new(struct event_base *base, struct evhttp *http, unsigned max,
		 unsigned deadline_s, struct conn_cap **ret);
/* A whole request came in on bev (its deadline is over). */
void conn_cap_request_done(struct conn_cap *c, struct bufferevent *bev);
/* bev's request is with a worker (true) or answered (false): a busy
 * connection is never closed for the cap. */
void conn_cap_set_busy(struct conn_cap *c, struct bufferevent *bev, bool is_busy);
void conn_cap_free(struct conn_cap *c);
unsigned conn_cap_count(struct conn_cap *c);
