/* loop.h - slurmstepd's poll loop: registered {fd, callback} entries,
 * one-shot timers and hooks around each poll.
 *
 * The loop knows nothing of the stepd: each subsystem registers its own
 * fds and timers, and main.c only runs loop_once() until the step is done.
 * Entries are called in the order of their priority (lower first, then
 * registration order), timers in registration order after them.
 */
#pragma once
#include <stdint.h>

struct loop;

/* An entry's fd had events (revents as poll() set them). */
typedef void loop_fd_fn(void *arg, short revents);
/* A timer came due (it is disarmed first: re-arm it to repeat). */
typedef void loop_timer_fn(void *arg);
/* Before each poll (to set entries' fds and events), after each dispatch. */
typedef void loop_hook_fn(void *arg);

enum loop_hook_when {
	LOOP_BEFORE_POLL,
	LOOP_AFTER_DISPATCH,
};

struct loop *loop_new(void);
struct loop *loop_free(struct loop *l); /* NULL-safe, returns NULL; closes nothing */

int64_t loop_now_ms(void); /* CLOCK_MONOTONIC */

/* Register fd (-1: not polled until loop_fd_set() gives one). Returns the
 * entry's id (>= 0) or -ENOMEM. */
int loop_fd_add(struct loop *l, int prio, int fd, short events, loop_fd_fn *cb, void *arg);
/* Change what an entry polls; fd -1 leaves it out of the poll. */
void loop_fd_set(struct loop *l, int id, int fd, short events);

/* Register a disarmed timer; its id (>= 0) or -ENOMEM. */
int loop_timer_add(struct loop *l, loop_timer_fn *cb, void *arg);
void loop_timer_arm(struct loop *l, int id, int64_t at_ms); /* 0: disarm */

int loop_hook_add(struct loop *l, enum loop_hook_when when, loop_hook_fn *cb, void *arg);

/* One round: the before hooks, poll for up to max_ms (< 0: no limit of
 * the caller's) but never past the next timer nor 10 s, the entries that
 * had events, the after hooks, the timers that came due. */
void loop_once(struct loop *l, int max_ms);
