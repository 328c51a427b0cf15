/* test_tres.c - the one TRES string builder: Slurm's order, zero counts
 * left out, memory in Slurm's units, GPUs as gres/gpu.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/tres.h"

static void check(const struct tres *t, const char *want)
{
	char *s = tres_string(t);

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void test_a_job_as_scontrol_shows_it(void **state)
{
	(void)state;
	check(&(struct tres){.cpus = 1, .mem_mb = 100, .nodes = 1, .billing = 1},
	      "cpu=1,mem=100M,node=1,billing=1");
	check(&(struct tres){.cpus = 8, .mem_mb = 800, .nodes = 2, .billing = 8, .gpus = 8},
	      "cpu=8,mem=800M,node=2,billing=8,gres/gpu=8");
}

static void test_nodes_and_steps_leave_out_what_they_do_not_count(void **state)
{
	(void)state;
	/* a node's CfgTRES has no node=; a step's TRES no billing= */
	check(&(struct tres){.cpus = 4, .mem_mb = 4000, .billing = 4, .gpus = 4},
	      "cpu=4,mem=4000M,billing=4,gres/gpu=4");
	check(&(struct tres){.cpus = 2, .mem_mb = 2048, .nodes = 1}, "cpu=2,mem=2G,node=1");
	check(&(struct tres){.cpus = 2, .nodes = 1, .gpus = 1}, "cpu=2,node=1,gres/gpu=1");
	check(&(struct tres){0}, "");
}

/* The largest counts still give the whole string (no silent cut). */
static void test_big_counts_fit(void **state)
{
	struct tres t = {
	    .cpus = 4294967295u,
	    .mem_mb = 1ull << 50,
	    .nodes = 4294967295u,
	    .billing = 4294967295u,
	    .gpus = 18446744073709551615ull,
	};
	char *s = tres_string(&t);

	(void)state;
	assert_non_null(s);
	assert_non_null(strstr(s, "cpu=4294967295,mem="));
	assert_non_null(strstr(s, ",node=4294967295,billing=4294967295,"));
	assert_non_null(strstr(s, ",gres/gpu=18446744073709551615"));
	assert_int_equal(s[strlen(s) - 1], '5');
	free(s);
}

/* A typed GPU adds gres/gpu:TYPE= after gres/gpu=, as Slurm lists both. */
static void test_typed_gpus(void **state)
{
	char buf[TRES_TYPE_MAX];

	(void)state;
	check(&(struct tres){.cpus = 4, .mem_mb = 400, .gpus = 4, .gpu_type = "a100"},
	      "cpu=4,mem=400M,gres/gpu=4,gres/gpu:a100=4");
	check(&(struct tres){.cpus = 4, .gpu_type = "a100"}, "cpu=4");
	assert_string_equal(tres_gpu_type("gpu:a100:4", buf, sizeof(buf)), "a100");
	assert_string_equal(tres_gpu_type("gpu:a100:2,gpu:a100:2", buf, sizeof(buf)), "a100");
	assert_string_equal(tres_gpu_type("mps:100,gpu:h100", buf, sizeof(buf)), "h100");
	assert_null(tres_gpu_type("gpu:4", buf, sizeof(buf)));
	assert_null(tres_gpu_type("gpu:2K", buf, sizeof(buf)));
	assert_null(tres_gpu_type("gpu", buf, sizeof(buf)));
	assert_null(tres_gpu_type("gpu:a100:2,gpu:v100:2", buf, sizeof(buf)));
	assert_null(tres_gpu_type("gpu:a100:2,gpu:2", buf, sizeof(buf)));
	assert_null(tres_gpu_type(NULL, buf, sizeof(buf)));
	assert_null(tres_gpu_type("gpu:a100:4", buf, 4)); /* does not fit */
	assert_null(tres_gpu_type("", buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a_job_as_scontrol_shows_it),
	    cmocka_unit_test(test_nodes_and_steps_leave_out_what_they_do_not_count),
	    cmocka_unit_test(test_big_counts_fit),
	    cmocka_unit_test(test_typed_gpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
