/* test_proc_stat.c - /proc/<pid>/stat parsing and task attribution. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/proc_stat.h"

/* A real line (cat on a 6.x kernel): rsslim past rss is above INT64_MAX. */
static const char normal[] =
    "20393 (cat) R 20290 20290 9939 0 -1 4194304 101 0 0 0 7 3 0 0 20 0 1 0 2038090 "
    "3133440 388 18446744073709551615 94554381316096 94554381335977 140733920786544 0 0 0 "
    "0 0 0 0 0 0 17 0 0 0 0 0 0 94554381351984 94554381353600 94555320410112 "
    "140733920790974 140733920790994 140733920790994 140733920792555 0\n";

static void test_normal_line(void **state)
{
	struct proc_stat ps;

	(void)state;
	assert_int_equal(proc_stat_parse(normal, &ps), 0);
	assert_int_equal(ps.pid, 20393);
	assert_int_equal(ps.ppid, 20290);
	assert_int_equal(ps.pgrp, 20290);
	assert_int_equal(ps.session, 9939);
	assert_int_equal(ps.utime, 7);
	assert_int_equal(ps.stime, 3);
	assert_int_equal(ps.start, 2038090);
	assert_int_equal(ps.vsize, 3133440);
	assert_int_equal(ps.rss, 388);
}

/* The command may hold ") (", spaces and digits: fields count from the last ')'. */
static void test_command_with_parens(void **state)
{
	static const char *const lines[] = {
	    "42 (a) (b) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2 0\n",
	    "42 () 1 2 3 4) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2\n",
	    "42 ()) R 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2",
	    "42 ( ) Z 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2 0 0",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		struct proc_stat ps = {0};

		assert_int_equal(proc_stat_parse(lines[i], &ps), 0);
		assert_int_equal(ps.pid, 42);
		assert_int_equal(ps.ppid, 1);
		assert_int_equal(ps.pgrp, 42);
		assert_int_equal(ps.session, 42);
		assert_int_equal(ps.utime, 5);
		assert_int_equal(ps.stime, 6);
		assert_int_equal(ps.start, 100);
		assert_int_equal(ps.vsize, 8192);
		assert_int_equal(ps.rss, 2);
	}
}

static void test_truncated_and_garbage_rejected(void **state)
{
	static const char *const bad[] = {
	    "",
	    "garbage",
	    "42",
	    "42 (cat)",
	    "42 (cat) S",
	    "42 (cat) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192",  /* no rss */
	    "42 (cat) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 ", /* cut after vsize */
	    "42 (cat) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 81",
	    "42 cat) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2",
	    "42 (cat S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2",
	    ")42 (cat S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2",
	    "x42 (cat) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2",
	    "-42 (cat) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2",
	    "42  (cat) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2",
	    "42 (cat)S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2",
	    "42 (cat) S 1 42 x 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2",
	    "42 (cat) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2x",
	    "42 (cat) S 1  42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 8192 2",
	    "42 (cat) S 1 42 42 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 99999999999999999999 2",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct proc_stat ps = {.pid = 7};

		assert_int_equal(proc_stat_parse(bad[i], &ps), -EINVAL);
		assert_int_equal(ps.pid, 7); /* untouched */
	}
	assert_int_equal(proc_stat_parse(NULL, &(struct proc_stat){0}), -EINVAL);
}

static void test_read_self(void **state)
{
	struct proc_stat ps;

	(void)state;
	assert_int_equal(proc_stat_read(getpid(), &ps), 0);
	assert_int_equal(ps.pid, getpid());
	assert_int_equal(ps.ppid, getppid());
	assert_true(ps.rss > 0);
	assert_true(ps.vsize > 0);
}

/* The Uid line counts only at the start of a line: a process may name
 * itself "Uid: 0 0 0 0" (the kernel escapes a newline in Name). */
static void test_status_uids(void **state)
{
	static const char status[] = "Name:\tUid: 0 0 0 0\nUmask:\t0022\nState:\tS (sleeping)\n"
				     "Tgid:\t77\nPid:\t77\nPPid:\t1\nTracerPid:\t0\n"
				     "Uid:\t1001\t0\t1002\t0\nGid:\t1001\t1001\t1001\t1001\n";
	static const char *const bad[] = {
	    "",
	    "Name:\tUid: 0 0 0 0\n",
	    "Uid:\t1001\t1001\n",
	    "Uid:\t-1\t0\t0\t0\n",
	    "Uid:\tx\t0\t0\t0\n",
	    "Uid:\t99999999999\t0\t0\t0\n",
	    "Uid:1001\t0\t0\t0\n",
	};
	uid_t real = 7, saved = 7;

	(void)state;
	assert_int_equal(proc_status_parse_uids(status, &real, &saved), 0);
	assert_int_equal(real, 1001);
	assert_int_equal(saved, 1002);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		real = saved = 7;
		assert_int_equal(proc_status_parse_uids(bad[i], &real, &saved), -EINVAL);
		assert_int_equal(real, 7); /* untouched */
		assert_int_equal(saved, 7);
	}
}

static void test_read_own_uids(void **state)
{
	uid_t real, saved, r, e, sv;

	(void)state;
	assert_int_equal(getresuid(&r, &e, &sv), 0);
	assert_int_equal(proc_status_read_uids(getpid(), &real, &saved), 0);
	assert_int_equal(real, r);
	assert_int_equal(saved, sv);
	assert_int_equal(proc_status_read_uids(0, &real, &saved), -ENOENT);
}

#define P(pid_, ppid_, task_)                                                                      \
	{                                                                                          \
		.st = {.pid = (pid_), .ppid = (ppid_)}, .task = (task_)                            \
	}

/* self = 10 (the stepd); tasks 0 (pid 20) and 1 (pid 30), found by the caller. */
static void test_descendants_take_their_ancestor_task(void **state)
{
	struct proc_entry v[] = {
	    P(1, 0, -1),   /* init */
	    P(5, 1, -1),   /* an unrelated daemon */
	    P(6, 5, -1),   /* and its child */
	    P(10, 1, -1),  /* the stepd */
	    P(20, 10, 0),  /* task 0 */
	    P(30, 10, 1),  /* task 1 */
	    P(40, 20, -1), /* task 0's child */
	    P(41, 40, -1), /* its grandchild */
	    P(50, 30, -1), /* task 1's child */
	    P(60, 10, -1), /* an orphan the caller did not attribute */
	    P(61, 60, -1), /* its child */
	    P(7, 41, -1),  /* pid wrapped: sorted before its parent */
	};
	static const struct {
		pid_t pid;
		int32_t task;
	} want[] = {
	    {1, -1}, {5, -1}, {6, -1}, {10, -1}, {20, 0},  {30, 1},
	    {40, 0}, {41, 0}, {50, 1}, {60, -1}, {61, -1}, {7, 0},
	};
	size_t n = ARRAY_SIZE(v);

	(void)state;
	qsort(v, n, sizeof(*v), proc_entry_cmp);
	assert_int_equal(proc_entry_inherit(v, n, 10), 4);
	for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
		struct proc_entry key = {.st.pid = want[k].pid};
		struct proc_entry *e = bsearch(&key, v, n, sizeof(*v), proc_entry_cmp);

		assert_non_null(e);
		assert_int_equal(e->task, want[k].task);
	}
	/* nothing left to do: a second call attributes nothing */
	assert_int_equal(proc_entry_inherit(v, n, 10), 0);
}

static void test_inherit_empty_and_self_passes_nothing(void **state)
{
	struct proc_entry v[] = {
	    P(10, 1, 3), /* self, even if marked, passes nothing on */
	    P(11, 10, -1),
	};

	(void)state;
	assert_int_equal(proc_entry_inherit(NULL, 0, 10), 0);
	assert_int_equal(proc_entry_inherit(v, ARRAY_SIZE(v), 10), 0);
	assert_int_equal(v[1].task, -1);
}

#define PS(pid_, ppid_, start_, task_)                                                             \
	{                                                                                          \
		.st = {.pid = (pid_), .ppid = (ppid_), .start = (start_)}, .task = (task_)         \
	}

/* A parent link is taken only from a parent no younger than the child: a
 * process that looks older than its parent names a pid reused meanwhile. */
static void test_inherit_refuses_a_younger_parent(void **state)
{
	struct proc_entry v[] = {
	    PS(10, 1, 50, -1),	 /* the stepd */
	    PS(20, 10, 100, 0),	 /* task 0 */
	    PS(21, 20, 100, -1), /* its child, started in the same tick */
	    PS(22, 21, 130, -1), /* and grandchild */
	    PS(40, 20, 90, -1),	 /* "child" of 20 that started before it: not ours */
	    PS(41, 40, 95, -1),	 /* nor its descent */
	};

	(void)state;
	assert_int_equal(proc_entry_inherit(v, ARRAY_SIZE(v), 10), 2);
	assert_int_equal(v[2].task, 0);
	assert_int_equal(v[3].task, 0);
	assert_int_equal(v[4].task, -1);
	assert_int_equal(v[5].task, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normal_line),
	    cmocka_unit_test(test_command_with_parens),
	    cmocka_unit_test(test_truncated_and_garbage_rejected),
	    cmocka_unit_test(test_read_self),
	    cmocka_unit_test(test_status_uids),
	    cmocka_unit_test(test_read_own_uids),
	    cmocka_unit_test(test_descendants_take_their_ancestor_task),
	    cmocka_unit_test(test_inherit_empty_and_self_passes_nothing),
	    cmocka_unit_test(test_inherit_refuses_a_younger_parent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
