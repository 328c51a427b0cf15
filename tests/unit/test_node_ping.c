/* test_node_ping.c - the ping round is spread over its interval: which
 * nodes are due at each tick (each node once a round, in config order,
 * evenly), how long a tick is, and, on a real event loop with the
 * controller fixture, that the first round after start reaches every node
 * within about a second, one node at a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>
#include <event2/event.h>

#include "common/macros.h"
#include "common/msg.h"
#include "ctld_fixture.h"
#include "slurmctld/node_ping.h"

static void test_each_node_is_due_once_a_round_in_order_and_evenly(void **state)
{
	static const struct {
		uint32_t nodes, ticks;
	} rows[] = {
	    {0, 10}, {1, 1},	 {4, 4},      {4, 20},	 {3, 7},       {7, 3},
	    {5, 1},  {1000, 10}, {1000, 200}, {1000, 1}, {65536, 200},
	};

	(void)state;
	for (size_t r = 0; r < ARRAY_SIZE(rows); r++) {
		uint32_t n = rows[r].nodes, ticks = rows[r].ticks, next = 0;
		uint32_t most = (n + ticks - 1) / ticks; /* no tick gets more than its share */

		for (uint32_t t = 0; t < ticks; t++) {
			uint32_t first, end;

			node_ping_slice(n, ticks, t, &first, &end);
			assert_int_equal(first, next); /* no node skipped or repeated */
			assert_true(end >= first);
			assert_true(end - first <= most);
			next = end;
		}
		assert_int_equal(next, n);
	}
}

static void test_nodes_fewer_than_ticks_get_ticks_of_their_own(void **state)
{
	static const uint32_t at[][2] = {{0, 0}, {5, 1}, {10, 2}, {15, 3}}; /* tick, node */
	uint32_t first, end;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(at); i++) {
		node_ping_slice(4, 20, at[i][0], &first, &end);
		assert_int_equal(first, at[i][1]);
		assert_int_equal(end, at[i][1] + 1);
	}
	node_ping_slice(4, 20, 1, &first, &end);
	assert_int_equal(end - first, 0);
	node_ping_slice(4, 20, 20, &first, &end); /* past the round */
	assert_int_equal(end - first, 0);
	node_ping_slice(4, 0, 0, &first, &end);
	assert_int_equal(end - first, 0);
}

static void test_a_tick_is_about_one_node_within_100_ms_to_1_s(void **state)
{
	static const struct {
		unsigned round_ms;
		uint32_t nodes;
		unsigned tick_ms;
	} rows[] = {
	    {1000, 4, 250},    {20000, 4, 1000}, {20000, 1000, 100},
	    {1000, 1000, 100}, {2000, 2, 1000},	 {1000, 0, 1000},
	    {50, 1, 50},       {0, 0, 1},	 {20000, 100, 200},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		assert_int_equal(node_ping_tick_ms(rows[i].round_ms, rows[i].nodes),
				 rows[i].tick_ms);
}

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

/* Run the loop for ms; returns the pings recorded so far. */
static uint32_t run_for(struct ctld_fixture *f, unsigned ms)
{
	struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
	struct event *stop = evtimer_new(f->c.base, stop_cb, f->c.base);

	assert_non_null(stop);
	evtimer_add(stop, &tv);
	event_base_dispatch(f->c.base);
	event_free(stop);
	return fixture_count(f, REQUEST_PING, 0);
}

static void test_the_first_round_reaches_every_node_within_a_second_one_by_one(void **state)
{
	struct ctld_fixture *f = fixture_new(NULL);
	struct timespec t0, t;
	uint32_t n;

	(void)state;
	f->c.base = event_base_new();
	assert_non_null(f->c.base);
	assert_int_equal(f->c.node_count, 4);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(node_ping_start(&f->c), 0);
	/* the first tick runs at once, the next one 250 ms later */
	assert_int_equal(run_for(f, 120), 1);
	do
		n = run_for(f, 50);
	while (n < 4 && (clock_gettime(CLOCK_MONOTONIC, &t), t.tv_sec - t0.tv_sec < 10));
	assert_int_equal(n, 4);
	for (uint32_t i = 0; i < 3; i++) /* in config order: n[1-3] then g1 */
		assert_int_equal(f->sent[i].port, 7001);
	assert_int_equal(f->sent[3].port, 7004);
	node_ping_stop(&f->c);
	event_base_free(f->c.base);
	f->c.base = NULL;
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_each_node_is_due_once_a_round_in_order_and_evenly),
	    cmocka_unit_test(test_nodes_fewer_than_ticks_get_ticks_of_their_own),
	    cmocka_unit_test(test_a_tick_is_about_one_node_within_100_ms_to_1_s),
	    cmocka_unit_test(test_the_first_round_reaches_every_node_within_a_second_one_by_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
