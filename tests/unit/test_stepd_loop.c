/* test_stepd_loop.c - slurmstepd's poll loop (loop.c): entries called by
 * priority, fds that are left out or change, one-shot timers that bound
 * the wait, hooks around each poll.
 */
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "slurmd/slurmstepd/loop.h"

struct calls {
	char order[16];
	int n;
	int fd_moved; /* an entry to move to -1 from a callback */
	struct loop *l;
};

static void cb_a(void *arg, short revents)
{
	struct calls *c = arg;

	assert_true(revents & POLLIN);
	c->order[c->n++] = 'a';
	if (c->fd_moved >= 0)
		loop_fd_set(c->l, c->fd_moved, -1, 0);
}

static void cb_b(void *arg, short revents)
{
	struct calls *c = arg;

	(void)revents;
	c->order[c->n++] = 'b';
}

static void cb_timer(void *arg)
{
	struct calls *c = arg;

	c->order[c->n++] = 't';
}

static void cb_before(void *arg)
{
	struct calls *c = arg;

	c->order[c->n++] = '<';
}

static void cb_after(void *arg)
{
	struct calls *c = arg;

	c->order[c->n++] = '>';
}

static void make_readable(int p[2])
{
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
}

static void test_entries_run_by_priority_then_registration(void **state)
{
	struct calls c = {.fd_moved = -1};
	struct loop *l = loop_new();
	int p1[2], p2[2];

	(void)state;
	make_readable(p1);
	make_readable(p2);
	assert_int_equal(loop_fd_add(l, 2, p1[0], POLLIN, cb_b, &c), 0);
	assert_int_equal(loop_fd_add(l, 1, p2[0], POLLIN, cb_a, &c), 1);
	assert_int_equal(loop_hook_add(l, LOOP_BEFORE_POLL, cb_before, &c), 0);
	assert_int_equal(loop_hook_add(l, LOOP_AFTER_DISPATCH, cb_after, &c), 1);
	loop_once(l, 0);
	c.order[c.n] = '\0';
	assert_string_equal(c.order, "<ab>");
	close(p1[0]), close(p1[1]), close(p2[0]), close(p2[1]);
	loop_free(l);
}

static void test_an_entry_without_fd_is_not_polled_and_can_get_one(void **state)
{
	struct calls c = {.fd_moved = -1};
	struct loop *l = loop_new();
	int p[2], id;

	(void)state;
	make_readable(p);
	id = loop_fd_add(l, 0, -1, POLLIN, cb_a, &c);
	loop_once(l, 0);
	assert_int_equal(c.n, 0);
	loop_fd_set(l, id, p[0], POLLIN);
	loop_once(l, 0);
	assert_int_equal(c.n, 1);
	loop_fd_set(l, id, p[0], 0); /* no events asked: not called */
	loop_once(l, 0);
	assert_int_equal(c.n, 1);
	close(p[0]), close(p[1]);
	loop_free(l);
}

static void test_an_entry_moved_during_dispatch_gets_no_stale_events(void **state)
{
	struct calls c = {.fd_moved = 1};
	struct loop *l = loop_new();
	int p1[2], p2[2];

	(void)state;
	make_readable(p1);
	make_readable(p2);
	c.l = l;
	loop_fd_add(l, 0, p1[0], POLLIN, cb_a, &c); /* moves entry 1 away */
	loop_fd_add(l, 1, p2[0], POLLIN, cb_b, &c);
	loop_once(l, 0);
	c.order[c.n] = '\0';
	assert_string_equal(c.order, "a");
	close(p1[0]), close(p1[1]), close(p2[0]), close(p2[1]);
	loop_free(l);
}

static void test_a_timer_bounds_the_wait_and_fires_once(void **state)
{
	struct calls c = {.fd_moved = -1};
	struct loop *l = loop_new();
	int p[2], t;
	int64_t start;

	(void)state;
	assert_int_equal(pipe(p), 0); /* never readable */
	loop_fd_add(l, 0, p[0], POLLIN, cb_a, &c);
	t = loop_timer_add(l, cb_timer, &c);
	start = loop_now_ms();
	loop_timer_arm(l, t, start + 30);
	loop_once(l, -1); /* would wait 10 s without the timer */
	assert_true(loop_now_ms() - start >= 30);
	assert_true(loop_now_ms() - start < 5000);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.order[0], 't');
	loop_once(l, 0); /* one-shot: disarmed once it ran */
	assert_int_equal(c.n, 1);
	loop_timer_arm(l, t, loop_now_ms() + 1000);
	loop_timer_arm(l, t, 0); /* disarmed again */
	start = loop_now_ms();
	loop_once(l, 20);
	assert_true(loop_now_ms() - start < 1000);
	assert_int_equal(c.n, 1);
	close(p[0]), close(p[1]);
	loop_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_entries_run_by_priority_then_registration),
	    cmocka_unit_test(test_an_entry_without_fd_is_not_polled_and_can_get_one),
	    cmocka_unit_test(test_an_entry_moved_during_dispatch_gets_no_stale_events),
	    cmocka_unit_test(test_a_timer_bounds_the_wait_and_fires_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
