/* test_stepd_io_open.c - the stepd opens a job's -o/-e/-i file without
 * ever blocking: a FIFO with no peer (either way), a directory and a
 * socket are refused at once with ESLURMD_IO_ERROR; a regular file and
 * /dev/null are accepted, and the task gets them blocking. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/log.h"
#include "common/sl_errno.h"
#include "slurmd/slurmstepd/io.h"
#include "slurmd/slurmstepd/stepd.h"

static char dir[] = "/tmp/test_stepd_io_openXXXXXX";

static int setup(void **state)
{
	(void)state;
	log_set_level(LOG_LEVEL_QUIET);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static int open_as_me(const char *path, int flags, int *fd)
{
	gid_t gid = getegid();
	struct stepd s = {.uid = geteuid(), .gid = gid, .gids = &gid, .ngids = 1};

	return io_open_as_user(&s, "stdout", path, flags, fd);
}

static void test_a_fifo_is_refused_without_blocking(void **state)
{
	char fifo[sizeof(dir) + 8];
	int fd = -1;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* no reader: a blocking open(O_WRONLY) would wait forever */
	assert_int_equal(open_as_me(fifo, O_WRONLY | O_CREAT | O_TRUNC, &fd), -ESLURMD_IO_ERROR);
	/* no writer, as stdin */
	assert_int_equal(open_as_me(fifo, O_RDONLY, &fd), -ESLURMD_IO_ERROR);
	assert_int_equal(fd, -1);
}

static void test_a_directory_and_a_socket_are_refused(void **state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = -1, sk;

	(void)state;
	assert_int_equal(open_as_me(dir, O_RDONLY, &fd), -ESLURMD_IO_ERROR);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	sk = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(sk >= 0);
	assert_int_equal(bind(sk, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(sk, 1), 0);
	assert_int_equal(open_as_me(sa.sun_path, O_WRONLY | O_CREAT, &fd), -ESLURMD_IO_ERROR);
	assert_int_equal(fd, -1);
	close(sk);
}

static void test_files_and_dev_null_are_opened_blocking(void **state)
{
	char path[sizeof(dir) + 8];
	int fd = -1;

	(void)state;
	snprintf(path, sizeof(path), "%s/out", dir);
	assert_int_equal(open_as_me(path, O_WRONLY | O_CREAT | O_TRUNC, &fd), 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	assert_int_equal(open_as_me("/dev/null", O_RDONLY, &fd), 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a_fifo_is_refused_without_blocking),
	    cmocka_unit_test(test_a_directory_and_a_socket_are_refused),
	    cmocka_unit_test(test_files_and_dev_null_are_opened_blocking),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
