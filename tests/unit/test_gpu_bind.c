/* test_gpu_bind.c - --gpu-bind: the values Slurm accepts, and the GPUs
 * each local task sees out of its step's GPUs on the node. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/gpu_bind.h"

static void test_values_slurm_accepts(void **state)
{
	static const char *const good[] = {
	    "none",
	    "closest",
	    "verbose",
	    "verbose,closest",
	    "closest,verbose",
	    "single:2",
	    "single:0",
	    "per_task:1",
	    "map_gpu:0,1",
	    "map_gpu:1*2,0",
	    "mask_gpu:0x3,0xc",
	    "verbose,mask_gpu:3,c",
	    "map_gpu:0x2",
	};
	static const char *const bad[] = {
	    "bogus",	    "per_task:0",  "per_task:x", "map_gpu:", "map_gpu:x",    "map_gpu:64",
	    "closest,none", "mask_gpu:0x", "verbose,",	 ",closest", "map_gpu:1,,2",
	};
	struct gpu_bind b;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(gpu_bind_parse(good[i], &b), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (gpu_bind_parse(bad[i], &b) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
	}
	assert_int_equal(gpu_bind_parse("verbose,single:3", &b), 0);
	assert_true(b.is_verbose);
	assert_int_equal(b.type, GPU_BIND_SINGLE);
	assert_int_equal(b.n, 3);
	assert_int_equal(gpu_bind_parse("single:junk", &b), 0); /* Slurm defaults to 1 */
	assert_int_equal(b.n, 1);
	assert_int_equal(gpu_bind_parse(NULL, &b), 0);
	assert_int_equal(b.type, GPU_BIND_UNSET);
}

static uint64_t task(const char *v, uint64_t step, uint32_t ltid)
{
	struct gpu_bind b;

	assert_int_equal(gpu_bind_parse(v, &b), 0);
	return gpu_bind_task(&b, step, 0, ltid);
}

static uint64_t near(const char *v, uint64_t step, uint64_t closest, uint32_t ltid)
{
	struct gpu_bind b;

	assert_int_equal(gpu_bind_parse(v, &b), 0);
	return gpu_bind_task(&b, step, closest, ltid);
}

static void test_closest_and_single_choose_the_nearest(void **state)
{
	(void)state;
	/* GPUs 2-3 sit by the task's cores */
	assert_int_equal(near("closest", 0xf, 0xc, 0), 0xc);
	assert_int_equal(near("single:1", 0xf, 0xc, 0), 0x4);
	assert_int_equal(near("single:1", 0xf, 0xc, 1), 0x8);
	assert_int_equal(near("single:1", 0xf, 0xc, 2), 0xc); /* past them: all the nearest */
	/* the nearest the step does not have: the step's */
	assert_int_equal(near("closest", 0x3, 0xc, 0), 0x3);
	/* other bindings do not look at nearness */
	assert_int_equal(near("map_gpu:0", 0xf, 0xc, 0), 0x1);
	assert_int_equal(near("per_task:1", 0xf, 0xc, 1), 0x2);
}

static void test_each_task_gets_its_gpus(void **state)
{
	(void)state;
	/* per_task:2 over GPUs 0-3: tasks 0 and 1 get two each, task 2 wraps */
	assert_int_equal(task("per_task:2", 0xf, 0), 0x3);
	assert_int_equal(task("per_task:2", 0xf, 1), 0xc);
	assert_int_equal(task("per_task:2", 0xf, 2), 0x3);
	/* the step's GPUs need not start at 0: positions among them count */
	assert_int_equal(task("per_task:1", 0x30, 1), 0x20);
	/* single:2: tasks 0-1 share the first GPU, 2-3 the second; then all */
	assert_int_equal(task("single:2", 0x6, 0), 0x2);
	assert_int_equal(task("single:2", 0x6, 3), 0x4);
	assert_int_equal(task("single:2", 0x6, 4), 0x6);
	/* map_gpu: node indexes, repetitions expanded, wrapping */
	assert_int_equal(task("map_gpu:1*2,0", 0x3, 0), 0x2);
	assert_int_equal(task("map_gpu:1*2,0", 0x3, 1), 0x2);
	assert_int_equal(task("map_gpu:1*2,0", 0x3, 2), 0x1);
	assert_int_equal(task("map_gpu:1*2,0", 0x3, 3), 0x2);
	/* mask_gpu: hex masks */
	assert_int_equal(task("mask_gpu:0x1,0x6", 0x7, 1), 0x6);
	/* a GPU the step does not have: all of the step's instead */
	assert_int_equal(task("map_gpu:3", 0x3, 0), 0x3);
	/* none, closest and no binding: the step's GPUs */
	assert_int_equal(task("none", 0x5, 7), 0x5);
	assert_int_equal(task("closest", 0x5, 7), 0x5);
	assert_int_equal(task("verbose", 0x5, 0), 0x5);
	assert_int_equal(task("per_task:1", 0, 0), 0);
}

static void test_list(void **state)
{
	char buf[192];

	(void)state;
	gpu_bind_list(0x2d, buf, sizeof(buf));
	assert_string_equal(buf, "0,2,3,5");
	gpu_bind_list(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	gpu_bind_list(UINT64_C(1) << 63, buf, sizeof(buf));
	assert_string_equal(buf, "63");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_values_slurm_accepts),
	    cmocka_unit_test(test_each_task_gets_its_gpus),
	    cmocka_unit_test(test_closest_and_single_choose_the_nearest),
	    cmocka_unit_test(test_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
