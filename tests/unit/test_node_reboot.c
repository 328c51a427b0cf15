/* test_node_reboot.c - scontrol reboot on the controller without I/O:
 * requests mark nodes (all or none), a reboot is issued only to a node
 * that runs nothing, a registration from a new slurmd ends it (RESUME,
 * DOWN, ASAP's drain undone), ResumeTimeout downs a node that does not
 * come back, cancel_reboot, and the node_state file keeps all of it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld_fixture.h"
#include "slurmctld/node.h"
#include "slurmctld/node_reboot.h"
#include "slurmctld/node_state.h"

#define T0   1800000000
#define CONF "RebootProgram=/sbin/reboot\nResumeTimeout=30\n"

static struct node_reg_msg reg(const char *name, uint64_t instance)
{
	return (struct node_reg_msg){
	    .node_name = (char *)name,
	    .cpus = 4,
	    .boards = 1,
	    .sockets = 1,
	    .cores = 4,
	    .threads = 1,
	    .real_memory = 4000,
	    .instance = instance,
	};
}

static struct node *up(struct ctld_fixture *f, const char *name, uint64_t instance)
{
	struct node *n = node_find(&f->c, name);
	struct node_reg_msg m = reg(name, instance);

	node_register(&f->c, n, &m, T0);
	return n;
}

static void test_without_reboot_program_nothing_is_marked(void **state)
{
	struct ctld_fixture *f = fixture_new(NULL);
	struct reboot_msg m = {.node_list = "n1", .next_state = NO_VAL};

	(void)state;
	assert_int_equal(node_reboot_request(&f->c, &m, 0, T0), -ESLURM_NOT_SUPPORTED);
	assert_false(node_find(&f->c, "n1")->state & NODE_STATE_REBOOT_REQUESTED);
	fixture_free(f);
}

static void test_a_bad_request_changes_no_node(void **state)
{
	struct ctld_fixture *f = fixture_new(CONF);
	struct reboot_msg bad_node = {.node_list = "n[1-2],n9", .next_state = NO_VAL};
	struct reboot_msg bad_next = {.node_list = "n1", .next_state = NODE_UPDATE_DRAIN};

	(void)state;
	assert_int_equal(node_reboot_request(&f->c, &bad_node, 0, T0), -ESLURM_INVALID_NODE_NAME);
	assert_int_equal(node_reboot_request(&f->c, &bad_next, 0, T0), -ESLURM_INVALID_NODE_STATE);
	for (uint32_t i = 0; i < f->c.node_count; i++)
		assert_int_equal(f->c.nodes[i].state & NODE_STATE_REBOOT_REQUESTED, 0);
	fixture_free(f);
}

static void test_asap_drains_and_the_reboot_waits_for_an_idle_node(void **state)
{
	struct ctld_fixture *f = fixture_new(CONF);
	struct reboot_msg m = {
	    .node_list = "n[1-2]", .flags = REBOOT_FLAGS_ASAP, .next_state = NODE_UPDATE_RESUME};
	struct node *n1 = up(f, "n1", 11), *n2 = up(f, "n2", 21);
	struct node_reg_msg same = reg("n2", 21), fresh = reg("n2", 22);

	(void)state;
	n1->cpus_used = 2; /* a job runs there */
	node_update_alloc_state(n1);
	assert_int_equal(node_reboot_request(&f->c, &m, 1000, T0), 0);
	assert_true(n1->state & NODE_STATE_DRAIN);
	assert_string_equal(n1->reason, "Reboot ASAP");
	assert_int_equal(n1->reason_uid, 1000);
	assert_false(node_reboot_may_issue(n1));
	assert_true(node_reboot_may_issue(n2));

	assert_true(node_reboot_pass(&f->c, T0 + 1));
	assert_int_equal(fixture_count(f, REQUEST_REBOOT_NODES, 0), 1);
	assert_int_equal(n2->state & (NODE_STATE_REBOOT_ISSUED | NODE_STATE_REBOOT_REQUESTED),
			 NODE_STATE_REBOOT_ISSUED);
	assert_string_equal(n2->reason, "Reboot ASAP : reboot issued");
	assert_true(n1->state & NODE_STATE_REBOOT_REQUESTED);
	assert_string_equal(node_state_compact(n2->state), "BOOT");

	/* the old slurmd answering again is no reboot; a new one is */
	node_register(&f->c, n2, &same, T0 + 2);
	assert_true(n2->state & NODE_STATE_REBOOT_ISSUED);
	assert_false(node_no_response(&f->c, n2, T0 + 200)); /* not judged by SlurmdTimeout */
	node_register(&f->c, n2, &fresh, T0 + 3);
	assert_int_equal(n2->state, NODE_STATE_IDLE);
	assert_null(n2->reason);

	/* n1's job ends: its reboot goes */
	n1->cpus_used = 0;
	node_update_alloc_state(n1);
	assert_true(node_reboot_pass(&f->c, T0 + 4));
	assert_true(n1->state & NODE_STATE_REBOOT_ISSUED);
	assert_int_equal(fixture_count(f, REQUEST_REBOOT_NODES, 0), 2);
	assert_false(node_reboot_pass(&f->c, T0 + 5)); /* nothing new to do */
	fixture_free(f);
}

static void test_nextstate_down_and_resume_timeout_down_the_node(void **state)
{
	struct ctld_fixture *f = fixture_new(CONF "ReturnToService=2\n");
	struct reboot_msg m = {.node_list = "n1", .reason = "bios", .next_state = NODE_UPDATE_DOWN};
	struct reboot_msg m3 = {.node_list = "n3", .next_state = NO_VAL};
	struct node *n1 = up(f, "n1", 11), *n3 = up(f, "n3", 31);
	struct node_reg_msg fresh = reg("n1", 12);

	(void)state;
	assert_int_equal(node_reboot_request(&f->c, &m, 0, T0), 0);
	assert_int_equal(node_reboot_request(&f->c, &m3, 0, T0), 0);
	assert_string_equal(n3->reason, "reboot requested");
	node_reboot_pass(&f->c, T0 + 1);
	node_register(&f->c, n1, &fresh, T0 + 10);
	assert_int_equal(n1->state, NODE_STATE_DOWN); /* even with ReturnToService=2 */
	assert_string_equal(n1->reason, "bios : reboot issued : reboot complete");

	assert_false(node_reboot_pass(&f->c, T0 + 30));
	assert_true(node_reboot_pass(&f->c, T0 + 31));
	assert_int_equal(n3->state & NODE_STATE_BASE, NODE_STATE_DOWN);
	assert_false(n3->state & (NODE_STATE_REBOOT_ISSUED | NODE_STATE_REBOOT_REQUESTED));
	assert_string_equal(n3->reason, "reboot requested : reboot issued : reboot timed out");
	fixture_free(f);
}

static void test_cancel_reboot_and_the_state_file(void **state)
{
	struct ctld_fixture *f = fixture_new(CONF);
	struct reboot_msg asap = {
	    .node_list = "n1", .flags = REBOOT_FLAGS_ASAP, .next_state = NO_VAL};
	struct reboot_msg plain = {.node_list = "n2", .next_state = NODE_UPDATE_RESUME};
	struct update_node_msg cancel = {
	    .node_names = "n1", .state = NODE_UPDATE_CANCEL_REBOOT, .weight = NO_VAL};
	struct update_node_msg cancel2 = {
	    .node_names = "n2", .state = NODE_UPDATE_CANCEL_REBOOT, .weight = NO_VAL};
	struct node *n1 = up(f, "n1", 11), *n2 = up(f, "n2", 21);

	(void)state;
	n1->cpus_used = 4;
	node_update_alloc_state(n1);
	assert_int_equal(node_reboot_request(&f->c, &asap, 0, T0), 0);
	assert_int_equal(node_reboot_request(&f->c, &plain, 0, T0), 0);
	node_reboot_pass(&f->c, T0 + 1); /* n2 issued, n1 busy */

	/* both survive a restart of the controller */
	assert_int_equal(node_state_save(&f->c), 0);
	n1->state &= ~(NODE_STATE_REBOOT_REQUESTED | NODE_STATE_DRAIN);
	n2->state &= ~NODE_STATE_REBOOT_ISSUED;
	n2->reboot_old_instance = 0;
	assert_int_equal(node_state_load(&f->c), 0);
	assert_true(n1->state & NODE_STATE_REBOOT_REQUESTED);
	assert_true(n1->is_reboot_asap);
	assert_true(n2->state & NODE_STATE_REBOOT_ISSUED);
	assert_int_equal(n2->reboot_old_instance, 21);
	assert_int_equal(n2->reboot_next_state, NODE_UPDATE_RESUME);
	assert_int_equal(n2->boot_req_time, T0 + 1);

	assert_int_equal(node_update(&f->c, &cancel2, 0, T0 + 2), -ESLURM_REBOOT_IN_PROGRESS);
	assert_int_equal(node_update(&f->c, &cancel, 0, T0 + 2), 0);
	assert_false(n1->state & (NODE_STATE_REBOOT_REQUESTED | NODE_STATE_DRAIN));
	assert_null(n1->reason);
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_without_reboot_program_nothing_is_marked),
	    cmocka_unit_test(test_a_bad_request_changes_no_node),
	    cmocka_unit_test(test_asap_drains_and_the_reboot_waits_for_an_idle_node),
	    cmocka_unit_test(test_nextstate_down_and_resume_timeout_down_the_node),
	    cmocka_unit_test(test_cancel_reboot_and_the_state_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
