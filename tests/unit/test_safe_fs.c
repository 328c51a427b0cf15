/* test_safe_fs.c - root's removals and directories in places a user can
 * reach (src/common/safe_fs.c): links are removed, never followed; other
 * owners' directories are not entered; a leftover directory is replaced.
 * The owner cases need root (they chown) and are skipped otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/safe_fs.h"

#define OTHER_UID 54321

struct dirs {
	char top[64];	  /* the spool: root's */
	char outside[64]; /* what a link points at */
	int fd;		  /* top, open */
};

static void touch(const char *dir, const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static void mk(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0755), 0);
}

static bool exists(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

static void rm_rf(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	struct dirs *d = calloc(1, sizeof(*d));

	strcpy(d->top, "/tmp/sl-safefs-XXXXXX");
	strcpy(d->outside, "/tmp/sl-safefs-out-XXXXXX");
	if (!mkdtemp(d->top) || !mkdtemp(d->outside))
		return -1;
	touch(d->outside, "precious");
	mk(d->outside, "sub");
	touch(d->outside, "sub/precious");
	d->fd = safe_open_dir(d->top);
	*state = d;
	return d->fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	struct dirs *d = *state;

	close(d->fd);
	rm_rf(d->top);
	rm_rf(d->outside);
	free(d);
	return 0;
}

static void assert_outside_intact(const struct dirs *d)
{
	assert_true(exists(d->outside, "precious"));
	assert_true(exists(d->outside, "sub/precious"));
}

static void test_tree_goes_links_are_not_followed(void **state)
{
	struct dirs *d = *state;
	char path[256];

	mk(d->top, "t");
	mk(d->top, "t/b");
	for (int i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), "t/b/f%02d", i);
		touch(d->top, path);
	}
	snprintf(path, sizeof(path), "%s/t/b/link", d->top);
	assert_int_equal(symlink(d->outside, path), 0);
	snprintf(path, sizeof(path), "%s/t/sub", d->top);
	assert_int_equal(symlink(d->outside, path), 0); /* a name the outside has too */
	assert_int_equal(safe_rmtree_at(d->fd, "t", SAFE_FS_NO_USER, 0), 0);
	assert_false(exists(d->top, "t"));
	assert_outside_intact(d);
}

static void test_a_link_as_the_top_is_removed_not_followed(void **state)
{
	struct dirs *d = *state;
	char path[256];

	snprintf(path, sizeof(path), "%s/pmix.1.0", d->top);
	assert_int_equal(symlink(d->outside, path), 0);
	assert_int_equal(safe_rmtree(d->top, "pmix.1.0", SAFE_FS_NO_USER, 0), 0);
	assert_false(exists(d->top, "pmix.1.0"));
	assert_outside_intact(d);
}

static void test_names_that_are_paths_are_refused(void **state)
{
	struct dirs *d = *state;

	assert_int_equal(safe_rmtree_at(d->fd, "a/b", SAFE_FS_NO_USER, 0), -EINVAL);
	assert_int_equal(safe_rmtree_at(d->fd, "..", SAFE_FS_NO_USER, 0), -EINVAL);
	assert_int_equal(safe_rmtree_at(d->fd, "", SAFE_FS_NO_USER, 0), -EINVAL);
	assert_int_equal(safe_mkdir_at(d->fd, "../x", 0700, 0, 0, SAFE_FS_NO_USER), -EINVAL);
	assert_int_equal(safe_rmtree_at(d->fd, "absent", SAFE_FS_NO_USER, 0), 0);
}

static void test_too_deep_is_left_not_crashed(void **state)
{
	struct dirs *d = *state;
	char path[4096] = "deep";

	mk(d->top, path);
	for (int i = 0; i < SAFE_FS_DEPTH_MAX + 4; i++) {
		strcat(path, "/d");
		mk(d->top, path);
	}
	assert_int_equal(safe_rmtree_at(d->fd, "deep", SAFE_FS_NO_USER, 0), -ENOTEMPTY);
	assert_true(exists(d->top, "deep"));
}

static void test_dirs_only_leaves_files(void **state)
{
	struct dirs *d = *state;

	mk(d->top, "cg");
	mk(d->top, "cg/step_0");
	mk(d->top, "cg/step_1");
	touch(d->top, "cg/step_1/tasks");
	assert_int_not_equal(safe_rmtree_at(d->fd, "cg", SAFE_FS_NO_USER, SAFE_RM_DIRS_ONLY), 0);
	assert_false(exists(d->top, "cg/step_0"));
	assert_true(exists(d->top, "cg/step_1/tasks"));
}

static void test_keep_top_empties_it(void **state)
{
	struct dirs *d = *state;

	mk(d->top, "k");
	touch(d->top, "k/f");
	assert_int_equal(safe_rmtree_at(d->fd, "k", SAFE_FS_NO_USER, SAFE_RM_KEEP_TOP), 0);
	assert_true(exists(d->top, "k"));
	assert_false(exists(d->top, "k/f"));
}

static void test_mkdir_makes_replaces_and_sets_the_mode(void **state)
{
	struct dirs *d = *state;
	char path[256];
	struct stat st;
	int fd;

	fd = safe_mkdir_at(d->fd, "job00007", 0750, geteuid(), getegid(), SAFE_FS_NO_USER);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	close(fd);
	/* a leftover with content, and a link in it */
	touch(d->top, "job00007/slurm_script");
	snprintf(path, sizeof(path), "%s/job00007/sub", d->top);
	assert_int_equal(symlink(d->outside, path), 0);
	fd = safe_mkdir_at(d->fd, "job00007", 0711, geteuid(), getegid(), SAFE_FS_NO_USER);
	assert_true(fd >= 0);
	close(fd);
	assert_false(exists(d->top, "job00007/slurm_script"));
	assert_outside_intact(d);
	/* a link where the directory goes: the link goes, the target stays */
	assert_int_equal(safe_rmtree_at(d->fd, "job00007", SAFE_FS_NO_USER, 0), 0);
	snprintf(path, sizeof(path), "%s/job00007", d->top);
	assert_int_equal(symlink(d->outside, path), 0);
	fd = safe_mkdir_at(d->fd, "job00007", 0711, geteuid(), getegid(), SAFE_FS_NO_USER);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0711);
	close(fd);
	assert_outside_intact(d);
}

static void chown_path(const struct dirs *d, const char *name, uid_t uid)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", d->top, name);
	assert_int_equal(lchown(path, uid, (gid_t)-1), 0);
}

static void test_other_owners_are_not_entered(void **state)
{
	struct dirs *d = *state;

	if (geteuid() != 0)
		skip();
	/* pmix.2.0 (root) / ds (user) / inner (root: moved in by the user) */
	mk(d->top, "pmix.2.0");
	mk(d->top, "pmix.2.0/ds");
	touch(d->top, "pmix.2.0/ds/seg");
	mk(d->top, "pmix.2.0/ds/inner");
	touch(d->top, "pmix.2.0/ds/inner/keep");
	chown_path(d, "pmix.2.0/ds", OTHER_UID);
	/* root only: the user's directory stays, whole */
	assert_int_equal(safe_rmtree_at(d->fd, "pmix.2.0", SAFE_FS_NO_USER, 0), -ENOTEMPTY);
	assert_true(exists(d->top, "pmix.2.0/ds/seg"));
	/* the user's: entered, but not the root directory inside it */
	assert_int_equal(safe_rmtree_at(d->fd, "pmix.2.0", OTHER_UID, 0), -ENOTEMPTY);
	assert_false(exists(d->top, "pmix.2.0/ds/seg"));
	assert_true(exists(d->top, "pmix.2.0/ds/inner/keep"));
	/* any owner below root's, still only the owner's below theirs */
	assert_int_equal(safe_rmtree_at(d->fd, "pmix.2.0", SAFE_FS_ANY_USER, 0), -ENOTEMPTY);
	assert_true(exists(d->top, "pmix.2.0/ds/inner/keep"));
	chown_path(d, "pmix.2.0/ds/inner", OTHER_UID);
	assert_int_equal(safe_rmtree_at(d->fd, "pmix.2.0", SAFE_FS_ANY_USER, 0), 0);
	assert_false(exists(d->top, "pmix.2.0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_tree_goes_links_are_not_followed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_a_link_as_the_top_is_removed_not_followed, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_names_that_are_paths_are_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_too_deep_is_left_not_crashed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dirs_only_leaves_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_keep_top_empties_it, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mkdir_makes_replaces_and_sets_the_mode, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_other_owners_are_not_entered, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
