/* conn_cap.h - at most N open HTTP connections. libevent 2.1's evhttp has
 * no such cap: we make each connection's bufferevent (evhttp_set_bevcb),
 * keep a reference to it, and see it closed when evhttp has dropped its
 * callbacks (swept each second and at every new connection). Over the cap,
 * the oldest open connection is shut down (a slow-loris holds the oldest),
 * and that is logged. */
#pragma once

struct conn_cap;
struct event_base;
struct evhttp;

int conn_cap_new(struct event_base *base, struct evhttp *http, unsigned max,
		 struct conn_cap **ret);
void conn_cap_free(struct conn_cap *c);
unsigned conn_cap_count(struct conn_cap *c);
