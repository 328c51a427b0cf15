/* task_stdio.c - a step's tasks' stdio: pipes to the stepd (carried to
 * and from srun by step_io.c), or files from srun's -o/-e/-i patterns
 * opened as the user. The children get them in child.c.
 *
 * Files: a pattern is expanded per task (%t, %n, %N, %j, %s, %J, %u, %x,
 * %A, %a) relative to the task's cwd; tasks whose stdout/stderr expand to
 * the same path share one open file (one offset), stderr without a
 * pattern of its own goes where stdout goes when stdout has one. "none"
 * is /dev/null. A pattern of digits only (srun's --output=<task>) is
 * srun's business: the stream is piped to srun as usual.
 *
 * Caveat: all of it happens before "started" is reported: a file that
 * cannot be opened fails the launch (ESLURMD_IO_ERROR).
 */
#include "task_stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <pty.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/path_pattern.h"
#include "common/sl_errno.h"
#include "io.h"
#include "step.h"
#include "stepd.h"

static bool task_stdio_is_streamed(const char *pattern)
{
	if (!pattern || !*pattern)
		return true;
	return strspn(pattern, "0123456789") == strlen(pattern);
}

static int task_stdio_expand(const struct stepd *s, const char *pattern, const struct step_task *t,
			     char **ret)
{
	const struct launch_tasks_msg *m = s->launch;
	const char *name = job_env_get(&s->env, "SLURM_JOB_NAME");
	struct path_pattern_job j = {
	    .job_id = s->job_id,
	    .array_job_id = s->job_id,
	    .array_task_id = NO_VAL,
	    .step_id = s->step_id,
	    .node_id = m->node_id,
	    .task_id = t->gtid,
	    .job_name = name,
	    .node_name = s->node_name,
	    .user_name = s->user_name,
	    .work_dir = m->cwd,
	};

	if (streq(pattern, "none"))
		return (*ret = strdup("/dev/null")) ? 0 : -ENOMEM;
	return path_pattern_expand(pattern, &j, ret);
}

/* An output file, opened once per distinct path (paths[i] <-> shared_fds[i]). */
static int task_stdio_shared(struct stepd *s, char ***paths, const char *what, const char *path,
			     int *ret_fd)
{
	struct step *st = s->step;
	const struct launch_tasks_msg *m = s->launch;
	int flags = O_WRONLY | O_CREAT | (m->open_mode == OPEN_MODE_APPEND ? O_APPEND : O_TRUNC);
	char **np;
	int *nf, fd, r;

	for (size_t i = 0; i < st->nshared; i++)
		if (streq((*paths)[i], path)) {
			*ret_fd = st->shared_fds[i];
			return 0;
		}
	np = realloc(*paths, (st->nshared + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	*paths = np;
	nf = realloc(st->shared_fds, (st->nshared + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	st->shared_fds = nf;
	np[st->nshared] = strdup(path);
	if (!np[st->nshared])
		return -ENOMEM;
	r = io_open_as_user(s, what, path, flags, &fd);
	if (r < 0) {
		free(np[st->nshared]);
		return r;
	}
	nf[st->nshared++] = fd;
	*ret_fd = fd;
	return 0;
}

static int task_stdio_pipe(int *ours, int *theirs, bool is_ours_write)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	*ours = is_ours_write ? p[1] : p[0];
	*theirs = is_ours_write ? p[0] : p[1];
	if (fcntl(*ours, F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* --pty, task 0: a pseudo-terminal, the user's, as its stdin, stdout and
 * stderr; our ends (both the master) are non-blocking. */
static int task_stdio_pty(struct stepd *s, struct step_task *t)
{
	int master, slave;

	if (openpty(&master, &slave, NULL, NULL, NULL) < 0)
		return -errno;
	t->is_pty = true;
	t->in_fd = master;
	t->child_fd[0] = slave;
	if (fcntl(master, F_SETFD, FD_CLOEXEC) < 0 || fcntl(slave, F_SETFD, FD_CLOEXEC) < 0
	    || fcntl(master, F_SETFL, O_NONBLOCK) < 0
	    || (t->out_fd = fcntl(master, F_DUPFD_CLOEXEC, 0)) < 0
	    || (t->child_fd[1] = fcntl(slave, F_DUPFD_CLOEXEC, 0)) < 0
	    || (t->child_fd[2] = fcntl(slave, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	if (fchown(slave, s->uid, (gid_t)-1) < 0 || fchmod(slave, 0620) < 0)
		return -errno;
	return 0;
}

static int task_stdio_one(struct stepd *s, struct step_task *t, char ***paths)
{
	const struct launch_tasks_msg *m = s->launch;
	bool is_out_file = !task_stdio_is_streamed(m->ofname),
	     is_err_file = !task_stdio_is_streamed(m->efname);
	_cleanup_free_ char *out = NULL, *err = NULL, *in = NULL;
	int r;

	if ((m->flags & LAUNCH_PTY) && t->gtid == 0)
		return task_stdio_pty(s, t);
	if (task_stdio_is_streamed(m->ifname)) {
		r = task_stdio_pipe(&t->in_fd, &t->child_fd[0], true);
	} else {
		r = task_stdio_expand(s, m->ifname, t, &in);
		if (r == 0)
			r = io_open_as_user(s, "stdin", in, O_RDONLY, &t->child_fd[0]);
	}
	if (r < 0)
		return r;
	if (is_out_file) {
		r = task_stdio_expand(s, m->ofname, t, &out);
		if (r == 0)
			r = task_stdio_shared(s, paths, "stdout", out, &t->child_fd[1]);
	} else {
		r = task_stdio_pipe(&t->out_fd, &t->child_fd[1], false);
	}
	if (r < 0)
		return r;
	if (is_err_file || (is_out_file && !m->efname)) {
		r = task_stdio_expand(s, is_err_file ? m->efname : m->ofname, t, &err);
		if (r == 0)
			r = task_stdio_shared(s, paths, "stderr", err, &t->child_fd[2]);
	} else {
		r = task_stdio_pipe(&t->err_fd, &t->child_fd[2], false);
	}
	return r;
}

int task_stdio_open(struct stepd *s)
{
	struct step *st = s->step;
	char **paths = NULL;
	int r = 0;

	for (uint32_t i = 0; i < st->ntasks && r == 0; i++)
		r = task_stdio_one(s, &st->tasks[i], &paths);
	for (size_t i = 0; i < st->nshared; i++)
		free(paths[i]);
	free(paths);
	if (r == -ENOMEM || r == -EINVAL)
		return log_errno(-ESLURMD_IO_ERROR, "StepId=%u.%u: cannot set up task I/O: %s",
				 s->job_id, s->step_id, strerror(-r));
	if (r < 0 && r != -ESLURMD_IO_ERROR && r != -ESLURMD_SET_UID_OR_GID_ERROR)
		return log_errno(-ESLURMD_IO_ERROR, "StepId=%u.%u: task pipes: %s", s->job_id,
				 s->step_id, strerror(-r));
	return r;
}
