/* test_backfill.c - sched/backfill's planner on a fake clock: the head
 * job's start is never delayed, a short job fills the hole before it, a
 * long one does not, estimates move when jobs end early, GPUs, exclusive
 * nodes, the job caps and the job whose end lets a job start; reservation
 * windows, which the jobs of a FLEX one may use.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "slurmctld/backfill.h"

#define NOW 999960 /* a multiple of the resolution (60) */
#define N   4

static struct sel_node nodes[N];
static bool all[N] = {true, true, true, true};
static struct sel_alloc run_alloc[8][N];
static struct sel_result run_res[8];
static struct bf_run runs[8];
static uint32_t run_count;

static struct bf_params params(void)
{
	return (struct bf_params){.now = NOW, .window = 86400, .resolution = 60};
}

static void nodes_init(uint16_t gpus)
{
	for (uint32_t i = 0; i < N; i++)
		nodes[i] = (struct sel_node){.sockets = 1,
					     .cores_per_socket = 4,
					     .threads_per_core = 1,
					     .cpus = 4,
					     .real_memory = 4000,
					     .gpus = gpus,
					     .is_usable = true};
	run_count = 0;
}

/* A running job on node `node` holding cpus (and gpu mask), ending at
 * NOW + secs (0: never). */
static void run_add(uint32_t id, uint32_t node, uint16_t cpus, uint64_t gpus, time_t secs)
{
	struct sel_alloc *a = &run_alloc[run_count][0];

	*a = (struct sel_alloc){
	    .node = node, .cpus = cpus, .tasks = 1, .mem = 100 * cpus, .gpus = gpus};
	run_res[run_count] = (struct sel_result){.nodes = a, .count = 1, .total_cpus = cpus};
	runs[run_count] = (struct bf_run){
	    .job_id = id, .end = secs ? NOW + secs : 0, .alloc = &run_res[run_count]};
	nodes[node].cpus_used += cpus;
	nodes[node].mem_used += a->mem;
	nodes[node].gpus_used |= gpus;
	run_count++;
}

static struct bf_job job(uint32_t id, uint32_t nnodes, uint32_t tasks, uint32_t limit)
{
	return (struct bf_job){
	    .job_id = id,
	    .user = 1000,
	    .req = {.min_nodes = nnodes,
		    .max_nodes = nnodes,
		    .num_tasks = tasks,
		    .cpus_per_task = 1,
		    .mem_per_cpu = 100},
	    .is_usable = all,
	    .limit = limit,
	};
}

static void plan(struct bf_params *p, struct bf_job *jobs, uint32_t n, struct bf_stats *st)
{
	assert_int_equal(bf_plan(p, nodes, N, runs, run_count, jobs, n, st), 0);
}

static uint32_t node_of(const struct bf_job *j, uint32_t k)
{
	assert_true(k < j->res.count);
	return j->res.nodes[k].node;
}

/* Nodes 0-2 busy until +600/+1200/+1800, node 3 idle. The head job wants all
 * four nodes: it starts at +1800. A short job fits on node 3 now and ends
 * before: it starts now. A long one would delay the head: it waits. */
static void test_short_job_fills_the_hole(void **state)
{
	struct bf_params p = params();
	struct bf_job jobs[3] = {job(10, 4, 16, 3600), job(11, 1, 4, 1200), job(12, 1, 4, 7200)};
	struct bf_stats st;

	(void)state;
	nodes_init(0);
	run_add(1, 0, 4, 0, 600);
	run_add(2, 1, 4, 0, 1200);
	run_add(3, 2, 4, 0, 1800);
	plan(&p, jobs, 3, &st);
	assert_int_equal(jobs[0].outcome, BF_LATER);
	assert_int_equal(jobs[0].start, NOW + 1800);
	assert_int_equal(jobs[0].res.count, 4);
	assert_int_equal(jobs[0].after_job, 3);
	assert_int_equal(jobs[1].outcome, BF_NOW);
	assert_int_equal(node_of(&jobs[1], 0), 3);
	/* the long one would overlap the head's window on every node: after it */
	assert_int_equal(jobs[2].outcome, BF_LATER);
	assert_int_equal(jobs[2].start, NOW + 1800 + 3600);
	assert_int_equal(jobs[2].after_job, 10);
	assert_int_equal(st.tested, 3);
	assert_int_equal(st.now_count, 1);
	bf_jobs_done(jobs, 3);
}

/* The long job may not take node 0 at +600: the head holds it from +1800.
 * Everything after the head goes after the head's end. */
static void test_head_start_never_delayed(void **state)
{
	struct bf_params p = params();
	struct bf_job jobs[4] = {job(10, 4, 16, 3600), job(11, 1, 4, 1200), job(12, 1, 4, 7200),
				 job(13, 2, 8, 600)};
	struct bf_stats st;

	(void)state;
	nodes_init(0);
	run_add(1, 0, 4, 0, 600);
	run_add(2, 1, 4, 0, 1200);
	run_add(3, 2, 4, 0, 1800);
	plan(&p, jobs, 4, &st);
	assert_int_equal(jobs[0].start, NOW + 1800);
	/* job 12 (2 h) cannot run anywhere before +1800 + 3600 without
	 * overlapping the head's window on all four nodes */
	assert_int_equal(jobs[2].outcome, BF_LATER);
	assert_int_equal(jobs[2].start, NOW + 1800 + 3600);
	/* job 13: 2 nodes for 10 min, fits on nodes 0 and 1 at +1200 (ends at
	 * +1800: right when the head starts) */
	assert_int_equal(jobs[3].outcome, BF_LATER);
	assert_int_equal(jobs[3].start, NOW + 1200);
	assert_int_equal(jobs[3].after_job, 2);
	bf_jobs_done(jobs, 4);
}

/* Node 0 runs job 2 until +1200: the estimate is +1200; when job 2 ends
 * early (its end is now +300), the next plan says +300. */
static void test_estimate_moves_when_a_job_ends_early(void **state)
{
	struct bf_params p = params();
	struct bf_job jobs[1] = {job(10, 4, 16, 600)};
	struct bf_stats st;

	(void)state;
	nodes_init(0);
	run_add(2, 0, 4, 0, 1200);
	plan(&p, jobs, 1, &st);
	assert_int_equal(jobs[0].outcome, BF_LATER);
	assert_int_equal(jobs[0].start, NOW + 1200);
	runs[0].end = NOW + 330; /* rounded down to the resolution */
	plan(&p, jobs, 1, &st);
	assert_int_equal(jobs[0].start, NOW + 300);
	/* and it is gone: the job starts now */
	nodes_init(0);
	plan(&p, jobs, 1, &st);
	assert_int_equal(jobs[0].outcome, BF_NOW);
	assert_int_equal(jobs[0].start, NOW);
	bf_jobs_done(jobs, 1);
}

/* GPUs: a job wanting 3 GPUs of a node whose GPUs 0-1 are held until +900
 * waits until then, while a 2-GPU job fits now beside. */
static void test_gpus(void **state)
{
	struct bf_params p = params();
	struct bf_job jobs[2] = {job(10, 1, 1, 600), job(11, 1, 1, 600)};
	struct bf_stats st;

	(void)state;
	nodes_init(4);
	for (uint32_t i = 1; i < N; i++)
		nodes[i].is_usable = false;
	run_add(1, 0, 1, 0x3, 900);
	jobs[0].req.gpus_per_node = 3;
	jobs[1].req.gpus_per_node = 2;
	jobs[1].limit = 1200;
	plan(&p, jobs, 2, &st);
	assert_int_equal(jobs[0].outcome, BF_LATER);
	assert_int_equal(jobs[0].start, NOW + 900);
	/* the 2-GPU job fits now on GPUs 2-3 but would hold them past +900,
	 * when job 10 needs three: it must wait for job 10's end */
	assert_int_equal(jobs[1].outcome, BF_LATER);
	assert_int_equal(jobs[1].start, NOW + 1500);
	bf_jobs_done(jobs, 2);
}

/* An exclusive job needs its nodes empty; a job with no time limit is never
 * started ahead of a reservation it would overlap. */
static void test_exclusive_and_no_limit(void **state)
{
	struct bf_params p = params();
	struct bf_job jobs[3] = {job(10, 1, 1, 600), job(11, 1, 1, 0), job(12, 1, 1, 300)};
	struct bf_stats st;

	(void)state;
	nodes_init(0);
	for (uint32_t i = 1; i < N; i++)
		nodes[i].is_usable = false;
	run_add(1, 0, 1, 0, 600);
	jobs[0].req.is_exclusive = true;
	plan(&p, jobs, 3, &st);
	assert_int_equal(jobs[0].outcome, BF_LATER);
	assert_int_equal(jobs[0].start, NOW + 600);
	/* no limit: it would run into job 10's window forever */
	assert_int_equal(jobs[1].outcome, BF_LATER);
	assert_int_equal(jobs[1].start, NOW + 1200);
	/* 5 minutes fit before job 10 beside job 1 */
	assert_int_equal(jobs[2].outcome, BF_NOW);
	bf_jobs_done(jobs, 3);
}

/* A job that could never fit, one beyond the window, and the caps. */
static void test_never_window_and_caps(void **state)
{
	struct bf_params p = params();
	struct bf_job jobs[4] = {job(10, 5, 5, 60), job(11, 1, 4, 60), job(12, 1, 1, 60),
				 job(13, 1, 1, 60)};
	struct bf_stats st;

	(void)state;
	nodes_init(0);
	for (uint32_t i = 0; i < N; i++)
		run_add(i + 1, i, 4, 0, 7200);
	p.window = 3600;
	plan(&p, jobs, 4, &st);
	assert_int_equal(jobs[0].outcome, BF_NEVER); /* 5 nodes of 4 */
	assert_int_equal(jobs[1].outcome, BF_NEVER); /* starts after the window */
	assert_int_equal(st.tested, 4);
	p.window = 86400;
	p.max_job_test = 2;
	plan(&p, jobs, 4, &st);
	assert_int_equal(jobs[1].outcome, BF_LATER);
	assert_int_equal(jobs[1].start, NOW + 7200);
	assert_int_equal(jobs[2].outcome, BF_UNTESTED);
	p.max_job_test = 0;
	p.max_job_user = 3;
	jobs[3].user = 2000;
	plan(&p, jobs, 4, &st);
	assert_int_equal(jobs[2].outcome, BF_LATER);
	assert_int_equal(jobs[3].outcome, BF_LATER); /* another user */
	p.max_job_user = 2;
	plan(&p, jobs, 4, &st);
	assert_int_equal(jobs[2].outcome, BF_UNTESTED);
	assert_int_equal(jobs[3].outcome, BF_LATER);
	bf_jobs_done(jobs, 4);
}

/* A job that cannot start within the window is remembered: a later job that
 * asks as much for as long cannot either, but a shorter one still fills the
 * hole, and a failure in one partition says nothing of another. Nodes 0-2
 * are full past the window; node 3 has 2 cpus free until the head takes it
 * at +1800. */
static void test_remembered_failure(void **state)
{
	static const bool first3[N] = {true, true, true, false};
	struct bf_params p = params();
	struct bf_job jobs[7] = {job(10, 1, 4, 7200), job(11, 1, 2, 7200), job(12, 1, 3, 9000),
				 job(13, 1, 2, 600),  job(14, 1, 2, 0),	   job(15, 1, 1, 60),
				 job(16, 1, 1, 60)};
	struct bf_stats st;

	(void)state;
	jobs[5].is_usable = first3;
	nodes_init(0);
	for (uint32_t i = 0; i < 3; i++)
		run_add(i + 1, i, 4, 0, 7200);
	run_add(4, 3, 2, 0, 1800);
	p.window = 3600;
	plan(&p, jobs, 7, &st);
	assert_int_equal(jobs[0].outcome, BF_LATER);
	assert_int_equal(jobs[0].start, NOW + 1800);
	assert_int_equal(jobs[1].outcome, BF_NEVER); /* too long for the hole */
	assert_int_equal(jobs[2].outcome, BF_NEVER); /* more, and longer */
	assert_int_equal(jobs[3].outcome, BF_NOW);   /* shorter: fits the hole */
	assert_int_equal(node_of(&jobs[3], 0), 3);
	assert_int_equal(jobs[4].outcome, BF_NEVER); /* no limit covers every limit */
	assert_int_equal(jobs[5].outcome, BF_NEVER); /* nodes 0-2 only */
	assert_int_equal(jobs[6].outcome, BF_LATER); /* the same on every node */
	assert_int_equal(jobs[6].start, NOW + 600);
	assert_int_equal(node_of(&jobs[6], 0), 3);
	bf_jobs_done(jobs, 7);
}

/* -w: a required busy node sets the start even when others are free. */
static void test_required_node(void **state)
{
	struct bf_params p = params();
	struct bf_job jobs[1] = {job(10, 1, 1, 60)};
	bool req[N] = {false, false, true, false};
	struct bf_stats st;

	(void)state;
	nodes_init(0);
	run_add(7, 2, 4, 0, 2400);
	jobs[0].req.is_required = req;
	plan(&p, jobs, 1, &st);
	assert_int_equal(jobs[0].outcome, BF_LATER);
	assert_int_equal(jobs[0].start, NOW + 2400);
	assert_int_equal(node_of(&jobs[0], 0), 2);
	assert_int_equal(jobs[0].after_job, 7);
	bf_jobs_done(jobs, 1);
}

/* bf_busy_nodes: a job that fits anywhere goes to a node already in use. */
static void test_busy_nodes(void **state)
{
	struct bf_params p = params();
	struct bf_job jobs[1] = {job(10, 1, 1, 60)};
	uint32_t order[N] = {3, 2, 1, 0};
	struct bf_stats st;

	(void)state;
	nodes_init(0);
	run_add(1, 2, 1, 0, 600);
	plan(&p, jobs, 1, &st);
	assert_int_equal(jobs[0].outcome, BF_NOW);
	assert_int_equal(node_of(&jobs[0], 0), 0); /* index order */
	jobs[0].req.order = order;
	plan(&p, jobs, 1, &st);
	assert_int_equal(node_of(&jobs[0], 0), 3); /* the Weight order */
	p.is_busy_nodes = true;
	plan(&p, jobs, 1, &st);
	assert_int_equal(node_of(&jobs[0], 0), 2); /* the busy one */
	bf_jobs_done(jobs, 1);
}

/* A reservation on nodes 0-3 from +1800 to +5400: a job that ends before
 * it starts now; a longer one is planned after it; one with no limit never
 * fits within the window (the reservation repeats nothing here, so after
 * its end: +5400). */
static void test_reservation_windows(void **state)
{
	static const uint32_t resv_nodes[] = {0, 1, 2, 3};
	struct bf_block block = {.start = NOW + 1800, .end = NOW + 5400, .nodes = resv_nodes,
				 .node_count = 4};
	struct bf_params p = params();
	struct bf_job jobs[3] = {job(10, 4, 16, 1200), job(11, 4, 16, 3600), job(12, 1, 1, 0)};
	struct bf_stats st;

	(void)state;
	nodes_init(0);
	p.blocks = &block;
	p.block_count = 1;
	plan(&p, jobs, 3, &st);
	assert_int_equal(jobs[0].outcome, BF_NOW);
	assert_int_equal(jobs[1].outcome, BF_LATER);
	assert_int_equal(jobs[1].start, NOW + 5400);
	assert_int_equal(jobs[2].outcome, BF_LATER);
	assert_true(jobs[2].start >= NOW + 5400);
	bf_jobs_done(jobs, 3);
}

/* Nodes 0-1 reserved from now to +3600, nodes 2-3 busy until +7200: a
 * job kept off the reservation starts at its end, on its nodes. */
static void test_reserved_nodes_free_at_the_reservation_end(void **state)
{
	static const uint32_t resv_nodes[] = {0, 1};
	struct bf_block block = {
	    .start = NOW - 60, .end = NOW + 3600, .nodes = resv_nodes, .node_count = 2};
	struct bf_params p = params();
	struct bf_job jobs[2] = {job(10, 2, 8, 1800), job(11, 1, 1, 600)};
	struct bf_stats st;

	(void)state;
	nodes_init(0);
	run_add(1, 2, 4, 0, 7200);
	run_add(2, 3, 4, 0, 7200);
	p.blocks = &block;
	p.block_count = 1;
	plan(&p, jobs, 2, &st);
	assert_int_equal(jobs[0].outcome, BF_LATER);
	assert_int_equal(jobs[0].start, NOW + 3600);
	assert_int_equal(node_of(&jobs[0], 0), 0);
	assert_int_equal(node_of(&jobs[0], 1), 1);
	assert_int_equal(jobs[1].outcome, BF_LATER); /* after the first, then */
	assert_int_equal(jobs[1].start, NOW + 5400);
	bf_jobs_done(jobs, 2);
}

/* A FLEX reservation on nodes 0-1 from +600 to +4200, another one on node
 * 2 from now to +3600, node 3 busy until +7200. A job of the FLEX one
 * starts now across its window's start; another job of it follows on its
 * nodes at +1800; a job of neither waits for node 2 (+3600), kept off both
 * windows. */
static void test_flex_jobs_use_their_reservations_window(void **state)
{
	static const uint32_t flex_nodes[] = {0, 1}, other_nodes[] = {2};
	struct bf_block blocks[2] = {
	    {.start = NOW + 600, .end = NOW + 4200, .nodes = flex_nodes, .node_count = 2},
	    {.start = NOW, .end = NOW + 3600, .nodes = other_nodes, .node_count = 1},
	};
	struct bf_params p = params();
	struct bf_job jobs[3] = {job(10, 2, 8, 1800), job(11, 1, 4, 1800), job(12, 1, 4, 1800)};
	struct bf_stats st;

	(void)state;
	nodes_init(0);
	run_add(1, 3, 4, 0, 7200);
	p.blocks = blocks;
	p.block_count = 2;
	jobs[0].own = &blocks[0];
	jobs[2].own = &blocks[0];
	plan(&p, jobs, 3, &st);
	assert_int_equal(jobs[0].outcome, BF_NOW);
	assert_int_equal(node_of(&jobs[0], 0), 0);
	assert_int_equal(node_of(&jobs[0], 1), 1);
	assert_int_equal(jobs[1].outcome, BF_LATER);
	assert_int_equal(jobs[1].start, NOW + 3600);
	assert_int_equal(node_of(&jobs[1], 0), 2);
	assert_int_equal(jobs[2].outcome, BF_LATER);
	assert_int_equal(jobs[2].start, NOW + 1800);
	assert_true(node_of(&jobs[2], 0) < 2);
	bf_jobs_done(jobs, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_short_job_fills_the_hole),
	    cmocka_unit_test(test_head_start_never_delayed),
	    cmocka_unit_test(test_estimate_moves_when_a_job_ends_early),
	    cmocka_unit_test(test_gpus),
	    cmocka_unit_test(test_exclusive_and_no_limit),
	    cmocka_unit_test(test_never_window_and_caps),
	    cmocka_unit_test(test_remembered_failure),
	    cmocka_unit_test(test_required_node),
	    cmocka_unit_test(test_busy_nodes),
	    cmocka_unit_test(test_reservation_windows),
	    cmocka_unit_test(test_reserved_nodes_free_at_the_reservation_end),
	    cmocka_unit_test(test_flex_jobs_use_their_reservations_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
