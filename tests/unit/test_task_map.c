/* test_task_map.c - the task map (task_map.h): its compact form of the
 * node-level distributions (PMI_process_mapping's), expansion of hostile
 * maps, the wire form and -m parsing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/pack.h"
#include "common/task_map.h"

/* node_of[0..n) builds the map printed want, which expands back to it. */
static void expect_map(const uint32_t *node_of, uint32_t n, uint32_t nnodes, const char *want)
{
	struct task_map m;
	uint32_t got[64];
	char buf[256];

	assert_int_equal(task_map_build(node_of, n, &m), 0);
	assert_int_equal(task_map_string(&m, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	assert_int_equal(task_map_expand(&m, nnodes, n, got), 0);
	assert_memory_equal(got, node_of, n * sizeof(*got));
	task_map_done(&m);
}

static void test_build(void **state)
{
	(void)state;
	/* block: 4 + 4, 3 + 1 (Slurm's forms for PMI_process_mapping) */
	expect_map((uint32_t[]){0, 0, 0, 0, 1, 1, 1, 1}, 8, 2, "(vector,(0,2,4))");
	expect_map((uint32_t[]){0, 0, 0, 1}, 4, 2, "(vector,(0,1,3),(1,1,1))");
	expect_map((uint32_t[]){0, 0, 1, 1, 2, 2, 3, 4, 4, 4, 4, 4}, 12, 5,
		   "(vector,(0,3,2),(3,1,1),(4,1,5))");
	/* cyclic, even and with a last short round */
	expect_map((uint32_t[]){0, 1, 0, 1}, 4, 2, "(vector,(0,2,1))");
	expect_map((uint32_t[]){0, 1, 0, 1, 0}, 5, 2, "(vector,(0,2,1))");
	expect_map((uint32_t[]){0, 1, 2, 0, 1, 2, 0}, 7, 3, "(vector,(0,3,1))");
	/* cyclic where a node is full early (cpus 3,1 with -n4) */
	expect_map((uint32_t[]){0, 1, 0, 0}, 4, 2, "(vector,(0,2,1),(0,1,2))");
	/* plane=2 over 2 nodes, -n5 and -n6 */
	expect_map((uint32_t[]){0, 0, 1, 1, 0}, 5, 2, "(vector,(0,2,2))");
	expect_map((uint32_t[]){0, 0, 1, 1, 0, 0}, 6, 2, "(vector,(0,2,2))");
	/* arbitrary */
	expect_map((uint32_t[]){1, 0, 0, 1, 2}, 5, 3, "(vector,(1,1,1),(0,1,2),(1,2,1))");
	expect_map((uint32_t[]){0}, 1, 1, "(vector,(0,1,1))");
}

static void test_expand_refuses(void **state)
{
	struct task_block b[2] = {{0, 2, 1}, {0, 1, 1}};
	struct task_map m = {.nblocks = 1, .blocks = b};
	uint32_t out[8];

	(void)state;
	assert_int_equal(task_map_expand(&m, 2, 4, out), 0);
	assert_int_equal(task_map_expand(&m, 1, 4, out), -EINVAL); /* node 1 outside */
	assert_int_equal(task_map_expand(&m, 3, 4, out), -EINVAL); /* node 2 has no task */
	assert_int_equal(task_map_expand(&m, 2, 1, out), -EINVAL); /* node 1 has no task */
	assert_int_equal(task_map_expand(&m, 2, 0, out), -EINVAL);
	b[0] = (struct task_block){0, 0, 1}; /* an empty block never ends a pass */
	assert_int_equal(task_map_expand(&m, 2, 4, out), -EINVAL);
	b[0] = (struct task_block){0, 1, 0};
	assert_int_equal(task_map_expand(&m, 2, 4, out), -EINVAL);
	b[0] = (struct task_block){UINT32_MAX, 2, 1}; /* start + count wraps */
	assert_int_equal(task_map_expand(&m, 2, 4, out), -EINVAL);
	m.nblocks = 0;
	assert_int_equal(task_map_expand(&m, 2, 4, out), -EINVAL);
}

static void test_wire(void **state)
{
	struct task_block b[2] = {{0, 2, 1}, {1, 1, 3}};
	struct task_map m = {.nblocks = 2, .blocks = b}, got;
	struct pack_buf buf = {0}, v;

	(void)state;
	task_map_pack(&m, &buf);
	v = pack_buf_view(buf.data, buf.len);
	task_map_unpack(&v, &got);
	assert_int_equal(v.err, 0);
	assert_true(task_map_equal(&m, &got));
	task_map_done(&got);
	/* every shorter input fails cleanly */
	for (size_t len = 0; len < buf.len; len++) {
		v = pack_buf_view(buf.data, len);
		task_map_unpack(&v, &got);
		assert_int_not_equal(v.err, 0);
		assert_null(got.blocks);
	}
	pack_buf_done(&buf);
	/* no block, and a count over what the bytes could hold */
	pack_u32(&buf, 0);
	v = pack_buf_view(buf.data, buf.len);
	task_map_unpack(&v, &got);
	assert_int_not_equal(v.err, 0);
	pack_buf_done(&buf);
	pack_u32(&buf, 1000);
	pack_u32(&buf, 0);
	v = pack_buf_view(buf.data, buf.len);
	task_map_unpack(&v, &got);
	assert_int_not_equal(v.err, 0);
	pack_buf_done(&buf);
}

static void test_dist_parse(void **state)
{
	enum task_dist d;
	uint16_t plane;

	(void)state;
	assert_int_equal(task_dist_parse("block", &d, &plane), 0);
	assert_int_equal(d, TASK_DIST_BLOCK);
	assert_int_equal(task_dist_parse("cyclic:block", &d, &plane), 0);
	assert_int_equal(d, TASK_DIST_CYCLIC);
	assert_int_equal(task_dist_parse("*:cyclic", &d, &plane), 0);
	assert_int_equal(d, TASK_DIST_BLOCK);
	assert_int_equal(task_dist_parse("plane=3", &d, &plane), 0);
	assert_int_equal(d, TASK_DIST_PLANE);
	assert_int_equal(plane, 3);
	assert_int_equal(task_dist_parse("arbitrary,Pack", &d, &plane), 0);
	assert_int_equal(d, TASK_DIST_ARBITRARY);
	assert_int_equal(task_dist_parse("block:fcyclic:cyclic", &d, &plane), 0);
	assert_int_equal(task_dist_parse("plane=0", &d, &plane), -EINVAL);
	assert_int_equal(task_dist_parse("plane=", &d, &plane), -EINVAL);
	assert_int_equal(task_dist_parse("plane=99999", &d, &plane), -EINVAL);
	assert_int_equal(task_dist_parse("fcyclic", &d, &plane), -EINVAL);
	assert_int_equal(task_dist_parse("block:arbitrary", &d, &plane), -EINVAL);
	assert_int_equal(task_dist_parse("block:block:block:block", &d, &plane), -EINVAL);
	assert_int_equal(task_dist_parse("block,Packed", &d, &plane), -EINVAL);
	assert_int_equal(task_dist_parse("", &d, &plane), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_build),
	    cmocka_unit_test(test_expand_refuses),
	    cmocka_unit_test(test_wire),
	    cmocka_unit_test(test_dist_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
