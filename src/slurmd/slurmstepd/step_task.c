/* step_task.c - the step's tasks as processes: their stdio (pipes to the
 * stepd, or files from srun's -o/-e/-i patterns opened as the user), the
 * fork, and what each child does before exec.
 *
 * Files: a pattern is expanded per task (%t, %n, %N, %j, %s, %J, %u, %x,
 * %A, %a) relative to the task's cwd; tasks whose stdout/stderr expand to
 * the same path share one open file (one offset), stderr without a
 * pattern of its own goes where stdout goes when stdout has one. "none"
 * is /dev/null. A pattern of digits only (srun's --output=<task>) is
 * srun's business: the stream is piped to srun as usual.
 *
 * Child: own session (its process group is its pid), default signals,
 * empty mask, the user's identity, cwd (or /tmp with Slurm's error line),
 * srun's umask and nice, environment = the step's + its own ids, then
 * execvpe() through the task's PATH; a failure is Slurm's error line on
 * its stderr and exit code 2.
 */
#include "step.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/path_pattern.h"
#include "common/sl_errno.h"
#include "stepd.h"

extern char **environ;

#define EXEC_FAILED_EXIT 2

static bool is_streamed(const char *pattern)
{
	if (!pattern || !*pattern)
		return true;
	return strspn(pattern, "0123456789") == strlen(pattern);
}

static int expand(const struct stepd *s, const char *pattern, const struct step_task *t, char **ret)
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
static int open_shared(struct stepd *s, char ***paths, const char *what, const char *path,
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

static int pipe_pair(int *ours, int *theirs, bool is_ours_write)
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

static int task_stdio(struct stepd *s, struct step_task *t, char ***paths)
{
	const struct launch_tasks_msg *m = s->launch;
	bool is_out_file = !is_streamed(m->ofname), is_err_file = !is_streamed(m->efname);
	_cleanup_free_ char *out = NULL, *err = NULL, *in = NULL;
	int r;

	if (is_streamed(m->ifname)) {
		r = pipe_pair(&t->in_fd, &t->child_fd[0], true);
	} else {
		r = expand(s, m->ifname, t, &in);
		if (r == 0)
			r = io_open_as_user(s, "stdin", in, O_RDONLY, &t->child_fd[0]);
	}
	if (r < 0)
		return r;
	if (is_out_file) {
		r = expand(s, m->ofname, t, &out);
		if (r == 0)
			r = open_shared(s, paths, "stdout", out, &t->child_fd[1]);
	} else {
		r = pipe_pair(&t->out_fd, &t->child_fd[1], false);
	}
	if (r < 0)
		return r;
	if (is_err_file || (is_out_file && !m->efname)) {
		r = expand(s, is_err_file ? m->efname : m->ofname, t, &err);
		if (r == 0)
			r = open_shared(s, paths, "stderr", err, &t->child_fd[2]);
	} else {
		r = pipe_pair(&t->err_fd, &t->child_fd[2], false);
	}
	return r;
}

int step_task_files(struct stepd *s)
{
	struct step *st = s->step;
	char **paths = NULL;
	int r = 0;

	for (uint32_t i = 0; i < st->ntasks && r == 0; i++)
		r = task_stdio(s, &st->tasks[i], &paths);
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

/* The child has no log: errors go to the task's stderr (fd 2). */
static void child_error(const char *fmt, ...) _printf_(1, 2);
static void child_error(const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	dprintf(STDERR_FILENO, "slurmstepd: error: %s\n", text);
}

/* SLURM_UMASK (parsed by main.c) / SLURM_PRIO_PROCESS from srun's environment. */
static void child_umask_nice(const struct stepd *s)
{
	const char *v;
	char *end;
	long n;

	umask(s->umask);
	v = job_env_get(&s->env, "SLURM_PRIO_PROCESS");
	if (!v)
		return;
	n = strtol(v, &end, 10);
	if (*end == '\0' && n >= -20 && n <= 19)
		(void)setpriority(PRIO_PROCESS, 0, (int)n);
}

static _Noreturn void child_exec(struct stepd *s, struct step_task *t)
{
	const struct launch_tasks_msg *m = s->launch;
	char **argv;
	int r;

	task_child_setup(t->child_fd[0], t->child_fd[1], t->child_fd[2]);
	r = privs_drop_final(s);
	if (r < 0) {
		child_error("cannot run as uid %u gid %u: %s", s->uid, s->gid, strerror(-r));
		_exit(1);
	}
	if (!m->cwd || chdir(m->cwd) < 0) {
		child_error("couldn't chdir to `%s': %s: going to /tmp instead",
			    m->cwd ? m->cwd : "(null)",
			    m->cwd ? strerror(errno) : "No such file or directory");
		if (chdir("/tmp") < 0) {
			child_error("couldn't chdir to /tmp either. dying.");
			_exit(1);
		}
	}
	child_umask_nice(s);
	if (job_env_step_task(&s->env, m, t->ltid) < 0
	    || job_env_set(&s->env, "SLURM_TASK_PID", "%d", (int)getpid()) < 0) {
		child_error("cannot build the environment");
		_exit(1);
	}
	argv = calloc((size_t)m->argc + 1, sizeof(*argv)); /* unpacked without the NULL */
	if (!argv) {
		child_error("cannot build the command line");
		_exit(1);
	}
	for (uint32_t i = 0; i < m->argc; i++)
		argv[i] = m->argv[i] ? m->argv[i] : "";
	environ = s->env.v; /* execvpe searches the task's PATH, not ours */
	execvpe(argv[0], argv, s->env.v);
	child_error("execve(): %s: %s", argv[0], strerror(errno));
	_exit(EXEC_FAILED_EXIT);
}

int step_task_start(struct stepd *s)
{
	struct step *st = s->step;

	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];
		pid_t pid = fork();

		if (pid < 0) {
			error("StepId=%u.%u: fork: %s", s->job_id, s->step_id, strerror(errno));
			/* the ones not started count as failed to exec */
			for (uint32_t k = i; k < st->ntasks; k++) {
				st->tasks[k].has_exited = true;
				st->tasks[k].status = EXEC_FAILED_EXIT << 8;
				st->tasks[k].exit_ms = stepd_now_ms();
			}
			break;
		}
		if (pid == 0)
			child_exec(s, t);
		t->pid = pid;
		verbose("StepId=%u.%u: task %u started as pid %d", s->job_id, s->step_id, t->gtid,
			(int)pid);
	}
	/* The tasks have their copies; the stdin files and pipe ends go. */
	for (uint32_t i = 0; i < st->ntasks; i++)
		for (int k = 0; k < 3; k++) {
			int fd = st->tasks[i].child_fd[k];
			bool is_shared = false;

			for (size_t j = 0; j < st->nshared; j++)
				is_shared |= st->shared_fds[j] == fd;
			if (fd >= 0 && !is_shared)
				close(fd);
			st->tasks[i].child_fd[k] = -1;
		}
	for (size_t j = 0; j < st->nshared; j++)
		close(st->shared_fds[j]);
	st->nshared = 0;
	return 0;
}

bool step_task_reaped(struct stepd *s, pid_t pid, int status)
{
	struct step *st = s->step;
	bool is_all = true, is_task = false;

	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];

		if (t->pid == pid && !t->has_exited) {
			t->has_exited = true;
			t->status = status;
			t->exit_ms = stepd_now_ms();
			is_task = true;
			verbose("StepId=%u.%u: task %u exited, status 0x%x", s->job_id, s->step_id,
				t->gtid, (unsigned)status);
		}
		is_all &= t->has_exited;
	}
	if (is_all && !s->has_exited) {
		s->has_exited = true;
		s->status = 0;
		for (uint32_t i = 0; i < st->ntasks; i++)
			s->status = step_status_max(s->status, st->tasks[i].status);
	}
	return is_task;
}
