/* test_node_health.c - which nodes the controller asks for a health
 * check: those that answer, in one of the states HealthCheckNodeState
 * names (ANY: every one, drained ones too).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/macros.h"
#include "common/states.h"
#include "slurmctld/node_health.h"

static void test_the_states_named_are_the_nodes_asked(void **state)
{
	static const struct {
		uint16_t states;
		uint32_t node;
		bool want;
	} rows[] = {
	    {HC_STATE_ANY, NODE_STATE_IDLE, true},
	    {HC_STATE_ANY, NODE_STATE_ALLOCATED | NODE_STATE_DRAIN, true},
	    {HC_STATE_ANY, NODE_STATE_IDLE | NODE_STATE_NO_RESPOND, false},
	    {HC_STATE_ANY, NODE_STATE_DOWN, false},
	    {HC_STATE_ANY, NODE_STATE_FUTURE, false},
	    {HC_STATE_ANY, NODE_STATE_UNKNOWN, false},
	    {HC_STATE_ALLOC, NODE_STATE_ALLOCATED, true},
	    {HC_STATE_ALLOC, NODE_STATE_MIXED, false},
	    {HC_STATE_MIXED, NODE_STATE_MIXED, true},
	    {HC_STATE_MIXED, NODE_STATE_IDLE, false},
	    {HC_STATE_IDLE, NODE_STATE_IDLE | NODE_STATE_DRAIN, true},
	    {HC_STATE_NONDRAINED_IDLE, NODE_STATE_IDLE, true},
	    {HC_STATE_NONDRAINED_IDLE, NODE_STATE_IDLE | NODE_STATE_DRAIN, false},
	    {HC_STATE_IDLE | HC_STATE_ALLOC | HC_STATE_CYCLE, NODE_STATE_ALLOCATED, true},
	    {HC_STATE_IDLE | HC_STATE_ALLOC | HC_STATE_CYCLE, NODE_STATE_MIXED, false},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		if (node_health_wanted(rows[i].states, rows[i].node) != rows[i].want)
			fail_msg("row %zu: states 0x%x, node 0x%x: expected %d", i, rows[i].states,
				 rows[i].node, rows[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_the_states_named_are_the_nodes_asked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
