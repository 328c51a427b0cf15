/* test_node_info.c - what the controller says of a node's GPUs in use
 * (GresUsed, and gres_used of the --json and REST documents). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/msg.h"
#include "ctld_fixture.h"
#include "slurmctld/node.h"

static void gres_used_of(struct ctld_fixture *f, const char *name, uint64_t mask, const char *want)
{
	struct node *n = node_find(&f->c, name);
	struct node_info ni;

	assert_non_null(n);
	n->gpus_used = mask;
	assert_int_equal(node_info_fill(&f->c, n, &ni), 0);
	if (want)
		assert_string_equal(ni.gres_used, want);
	else
		assert_null(ni.gres_used);
	node_info_done(&ni);
	n->gpus_used = 0;
}

static void test_gres_used(void **state)
{
	struct ctld_fixture *f = fixture_new(NULL);

	(void)state;
	gres_used_of(f, "g1", 0, "gpu:0");
	gres_used_of(f, "g1", 0x1, "gpu:1(IDX:0)");
	gres_used_of(f, "g1", 0x3, "gpu:2(IDX:0-1)");
	gres_used_of(f, "g1", 0xb, "gpu:3(IDX:0-1,3)");
	gres_used_of(f, "g1", 0xf, "gpu:4(IDX:0-3)");
	gres_used_of(f, "n1", 0, NULL); /* no GPUs: nothing to say */
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gres_used),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
