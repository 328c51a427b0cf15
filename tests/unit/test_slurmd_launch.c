/* test_slurmd_launch.c - what slurmd's launch.c refuses before any
 * slurmstepd starts, and where it finds no stepd to relay to: a launch of
 * tasks from a user who is not the launch's, in a group not theirs, for
 * another node, for the batch step or every step, with a credential that
 * cannot be checked; a signal or sstat for a step with no socket, or
 * with the socket of a stepd that died (removed). None of these paths
 * replies itself: the code returned is what the dispatcher answers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "slurmd/launch.h"
#include "slurmd_fixture.h"

#define USER_UID 1234u
#define USER_GID 1234u

static struct launch_tasks_msg task_launch(const struct slurmd_fix *f)
{
	return (struct launch_tasks_msg){ .job_id = 20, .step_id = 0, .uid = USER_UID,
					  .gid = USER_GID, .ntasks_here = 1,
					  .node_name = (char *)f->node, .cred = "not-a-credential" };
}

static int launch_as(struct slurmd_fix *f, struct launch_tasks_msg *m, uid_t uid, gid_t gid)
{
	struct rpc_req req = { .type = REQUEST_LAUNCH_TASKS, .body = m, .uid = uid, .gid = gid,
			       .auth_uid = uid, .peer = "test" };

	return slurmd_req_launch_tasks(&f->d, &req);
}

/* Nothing was started: the spool holds no socket. */
static void assert_spool_empty(struct slurmd_fix *f)
{
	struct node_step_ref *refs = NULL;
	uint32_t n = 1;

	assert_int_equal(slurmd_spool_steps(&f->d, &refs, &n), 0);
	assert_int_equal(n, 0);
	free(refs);
}

static void test_launch_from_another_user_is_refused(void **state)
{
	struct slurmd_fix *f = *state;
	struct launch_tasks_msg m = task_launch(f);

	assert_int_equal(launch_as(f, &m, USER_UID + 1, USER_GID), -ESLURM_USER_ID_MISSING);
	assert_spool_empty(f);
}

static void test_launch_in_a_group_not_the_users_is_refused(void **state)
{
	struct slurmd_fix *f = *state;
	struct launch_tasks_msg m = task_launch(f);

	/* the sender is the launch's user, but asks for a group of which
	 * no user of this machine (uid 1234 or none) is a member */
	m.gid = 54321;
	assert_int_equal(launch_as(f, &m, USER_UID, USER_GID), -ESLURM_USER_ID_MISSING);
}

static void test_launch_for_another_node_is_refused(void **state)
{
	struct slurmd_fix *f = *state;
	struct launch_tasks_msg m = task_launch(f);

	m.node_name = "othernode";
	assert_int_equal(launch_as(f, &m, USER_UID, USER_GID), -ESLURM_INVALID_NODE_NAME);
	m.node_name = NULL;
	assert_int_equal(launch_as(f, &m, USER_UID, USER_GID), -ESLURM_INVALID_NODE_NAME);
}

static void test_launch_of_batch_or_all_steps_is_refused(void **state)
{
	struct slurmd_fix *f = *state;
	struct launch_tasks_msg m = task_launch(f);

	m.step_id = SL_BATCH_STEP;
	assert_int_equal(launch_as(f, &m, USER_UID, USER_GID), -ESLURM_INVALID_JOB_ID);
	m.step_id = SL_ALL_STEPS;
	assert_int_equal(launch_as(f, &m, USER_UID, USER_GID), -ESLURM_INVALID_JOB_ID);
}

/* Past the sender's checks, a credential munge cannot vouch for (here:
 * no munged at the configured socket) stops the launch; so does one for
 * an admin sender. */
static void test_launch_without_a_valid_credential_is_refused(void **state)
{
	struct slurmd_fix *f = *state;
	struct launch_tasks_msg m = task_launch(f);
	int r;

	r = launch_as(f, &m, USER_UID, USER_GID);
	assert_true(r < 0);
	assert_int_not_equal(r, -ESLURM_USER_ID_MISSING);
	assert_int_not_equal(r, -ESLURM_INVALID_NODE_NAME);
	r = launch_as(f, &m, FIX_SLURM_UID, 0);
	assert_true(r < 0);
	assert_int_not_equal(r, -ESLURM_USER_ID_MISSING);
	assert_spool_empty(f);
}

static int signal_step(struct slurmd_fix *f, uint16_t type, uint32_t job_id, uint32_t step_id)
{
	struct signal_job_msg m = { .job_id = job_id, .step_id = step_id, .signal = 15 };
	struct rpc_req req = { .type = type, .body = &m, .uid = 0, .peer = "test" };

	return slurmd_req_signal_job(&f->d, &req);
}

static void test_signal_without_a_stepd_is_an_unknown_job(void **state)
{
	struct slurmd_fix *f = *state;

	assert_int_equal(signal_step(f, REQUEST_SIGNAL_TASKS, 30, 0), -ESLURM_INVALID_JOB_ID);
	assert_int_equal(signal_step(f, REQUEST_SIGNAL_TASKS, 30, SL_BATCH_STEP),
			 -ESLURM_INVALID_JOB_ID);
	assert_int_equal(signal_step(f, REQUEST_SIGNAL_TASKS, 30, SL_ALL_STEPS),
			 -ESLURM_INVALID_JOB_ID);
}

/* The socket of a stepd that died answers no connect(): the job is not
 * here, and the socket goes, for one step or for the whole job. */
static void test_signal_to_a_dead_stepd_removes_its_socket(void **state)
{
	struct slurmd_fix *f = *state;
	char one[64], all[64];
	int fd1, fd2;

	snprintf(one, sizeof(one), "%s_31.0", f->node);
	snprintf(all, sizeof(all), "%s_32.4294967291", f->node);
	fd1 = slurmd_fix_socket(f, one, false);
	fd2 = slurmd_fix_socket(f, all, false);
	assert_int_equal(signal_step(f, REQUEST_SIGNAL_TASKS, 31, 0), -ESLURM_INVALID_JOB_ID);
	assert_false(slurmd_fix_exists(f, one));
	assert_int_equal(signal_step(f, REQUEST_SIGNAL_TASKS, 32, SL_ALL_STEPS),
			 -ESLURM_INVALID_JOB_ID);
	assert_false(slurmd_fix_exists(f, all));
	close(fd1);
	close(fd2);
}

/* A path that does not fit a unix socket address is no stepd's. */
static void test_signal_with_a_path_too_long_is_an_unknown_job(void **state)
{
	struct slurmd_fix *f = *state;
	char deep[256];

	snprintf(deep, sizeof(deep), "%s/%0100d", f->dir, 0);
	f->d.spool_dir = deep;
	assert_int_equal(signal_step(f, REQUEST_SIGNAL_TASKS, 33, 0), -ESLURM_INVALID_JOB_ID);
	f->d.spool_dir = f->dir;
}

static void test_step_stat_without_a_stepd_is_an_unknown_job(void **state)
{
	struct slurmd_fix *f = *state;
	struct step_stat_req m = { .job_id = 40, .step_id = 0, .uid = 0 };
	struct rpc_req req = { .type = REQUEST_JOB_STEP_STAT, .body = &m, .uid = USER_UID,
			       .peer = "test" };

	assert_int_equal(slurmd_req_step_stat(&f->d, &req), -ESLURM_INVALID_JOB_ID);
	assert_int_equal(m.uid, USER_UID); /* the credential's uid, not the body's */
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, slurmd_fix_setup, slurmd_fix_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_launch_from_another_user_is_refused),
	    T(test_launch_in_a_group_not_the_users_is_refused),
	    T(test_launch_for_another_node_is_refused),
	    T(test_launch_of_batch_or_all_steps_is_refused),
	    T(test_launch_without_a_valid_credential_is_refused),
	    T(test_signal_without_a_stepd_is_an_unknown_job),
	    T(test_signal_to_a_dead_stepd_removes_its_socket),
	    T(test_signal_with_a_path_too_long_is_an_unknown_job),
	    T(test_step_stat_without_a_stepd_is_an_unknown_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
