/* test_preempt.c - which running jobs a pending job preempts: the fewest,
 * in the order given, none when it fits, -EAGAIN when all are not enough,
 * -ENOSPC when it could never fit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "slurmctld/preempt.h"

static struct sel_node nodes[2];
static struct sel_alloc al[3];
static struct sel_result res[3];
static struct preempt_cand cands[3];

/* n0 runs A (2 cpus) and B (2 cpus), n1 runs C (4 cpus); candidates in the
 * order A, C, B. */
static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++)
		nodes[i] = (struct sel_node){.sockets = 1,
					     .cores_per_socket = 4,
					     .threads_per_core = 1,
					     .cpus = 4,
					     .real_memory = 4000,
					     .is_usable = true,
					     .cpus_used = 4,
					     .mem_used = 400};
	al[0] = (struct sel_alloc){.node = 0, .cpus = 2, .tasks = 2, .mem = 200};
	al[1] = (struct sel_alloc){.node = 1, .cpus = 4, .tasks = 4, .mem = 400};
	al[2] = (struct sel_alloc){.node = 0, .cpus = 2, .tasks = 2, .mem = 200};
	for (int i = 0; i < 3; i++) {
		res[i] = (struct sel_result){.nodes = &al[i], .count = 1, .total_cpus = al[i].cpus};
		cands[i] = (struct preempt_cand){.alloc = &res[i]};
	}
	return 0;
}

static struct sel_req req(uint32_t nnodes, uint32_t tasks)
{
	return (struct sel_req){.min_nodes = nnodes,
				.max_nodes = nnodes,
				.num_tasks = tasks,
				.cpus_per_task = 1,
				.mem_per_cpu = 100};
}

static void test_fewest_in_order(void **state)
{
	struct sel_req r = req(1, 4);
	bool chosen[3];

	(void)state;
	/* A alone frees 2 cpus: not enough; A and C: enough; A is then not
	 * needed (C's node is whole): only C goes */
	assert_int_equal(preempt_pick(nodes, 2, &r, cands, 3, chosen), 0);
	assert_false(chosen[0]);
	assert_true(chosen[1]);
	assert_false(chosen[2]);
	r = req(1, 2); /* 2 cpus: A is enough */
	assert_int_equal(preempt_pick(nodes, 2, &r, cands, 3, chosen), 0);
	assert_true(chosen[0]);
	assert_false(chosen[1]);
	assert_false(chosen[2]);
}

static void test_all_or_none(void **state)
{
	struct sel_req r = req(2, 8);
	bool chosen[3];

	(void)state;
	assert_int_equal(preempt_pick(nodes, 2, &r, cands, 3, chosen), 0);
	assert_true(chosen[0] && chosen[1] && chosen[2]);
	/* two candidates only: not enough */
	assert_int_equal(preempt_pick(nodes, 2, &r, cands, 2, chosen), -EAGAIN);
	/* more than the cluster has: never */
	r = req(3, 12);
	assert_int_equal(preempt_pick(nodes, 2, &r, cands, 3, chosen), -ENOSPC);
	/* fits now: nobody */
	nodes[1].cpus_used = 0;
	nodes[1].mem_used = 0;
	r = req(1, 4);
	assert_int_equal(preempt_pick(nodes, 2, &r, cands, 3, chosen), 0);
	assert_false(chosen[0] || chosen[1] || chosen[2]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_fewest_in_order, setup),
	    cmocka_unit_test_setup(test_all_or_none, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
