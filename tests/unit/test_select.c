/* test_select.c - cons_tres placement: cores, memory, GPUs, exclusive,
 * required/excluded nodes, -EAGAIN versus -ENOSPC.
 *
 * Each scenario is a node set and a sequence of jobs; every job that is
 * placed is charged, so later jobs see the earlier ones. At the end all
 * jobs are released and the nodes must be exactly as they started.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "slurmctld/select.h"

#define MAX_NODES 4
#define MAX_STEPS 4

#define NODE(s, c, t, mem, g)                                                                      \
	{                                                                                          \
		.sockets = (s), .cores_per_socket = (c), .threads_per_core = (t),                  \
		.cpus = (s) * (c) * (t), .real_memory = (mem), .gpus = (g), .is_usable = true      \
	}
#define DRAINED(s, c, t, mem, g)                                                                   \
	{                                                                                          \
		.sockets = (s), .cores_per_socket = (c), .threads_per_core = (t),                  \
		.cpus = (s) * (c) * (t), .real_memory = (mem), .gpus = (g), .is_usable = false     \
	}
#define N4   NODE(1, 4, 1, 8000, 0) /* 4 cpus, 8000 MB */
#define N4G4 NODE(1, 4, 1, 8000, 4) /* ... and 4 GPUs */
#define HT4  NODE(1, 2, 2, 8000, 0) /* 2 cores x 2 threads */
/* 4 GPUs: 0-1 of type 1, 2-3 of type 2 ("gpu:a100:2,gpu:v100:2") */
static const uint64_t two_types[8] = {0x3, 0xc};
#define N4G4T                                                                                      \
	{                                                                                          \
		.sockets = 1, .cores_per_socket = 4, .threads_per_core = 1, .cpus = 4,             \
		.real_memory = 8000, .gpus = 4, .is_usable = true, .gpu_type_mask = two_types     \
	}
#define STEP(...)                                                                                  \
	{                                                                                          \
		.is_step = true, __VA_ARGS__                                                       \
	}

struct expect {
	uint32_t node;
	uint16_t cpus, tasks;
	uint64_t mem, gpus;
};

struct step {
	bool is_step;
	struct sel_req req;	     /* min_nodes 0 and cpus_per_task 0 read as 1 */
	uint32_t required, excluded; /* bitmasks of node indexes */
	int rc;
	struct expect alloc[MAX_NODES]; /* ends at the first with cpus 0 */
};

struct scenario {
	const char *name;
	uint32_t n;
	struct sel_node nodes[MAX_NODES];
	struct step steps[MAX_STEPS];
};

static const struct scenario scenarios[] = {
    {"a one-cpu job takes one core of an idle four-cpu node",
     1,
     {N4},
     {STEP(.req = {.num_tasks = 1}, .alloc = {{0, 1, 1, 0, 0}})}},
    {"four tasks on four-cpu nodes fill the first node",
     2,
     {N4, N4},
     {STEP(.req = {.num_tasks = 4, .max_nodes = 2}, .alloc = {{0, 4, 4, 0, 0}})}},
    {"five tasks fill the first node and spill one onto the second",
     2,
     {N4, N4},
     {STEP(.req = {.num_tasks = 5, .max_nodes = 2}, .alloc = {{0, 4, 4, 0, 0}, {1, 1, 1, 0, 0}})}},
    {"five tasks limited to one four-cpu node never fit",
     2,
     {N4, N4},
     {STEP(.req = {.num_tasks = 5}, .rc = -ENOSPC)}},
    {"two nodes and two tasks put one task on each node",
     2,
     {N4, N4},
     {STEP(.req = {.min_nodes = 2, .num_tasks = 2}, .alloc = {{0, 1, 1, 0, 0}, {1, 1, 1, 0, 0}})}},
    {"no task count runs one task on each of the minimum nodes",
     3,
     {N4, N4, N4},
     {STEP(.req = {.min_nodes = 2, .max_nodes = 3}, .alloc = {{0, 1, 1, 0, 0}, {1, 1, 1, 0, 0}})}},
    {"a one-cpu task on a hyperthreaded node gets a whole core",
     1,
     {HT4},
     {STEP(.req = {.num_tasks = 1}, .alloc = {{0, 2, 1, 0, 0}})}},
    {"two cpus per task with two threads per core take one core per task",
     1,
     {HT4},
     {STEP(.req = {.num_tasks = 2, .cpus_per_task = 2}, .alloc = {{0, 4, 2, 0, 0}}),
      STEP(.req = {.num_tasks = 1}, .rc = -EAGAIN)}},
    {"three cpus per task with two threads per core round up to two cores",
     2,
     {HT4, HT4},
     {STEP(.req = {.num_tasks = 2, .cpus_per_task = 3, .max_nodes = 2},
	   .alloc = {{0, 4, 1, 0, 0}, {1, 4, 1, 0, 0}})}},
    {"ntasks_per_node places exactly that many tasks on each node",
     3,
     {N4, N4, N4},
     {STEP(.req = {.min_nodes = 2, .ntasks_per_node = 2},
	   .alloc = {{0, 2, 2, 0, 0}, {1, 2, 2, 0, 0}})}},
    {"ntasks_per_node with a task count spreads the tasks over enough nodes",
     3,
     {N4, N4, N4},
     {STEP(.req = {.num_tasks = 5, .max_nodes = 3, .ntasks_per_node = 2},
	   .alloc = {{0, 2, 2, 0, 0}, {1, 2, 2, 0, 0}, {2, 1, 1, 0, 0}})}},
    {"ntasks_per_node times cpus_per_task over a node's cpus never fits",
     2,
     {N4, N4},
     {STEP(.req = {.ntasks_per_node = 3, .cpus_per_task = 2}, .rc = -ENOSPC)}},
    {"memory per node fits, then waits, then never fits",
     1,
     {N4},
     {STEP(.req = {.num_tasks = 1, .mem_per_node = 6000}, .alloc = {{0, 1, 1, 6000, 0}}),
      STEP(.req = {.num_tasks = 1, .mem_per_node = 4000}, .rc = -EAGAIN),
      STEP(.req = {.num_tasks = 1, .mem_per_node = 9000}, .rc = -ENOSPC),
      STEP(.req = {.num_tasks = 1, .mem_per_node = 2000}, .alloc = {{0, 1, 1, 2000, 0}})}},
    {"memory per cpu is charged for every allocated cpu",
     1,
     {HT4},
     {STEP(.req = {.num_tasks = 1, .mem_per_cpu = 1000}, .alloc = {{0, 2, 1, 2000, 0}}),
      STEP(.req = {.num_tasks = 1, .mem_per_cpu = 3500}, .rc = -EAGAIN),
      STEP(.req = {.num_tasks = 1, .mem_per_cpu = 5000}, .rc = -ENOSPC)}},
    {"memory per cpu limits the tasks a node takes",
     2,
     {NODE(1, 4, 1, 3000, 0), NODE(1, 4, 1, 3000, 0)},
     {STEP(.req = {.num_tasks = 4, .mem_per_cpu = 1000}, .rc = -ENOSPC),
      STEP(.req = {.num_tasks = 4, .max_nodes = 2, .mem_per_cpu = 1000},
	   .alloc = {{0, 3, 3, 3000, 0}, {1, 1, 1, 1000, 0}})}},
    {"GPUs per node take the lowest free indexes until none are left",
     1,
     {N4G4},
     {STEP(.req = {.num_tasks = 1, .gpus_per_node = 2}, .alloc = {{0, 1, 1, 0, 0x3}}),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 2}, .alloc = {{0, 1, 1, 0, 0xc}}),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 1}, .rc = -EAGAIN),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 5}, .rc = -ENOSPC)}},
    {"GPUs per node are given on every chosen node",
     2,
     {N4G4, N4G4},
     {STEP(.req = {.min_nodes = 2, .gpus_per_node = 1},
	   .alloc = {{0, 1, 1, 0, 0x1}, {1, 1, 1, 0, 0x1}})}},
    {"a GPU total fills the first node's GPUs and takes the rest from the next",
     2,
     {NODE(1, 4, 1, 8000, 2), NODE(1, 4, 1, 8000, 2)},
     {STEP(.req = {.num_tasks = 2, .max_nodes = 2, .gpus_total = 3},
	   .alloc = {{0, 1, 1, 0, 0x3}, {1, 1, 1, 0, 0x1}}),
      STEP(.req = {.max_nodes = 2, .gpus_total = 1}, .alloc = {{1, 1, 1, 0, 0x2}}),
      STEP(.req = {.gpus_total = 1}, .rc = -EAGAIN),
      STEP(.req = {.max_nodes = 2, .gpus_total = 5}, .rc = -ENOSPC)}},
    {"a GPU total still respects the minimum node count",
     2,
     {N4G4, N4G4},
     {STEP(.req = {.min_nodes = 2, .gpus_total = 1},
	   .alloc = {{0, 1, 1, 0, 0x1}, {1, 1, 1, 0, 0x0}})}},
    {"GPUs per task: each node gets its tasks' GPUs, and no more tasks than its GPUs allow",
     2,
     {N4G4, N4G4},
     {STEP(.req = {.num_tasks = 3, .max_nodes = 2, .gpus_per_task = 2},
	   .alloc = {{0, 2, 2, 0, 0xf}, {1, 1, 1, 0, 0x3}}),
      STEP(.req = {.num_tasks = 2, .gpus_per_task = 2}, .rc = -EAGAIN),
      STEP(.req = {.num_tasks = 3, .gpus_per_task = 2}, .rc = -ENOSPC)}},
    {"tasks per GPU: one GPU for every N tasks on a node, rounded up",
     1,
     {N4G4},
     {STEP(.req = {.num_tasks = 3, .ntasks_per_gpu = 2}, .alloc = {{0, 3, 3, 0, 0x3}}),
      STEP(.req = {.num_tasks = 1, .ntasks_per_gpu = 2}, .alloc = {{0, 1, 1, 0, 0x4}})}},
    {"cpus per GPU raise a node's cpus and bound the GPUs its free cpus can serve",
     1,
     {N4G4},
     {STEP(.req = {.num_tasks = 1, .gpus_per_node = 2, .cpus_per_gpu = 2},
	   .alloc = {{0, 4, 1, 0, 0x3}}),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 1, .cpus_per_gpu = 1}, .rc = -EAGAIN),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 3, .cpus_per_gpu = 2}, .rc = -ENOSPC)}},
    {"--ntasks-per-socket bounds a node's tasks by its sockets",
     2,
     {NODE(2, 2, 1, 8000, 0), NODE(2, 2, 1, 8000, 0)},
     {STEP(.req = {.num_tasks = 5, .min_nodes = 1, .max_nodes = 4, .ntasks_per_socket = 1},
	   .rc = -ENOSPC),
      STEP(.req = {.num_tasks = 4, .min_nodes = 1, .max_nodes = 4, .ntasks_per_socket = 1},
	   .alloc = {{0, 2, 2, 0, 0}, {1, 2, 2, 0, 0}})}},
    {"memory per GPU is charged per GPU and bounds the GPUs a node gives",
     1,
     {N4G4},
     {STEP(.req = {.num_tasks = 1, .gpus_per_node = 2, .mem_per_gpu = 3000},
	   .alloc = {{0, 1, 1, 6000, 0x3}}),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 1, .mem_per_gpu = 3000}, .rc = -EAGAIN),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 3, .mem_per_gpu = 3000}, .rc = -ENOSPC)}},
    {"a typed request takes only GPUs of its type",
     1,
     {N4G4T},
     {STEP(.req = {.num_tasks = 1, .gpus_per_node = 1, .gpu_type = 2}, .alloc = {{0, 1, 1, 0, 0x4}}),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 2, .gpu_type = 2}, .rc = -EAGAIN),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 2, .gpu_type = 1}, .alloc = {{0, 1, 1, 0, 0x3}}),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 3, .gpu_type = 1}, .rc = -ENOSPC)}},
    {"sharing jobs overlap on cores up to the share; others find the node full",
     1,
     {N4},
     {STEP(.req = {.num_tasks = 4, .share = 2}, .alloc = {{0, 4, 4, 0, 0}}),
      STEP(.req = {.num_tasks = 4, .share = 2}, .alloc = {{0, 4, 4, 0, 0}}),
      STEP(.req = {.num_tasks = 1, .share = 2}, .rc = -EAGAIN),
      STEP(.req = {.num_tasks = 1}, .rc = -EAGAIN)}},
    {"sharing never lets one job use a core twice or take a dedicated job's cores",
     1,
     {N4},
     {STEP(.req = {.num_tasks = 5, .share = 4}, .rc = -ENOSPC),
      STEP(.req = {.num_tasks = 2}, .alloc = {{0, 2, 2, 0, 0}}),
      STEP(.req = {.num_tasks = 3, .share = 4}, .rc = -EAGAIN),
      STEP(.req = {.num_tasks = 2, .share = 4}, .alloc = {{0, 2, 2, 0, 0}})}},
    {"an exclusive job gets every GPU of its node, as in Slurm",
     1,
     {N4G4},
     {STEP(.req = {.num_tasks = 1, .gpus_per_node = 1, .is_exclusive = true},
	   .alloc = {{0, 4, 1, 0, 0xf}})}},
    {"an exclusive job takes all cpus and keeps others off its node",
     2,
     {N4, N4},
     {STEP(.req = {.num_tasks = 1, .is_exclusive = true}, .alloc = {{0, 4, 1, 0, 0}}),
      STEP(.req = {.num_tasks = 1}, .alloc = {{1, 1, 1, 0, 0}}),
      STEP(.req = {.num_tasks = 1, .is_exclusive = true}, .rc = -EAGAIN)}},
    {"an exclusive job with memory per cpu is charged for the whole node",
     1,
     {N4},
     {STEP(.req = {.num_tasks = 1, .is_exclusive = true, .mem_per_cpu = 1000},
	   .alloc = {{0, 4, 1, 4000, 0}})}},
    {"an exclusive job waits for a node with nothing used",
     1,
     {N4G4},
     {STEP(.req = {.num_tasks = 1, .gpus_per_node = 1}, .alloc = {{0, 1, 1, 0, 0x1}}),
      STEP(.req = {.num_tasks = 1, .is_exclusive = true}, .rc = -EAGAIN)}},
    {"a busy required node makes the job wait",
     2,
     {N4, N4},
     {STEP(.req = {.num_tasks = 4}, .alloc = {{0, 4, 4, 0, 0}}),
      STEP(.req = {.num_tasks = 1}, .required = 0x1, .rc = -EAGAIN),
      STEP(.req = {.num_tasks = 1}, .required = 0x2, .alloc = {{1, 1, 1, 0, 0}})}},
    {"required nodes raise the node count and come with the first free ones",
     3,
     {N4, N4, N4},
     {STEP(.req = {.num_tasks = 2}, .required = 0x4, .alloc = {{2, 2, 2, 0, 0}}),
      STEP(.req = {.min_nodes = 2, .num_tasks = 2}, .required = 0x4,
	   .alloc = {{0, 1, 1, 0, 0}, {2, 1, 1, 0, 0}})}},
    {"a required node that is excluded or drained never fits",
     2,
     {N4, DRAINED(1, 4, 1, 8000, 0)},
     {STEP(.req = {.num_tasks = 1}, .required = 0x1, .excluded = 0x1, .rc = -ENOSPC),
      STEP(.req = {.num_tasks = 1}, .required = 0x2, .rc = -ENOSPC)}},
    {"more nodes than the usable ones never fit",
     3,
     {N4, DRAINED(1, 4, 1, 8000, 0), N4},
     {STEP(.req = {.min_nodes = 3}, .rc = -ENOSPC), STEP(.req = {.min_nodes = 4}, .rc = -ENOSPC),
      STEP(.req = {.min_nodes = 2}, .excluded = 0x4, .rc = -ENOSPC)}},
    {"drained and excluded nodes are skipped",
     3,
     {DRAINED(1, 4, 1, 8000, 0), N4, N4},
     {STEP(.req = {.num_tasks = 1}, .alloc = {{1, 1, 1, 0, 0}}),
      STEP(.req = {.num_tasks = 1}, .excluded = 0x2, .alloc = {{2, 1, 1, 0, 0}})}},
    {"at the node limit a bigger later node replaces a smaller one",
     2,
     {NODE(1, 2, 1, 8000, 0), N4},
     {STEP(.req = {.num_tasks = 4}, .alloc = {{1, 4, 4, 0, 0}})}},
    {"malformed requests are rejected",
     2,
     {N4G4, N4G4},
     {STEP(.req = {.min_nodes = 2, .num_tasks = 1}, .rc = -EINVAL),
      STEP(.req = {.num_tasks = 1, .mem_per_node = 1, .mem_per_cpu = 1}, .rc = -EINVAL),
      STEP(.req = {.num_tasks = 1, .gpus_per_node = 1, .gpus_total = 1}, .rc = -EINVAL),
      STEP(.req = {.num_tasks = 1}, .required = 0x3, .rc = -EINVAL)}},
};

static void to_flags(uint32_t mask, bool *flags)
{
	for (uint32_t i = 0; i < MAX_NODES; i++)
		flags[i] = mask & (1u << i);
}

static void check_alloc(const struct step *s, const struct sel_result *res, uint32_t k)
{
	uint32_t want = 0, cpus = 0;

	while (want < MAX_NODES && s->alloc[want].cpus)
		want++;
	if (res->count != want)
		fail_msg("step %u: %u nodes, want %u", k, res->count, want);
	for (uint32_t j = 0; j < want; j++) {
		const struct expect *e = &s->alloc[j];
		const struct sel_alloc *a = &res->nodes[j];

		if (a->node != e->node || a->cpus != e->cpus || a->tasks != e->tasks
		    || a->mem != e->mem || a->gpus != e->gpus)
			fail_msg("step %u: got node %u cpus %u tasks %u mem %" PRIu64
				 " gpus %#" PRIx64 ", want node %u cpus %u tasks %u mem %" PRIu64
				 " gpus %#" PRIx64,
				 k, a->node, a->cpus, a->tasks, a->mem, a->gpus, e->node, e->cpus,
				 e->tasks, e->mem, e->gpus);
		cpus += e->cpus;
	}
	assert_int_equal(res->total_cpus, cpus);
}

static void run_scenario(void **state)
{
	const struct scenario *sc = *state;
	struct sel_node nodes[MAX_NODES];
	struct sel_result done[MAX_STEPS] = {{0}};
	bool is_excl[MAX_STEPS] = {false};

	memcpy(nodes, sc->nodes, sizeof(nodes));
	for (uint32_t k = 0; k < MAX_STEPS && sc->steps[k].is_step; k++) {
		const struct step *s = &sc->steps[k];
		struct sel_req req = s->req;
		bool required[MAX_NODES], excluded[MAX_NODES];
		struct sel_result res = {0};
		int rc;

		req.min_nodes = req.min_nodes ? req.min_nodes : 1;
		req.cpus_per_task = req.cpus_per_task ? req.cpus_per_task : 1;
		to_flags(s->required, required);
		to_flags(s->excluded, excluded);
		req.is_required = s->required ? required : NULL;
		req.is_excluded = s->excluded ? excluded : NULL;
		rc = select_place(nodes, sc->n, &req, &res);
		if (rc != s->rc)
			fail_msg("step %u: rc %d, want %d", k, rc, s->rc);
		if (s->rc < 0) {
			assert_null(res.nodes);
			continue;
		}
		check_alloc(s, &res, k);
		select_charge(nodes, &res, req.is_exclusive);
		done[k] = res;
		is_excl[k] = req.is_exclusive;
	}
	for (uint32_t k = MAX_STEPS; k-- > 0;) {
		select_release(nodes, &done[k], is_excl[k]);
		sel_result_done(&done[k]);
	}
	assert_memory_equal(nodes, sc->nodes, sizeof(nodes));
}

static void test_zero_cpus_per_task_is_rejected(void **state)
{
	struct sel_node nodes[] = {N4};
	struct sel_req req = {.min_nodes = 1, .num_tasks = 1};
	struct sel_result res = {0};

	(void)state;
	assert_int_equal(select_place(nodes, 1, &req, &res), -EINVAL);
	assert_int_equal(select_place(NULL, 0, &req, &res), -EINVAL);
	req.cpus_per_task = 1;
	assert_int_equal(select_place(NULL, 0, &req, &res), -ENOSPC);
	assert_null(res.nodes);
}

static void test_charge_marks_an_exclusive_node_and_release_frees_it(void **state)
{
	struct sel_node nodes[] = {N4G4, N4G4};
	struct sel_req req = {.min_nodes = 2,
			      .cpus_per_task = 1,
			      .is_exclusive = true,
			      .mem_per_node = 100,
			      .gpus_per_node = 2};
	struct sel_result res = {0};

	(void)state;
	assert_int_equal(select_place(nodes, 2, &req, &res), 0);
	select_charge(nodes, &res, true);
	for (int i = 0; i < 2; i++) {
		assert_true(nodes[i].is_exclusive_used);
		assert_int_equal(nodes[i].cpus_used, 4);
		assert_int_equal(nodes[i].mem_used, 100);
		assert_int_equal(nodes[i].gpus_used, 0xf); /* exclusive: every GPU */
	}
	req.is_exclusive = false;
	req.gpus_per_node = 0;
	req.min_nodes = 1;
	assert_int_equal(select_place(nodes, 2, &req, &res), -EAGAIN);
	select_release(nodes, &res, true);
	for (int i = 0; i < 2; i++) {
		assert_false(nodes[i].is_exclusive_used);
		assert_int_equal(nodes[i].cpus_used, 0);
		assert_int_equal(nodes[i].mem_used, 0);
		assert_int_equal(nodes[i].gpus_used, 0);
	}
	/* placed whole by its partition (OverSubscribe=EXCLUSIVE): the
	 * result says so, whatever the caller's flag */
	sel_result_done(&res);
	req.is_exclusive = true;
	assert_int_equal(select_place(nodes, 2, &req, &res), 0);
	assert_true(res.is_exclusive);
	select_charge(nodes, &res, false);
	assert_true(nodes[res.nodes[0].node].is_exclusive_used);
	select_release(nodes, &res, false);
	assert_false(nodes[res.nodes[0].node].is_exclusive_used);
	sel_result_done(&res);
	sel_result_done(NULL);
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(scenarios) + 2];
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(scenarios); i++)
		tests[n++] = (struct CMUnitTest){.name = scenarios[i].name,
						 .test_func = run_scenario,
						 .initial_state = (void *)&scenarios[i]};
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_zero_cpus_per_task_is_rejected);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(
	    test_charge_marks_an_exclusive_node_and_release_frees_it);
	return _cmocka_run_group_tests("select", tests, n, NULL, NULL);
}
