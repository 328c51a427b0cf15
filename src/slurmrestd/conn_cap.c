/* conn_cap.c - the connection cap; see conn_cap.h. */
#include "conn_cap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>

#include "common/log.h"

struct cap_conn {
	struct bufferevent *bev;
	bool is_shut;	     /* evicted: shut down, evhttp drops it on EOF */
	bool is_busy;	     /* its request is with a worker */
	time_t partial_since; /* monotonic s: bytes of a request not yet complete came in */
	struct cap_conn *next;
};

struct conn_cap {
	struct event_base *base;
	struct event *sweep;
	struct cap_conn *head;
	unsigned count, max;
	unsigned deadline_s;
	unsigned refused; /* since the last log line */
	unsigned late;	  /* closed for their deadline, since the last log line */
};

static time_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* evhttp freed it: bufferevent_free() cleared its callbacks. */
static bool conn_gone(struct bufferevent *bev)
{
	bufferevent_event_cb ev = NULL;

	bufferevent_getcb(bev, NULL, NULL, &ev, NULL);
	return ev == NULL;
}

static void cap_sweep(struct conn_cap *c)
{
	for (struct cap_conn **pp = &c->head; *pp;) {
		struct cap_conn *k = *pp;

		if (!conn_gone(k->bev)) {
			pp = &k->next;
			continue;
		}
		*pp = k->next;
		bufferevent_decref(k->bev); /* the last reference: closes the socket */
		free(k);
		c->count--;
	}
}

static void shut_bev(struct bufferevent *bev);

/* A request begun more than deadline_s ago and not complete: a client
 * that trickles its request is closed, however often it sends a byte. */
static void cap_deadlines(struct conn_cap *c)
{
	time_t now = mono_now();

	for (struct cap_conn *k = c->head; k; k = k->next) {
		if (k->is_shut || !k->partial_since || now - k->partial_since <= c->deadline_s)
			continue;
		k->is_shut = true;
		c->late++;
		shut_bev(k->bev);
	}
}

static void sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn_cap *c = arg;

	(void)fd;
	(void)what;
	cap_deadlines(c);
	cap_sweep(c);
	if (c->late) {
		error("closed %u connections whose request was not complete within %u s",
		      c->late, c->deadline_s);
		c->late = 0;
	}
	if (c->refused) {
		error("closed %u old connections: %u open is the most slurmrestd keeps",
		      c->refused, c->max);
		c->refused = 0;
	}
}

static void shut_bev(struct bufferevent *bev)
{
	evutil_socket_t s = bufferevent_getfd(bev);

	if (s >= 0 && !conn_gone(bev))
		shutdown(s, SHUT_RDWR); /* evhttp reads EOF and drops it */
}

static void refuse_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	shut_bev(arg);
	bufferevent_decref(arg);
}

/* Whether k may be closed for the cap: not one whose request a worker is
 * serving, nor one whose answer is still being written. */
static bool conn_is_evictable(const struct cap_conn *k)
{
	return !k->is_shut && !k->is_busy && !conn_gone(k->bev)
	       && evbuffer_get_length(bufferevent_get_output(k->bev)) == 0;
}

/* Over the cap: the oldest connection that is not being served goes. A
 * slow-loris holds the oldest ones, while a real client's request is in
 * within milliseconds. When every older one is being served, the newest
 * (the list's head) is the one refused. It has no socket yet: it is shut
 * on the next turn of the loop, once evhttp has given it one. */
static void cap_evict(struct conn_cap *c)
{
	static const struct timeval now = { 0, 0 };
	struct cap_conn *pick = NULL;

	for (struct cap_conn *k = c->head; k; k = k->next)
		if (conn_is_evictable(k))
			pick = k;
	if (!pick)
		return;
	pick->is_shut = true;
	c->refused++;
	if (bufferevent_getfd(pick->bev) >= 0) {
		shut_bev(pick->bev);
		return;
	}
	bufferevent_incref(pick->bev);
	if (event_base_once(c->base, -1, EV_TIMEOUT, refuse_cb, pick->bev, &now) < 0)
		bufferevent_decref(pick->bev);
}

static void input_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
	struct cap_conn *k = arg;

	(void)buf;
	if (info->n_added && !k->partial_since)
		k->partial_since = mono_now();
}

void conn_cap_request_done(struct conn_cap *c, struct bufferevent *bev)
{
	for (struct cap_conn *k = c->head; k; k = k->next)
		if (k->bev == bev)
			k->partial_since = 0;
}

void conn_cap_set_busy(struct conn_cap *c, struct bufferevent *bev, bool is_busy)
{
	for (struct cap_conn *k = c->head; k; k = k->next)
		if (k->bev == bev)
			k->is_busy = is_busy;
}

static struct bufferevent *cap_bevcb(struct event_base *base, void *arg)
{
	struct conn_cap *c = arg;
	struct cap_conn *k = calloc(1, sizeof(*k));

	cap_sweep(c);
	if (!k)
		return NULL;
	k->bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!k->bev) {
		free(k);
		return NULL;
	}
	bufferevent_incref(k->bev);
	evbuffer_add_cb(bufferevent_get_input(k->bev), input_cb, k);
	k->next = c->head;
	c->head = k;
	if (++c->count > c->max)
		cap_evict(c);
	return k->bev;
}

int conn_cap_new(struct event_base *base, struct evhttp *http, unsigned max,
		 unsigned deadline_s, struct conn_cap **ret)
{
	struct conn_cap *c = calloc(1, sizeof(*c));
	static const struct timeval second = { 1, 0 };

	if (!c)
		return -ENOMEM;
	c->base = base;
	c->max = max;
	c->deadline_s = deadline_s;
	c->sweep = event_new(base, -1, EV_PERSIST, sweep_cb, c);
	if (!c->sweep) {
		free(c);
		return -ENOMEM;
	}
	event_add(c->sweep, &second);
	evhttp_set_bevcb(http, cap_bevcb, c);
	*ret = c;
	return 0;
}

unsigned conn_cap_count(struct conn_cap *c)
{
	cap_sweep(c);
	return c->count;
}

/* After evhttp_free(): every connection is gone. */
void conn_cap_free(struct conn_cap *c)
{
	if (!c)
		return;
	event_free(c->sweep);
	while (c->head) {
		struct cap_conn *k = c->head;

		c->head = k->next;
		bufferevent_decref(k->bev);
		free(k);
	}
	free(c);
}
