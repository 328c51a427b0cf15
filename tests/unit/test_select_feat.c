/* test_select_feat.c - placement with -C's matching OR ("[r1|r2]") and
 * counted features ("a*2"): select.c's sel_feat, on hand-made node sets.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/macros.h"
#include "slurmctld/select.h"

#define N4                                                                                         \
	{                                                                                          \
		.sockets = 1, .cores_per_socket = 4, .threads_per_core = 1, .cpus = 4,             \
		.real_memory = 8000, .is_usable = true                                             \
	}

static uint32_t nodes_of(const struct sel_result *r)
{
	uint32_t mask = 0;

	for (uint32_t i = 0; i < r->count; i++)
		mask |= 1u << r->nodes[i].node;
	return mask;
}

/* rack1 = nodes 0,1 ; rack2 = nodes 2,3 */
static const bool rack1[] = {true, true, false, false};
static const bool rack2[] = {false, false, true, true};

static void test_matching_or_keeps_the_job_in_one_rack(void **state)
{
	struct sel_node nodes[4] = {N4, N4, N4, N4};
	const bool *alts[] = {rack1, rack2};
	struct sel_feat f = {.alt_count = 2, .alt_ok = alts};
	struct sel_req req = {.min_nodes = 2, .cpus_per_task = 1, .feat = &f};
	struct sel_result res = {0};

	(void)state;
	nodes[1].cpus_used = 4; /* rack1 has one free node: rack2 it is */
	assert_int_equal(select_place(nodes, 4, &req, &res), 0);
	assert_int_equal(nodes_of(&res), 0xc);
	sel_result_done(&res);
	nodes[2].cpus_used = 4; /* neither rack has two free nodes: later */
	assert_int_equal(select_place(nodes, 4, &req, &res), -EAGAIN);
	assert_int_equal(select_try(nodes, 4, &req, &res), -EAGAIN);
	req.min_nodes = 3; /* no rack ever has three */
	assert_int_equal(select_place(nodes, 4, &req, &res), -ENOSPC);
}

static void test_first_alternative_that_fits_wins(void **state)
{
	struct sel_node nodes[4] = {N4, N4, N4, N4};
	const bool *alts[] = {rack2, rack1};
	struct sel_feat f = {.alt_count = 2, .alt_ok = alts};
	struct sel_req req = {.min_nodes = 1, .cpus_per_task = 1, .feat = &f};
	struct sel_result res = {0};

	(void)state;
	assert_int_equal(select_place(nodes, 4, &req, &res), 0);
	assert_int_equal(nodes_of(&res), 0x4);
	sel_result_done(&res);
}

static void test_counts_take_nodes_with_the_feature(void **state)
{
	struct sel_node nodes[4] = {N4, N4, N4, N4};
	static const bool gpu[] = {false, false, true, true};
	const bool *terms[] = {gpu};
	const uint32_t need[] = {1};
	struct sel_feat f = {.count_n = 1, .count_ok = terms, .count_need = need, .count_sum = 1};
	struct sel_req req = {.min_nodes = 2, .cpus_per_task = 1, .feat = &f};
	struct sel_result res = {0};

	(void)state;
	/* two nodes, one of them with gpu: node 0 (first in order) and node 2 */
	assert_int_equal(select_place(nodes, 4, &req, &res), 0);
	assert_int_equal(nodes_of(&res), 0x5);
	sel_result_done(&res);
	/* a*2 raises one node to two */
	f.count_sum = 2;
	{
		const uint32_t need2[] = {2};

		f.count_need = need2;
		req.min_nodes = 1;
		assert_int_equal(select_place(nodes, 4, &req, &res), 0);
		assert_int_equal(nodes_of(&res), 0xc);
		sel_result_done(&res);
		nodes[3].cpus_used = 4;
		assert_int_equal(select_place(nodes, 4, &req, &res), -EAGAIN);
		/* with one task, two counted nodes can never be */
		req.num_tasks = 1;
		assert_int_equal(select_place(nodes, 4, &req, &res), -ENOSPC);
	}
}

static void test_counted_nodes_respect_exclusions(void **state)
{
	struct sel_node nodes[4] = {N4, N4, N4, N4};
	static const bool a[] = {true, true, true, false};
	static const bool exc[] = {true, false, false, false};
	const bool *terms[] = {a};
	const uint32_t need[] = {2};
	struct sel_feat f = {.count_n = 1, .count_ok = terms, .count_need = need, .count_sum = 2};
	struct sel_req req = {.min_nodes = 3, .cpus_per_task = 1, .feat = &f, .is_excluded = exc};
	struct sel_result res = {0};

	(void)state;
	assert_int_equal(select_place(nodes, 4, &req, &res), 0);
	assert_int_equal(nodes_of(&res), 0xe);
	sel_result_done(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_matching_or_keeps_the_job_in_one_rack),
	    cmocka_unit_test(test_first_alternative_that_fits_wins),
	    cmocka_unit_test(test_counts_take_nodes_with_the_feature),
	    cmocka_unit_test(test_counted_nodes_respect_exclusions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
