/* test_slurmd_register.c - what slurmd's registration carries
 * (register.c): this node's name, host, version, port and start time;
 * the hardware as detected, or as configured with
 * SlurmdParameters=config_overrides (then the configured GRES too); and
 * the steps its spool shows, completions flagged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/hw_detect.h"
#include "common/msg.h"
#include "slurmd_fixture.h"

static void reg_free(struct node_reg_msg *m)
{
	msg_lookup(MESSAGE_NODE_REGISTRATION_STATUS)->free(m);
}

static void test_identity_and_detected_hardware(void **state)
{
	struct slurmd_fix *f = *state;
	struct node_reg_msg m = { 0 };
	struct hw_info hw = { 0 };

	f->d.gres = "gpu:2";
	f->d.start_time = 1700000000;
	assert_int_equal(hw_detect(&hw, NULL), 0);
	assert_int_equal(slurmd_reg_msg_fill(&f->d, &m), 0);
	assert_string_equal(m.node_name, f->node);
	assert_string_equal(m.hostname, "uthost");
	assert_string_equal(m.version, SL_VERSION);
	assert_int_equal(m.port, 6818);
	assert_int_equal(m.slurmd_start_time, 1700000000);
	/* the machine's own, not the configured 48 cpus and 190000 MB */
	assert_int_equal(m.cpus, hw.cpus);
	assert_int_equal(m.sockets, hw.sockets);
	assert_int_equal(m.cores, hw.cores_per_socket);
	assert_int_equal(m.threads, hw.threads_per_core);
	assert_int_equal(m.real_memory, hw.real_memory_mb);
	assert_string_equal(m.gres, "gpu:2"); /* detected from gres.conf */
	assert_int_equal(m.step_count, 0);
	hw_info_done(&hw);
	reg_free(&m);
}

static void test_config_overrides_sends_the_configuration(void **state)
{
	struct slurmd_fix *f = *state;
	struct node_reg_msg m = { 0 };

	f->conf.config_overrides = true;
	f->d.gres = "";
	assert_int_equal(slurmd_reg_msg_fill(&f->d, &m), 0);
	assert_int_equal(m.cpus, 48);
	assert_int_equal(m.boards, 1);
	assert_int_equal(m.sockets, 2);
	assert_int_equal(m.cores, 12);
	assert_int_equal(m.threads, 2);
	assert_int_equal(m.real_memory, 190000);
	assert_int_equal(m.tmp_disk, 1000);
	assert_string_equal(m.gres, "gpu:4");
	reg_free(&m);
	f->cfg.gres = NULL;
	assert_int_equal(slurmd_reg_msg_fill(&f->d, &m), 0);
	assert_string_equal(m.gres, "");
	reg_free(&m);
}

static void test_steps_of_the_spool_are_listed(void **state)
{
	struct slurmd_fix *f = *state;
	struct node_reg_msg m = { 0 };
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "%s_50.2", f->node);
	fd = slurmd_fix_socket(f, name, true);
	snprintf(name, sizeof(name), "%s_50.2.done", f->node); /* an earlier run's */
	slurmd_fix_file(f, name, "x");
	slurmd_fix_file(f, "other_51.0.done", "x");
	assert_int_equal(slurmd_reg_msg_fill(&f->d, &m), 0);
	assert_int_equal(m.step_count, 2);
	for (uint32_t i = 0; i < m.step_count; i++) {
		assert_int_equal(m.steps[i].job_id, 50);
		assert_int_equal(m.steps[i].step_id, 2);
	}
	assert_int_equal(m.steps[0].flags ^ m.steps[1].flags, NODE_STEP_DONE);
	reg_free(&m);
	close(fd);
}

/* What runs here cannot be read: no registration, rather than one that
 * tells the controller nothing runs. */
static void test_unreadable_spool_fails_the_registration(void **state)
{
	struct slurmd_fix *f = *state;
	struct node_reg_msg m = { 0 };
	char gone[96];

	snprintf(gone, sizeof(gone), "%s/missing", f->dir);
	f->d.spool_dir = gone;
	assert_true(slurmd_reg_msg_fill(&f->d, &m) < 0);
	reg_free(&m);
	f->d.spool_dir = f->dir;
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, slurmd_fix_setup, slurmd_fix_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_identity_and_detected_hardware),
	    T(test_config_overrides_sends_the_configuration),
	    T(test_steps_of_the_spool_are_listed),
	    T(test_unreadable_spool_fails_the_registration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
