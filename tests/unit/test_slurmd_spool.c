/* test_slurmd_spool.c - which steps slurmd reports from its spool
 * (spool.c): a live socket is a running step, a ".done" file a completion
 * waiting; a socket nobody listens on is a stepd that died (not reported,
 * removed); junk names, other nodes' names, symlinks and directories are
 * not steps, and are left alone.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/msg.h"
#include "slurmd_fixture.h"

/* The steps slurmd_spool_steps reports, sorted by job then step. */
static uint32_t steps_of(struct slurmd_fix *f, struct node_step_ref **ret)
{
	uint32_t n = 0;

	assert_int_equal(slurmd_spool_steps(&f->d, ret, &n), 0);
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && ((*ret)[j].job_id < (*ret)[j - 1].job_id
					       || ((*ret)[j].job_id == (*ret)[j - 1].job_id
						   && (*ret)[j].step_id < (*ret)[j - 1].step_id));
		     j--) {
			struct node_step_ref t = (*ret)[j];

			(*ret)[j] = (*ret)[j - 1];
			(*ret)[j - 1] = t;
		}
	return n;
}

static void test_empty_spool_reports_nothing(void **state)
{
	struct slurmd_fix *f = *state;
	struct node_step_ref *refs = NULL;

	assert_int_equal(steps_of(f, &refs), 0);
	free(refs);
}

static void test_live_socket_and_done_file_are_reported(void **state)
{
	struct slurmd_fix *f = *state;
	struct node_step_ref *refs = NULL;
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "%s_5.0", f->node);
	fd = slurmd_fix_socket(f, name, true);
	snprintf(name, sizeof(name), "%s_6.4294967291.done", f->node);
	slurmd_fix_file(f, name, "x");
	assert_int_equal(steps_of(f, &refs), 2);
	assert_int_equal(refs[0].job_id, 5);
	assert_int_equal(refs[0].step_id, 0);
	assert_int_equal(refs[0].flags, 0);
	assert_int_equal(refs[1].job_id, 6);
	assert_int_equal(refs[1].step_id, SL_BATCH_STEP);
	assert_int_equal(refs[1].flags, NODE_STEP_DONE);
	free(refs);
	close(fd);
}

static void test_dead_socket_is_removed_not_reported(void **state)
{
	struct slurmd_fix *f = *state;
	struct node_step_ref *refs = NULL;
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "%s_7.1", f->node);
	fd = slurmd_fix_socket(f, name, false);
	assert_int_equal(steps_of(f, &refs), 0);
	assert_false(slurmd_fix_exists(f, name));
	free(refs);
	close(fd);
}

static void test_junk_names_are_left_alone(void **state)
{
	struct slurmd_fix *f = *state;
	struct node_step_ref *refs = NULL;
	const char *suffixes[] = {
	    "_x.0",	       "_5",	       "_5.",	      "_5.0.new",  "_5.0.done.x",
	    "_5.0done",	       "_.0",	       "_5.0x",	      "_-1.0",	   "_4294967296.0",
	    "_5.4294967296.done", "_99999999999999999999.0",  "5.0",	   "_5.0 ",
	};
	char name[256];

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", f->node, suffixes[i]);
		slurmd_fix_file(f, name, "junk");
	}
	slurmd_fix_file(f, "job00005.script", "#!/bin/sh\n");
	slurmd_fix_file(f, "other_5.0.done", "another node's"); /* another NodeName */
	snprintf(name, sizeof(name), "%sx_5.0.done", f->node); /* a name it prefixes */
	slurmd_fix_file(f, name, "x");
	assert_int_equal(steps_of(f, &refs), 0);
	free(refs);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", f->node, suffixes[i]);
		assert_true(slurmd_fix_exists(f, name));
	}
}

/* A step's name that is not what a stepd makes: a symlink (to a live
 * socket, or to a completion), a directory, a regular file where a
 * socket belongs. None is reported, none removed. */
static void test_names_of_the_wrong_type_are_not_steps(void **state)
{
	struct slurmd_fix *f = *state;
	struct node_step_ref *refs = NULL;
	char name[64], target[256], link[256];
	int fd;

	snprintf(name, sizeof(name), "%s_8.0", f->node);
	fd = slurmd_fix_socket(f, "elsewhere", true);
	slurmd_fix_path(f, "elsewhere", target, sizeof(target));
	slurmd_fix_path(f, name, link, sizeof(link));
	assert_int_equal(symlink(target, link), 0);
	slurmd_fix_file(f, "report", "x");
	snprintf(name, sizeof(name), "%s_8.1.done", f->node);
	slurmd_fix_path(f, "report", target, sizeof(target));
	slurmd_fix_path(f, name, link, sizeof(link));
	assert_int_equal(symlink(target, link), 0);
	snprintf(name, sizeof(name), "%s_8.2", f->node);
	slurmd_fix_file(f, name, "not a socket");
	snprintf(name, sizeof(name), "%s_8.3.done", f->node);
	slurmd_fix_path(f, name, link, sizeof(link));
	assert_int_equal(mkdir(link, 0700), 0);

	assert_int_equal(steps_of(f, &refs), 0);
	free(refs);
	snprintf(name, sizeof(name), "%s_8.0", f->node);
	assert_true(slurmd_fix_exists(f, name));
	snprintf(name, sizeof(name), "%s_8.2", f->node);
	assert_true(slurmd_fix_exists(f, name));
	rmdir(link);
	close(fd);
}

/* The decision alone: name and file type. */
static void test_entry_decision(void **state)
{
	struct node_step_ref ref = { 0 };

	(void)state;
	assert_true(slurmd_spool_entry("n1_12.3", S_IFSOCK, "n1", &ref));
	assert_int_equal(ref.job_id, 12);
	assert_int_equal(ref.step_id, 3);
	assert_int_equal(ref.flags, 0);
	assert_true(slurmd_spool_entry("n1_4294967295.4294967291.done", S_IFREG, "n1", &ref));
	assert_int_equal(ref.job_id, UINT32_MAX);
	assert_int_equal(ref.flags, NODE_STEP_DONE);
	assert_false(slurmd_spool_entry("n1_12.3", S_IFREG, "n1", &ref));
	assert_false(slurmd_spool_entry("n1_12.3", S_IFLNK, "n1", &ref));
	assert_false(slurmd_spool_entry("n1_12.3.done", S_IFSOCK, "n1", &ref));
	assert_false(slurmd_spool_entry("n1_12.3.done", S_IFDIR, "n1", &ref));
	assert_false(slurmd_spool_entry("n10_12.3", S_IFSOCK, "n1", &ref));
	assert_false(slurmd_spool_entry("n1_12.3", S_IFSOCK, "n10", &ref));
	assert_false(slurmd_spool_entry("n1_4294967296.3", S_IFSOCK, "n1", &ref));
}

/* A socket whose path does not fit a sockaddr_un cannot be a stepd's
 * (it could not bind it): not reported. Made by binding a relative name
 * from inside a deep directory. */
static void test_socket_path_too_long_is_not_reported(void **state)
{
	struct slurmd_fix *f = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct node_step_ref *refs = NULL;
	char deep[256], cwd[256], *slash;
	int fd;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(deep, sizeof(deep), "%s/%0100d", f->dir, 0);
	assert_int_equal(mkdir(deep, 0700), 0);
	assert_int_equal(chdir(deep), 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s_9.0", f->node);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(chdir(cwd), 0);

	f->d.spool_dir = deep;
	assert_int_equal(steps_of(f, &refs), 0);
	free(refs);
	f->d.spool_dir = f->dir;
	close(fd);
	slash = deep + strlen(deep);
	snprintf(slash, sizeof(deep) - (size_t)(slash - deep), "/%s_9.0", f->node);
	unlink(deep);
	*slash = '\0';
	rmdir(deep);
}

static void test_has_done(void **state)
{
	struct slurmd_fix *f = *state;
	char name[64];

	snprintf(name, sizeof(name), "%s_10.2.done", f->node);
	slurmd_fix_file(f, name, "x");
	assert_true(slurmd_spool_has_done(&f->d, 10, 2));
	assert_true(slurmd_spool_has_done(&f->d, 10, SL_ALL_STEPS));
	assert_false(slurmd_spool_has_done(&f->d, 10, 3));
	assert_false(slurmd_spool_has_done(&f->d, 11, SL_ALL_STEPS));
}

static void test_unreadable_spool_is_an_error(void **state)
{
	struct slurmd_fix *f = *state;
	struct node_step_ref *refs = (void *)1;
	uint32_t n = 7;
	char gone[96];

	snprintf(gone, sizeof(gone), "%s/missing", f->dir);
	f->d.spool_dir = gone;
	assert_true(slurmd_spool_steps(&f->d, &refs, &n) < 0);
	assert_null(refs);
	assert_int_equal(n, 0);
	f->d.spool_dir = f->dir;
}

/* SlurmdSpoolDir: made when missing; refused when group or others may
 * write it, when it is a symlink or a file, or (as root) when another
 * user owns it. */
static void test_spool_dir_rules(void **state)
{
	struct slurmd_fix *f = *state;
	char dir[128], link[128];

	snprintf(dir, sizeof(dir), "%s/spool", f->dir);
	assert_int_equal(slurmd_spool_dir_make(dir), 0);
	assert_int_equal(slurmd_spool_dir_make(dir), 0); /* there already */
	assert_int_equal(chmod(dir, 0775), 0);
	assert_int_equal(slurmd_spool_dir_make(dir), -EPERM);
	assert_int_equal(chmod(dir, 0757), 0);
	assert_int_equal(slurmd_spool_dir_make(dir), -EPERM);
	assert_int_equal(chmod(dir, 0700), 0);
	snprintf(link, sizeof(link), "%s/link", f->dir);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(slurmd_spool_dir_make(link), -EPERM);
	slurmd_fix_file(f, "file", "x");
	snprintf(link, sizeof(link), "%s/file", f->dir);
	assert_int_equal(slurmd_spool_dir_make(link), -EPERM);
	if (geteuid() != 0) {
		print_message("not root: another user's spool is not checked\n");
	} else {
		assert_int_equal(chown(dir, 1, 1), 0);
		assert_int_equal(slurmd_spool_dir_make(dir), -EPERM);
	}
	rmdir(dir);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, slurmd_fix_setup, slurmd_fix_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_empty_spool_reports_nothing),
	    T(test_live_socket_and_done_file_are_reported),
	    T(test_dead_socket_is_removed_not_reported),
	    T(test_junk_names_are_left_alone),
	    T(test_names_of_the_wrong_type_are_not_steps),
	    cmocka_unit_test(test_entry_decision),
	    T(test_socket_path_too_long_is_not_reported),
	    T(test_has_done),
	    T(test_unreadable_spool_is_an_error),
	    T(test_spool_dir_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
