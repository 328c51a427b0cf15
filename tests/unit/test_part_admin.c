/* test_part_admin.c - scontrol's partition edits on the controller: each
 * edit all or nothing, the kept list merged, saved with the nodes' state
 * and replayed onto slurm.conf's partitions at a restart. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld_fixture.h"
#include "slurmctld/node.h"
#include "slurmctld/node_state.h"
#include "slurmctld/part.h"
#include "slurmctld/part_admin.h"

static int setup(void **state)
{
	*state = fixture_new(NULL);
	return 0;
}

static int teardown(void **state)
{
	fixture_free(*state);
	return 0;
}

static int edit(struct ctld_fixture *f, uint16_t type, const char *name, char **words, uint32_t n)
{
	struct part_edit_msg m = {.name = (char *)name, .words = words, .word_count = n};
	char *msg = NULL;
	int r = part_admin_edit(&f->c, type, &m, &msg);

	free(msg);
	return r;
}

static void test_update_is_all_or_nothing(void **state)
{
	struct ctld_fixture *f = *state;
	char *good[] = {"State=DRAIN", "MaxTime=30"};
	char *bad[] = {"State=DOWN", "MaxTime=never"};
	char *nodes[] = {"Nodes=n9"};
	struct part *p;

	assert_int_equal(edit(f, REQUEST_UPDATE_PARTITION, "cpu", good, 2), 0);
	p = part_find(&f->c, "cpu");
	assert_int_equal(p->cfg->state_up, PART_STATE_DRAIN);
	assert_int_equal(p->cfg->max_time, 30);
	assert_int_equal(edit(f, REQUEST_UPDATE_PARTITION, "cpu", bad, 2), -EINVAL);
	assert_int_equal(edit(f, REQUEST_UPDATE_PARTITION, "cpu", nodes, 1),
			 -ESLURM_INVALID_NODE_NAME);
	p = part_find(&f->c, "cpu");
	assert_int_equal(p->cfg->state_up, PART_STATE_DRAIN); /* unchanged */
	assert_int_equal(p->node_count, 3);
	assert_int_equal(edit(f, REQUEST_UPDATE_PARTITION, "nope", good, 2),
			 -ESLURM_INVALID_PARTITION_NAME);
}

static void test_create_delete_and_default(void **state)
{
	struct ctld_fixture *f = *state;
	char *words[] = {"Nodes=n[1-2]", "Default=YES"};

	assert_int_equal(edit(f, REQUEST_CREATE_PARTITION, "extra", words, 2), 0);
	assert_non_null(part_find(&f->c, "extra"));
	assert_int_equal(part_find(&f->c, "extra")->node_count, 2);
	assert_false(part_find(&f->c, "cpu")->cfg->is_default); /* one default */
	assert_string_equal(f->c.nodes[0].partitions, "cpu,extra");
	assert_int_equal(edit(f, REQUEST_CREATE_PARTITION, "extra", words, 2),
			 -ESLURM_INVALID_PARTITION_NAME);
	assert_int_equal(edit(f, REQUEST_DELETE_PARTITION, "extra", NULL, 0), 0);
	assert_null(part_find(&f->c, "extra"));
	assert_string_equal(f->c.nodes[0].partitions, "cpu");
	/* created then deleted: nothing is kept of it */
	assert_int_equal(f->c.part_edit_count, 0);
}

static void test_delete_refused_while_in_use(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();

	job_desc_set_str(d, &d->partition, "gpu");
	fixture_submit(f, d);
	assert_int_equal(edit(f, REQUEST_DELETE_PARTITION, "gpu", NULL, 0),
			 -ESLURM_PARTITION_IN_USE);
	assert_non_null(part_find(&f->c, "gpu"));
}

static void test_updates_merge_key_by_key(void **state)
{
	struct ctld_fixture *f = *state;
	char *a[] = {"State=DRAIN", "MaxTime=30"};
	char *b[] = {"state=UP"};
	char *c[] = {"MaxNodes=2"};

	assert_int_equal(edit(f, REQUEST_UPDATE_PARTITION, "cpu", a, 2), 0);
	assert_int_equal(edit(f, REQUEST_UPDATE_PARTITION, "cpu", b, 1), 0);
	assert_int_equal(edit(f, REQUEST_UPDATE_PARTITION, "cpu", c, 1), 0);
	assert_int_equal(f->c.part_edit_count, 1);
	assert_int_equal(f->c.part_edits[0].m.word_count, 3);
	assert_string_equal(f->c.part_edits[0].m.words[0], "state=UP");
	assert_string_equal(f->c.part_edits[0].m.words[2], "MaxNodes=2");
}

static void test_saved_edits_are_replayed(void **state)
{
	struct ctld_fixture *f = *state;
	char *up[] = {"State=DOWN", "PriorityTier=7"};
	char *mk[] = {"Nodes=g1"};
	char path[256];

	assert_int_equal(edit(f, REQUEST_UPDATE_PARTITION, "cpu", up, 2), 0);
	assert_int_equal(edit(f, REQUEST_CREATE_PARTITION, "extra", mk, 1), 0);
	assert_int_equal(node_state_save(&f->c), 0);
	/* a restart: slurm.conf's partitions, then the saved edits */
	part_admin_forget(&f->c);
	assert_int_equal(part_table_build(&f->c), 0);
	assert_null(part_find(&f->c, "extra"));
	assert_int_equal(node_state_load(&f->c), 0);
	part_admin_replay(&f->c);
	assert_int_equal(part_find(&f->c, "cpu")->cfg->state_up, PART_STATE_DOWN);
	assert_int_equal(part_find(&f->c, "cpu")->cfg->priority_tier, 7);
	assert_non_null(part_find(&f->c, "extra"));
	assert_int_equal(f->c.part_edit_count, 2);
	part_admin_forget(&f->c);
	snprintf(path, sizeof(path), "%s/%s", f->dir, NODE_STATE_FILE);
	assert_int_equal(unlink(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_update_is_all_or_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_delete_and_default, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_delete_refused_while_in_use, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_updates_merge_key_by_key, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_saved_edits_are_replayed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
