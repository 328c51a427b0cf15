/* test_prio_multifactor.c - multifactor factors and sums against
 * hand-computed values (4 nodes, 16 CPUs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg_job.h"
#include "slurmctld/prio_multifactor.h"

#define DAY 86400
#define NOW 1700000000

static struct prio_input base_input(void)
{
	return (struct prio_input){
	    .now = NOW,
	    .cpus = 1,
	    .min_nodes = 1,
	    .time_limit = NO_VAL,
	    .part_max_time = 60,
	    .cluster_cpus = 16,
	    .cluster_nodes = 4,
	    .part_job_factor = 1,
	    .max_part_job_factor = 1,
	    .nice = NICE_OFFSET,
	};
}

static const struct prio_weights base_weights = {
    .age = 1000, .job_size = 1000, .partition = 1000, .max_age_secs = 7 * DAY};

static void test_age_size_partition_sum(void **state)
{
	struct prio_input in = base_input();
	struct prio_factors f;

	(void)state;
	in.age_start = NOW - 7 * DAY / 2; /* half of PriorityMaxAge */
	prio_mf_factors(&base_weights, &in, &f);
	assert_float_equal(f.age, 0.5, 1e-9);
	assert_float_equal(f.job_size, (1 / 4.0 + 1 / 16.0) / 2, 1e-9); /* 0.15625 */
	assert_float_equal(f.partition, 1.0, 1e-9);
	assert_int_equal(f.nice, 0);
	assert_int_equal(f.priority, 1656); /* 500 + 156.25 + 1000 */
}

static void test_favor_small_partition_ratio_and_nice(void **state)
{
	struct prio_weights w = base_weights;
	struct prio_input in = base_input();
	struct prio_factors f;

	(void)state;
	w.is_favor_small = true;
	in.part_job_factor = 2;
	in.max_part_job_factor = 4;
	in.nice = NICE_OFFSET + 100;
	prio_mf_factors(&w, &in, &f); /* not accruing: age 0 */
	assert_float_equal(f.age, 0, 1e-9);
	assert_float_equal(f.job_size, 0.84375, 1e-9); /* (3/4 + 15/16) / 2 */
	assert_float_equal(f.partition, 0.5, 1e-9);
	assert_int_equal(f.nice, 100);
	assert_int_equal(f.priority, 1243); /* 843.75 + 500 - 100 */
}

static void test_size_relative_to_time_and_raw_partition(void **state)
{
	struct prio_weights w = base_weights;
	struct prio_input in = base_input();
	struct prio_factors f;

	(void)state;
	w.flags = PRIO_FLAG_SMALL_RELATIVE_TO_TIME | PRIO_FLAG_NO_NORMAL_PART;
	in.min_nodes = 2; /* 2 nodes of 4 CPUs on average: 8 CPUs > the 4 asked */
	in.cpus = 4;
	in.time_limit = 10;
	in.part_job_factor = 3;
	in.max_part_job_factor = 5;
	in.age_start = NOW - 30 * DAY; /* past PriorityMaxAge */
	prio_mf_factors(&w, &in, &f);
	assert_float_equal(f.job_size, 0.05, 1e-9); /* 8 / 10 min / 16 */
	assert_float_equal(f.age, 1.0, 1e-9);
	assert_float_equal(f.partition, 3.0, 1e-9);
	assert_int_equal(f.priority, 4050);

	w.is_favor_small = true; /* partition's limit of 60 min, 16 CPUs */
	in.min_nodes = 1;
	in.cpus = 16;
	in.time_limit = NO_VAL;
	in.age_start = 0;
	in.part_job_factor = 0;
	in.nice = NICE_OFFSET - 500; /* negative nice raises it */
	prio_mf_factors(&w, &in, &f);
	assert_float_equal(f.job_size, 1 - 1 / 60.0, 1e-9);
	assert_int_equal(f.nice, -500);
	assert_int_equal(f.priority, 1483); /* 983.33 + 500 */
}

static void test_qos_fairshare_tres(void **state)
{
	struct prio_weights w = {
	    .qos = 2000, .fairshare = 1000, .tres_count = 2, .tres = {2000, 1000}};
	struct prio_input in = base_input();
	struct prio_factors f;

	(void)state;
	in.qos_priority = 50;
	in.max_qos_priority = 100;
	in.fs_factor = 0.75;
	in.tres_count[0] = 4, in.tres_total[0] = 16;	  /* cpu */
	in.tres_count[1] = 1000, in.tres_total[1] = 4000; /* mem */
	prio_mf_factors(&w, &in, &f);
	assert_float_equal(f.qos, 0.5, 1e-9);
	assert_float_equal(f.fairshare, 0.75, 1e-9);
	assert_float_equal(f.tres[0], 0.25, 1e-9);
	assert_float_equal(f.tres[1], 0.25, 1e-9);
	assert_float_equal(prio_mf_weighted_tres(&w, &f), 750, 1e-9);
	assert_int_equal(f.priority, 1000 + 750 + 750);

	w.flags = PRIO_FLAG_MAX_TRES; /* the largest TRES term only */
	prio_mf_factors(&w, &in, &f);
	assert_float_equal(prio_mf_weighted_tres(&w, &f), 500, 1e-9);
	assert_int_equal(f.priority, 1000 + 750 + 500);

	in.max_qos_priority = 0; /* no QOS with a priority: factor 0, no division */
	prio_mf_factors(&w, &in, &f);
	assert_float_equal(f.qos, 0, 1e-9);
}

static void test_floor_is_one_and_no_weights_gives_one(void **state)
{
	struct prio_weights none = {0};
	struct prio_input in = base_input();
	struct prio_factors f;

	(void)state;
	prio_mf_factors(&none, &in, &f);
	assert_int_equal(f.priority, 1);
	in.nice = NICE_OFFSET + 100000; /* nice beyond the sum: still 1, never 0 (held) */
	prio_mf_factors(&base_weights, &in, &f);
	assert_int_equal(f.priority, 1);
	in.cluster_cpus = in.cluster_nodes = 0; /* an empty cluster divides by nothing */
	in.nice = NO_VAL;
	prio_mf_factors(&base_weights, &in, &f);
	assert_true(f.priority >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_age_size_partition_sum),
	    cmocka_unit_test(test_favor_small_partition_ratio_and_nice),
	    cmocka_unit_test(test_size_relative_to_time_and_raw_partition),
	    cmocka_unit_test(test_qos_fairshare_tres),
	    cmocka_unit_test(test_floor_is_one_and_no_weights_gives_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
