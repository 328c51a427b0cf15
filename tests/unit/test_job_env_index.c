/* test_job_env_index.c - the name index of struct job_env: a name given
 * twice keeps its first position and takes its last value (what a shell
 * or execve's last-wins reader sees), order is kept, unset re-indexes,
 * and 300,000 variables (a hostile launch) are imported in linear time. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/job_env.h"
#include "common/msg.h"
#include "common/pack.h"

#define MANY 300000u

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* the load of other processes aside */
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_duplicate_keeps_first_position_and_last_value(void **state)
{
	struct job_env e = {0};

	(void)state;
	assert_int_equal(job_env_put(&e, "A=1"), 0);
	assert_int_equal(job_env_put(&e, "B=2"), 0);
	assert_int_equal(job_env_put(&e, "A=3"), 0);
	assert_int_equal(job_env_put(&e, "AA=4"), 0);
	assert_int_equal(job_env_put(&e, "A=5"), 0);
	assert_int_equal(e.n, 3);
	assert_string_equal(e.v[0], "A=5");
	assert_string_equal(e.v[1], "B=2");
	assert_string_equal(e.v[2], "AA=4");
	assert_null(e.v[3]);
	assert_null(job_env_get(&e, "AAA"));
	assert_null(job_env_get(&e, ""));
	job_env_done(&e);
}

static void test_unset_keeps_the_others_findable(void **state)
{
	struct job_env e = {0};
	char name[32];

	(void)state;
	for (int i = 0; i < 200; i++) /* past the first index size */
		assert_int_equal(
		    job_env_set(&e, (snprintf(name, sizeof(name), "V%d", i), name), "%d", i), 0);
	job_env_unset(&e, "V0");
	job_env_unset(&e, "V100");
	assert_int_equal(e.n, 198);
	assert_null(job_env_get(&e, "V0"));
	assert_null(job_env_get(&e, "V100"));
	for (int i = 1; i < 200; i++) {
		snprintf(name, sizeof(name), "V%d", i);
		if (i != 100)
			assert_int_equal(atoi(job_env_get(&e, name)), i);
	}
	assert_string_equal(e.v[0], "V1=1");
	assert_int_equal(job_env_set(&e, "V0", "again"), 0);
	assert_string_equal(e.v[198], "V0=again");
	job_env_done(&e);
}

static void test_take_v_leaves_the_env_empty(void **state)
{
	struct job_env e = {0};
	size_t n = 0;
	char **v;

	(void)state;
	assert_null(job_env_take_v(&e, &n));
	assert_int_equal(n, 0);
	assert_int_equal(job_env_put(&e, "X=1"), 0);
	assert_int_equal(job_env_put(&e, "Y=2"), 0);
	v = job_env_take_v(&e, &n);
	assert_int_equal(n, 2);
	assert_string_equal(v[1], "Y=2");
	assert_null(v[2]);
	assert_int_equal(e.n, 0);
	assert_null(e.idx);
	strv_free(v, (uint32_t)n);
	/* the struct may be used again */
	assert_int_equal(job_env_put(&e, "Z=3"), 0);
	assert_string_equal(job_env_get(&e, "Z"), "3");
	job_env_done(&e);
}

/* A launch of MANY variables, every tenth a repeat of an earlier name:
 * imported in well under a second of CPU (the former list search took minutes). */
static void test_many_variables_import_in_linear_time(void **state)
{
	char **env = calloc(MANY, sizeof(*env));
	uint32_t gtids[] = {0};
	struct launch_tasks_msg m = {
	    .env_count = MANY, .gtids = gtids, .ntasks_here = 1, .cpus_on_node = 1};
	struct job_env_node node = {.node_name = "n1", .conf_path = "/etc/slurm/slurm.conf"};
	struct job_env e = {0};
	double t0, dt;

	(void)state;
	assert_non_null(env);
	for (uint32_t i = 0; i < MANY; i++) {
		uint32_t k = i % 10 == 9 ? i - 5 : i;

		assert_true(asprintf(&env[i], "VAR_%u=%u", k, i) > 0);
	}
	m.env = env;
	t0 = now_s();
	assert_int_equal(job_env_step(&e, &m, &node), 0);
	dt = now_s() - t0;
	print_message("%u variables imported in %.3f s of CPU\n", MANY, dt);
	assert_true(dt < 2.0); /* the list search took minutes; ASan builds ~2x */
	assert_int_equal(e.n, MANY - MANY / 10 + 7); /* + the stepd's own */
	assert_string_equal(job_env_get(&e, "VAR_0"), "0");
	/* VAR_4 was given at 4 and again at 9: the last value */
	assert_string_equal(job_env_get(&e, "VAR_4"), "9");
	assert_string_equal(e.v[4], "VAR_4=9");
	assert_string_equal(job_env_get(&e, "SLURMD_NODENAME"), "n1");
	job_env_done(&e);
	strv_free(env, MANY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_duplicate_keeps_first_position_and_last_value),
	    cmocka_unit_test(test_unset_keeps_the_others_findable),
	    cmocka_unit_test(test_take_v_leaves_the_env_empty),
	    cmocka_unit_test(test_many_variables_import_in_linear_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
