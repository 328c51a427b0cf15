/* io.c - files opened as the job's user, the batch script's stdin,
 * stdout and stderr files, and the form of the stepd's error lines.
 *
 * Patterns (default slurm-%j.out, arrays slurm-%A_%a.out; stderr defaults
 * to stdout's file, stdin to /dev/null) are expanded by path_pattern,
 * relative to the work dir, and opened here in the stepd with the user's
 * identity (so they are created as the user, with the job's umask), before
 * the script starts. Missing directories of an output file are created
 * the same way; a file that still cannot be opened fails the launch. They
 * are the child fds of the script's task (step.h); the stepd keeps a copy
 * of stderr (s->err_fd) to write its own error lines there, sharing the
 * file offset with the script.
 *
 * Hostile paths: the open is the user's (privs_drop_temp: euid, egid and
 * groups), so a symlink or a path into a root-only directory gets only
 * what the user could open; symlinks are followed as Slurm does (no
 * O_NOFOLLOW: a link to the user's own file is a common setup). Only
 * regular files and /dev/null are accepted, opened non-blocking first: a
 * FIFO, socket, tty or other device fails the launch instead of hanging
 * the stepd (Slurm would block in open(2) on a FIFO).
 */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/path_pattern.h"
#include "common/sl_errno.h"
#include "common/stepd_proto.h"
#include "privs.h"
#include "step.h"
#include "stepd.h"

/* mkdir -p of path's directory, with the caller's identity and umask:
 * the kernel decides what the user may create. 0, or the first error. */
static int io_make_parents(const char *path)
{
	_cleanup_free_ char *dir = strdup(path);
	char *slash;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		bool is_end = *p == '\0';

		if (*p != '/' && !is_end)
			continue;
		*p = '\0';
		if (mkdir(dir, 0777) < 0 && errno != EEXIST)
			return -errno;
		if (is_end)
			return 0;
		*p = '/';
	}
}

/* /dev/null, wherever the user's path names it from. */
static bool io_is_dev_null(const struct stat *st)
{
	struct stat null_st;

	return S_ISCHR(st->st_mode) && stat("/dev/null", &null_st) == 0 && S_ISCHR(null_st.st_mode)
	       && st->st_rdev == null_st.st_rdev;
}

/* open(2) that cannot hang the stepd: O_NONBLOCK, so a FIFO without a
 * peer (or a device that waits for a carrier) returns at once, then
 * anything but a regular file or /dev/null is refused (-EFTYPE_IO; the
 * task's writes to a FIFO or a tty could still block us later, on the
 * stderr copy we keep). The file is blocking again for the task. */
#define EFTYPE_IO 1000000 /* not an errno: "not a regular file" */
static int io_open_file(const char *path, int flags, int *ret_fd)
{
	struct stat st;
	int fd = open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0666);

	if (fd < 0)
		return errno == ENXIO ? -EFTYPE_IO : -errno; /* ENXIO: a FIFO, no reader */
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || io_is_dev_null(&st))) {
		close(fd);
		return -EFTYPE_IO;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int io_open_as_user(const struct stepd *s, const char *what, const char *path, int flags,
		    int *ret_fd)
{
	struct privs_saved sv;
	int fd = -1, r;

	r = privs_drop_temp(s, &sv);
	if (r < 0)
		return log_errno(-ESLURMD_SET_UID_OR_GID_ERROR,
				 "JobId=%u: cannot become uid %u (%s)", s->job_id, s->uid,
				 strerror(-r));
	r = io_open_file(path, flags, &fd);
	/* An output file in a directory not made yet (a client that creates
	 * it right after sbatch returns races our start): make it, as the
	 * user, then try once more. Slurm fails such a job. */
	if (r == -ENOENT && (flags & O_CREAT) && path[0] == '/') {
		r = io_make_parents(path);
		if (r == 0)
			r = io_open_file(path, flags, &fd);
	}
	privs_restore(&sv);
	if (r < 0) {
		error("JobId=%u: Could not open %s file %s: %s", s->job_id, what, path,
		      r == -EFTYPE_IO ? "Not a regular file" : strerror(-r));
		return -ESLURMD_IO_ERROR;
	}
	*ret_fd = fd;
	return 0;
}

static int io_expand(const struct stepd *s, const char *pattern, char **ret)
{
	const struct batch_launch_msg *m = s->msg;
	struct path_pattern_job j = {
	    .job_id = m->job_id,
	    .array_job_id = m->array_job_id,
	    .array_task_id = m->array_task_id,
	    .step_id = PATH_PATTERN_STEP_BATCH,
	    .job_name = m->job_name,
	    .node_name = s->hostname, /* %N: the host, as the reference shows */
	    .user_name = m->user_name,
	    .work_dir = m->work_dir,
	};

	return path_pattern_expand(pattern, &j, ret);
}

int io_open_batch(struct stepd *s)
{
	const struct batch_launch_msg *m = s->msg;
	const char *out_pat = m->std_out && *m->std_out
				  ? m->std_out
				  : path_pattern_default_stdout(m->array_task_id != NO_VAL);
	const char *err_pat = m->std_err && *m->std_err ? m->std_err : out_pat;
	const char *in_pat = m->std_in && *m->std_in ? m->std_in : "/dev/null";
	_cleanup_free_ char *out = NULL, *err = NULL, *in = NULL;
	int wflags = O_WRONLY | O_CREAT | (m->open_mode == OPEN_MODE_APPEND ? O_APPEND : O_TRUNC);
	int *fd = s->step->tasks[0].child_fd;
	int r;

	if (io_expand(s, out_pat, &out) < 0 || io_expand(s, err_pat, &err) < 0
	    || io_expand(s, in_pat, &in) < 0)
		return -ENOMEM;
	r = io_open_as_user(s, "stdin", in, O_RDONLY, &fd[0]);
	if (r == 0)
		r = io_open_as_user(s, "stdout", out, wflags, &fd[1]);
	if (r < 0)
		return r;
	if (streq(out, err)) {
		fd[2] = fcntl(fd[1], F_DUPFD_CLOEXEC, 3);
		r = fd[2] < 0 ? -errno : 0;
	} else {
		r = io_open_as_user(s, "stderr", err, wflags, &fd[2]);
	}
	if (r < 0)
		return r;
	s->err_fd = fcntl(fd[2], F_DUPFD_CLOEXEC, 3); /* ours, once the script has its own */
	return s->err_fd < 0 ? -errno : 0;
}

void io_close(struct stepd *s)
{
	if (s->err_fd >= 0)
		close(s->err_fd);
	s->err_fd = -1;
}

size_t io_error_line(char *line, size_t size, const char *node, const char *eol, const char *fmt,
		     va_list ap)
{
	char text[1024];
	int n;

	vsnprintf(text, sizeof(text), fmt, ap);
	error("%s", text);
	n = snprintf(line, size, "slurmstepd%s%s: error: %s%s", node ? "-" : "", node ? node : "",
		     text, eol);
	if (n <= 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}
