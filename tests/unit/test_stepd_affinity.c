/* test_stepd_affinity.c - task/affinity's CPU choice on a synthetic node:
 * 2 sockets x 4 cores x 2 threads, numbered as Linux does (CPU c is
 * thread c / 8 of core c % 4 of socket (c % 8) / 4). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "slurmd/slurmstepd/affinity.h"

static struct affinity_cpu node[16];

static int setup(void **state)
{
	(void)state;
	for (int c = 0; c < 16; c++)
		node[c] = (struct affinity_cpu){.cpu = c, .socket = (c % 8) / 4, .core = c % 4};
	return 0;
}

/* The CPUs of task t as "0,8". */
static const char *cpus_of(const struct affinity_req *r, uint32_t t, char *buf)
{
	uint64_t m[16];
	size_t len = 0;

	buf[0] = '\0';
	if (affinity_task_cpus(r, node, 16, t, 4, m) < 0)
		return "EINVAL";
	for (int c = 0; c < 1024; c++)
		if (m[c / 64] >> (c % 64) & 1)
			len += (size_t)sprintf(buf + len, "%s%d", len ? "," : "", c);
	return buf;
}

static void test_parse(void **state)
{
	struct affinity_req r = {0};

	(void)state;
	assert_int_equal(affinity_parse_bind("verbose,cores", &r), 0);
	assert_true(r.is_verbose && r.type == AFF_CORES);
	assert_int_equal(affinity_parse_bind("map_cpu:0,2", &r), 0);
	assert_true(r.type == AFF_MAP_CPU && !r.is_verbose);
	assert_string_equal(r.list, "0,2");
	assert_int_equal(affinity_parse_bind("v,mask_cpu:0x3,0xc", &r), 0);
	assert_true(r.type == AFF_MASK_CPU && r.is_verbose);
	assert_string_equal(r.list, "0x3,0xc");
	assert_int_equal(affinity_parse_bind(NULL, &r), 0);
	assert_int_equal(r.type, AFF_NONE);
	assert_int_equal(affinity_parse_bind("ldoms", &r), -EINVAL);
	assert_int_equal(affinity_parse_bind("map_cpu:", &r), -EINVAL);
	assert_int_equal(affinity_parse_bind("cores,bogus", &r), -EINVAL);
}

static void test_units(void **state)
{
	struct affinity_req r = {.type = AFF_CORES, .cpus_per_task = 1};
	char b[256];

	(void)state;
	/* block: the cores of socket 0 first, both threads of each */
	assert_string_equal(cpus_of(&r, 0, b), "0,8");
	assert_string_equal(cpus_of(&r, 1, b), "1,9");
	assert_string_equal(cpus_of(&r, 3, b), "3,11");
	assert_string_equal(cpus_of(&r, 4, b), "4,12");
	/* socket-cyclic */
	r.is_socket_cyclic = true;
	assert_string_equal(cpus_of(&r, 0, b), "0,8");
	assert_string_equal(cpus_of(&r, 1, b), "4,12");
	assert_string_equal(cpus_of(&r, 2, b), "1,9");
	assert_string_equal(cpus_of(&r, 3, b), "5,13");
	r.is_socket_cyclic = false;
	/* two cores per task; wrapping after the last core */
	r.cpus_per_task = 2;
	assert_string_equal(cpus_of(&r, 0, b), "0,1,8,9");
	assert_string_equal(cpus_of(&r, 4, b), "0,1,8,9");
	/* threads fill a core's threads first; nomultithread skips siblings */
	r = (struct affinity_req){.type = AFF_THREADS, .cpus_per_task = 1};
	assert_string_equal(cpus_of(&r, 1, b), "8");
	r.is_nomultithread = true;
	assert_string_equal(cpus_of(&r, 1, b), "1");
	/* sockets */
	r = (struct affinity_req){.type = AFF_SOCKETS, .cpus_per_task = 3};
	assert_string_equal(cpus_of(&r, 1, b), "4,5,6,7,12,13,14,15");
	assert_string_equal(cpus_of(&r, 2, b), "0,1,2,3,8,9,10,11");
	/* --ntasks-per-socket=1: one task on each socket in turn */
	r = (struct affinity_req){.type = AFF_CORES, .cpus_per_task = 1, .ntasks_per_socket = 1};
	assert_string_equal(cpus_of(&r, 0, b), "0,8");
	assert_string_equal(cpus_of(&r, 1, b), "4,12");
	assert_string_equal(cpus_of(&r, 2, b), "1,9");
}

static void test_map_and_mask(void **state)
{
	struct affinity_req r = {.type = AFF_MAP_CPU, .list = "3,0x5"};
	char b[256];

	(void)state;
	assert_string_equal(cpus_of(&r, 0, b), "3");
	assert_string_equal(cpus_of(&r, 1, b), "5");
	assert_string_equal(cpus_of(&r, 2, b), "3");
	r.list = "99"; /* not the step's */
	assert_string_equal(cpus_of(&r, 0, b), "EINVAL");
	r.list = "1x";
	assert_string_equal(cpus_of(&r, 0, b), "EINVAL");
	r = (struct affinity_req){.type = AFF_MASK_CPU, .list = "0x3,f000"};
	assert_string_equal(cpus_of(&r, 0, b), "0,1");
	assert_string_equal(cpus_of(&r, 1, b), "12,13,14,15");
	r.list = "0x10000"; /* CPU 16: none of the step's */
	assert_string_equal(cpus_of(&r, 0, b), "EINVAL");
	r.list = "0xg";
	assert_string_equal(cpus_of(&r, 0, b), "EINVAL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_units),
	    cmocka_unit_test(test_map_and_mask),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
