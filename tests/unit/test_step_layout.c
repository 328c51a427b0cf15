/* test_step_layout.c - step placement inside a job: Slurm's block
 * layouts, the fewest nodes for -n, all nodes by default, --overlap,
 * busy (-EAGAIN) versus never (-ENOSPC), -w/-x, memory and GPUs; the
 * node of each task under -m block, cyclic, plane=N and arbitrary.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "slurmctld/step_layout.h"

static struct step_layout_req req_default(void)
{
	return (struct step_layout_req){
	    .num_tasks = NO_VAL,
	    .min_nodes = NO_VAL,
	    .max_nodes = NO_VAL,
	    .cpus_per_task = NO_VAL16,
	    .ntasks_per_node = NO_VAL16,
	    .mem_per_node = NO_VAL64,
	    .mem_per_cpu = NO_VAL64,
	    .gpu_mode = STEP_GPUS_ALL,
	};
}

/* Placed on the job nodes listed in want_nodes with want_tasks each. */
static void expect_layout(const struct step_avail *a, uint32_t n, const struct step_layout_req *r,
			  uint32_t count, const uint32_t *want_nodes, const uint32_t *want_tasks)
{
	struct step_layout l = {0};
	uint32_t total = 0;

	assert_int_equal(step_layout_place(a, n, r, &l), 0);
	assert_int_equal(l.count, count);
	for (uint32_t i = 0; i < count; i++) {
		assert_int_equal(l.nodes[i].job_node, want_nodes[i]);
		assert_int_equal(l.nodes[i].tasks, want_tasks[i]);
		total += want_tasks[i];
	}
	assert_int_equal(l.num_tasks, total);
	step_layout_done(&l);
}

static void test_block_reference(void **state)
{
	struct step_avail a13[] = {{.cpus = 1}, {.cpus = 3}};
	struct step_avail a31[] = {{.cpus = 3}, {.cpus = 1}};
	struct step_layout_req r = req_default();

	(void)state;
	r.num_tasks = 4; /* -n4 on cpus 1,3 -> n1: 0, n2: 1-3 */
	expect_layout(a13, 2, &r, 2, (uint32_t[]){0, 1}, (uint32_t[]){1, 3});
	r.min_nodes = r.max_nodes = 2; /* -N2 -n4 on cpus 3,1 -> n1: 0-2, n2: 3 */
	expect_layout(a31, 2, &r, 2, (uint32_t[]){0, 1}, (uint32_t[]){3, 1});
}

static void test_block_even_and_fewest(void **state)
{
	struct step_avail a[] = {{.cpus = 4}, {.cpus = 4}};
	struct step_layout_req r = req_default();
	struct step_layout l;

	(void)state;
	r.num_tasks = 4;
	r.min_nodes = r.max_nodes = 2; /* -N2 -n4: 2 + 2 */
	expect_layout(a, 2, &r, 2, (uint32_t[]){0, 1}, (uint32_t[]){2, 2});
	r = req_default();
	r.num_tasks = 2; /* -n2: the fewest nodes */
	expect_layout(a, 2, &r, 1, (uint32_t[]){0}, (uint32_t[]){2});
	r = req_default(); /* nothing: every node, one task each */
	expect_layout(a, 2, &r, 2, (uint32_t[]){0, 1}, (uint32_t[]){1, 1});
	r.ntasks_per_node = 3; /* --ntasks-per-node=3 */
	expect_layout(a, 2, &r, 2, (uint32_t[]){0, 1}, (uint32_t[]){3, 3});
	r = req_default();
	r.num_tasks = 4;
	r.cpus_per_task = 2; /* -n4 -c2: 2 per node, 4 cpus each */
	assert_int_equal(step_layout_place(a, 2, &r, &l), 0);
	assert_int_equal(l.count, 2);
	assert_int_equal(l.nodes[0].cpus, 4);
	assert_int_equal(l.nodes[1].cpus, 4);
	assert_int_equal(l.num_cpus, 8);
	step_layout_done(&l);
	r = req_default();
	r.min_nodes = 1;
	r.max_nodes = 1; /* -N1: the first node */
	expect_layout(a, 2, &r, 1, (uint32_t[]){0}, (uint32_t[]){1});
}

static void test_busy_overlap_never(void **state)
{
	struct step_avail a[] = {{.cpus = 4, .cpus_held = 4}, {.cpus = 4, .cpus_held = 3}};
	struct step_layout_req r = req_default();
	struct step_layout l;

	(void)state;
	r.num_tasks = 1; /* one cpu left, on the second node */
	expect_layout(a, 2, &r, 1, (uint32_t[]){1}, (uint32_t[]){1});
	r.num_tasks = 2; /* fits once the other steps end */
	assert_int_equal(step_layout_place(a, 2, &r, &l), -EAGAIN);
	r.is_overlap = true; /* --overlap ignores them */
	expect_layout(a, 2, &r, 1, (uint32_t[]){0}, (uint32_t[]){2});
	r = req_default();
	r.num_tasks = 9; /* more tasks than the job's cpus */
	assert_int_equal(step_layout_place(a, 2, &r, &l), -ENOSPC);
	r.num_tasks = 4;
	r.cpus_per_task = 3; /* one task per node fits only */
	assert_int_equal(step_layout_place(a, 2, &r, &l), -ENOSPC);
	r = req_default();
	r.min_nodes = 3; /* more nodes than the job */
	assert_int_equal(step_layout_place(a, 2, &r, &l), -ERANGE);
	r = req_default();
	r.min_nodes = r.max_nodes = 2;
	r.num_tasks = 1; /* fewer tasks than nodes */
	assert_int_equal(step_layout_place(a, 2, &r, &l), -EINVAL);
	r.num_tasks = 0;
	assert_int_equal(step_layout_place(a, 2, &r, &l), -EINVAL);
}

static void test_required_excluded(void **state)
{
	struct step_avail a[] = {{.cpus = 4}, {.cpus = 4}, {.cpus = 4}};
	struct step_layout_req r = req_default();
	struct step_layout l;

	(void)state;
	a[2].is_required = true; /* -w n3, nothing else: that node only */
	expect_layout(a, 3, &r, 1, (uint32_t[]){2}, (uint32_t[]){1});
	r.num_tasks = 6; /* -w n3 -n6: n3 and the first other node */
	expect_layout(a, 3, &r, 2, (uint32_t[]){0, 2}, (uint32_t[]){3, 3});
	a[2].is_required = false;
	a[0].is_excluded = true; /* -x n1 -n6 */
	expect_layout(a, 3, &r, 2, (uint32_t[]){1, 2}, (uint32_t[]){3, 3});
	r = req_default(); /* -x n1 and no count: the other nodes */
	expect_layout(a, 3, &r, 2, (uint32_t[]){1, 2}, (uint32_t[]){1, 1});
	a[0].is_required = true; /* both: never */
	assert_int_equal(step_layout_place(a, 3, &r, &l), -ENOSPC);
	a[0].is_required = a[0].is_excluded = false;
	a[1].cpus_held = 4;
	a[1].is_required = true; /* required but busy */
	r.num_tasks = 1;
	assert_int_equal(step_layout_place(a, 3, &r, &l), -EAGAIN);
}

static void test_memory(void **state)
{
	struct step_avail a[] = {{.cpus = 4, .mem = 1000}};
	struct step_layout_req r = req_default();
	struct step_layout l;

	(void)state;
	r.num_tasks = 2;
	assert_int_equal(step_layout_place(a, 1, &r, &l), 0);
	assert_int_equal(l.nodes[0].mem, 1000); /* the job's memory there */
	step_layout_done(&l);
	r.mem_per_cpu = 100;
	assert_int_equal(step_layout_place(a, 1, &r, &l), 0);
	assert_int_equal(l.nodes[0].mem, 200);
	step_layout_done(&l);
	r.mem_per_cpu = 600; /* 2 x 600 > 1000 */
	assert_int_equal(step_layout_place(a, 1, &r, &l), -ENOSPC);
	r = req_default();
	r.mem_per_node = 2000;
	assert_int_equal(step_layout_place(a, 1, &r, &l), -ENOSPC);
	r.mem_per_node = 500;
	assert_int_equal(step_layout_place(a, 1, &r, &l), 0);
	assert_int_equal(l.nodes[0].mem, 500);
	step_layout_done(&l);
}

static void test_gpus(void **state)
{
	struct step_avail a[] = {{.cpus = 4, .gpus = 0xf}, {.cpus = 4, .gpus = 0xf0}};
	struct step_layout_req r = req_default();
	struct step_layout l;

	(void)state;
	assert_int_equal(step_layout_place(a, 2, &r, &l), 0); /* all the job's, shared */
	assert_int_equal(l.nodes[0].gpus, 0xf);
	assert_int_equal(l.nodes[1].gpus, 0xf0);
	step_layout_done(&l);
	r.gpu_mode = STEP_GPUS_NONE;
	assert_int_equal(step_layout_place(a, 2, &r, &l), 0);
	assert_int_equal(l.nodes[0].gpus, 0);
	step_layout_done(&l);
	r.gpu_mode = STEP_GPUS_COUNT;
	r.gpus_per_node = 2;
	a[0].gpus_held = 0x1;
	assert_int_equal(step_layout_place(a, 2, &r, &l), 0);
	assert_int_equal(l.nodes[0].gpus, 0x6); /* the lowest free */
	assert_int_equal(l.nodes[1].gpus, 0x30);
	step_layout_done(&l);
	a[0].gpus_held = 0x7; /* one left on the first node */
	assert_int_equal(step_layout_place(a, 2, &r, &l), -EAGAIN);
	r.num_tasks = 1; /* -n1 goes where two are free */
	assert_int_equal(step_layout_place(a, 2, &r, &l), 0);
	assert_int_equal(l.count, 1);
	assert_int_equal(l.nodes[0].job_node, 1);
	step_layout_done(&l);
	r.gpus_per_node = 5; /* more than the job has on a node */
	assert_int_equal(step_layout_place(a, 2, &r, &l), -ENOSPC);
}

static void test_gpus_per_task_and_total(void **state)
{
	struct step_avail a[] = {{.cpus = 4, .gpus = 0xf}, {.cpus = 4, .gpus = 0xf0}};
	struct step_layout_req r = req_default();
	struct step_layout l;

	(void)state;
	r.gpu_mode = STEP_GPUS_PER_TASK; /* -n3 --gpus-per-task=2: two tasks a node */
	r.gpus_per_task = 2;
	r.num_tasks = 3;
	assert_int_equal(step_layout_place(a, 2, &r, &l), 0);
	assert_int_equal(l.count, 2);
	assert_int_equal(l.nodes[0].tasks, 2);
	assert_int_equal(l.nodes[0].gpus, 0xf);
	assert_int_equal(l.nodes[1].tasks, 1);
	assert_int_equal(l.nodes[1].gpus, 0x30);
	step_layout_done(&l);
	r.num_tasks = 5; /* 10 GPUs: never in this job */
	assert_int_equal(step_layout_place(a, 2, &r, &l), -ENOSPC);
	r.num_tasks = 2;
	a[0].gpus_held = 0x7; /* the first node can serve no task now */
	assert_int_equal(step_layout_place(a, 2, &r, &l), 0);
	assert_int_equal(l.count, 1);
	assert_int_equal(l.nodes[0].job_node, 1);
	assert_int_equal(l.nodes[0].gpus, 0xf0);
	step_layout_done(&l);
	a[0].gpus_held = 0;
	r = req_default();
	r.gpu_mode = STEP_GPUS_TOTAL; /* -N2 --gpus=3: dealt one a round */
	r.gpus_total = 3;
	r.min_nodes = r.max_nodes = 2;
	assert_int_equal(step_layout_place(a, 2, &r, &l), 0);
	assert_int_equal(l.nodes[0].gpus, 0x3);
	assert_int_equal(l.nodes[1].gpus, 0x10);
	step_layout_done(&l);
	a[1].gpus_held = 0xf0; /* only the first node's four are free */
	r.gpus_total = 5;
	assert_int_equal(step_layout_place(a, 2, &r, &l), -EAGAIN);
	r.gpus_total = 9;
	assert_int_equal(step_layout_place(a, 2, &r, &l), -ENOSPC);
}

/* The node (step index) of each task under r, and the task counts. */
static void expect_tasks(const struct step_avail *a, uint32_t n, const struct step_layout_req *r,
			 uint32_t ntasks, const uint32_t *want_node_of, uint32_t count,
			 const uint32_t *want_tasks)
{
	struct step_layout l = {0};

	assert_int_equal(step_layout_place(a, n, r, &l), 0);
	assert_int_equal(l.num_tasks, ntasks);
	assert_int_equal(l.count, count);
	for (uint32_t i = 0; i < count; i++)
		assert_int_equal(l.nodes[i].tasks, want_tasks[i]);
	assert_non_null(l.node_of);
	assert_memory_equal(l.node_of, want_node_of, ntasks * sizeof(*want_node_of));
	step_layout_done(&l);
}

static void test_dist_block_numbers_node_by_node(void **state)
{
	struct step_avail a[] = {{.cpus = 4}, {.cpus = 4}};
	struct step_layout_req r = req_default();

	(void)state;
	r.num_tasks = 5; /* -N2 -n5: 0-2 on the first, 3-4 on the second */
	r.min_nodes = r.max_nodes = 2;
	expect_tasks(a, 2, &r, 5, (uint32_t[]){0, 0, 0, 1, 1}, 2, (uint32_t[]){3, 2});
}

static void test_dist_cyclic_round_robin(void **state)
{
	struct step_avail a[] = {{.cpus = 4}, {.cpus = 4}, {.cpus = 4}};
	struct step_avail a31[] = {{.cpus = 3}, {.cpus = 1}};
	struct step_layout_req r = req_default();

	(void)state;
	r.dist = TASK_DIST_CYCLIC;
	r.num_tasks = 5; /* -N2 -n5 -m cyclic: 0 2 4 | 1 3 */
	r.min_nodes = r.max_nodes = 2;
	expect_tasks(a, 3, &r, 5, (uint32_t[]){0, 1, 0, 1, 0}, 2, (uint32_t[]){3, 2});
	r.num_tasks = 7; /* -N3 -n7: 0 3 6 | 1 4 | 2 5 */
	r.min_nodes = r.max_nodes = 3;
	expect_tasks(a, 3, &r, 7, (uint32_t[]){0, 1, 2, 0, 1, 2, 0}, 3, (uint32_t[]){3, 2, 2});
	r.num_tasks = 4; /* cpus 3,1: the second node full after one round */
	r.min_nodes = r.max_nodes = 2;
	expect_tasks(a31, 2, &r, 4, (uint32_t[]){0, 1, 0, 0}, 2, (uint32_t[]){3, 1});
}

static void test_dist_plane_deals_blocks(void **state)
{
	struct step_avail a[] = {{.cpus = 8}, {.cpus = 8}};
	struct step_avail a26[] = {{.cpus = 2}, {.cpus = 6}};
	struct step_layout_req r = req_default();

	(void)state;
	r.dist = TASK_DIST_PLANE;
	r.plane_size = 2;
	r.num_tasks = 5; /* -N2 -n5 plane=2: 0 1 4 | 2 3 */
	r.min_nodes = r.max_nodes = 2;
	expect_tasks(a, 2, &r, 5, (uint32_t[]){0, 0, 1, 1, 0}, 2, (uint32_t[]){3, 2});
	r.plane_size = 4; /* -N2 -n6 plane=4: 0-3 | 4 5 (not block's 3 + 3) */
	r.num_tasks = 6;
	expect_tasks(a, 2, &r, 6, (uint32_t[]){0, 0, 0, 0, 1, 1}, 2, (uint32_t[]){4, 2});
	r.plane_size = 2; /* cpus 2,6 with -n7: 0 1 | 2 3, then the second alone */
	r.num_tasks = 7;
	expect_tasks(a26, 2, &r, 7, (uint32_t[]){0, 0, 1, 1, 1, 1, 1}, 2, (uint32_t[]){2, 5});
}

static void test_dist_arbitrary_follows_the_list(void **state)
{
	struct step_avail a[] = {{.cpus = 4}, {.cpus = 4}, {.cpus = 4}};
	struct step_avail busy[] = {{.cpus = 4, .cpus_held = 4}, {.cpus = 4}};
	struct step_layout_req r = req_default();
	struct step_layout l;

	(void)state;
	r.dist = TASK_DIST_ARBITRARY;
	r.num_tasks = 5; /* n3,n1,n1,n3,n3: n1 runs 1 2, n3 0 3 4; n2 none */
	r.arb_node = (uint32_t[]){2, 0, 0, 2, 2};
	expect_tasks(a, 3, &r, 5, (uint32_t[]){1, 0, 0, 1, 1}, 2, (uint32_t[]){2, 3});
	r.num_tasks = 5; /* five on a node of 4 cpus: never */
	r.arb_node = (uint32_t[]){1, 1, 1, 1, 1};
	assert_int_equal(step_layout_place(a, 3, &r, &l), -ENOSPC);
	r.num_tasks = 2; /* a node busy now: later */
	r.arb_node = (uint32_t[]){1, 0};
	assert_int_equal(step_layout_place(busy, 2, &r, &l), -EAGAIN);
	r.arb_node = (uint32_t[]){1, 7}; /* outside the job */
	assert_int_equal(step_layout_place(a, 3, &r, &l), -ENOSPC);
	r.arb_node = (uint32_t[]){1, 0}; /* -N3 for two listed nodes */
	r.min_nodes = r.max_nodes = 3;
	assert_int_equal(step_layout_place(a, 3, &r, &l), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_block_reference),
	    cmocka_unit_test(test_block_even_and_fewest),
	    cmocka_unit_test(test_busy_overlap_never),
	    cmocka_unit_test(test_required_excluded),
	    cmocka_unit_test(test_memory),
	    cmocka_unit_test(test_gpus),
	    cmocka_unit_test(test_gpus_per_task_and_total),
	    cmocka_unit_test(test_dist_block_numbers_node_by_node),
	    cmocka_unit_test(test_dist_cyclic_round_robin),
	    cmocka_unit_test(test_dist_plane_deals_blocks),
	    cmocka_unit_test(test_dist_arbitrary_follows_the_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
