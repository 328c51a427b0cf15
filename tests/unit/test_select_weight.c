/* test_select_weight.c - cons_tres takes nodes by Weight, lowest first,
 * then in config order (sel_req.order); the result still lists nodes in
 * index order, and -w/-x and -EAGAIN/-ENOSPC do not depend on the order.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/msg.h"
#include "common/msg_job.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_sched.h"
#include "slurmctld/node.h"
#include "slurmctld/select.h"

#define NODE4                                                                                      \
	{                                                                                          \
		.sockets = 1, .cores_per_socket = 4, .threads_per_core = 1, .cpus = 4,             \
		.real_memory = 4000, .is_usable = true                                             \
	}

static struct sel_req one_task(const uint32_t *order)
{
	return (struct sel_req){
	    .min_nodes = 1, .num_tasks = 1, .cpus_per_task = 1, .mem_per_cpu = 100, .order = order};
}

static void test_lowest_weight_node_first(void **state)
{
	struct sel_node nodes[4] = {NODE4, NODE4, NODE4, NODE4};
	const uint32_t order[4] = {2, 3, 0, 1}; /* n3, n4 weigh less than n1, n2 */
	struct sel_req req = one_task(order);
	struct sel_result r = {0};

	(void)state;
	assert_int_equal(select_place(nodes, 4, &req, &r), 0);
	assert_int_equal(r.count, 1);
	assert_int_equal(r.nodes[0].node, 2);
	sel_result_done(&r);
	req.order = NULL; /* no order: index order, as before */
	assert_int_equal(select_place(nodes, 4, &req, &r), 0);
	assert_int_equal(r.nodes[0].node, 0);
	sel_result_done(&r);
}

/* The light node full, the next in order gets the job; two nodes come back
 * in index order whatever the weights. */
static void test_next_in_order_when_full_and_result_in_index_order(void **state)
{
	struct sel_node nodes[4] = {NODE4, NODE4, NODE4, NODE4};
	const uint32_t order[4] = {3, 1, 2, 0};
	struct sel_req req = one_task(order);
	struct sel_req two = {.min_nodes = 2, .num_tasks = 2, .cpus_per_task = 1, .order = order};
	struct sel_result r = {0};

	(void)state;
	nodes[3].cpus_used = 4;
	assert_int_equal(select_place(nodes, 4, &req, &r), 0);
	assert_int_equal(r.nodes[0].node, 1);
	sel_result_done(&r);
	nodes[3].cpus_used = 0;
	assert_int_equal(select_place(nodes, 4, &two, &r), 0);
	assert_int_equal(r.count, 2);
	assert_int_equal(r.nodes[0].node, 1);
	assert_int_equal(r.nodes[1].node, 3);
	sel_result_done(&r);
}

/* -N1-3 -n4 with 2 cpus free on each light node: the two light nodes
 * suffice and the heavy (idle, lowest index) node is not taken. */
static void test_light_nodes_suffice_the_heavy_is_not_taken(void **state)
{
	struct sel_node nodes[3] = {NODE4, NODE4, NODE4};
	const uint32_t order[3] = {1, 2, 0};
	struct sel_req req = {
	    .min_nodes = 1, .max_nodes = 3, .num_tasks = 4, .cpus_per_task = 1, .order = order};
	struct sel_result r = {0};

	(void)state;
	nodes[1].cpus_used = 2;
	nodes[2].cpus_used = 2;
	assert_int_equal(select_place(nodes, 3, &req, &r), 0);
	assert_int_equal(r.count, 2);
	assert_int_equal(r.nodes[0].node, 1);
	assert_int_equal(r.nodes[1].node, 2);
	sel_result_done(&r);
}

/* More nodes picked than needed: with an order the least preferred one
 * that can go goes first (index order drops the lowest index first). */
static void test_prune_gives_up_the_least_preferred(void **state)
{
	struct sel_node nodes[3] = {NODE4, NODE4, NODE4};
	const uint32_t order[3] = {0, 1, 2};
	struct sel_req req = {
	    .min_nodes = 1, .max_nodes = 3, .num_tasks = 4, .cpus_per_task = 1, .order = order};
	struct sel_result r = {0};

	(void)state;
	nodes[0].cpus_used = 2; /* free: 2, 1, 3 */
	nodes[1].cpus_used = 3;
	nodes[2].cpus_used = 1;
	assert_int_equal(select_place(nodes, 3, &req, &r), 0);
	assert_int_equal(r.count, 2);
	assert_int_equal(r.nodes[0].node, 0); /* the most preferred is kept */
	assert_int_equal(r.nodes[1].node, 2);
	sel_result_done(&r);
	req.order = NULL;
	assert_int_equal(select_place(nodes, 3, &req, &r), 0);
	assert_int_equal(r.count, 2);
	assert_int_equal(r.nodes[0].node, 1);
	assert_int_equal(r.nodes[1].node, 2);
	sel_result_done(&r);
}

/* Required and excluded nodes and -EAGAIN/-ENOSPC do not depend on order. */
static void test_required_excluded_and_errors(void **state)
{
	struct sel_node nodes[3] = {NODE4, NODE4, NODE4};
	const uint32_t order[3] = {2, 1, 0};
	bool exc[3] = {false, false, true}, want[3] = {true, false, false};
	struct sel_req req = one_task(order);
	struct sel_result r = {0};

	(void)state;
	req.is_excluded = exc;
	assert_int_equal(select_place(nodes, 3, &req, &r), 0);
	assert_int_equal(r.nodes[0].node, 1);
	sel_result_done(&r);
	req.is_excluded = NULL;
	req.is_required = want;
	assert_int_equal(select_place(nodes, 3, &req, &r), 0);
	assert_int_equal(r.nodes[0].node, 0);
	sel_result_done(&r);
	req.is_required = NULL;
	for (int i = 0; i < 3; i++)
		nodes[i].cpus_used = 4;
	assert_int_equal(select_place(nodes, 3, &req, &r), -EAGAIN);
	req.num_tasks = 5;
	req.cpus_per_task = 1;
	req.min_nodes = 1;
	assert_int_equal(select_place(nodes, 3, &req, &r), -ENOSPC);
}

#define WNODE(name, port, w)                                                                       \
	"NodeName=" name " NodeAddr=127.0.0.1 Port=" port " CPUs=4 Sockets=1 CoresPerSocket=4 "    \
	"ThreadsPerCore=1 RealMemory=4000 Weight=" w "\n"

/* The controller keeps the order (node.c) and the scheduler passes it:
 * a job in a partition of w1 (Weight=9) and w2 (3) lands on w2; an
 * update to w1's weight reorders. */
static void test_the_controller_orders_by_weight(void **state)
{
	struct ctld_fixture *f = fixture_new(
	    WNODE("w1", "7005", "9") WNODE("w2", "7006", "3") "PartitionName=w Nodes=w1,w2\n");
	const uint32_t want[6] = {2, 3, 4, 5, 1, 0}; /* n1-n3, g1 weigh 1 */
	struct update_node_msg m = {.node_names = "w1", .weight = 0};
	struct job_desc *d;
	struct job *job;

	(void)state;
	assert_non_null(f->c.node_order);
	assert_memory_equal(f->c.node_order, want, sizeof(want));
	d = fixture_desc();
	d->partition = strdup("w");
	job = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_string_equal(job->nodes, "w2");
	assert_int_equal(node_update(&f->c, &m, 0, time(NULL)), 0);
	assert_int_equal(f->c.node_order[0], 0);
	assert_int_equal(f->c.nodes[0].weight, 0);
	d = fixture_desc();
	d->partition = strdup("w");
	job = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_string_equal(job->nodes, "w1");
	fixture_free(f);
}

/* Equal weights: no order (index order), nothing allocated. */
static void test_equal_weights_need_no_order(void **state)
{
	struct ctld_fixture *f = fixture_new(NULL);

	(void)state;
	assert_null(f->c.node_order);
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lowest_weight_node_first),
	    cmocka_unit_test(test_next_in_order_when_full_and_result_in_index_order),
	    cmocka_unit_test(test_light_nodes_suffice_the_heavy_is_not_taken),
	    cmocka_unit_test(test_prune_gives_up_the_least_preferred),
	    cmocka_unit_test(test_required_excluded_and_errors),
	    cmocka_unit_test(test_the_controller_orders_by_weight),
	    cmocka_unit_test(test_equal_weights_need_no_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
