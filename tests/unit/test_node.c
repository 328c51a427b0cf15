/* test_node.c - the controller's node state machine without any I/O:
 * registration, hardware checks, not responding -> DOWN after
 * SlurmdTimeout, ReturnToService 0/1/2, admin updates (all or nothing),
 * the node_state file round trip, and partition totals.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "slurmctld/ctld.h"
#include "slurmctld/node.h"
#include "slurmctld/node_state.h"
#include "slurmctld/part.h"

#define T0 1800000000

struct fixture {
	char dir[64];
	struct ctld c;
};

#define CONF_TEXT \
	"ClusterName=t\n"                                                                   \
	"SlurmctldHost=localhost(127.0.0.1)\n"                                              \
	"StateSaveLocation=%s\n"                                                            \
	"SlurmdTimeout=60\n"                                                                \
	"ReturnToService=%d\n"                                                              \
	"%s"                                                                                \
	"NodeName=DEFAULT CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000\n" \
	"NodeName=n[1-3] NodeAddr=127.0.0.1\n"                                              \
	"NodeName=g1 NodeAddr=127.0.0.1 Gres=gpu:4\n"                                       \
	"PartitionName=cpu Nodes=n[1-3] Default=YES\n"                                      \
	"PartitionName=all Nodes=n[1-3],g1\n"

static void fixture_load(struct fixture *f, int rts, const char *extra)
{
	char path[128];
	struct sl_error err = { { 0 } };
	FILE *fp;

	snprintf(path, sizeof(path), "%s/slurm.conf", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, CONF_TEXT, f->dir, rts, extra);
	fclose(fp);
	memset(&f->c, 0, sizeof(f->c));
	f->c.boot_time = T0;
	if (conf_load(path, &f->c.conf, &err) < 0)
		fail_msg("conf: %s", err.text);
	assert_int_equal(node_table_build(&f->c), 0);
	assert_int_equal(part_table_build(&f->c), 0);
}

static void fixture_unload(struct fixture *f)
{
	part_table_free(&f->c);
	node_table_free(&f->c);
	f->c.conf = conf_free(f->c.conf);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/test_node_XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	fixture_load(f, 1, "SlurmdParameters=config_overrides\n");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	fixture_unload(f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static struct node_reg_msg reg(const char *name, uint16_t cpus, uint64_t mem)
{
	return (struct node_reg_msg){
		.node_name = (char *)name, .cpus = cpus, .boards = 1, .sockets = 1,
		.cores = cpus, .threads = 1, .real_memory = mem,
	};
}

static void test_nodes_start_unknown_and_not_responding(void **state)
{
	struct fixture *f = *state;

	for (uint32_t i = 0; i < f->c.node_count; i++)
		assert_int_equal(f->c.nodes[i].state, NODE_STATE_UNKNOWN | NODE_STATE_NO_RESPOND);
	assert_string_equal(node_state_compact(f->c.nodes[0].state), "UNK");
}

static void test_registration_makes_a_node_idle(void **state)
{
	struct fixture *f = *state;
	struct node *n = node_find(&f->c, "n1");
	struct node_reg_msg m = reg("n1", 4, 4000);

	node_register(&f->c, n, &m, T0 + 1);
	assert_int_equal(n->state, NODE_STATE_IDLE);
	assert_true(n->is_registered);
}

static void test_silence_for_slurmd_timeout_sets_down_not_responding(void **state)
{
	struct fixture *f = *state;
	struct node *n = node_find(&f->c, "n1");
	struct node_reg_msg m = reg("n1", 4, 4000);

	node_register(&f->c, n, &m, T0);
	assert_false(node_no_response(&f->c, n, T0 + 20));
	assert_int_equal(n->state, NODE_STATE_IDLE | NODE_STATE_NO_RESPOND);
	assert_true(node_no_response(&f->c, n, T0 + 60));
	assert_int_equal(n->state, NODE_STATE_DOWN | NODE_STATE_NO_RESPOND);
	assert_string_equal(n->reason, "Not responding");
	/* ReturnToService=1: a node we downed for silence comes back */
	node_register(&f->c, n, &m, T0 + 70);
	assert_int_equal(n->state, NODE_STATE_IDLE);
	assert_null(n->reason);
}

static void test_return_to_service_decides_who_comes_back(void **state)
{
	static const struct {
		int rts;
		bool is_admin_down;
		bool comes_back;
	} cases[] = {
		{ 0, false, false }, { 0, true, false }, { 1, false, true },
		{ 1, true, false },  { 2, false, true }, { 2, true, true },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct node_reg_msg m = reg("n2", 4, 4000);
		struct update_node_msg down = { .node_names = "n2", .state = NODE_UPDATE_DOWN,
						.reason = "broken", .weight = NO_VAL };
		struct node *n;

		fixture_unload(f);
		fixture_load(f, cases[i].rts, "SlurmdParameters=config_overrides\n");
		n = node_find(&f->c, "n2");
		node_register(&f->c, n, &m, T0);
		if (cases[i].is_admin_down)
			assert_int_equal(node_update(&f->c, &down, 0, T0 + 1), 0);
		else
			assert_true(node_no_response(&f->c, n, T0 + 61));
		node_register(&f->c, n, &m, T0 + 100);
		if ((n->state & NODE_STATE_BASE) != (cases[i].comes_back ? NODE_STATE_IDLE
									   : NODE_STATE_DOWN))
			fail_msg("case %zu: state %#x", i, n->state);
	}
}

static void test_drain_and_resume_record_who_and_when(void **state)
{
	struct fixture *f = *state;
	struct node *n1 = node_find(&f->c, "n1"), *n2 = node_find(&f->c, "n2");
	struct node_reg_msg m1 = reg("n1", 4, 4000), m2 = reg("n2", 4, 4000);
	struct update_node_msg drain = { .node_names = "n[1-2]", .state = NODE_UPDATE_DRAIN,
					 .reason = "maint", .weight = NO_VAL };
	struct update_node_msg resume = { .node_names = "n[1-2]", .state = NODE_UPDATE_RESUME,
					  .weight = NO_VAL };

	node_register(&f->c, n1, &m1, T0);
	node_register(&f->c, n2, &m2, T0);
	assert_int_equal(node_update(&f->c, &drain, 1000, T0 + 5), 0);
	assert_int_equal(n1->state, NODE_STATE_IDLE | NODE_STATE_DRAIN);
	assert_string_equal(n2->reason, "maint");
	assert_int_equal(n2->reason_uid, 1000);
	assert_int_equal(n2->reason_time, T0 + 5);
	assert_int_equal(node_update(&f->c, &resume, 0, T0 + 6), 0);
	assert_int_equal(n1->state, NODE_STATE_IDLE);
	assert_null(n1->reason);
}

static void test_an_update_applies_to_all_named_nodes_or_none(void **state)
{
	struct fixture *f = *state;
	struct node *n1 = node_find(&f->c, "n1");
	struct node_reg_msg m1 = reg("n1", 4, 4000);
	struct update_node_msg drain = { .node_names = "n1,nosuch", .state = NODE_UPDATE_DRAIN,
					 .reason = "x", .weight = NO_VAL };
	struct update_node_msg resume = { .node_names = "n1", .state = NODE_UPDATE_RESUME,
					  .weight = NO_VAL };

	node_register(&f->c, n1, &m1, T0);
	assert_int_equal(node_update(&f->c, &drain, 0, T0), -ESLURM_INVALID_NODE_NAME);
	assert_int_equal(n1->state, NODE_STATE_IDLE);
	/* nothing to resume on an idle node */
	assert_int_equal(node_update(&f->c, &resume, 0, T0), -ESLURM_INVALID_NODE_STATE);
	drain.node_names = "n[1";
	assert_int_equal(node_update(&f->c, &drain, 0, T0), -ESLURM_INVALID_NODE_NAME);
}

static void test_low_hardware_drains_without_config_overrides(void **state)
{
	static const struct {
		uint16_t cpus;
		uint64_t mem;
		const char *reason;
	} cases[] = {
		{ 2, 4000, "Low socket*core*thread count" },
		{ 4, 3000, "Low RealMemory (reported:3000 < 100.00% of configured:4000)" },
		{ 4, 4000, NULL },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct node_reg_msg m = reg("n3", cases[i].cpus, cases[i].mem);
		struct node *n;

		fixture_unload(f);
		fixture_load(f, 1, "");
		n = node_find(&f->c, "n3");
		node_register(&f->c, n, &m, T0);
		if (!cases[i].reason) {
			assert_int_equal(n->state, NODE_STATE_IDLE);
			continue;
		}
		assert_int_equal(n->state, NODE_STATE_IDLE | NODE_STATE_DRAIN);
		assert_string_equal(n->reason, cases[i].reason);
	}
}

static void test_node_state_file_round_trips_admin_states(void **state)
{
	struct fixture *f = *state;
	struct update_node_msg drain = { .node_names = "n2", .state = NODE_UPDATE_DRAIN,
					 .reason = "golden: maintenance", .weight = NO_VAL };
	struct update_node_msg down = { .node_names = "g1", .state = NODE_UPDATE_DOWN,
					.reason = "dead gpu", .weight = NO_VAL };
	struct node *n;

	assert_int_equal(node_update(&f->c, &drain, 0, T0 + 3), 0);
	assert_int_equal(node_update(&f->c, &down, 0, T0 + 4), 0);
	assert_int_equal(node_state_save(&f->c), 0);
	fixture_unload(f);
	fixture_load(f, 1, "SlurmdParameters=config_overrides\n");
	assert_int_equal(node_state_load(&f->c), 0);
	n = node_find(&f->c, "n2");
	assert_true(n->state & NODE_STATE_DRAIN);
	assert_string_equal(n->reason, "golden: maintenance");
	assert_int_equal(n->reason_time, T0 + 3);
	n = node_find(&f->c, "g1");
	assert_int_equal(n->state & NODE_STATE_BASE, NODE_STATE_DOWN);
	assert_string_equal(n->reason, "dead gpu");
	assert_null(node_find(&f->c, "n1")->reason);
}

static void test_a_corrupt_node_state_file_is_refused(void **state)
{
	struct fixture *f = *state;
	char path[128];
	FILE *fp;

	assert_int_equal(node_state_save(&f->c), 0);
	snprintf(path, sizeof(path), "%s/node_state", f->dir);
	fp = fopen(path, "r+");
	assert_non_null(fp);
	fseek(fp, 20, SEEK_SET);
	fputc('X', fp);
	fclose(fp);
	assert_int_equal(node_state_load(&f->c), -EBADMSG);
}

static void test_partitions_total_their_nodes(void **state)
{
	struct fixture *f = *state;
	struct part_info pi;

	assert_int_equal(f->c.part_count, 2);
	assert_int_equal(f->c.parts[1].node_count, 4);
	assert_int_equal(part_info_fill(&f->c, &f->c.parts[1], &pi), 0);
	assert_string_equal(pi.tres, "cpu=16,mem=16000M,node=4,billing=16,gres/gpu=4");
	assert_int_equal(pi.flags & PART_FLAG_DEFAULT, 0);
	part_info_done(&pi);
	assert_string_equal(node_find(&f->c, "n1")->partitions, "cpu,all");
	assert_string_equal(node_find(&f->c, "g1")->partitions, "all");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nodes_start_unknown_and_not_responding, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_registration_makes_a_node_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_silence_for_slurmd_timeout_sets_down_not_responding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_return_to_service_decides_who_comes_back, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_drain_and_resume_record_who_and_when, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_an_update_applies_to_all_named_nodes_or_none,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_low_hardware_drains_without_config_overrides,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_state_file_round_trips_admin_states, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_corrupt_node_state_file_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_partitions_total_their_nodes, setup, teardown),
	};
	log_init("test_node", LOG_LEVEL_QUIET, NULL, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
