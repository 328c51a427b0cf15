/* loop.c - slurmstepd's poll loop (loop.h): entries, timers and hooks in
 * growable arrays, one poll() per round.
 *
 * Caveat: callbacks may change entries (loop_fd_set) while a round is
 * dispatched; an entry is called only when the fd it was polled with is
 * still its fd, so a closed and reused fd number never gets another's
 * events.
 */
#include "loop.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOOP_MAX_WAIT_MS 10000 /* wake up at least this often */

struct loop_entry {
	int prio;
	int fd;
	short events;
	loop_fd_fn *cb;
	void *arg;
};

struct loop_timer {
	int64_t at_ms; /* 0: disarmed */
	loop_timer_fn *cb;
	void *arg;
};

struct loop_hook {
	enum loop_hook_when when;
	loop_hook_fn *cb;
	void *arg;
};

struct loop {
	struct loop_entry *entries; /* registration order */
	size_t nentries;
	int *order; /* entry ids by priority */
	struct pollfd *pfd;
	struct loop_timer *timers;
	size_t ntimers;
	struct loop_hook *hooks;
	size_t nhooks;
};

int64_t loop_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct loop *loop_new(void)
{
	return calloc(1, sizeof(struct loop));
}

struct loop *loop_free(struct loop *l)
{
	if (!l)
		return NULL;
	free(l->entries);
	free(l->order);
	free(l->pfd);
	free(l->timers);
	free(l->hooks);
	free(l);
	return NULL;
}

/* Make room for one more element of size sz in *v holding n. */
static int loop_grow(void **v, size_t n, size_t sz)
{
	void *nv = realloc(*v, (n + 1) * sz);

	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}

int loop_fd_add(struct loop *l, int prio, int fd, short events, loop_fd_fn *cb, void *arg)
{
	size_t n = l->nentries, at;

	if (loop_grow((void **)&l->entries, n, sizeof(*l->entries)) < 0
	    || loop_grow((void **)&l->order, n, sizeof(*l->order)) < 0
	    || loop_grow((void **)&l->pfd, n, sizeof(*l->pfd)) < 0)
		return -ENOMEM;
	l->entries[n] =
	    (struct loop_entry){.prio = prio, .fd = fd, .events = events, .cb = cb, .arg = arg};
	for (at = n; at > 0 && l->entries[l->order[at - 1]].prio > prio; at--)
		l->order[at] = l->order[at - 1];
	l->order[at] = (int)n;
	l->nentries = n + 1;
	return (int)n;
}

void loop_fd_set(struct loop *l, int id, int fd, short events)
{
	if (id < 0 || (size_t)id >= l->nentries)
		return;
	l->entries[id].fd = fd;
	l->entries[id].events = events;
}

int loop_timer_add(struct loop *l, loop_timer_fn *cb, void *arg)
{
	if (loop_grow((void **)&l->timers, l->ntimers, sizeof(*l->timers)) < 0)
		return -ENOMEM;
	l->timers[l->ntimers] = (struct loop_timer){.cb = cb, .arg = arg};
	return (int)l->ntimers++;
}

void loop_timer_arm(struct loop *l, int id, int64_t at_ms)
{
	if (id >= 0 && (size_t)id < l->ntimers)
		l->timers[id].at_ms = at_ms;
}

int loop_hook_add(struct loop *l, enum loop_hook_when when, loop_hook_fn *cb, void *arg)
{
	if (loop_grow((void **)&l->hooks, l->nhooks, sizeof(*l->hooks)) < 0)
		return -ENOMEM;
	l->hooks[l->nhooks] = (struct loop_hook){.when = when, .cb = cb, .arg = arg};
	return (int)l->nhooks++;
}

static void loop_hooks_run(struct loop *l, enum loop_hook_when when)
{
	for (size_t i = 0; i < l->nhooks; i++)
		if (l->hooks[i].when == when)
			l->hooks[i].cb(l->hooks[i].arg);
}

/* ms until the next timer, at most max_ms (< 0: LOOP_MAX_WAIT_MS). */
static int loop_timeout_ms(const struct loop *l, int max_ms)
{
	int64_t now = loop_now_ms(), next = now + LOOP_MAX_WAIT_MS;

	if (max_ms >= 0 && now + max_ms < next)
		next = now + max_ms;
	for (size_t i = 0; i < l->ntimers; i++)
		if (l->timers[i].at_ms && l->timers[i].at_ms < next)
			next = l->timers[i].at_ms;
	return next <= now ? 0 : (int)(next - now);
}

static void loop_timers_run(struct loop *l)
{
	int64_t now = loop_now_ms();

	for (size_t i = 0; i < l->ntimers; i++) {
		struct loop_timer *t = &l->timers[i];

		if (!t->at_ms || now < t->at_ms)
			continue;
		t->at_ms = 0;
		t->cb(t->arg);
	}
}

void loop_once(struct loop *l, int max_ms)
{
	size_t n = l->nentries;

	loop_hooks_run(l, LOOP_BEFORE_POLL);
	for (size_t i = 0; i < n; i++) {
		const struct loop_entry *e = &l->entries[l->order[i]];

		l->pfd[i] = (struct pollfd){.fd = e->fd, .events = e->events};
	}
	if (poll(l->pfd, (nfds_t)n, loop_timeout_ms(l, max_ms)) > 0) {
		for (size_t i = 0; i < n; i++) {
			const struct loop_entry *e = &l->entries[l->order[i]];

			if (l->pfd[i].fd >= 0 && l->pfd[i].revents && e->fd == l->pfd[i].fd)
				e->cb(e->arg, l->pfd[i].revents);
		}
		loop_hooks_run(l, LOOP_AFTER_DISPATCH);
	}
	loop_timers_run(l);
}
