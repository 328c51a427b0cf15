/* task.c - the batch script as a process: fork, become the user, exec;
 * and reaping (wait4) of it (or of a step's tasks) and of every orphan of
 * the job that comes back to the stepd (a child subreaper), whose usage
 * goes to usage.c.
 *
 * The child runs in its own session (so its process group is its pid),
 * with the job's files on 0/1/2, nothing else open, default signal
 * dispositions and an empty signal mask, the job's umask and environment,
 * in the work dir (or /tmp, with Slurm's error line, when that fails).
 * argv[0] is the script's spool path, as Slurm's $0.
 */
#include "stepd.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "step.h"

/* The child has no log: its errors go to the job's stderr (fd 2). */
static void child_error(const struct stepd *s, const char *fmt, ...) _printf_(2, 3);
static void child_error(const struct stepd *s, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	dprintf(STDERR_FILENO, "slurmstepd-%s: error: %s\n", s->node_name, text);
}

static void child_close_fds(void)
{
	long max = sysconf(_SC_OPEN_MAX);

	if (close_range(3, ~0u, 0) == 0)
		return;
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++)
		close(fd);
}

void task_child_setup(int in_fd, int out_fd, int err_fd)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	setsid();
	if (dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0
	    || dup2(err_fd, STDERR_FILENO) < 0)
		_exit(127);
	child_close_fds();
}

static _Noreturn void child_exec(struct stepd *s, char **argv)
{
	const struct batch_launch_msg *m = s->msg;
	int r;

	task_child_setup(s->in_fd, s->out_fd, s->err_fd);
	r = privs_drop_final(s);
	if (r < 0) {
		child_error(s, "cannot run as uid %u gid %u: %s", m->uid, m->gid, strerror(-r));
		_exit(1);
	}
	if (!m->work_dir || chdir(m->work_dir) < 0) {
		child_error(s, "couldn't chdir to `%s': %s: going to /tmp instead",
			    m->work_dir ? m->work_dir : "(null)", strerror(errno));
		if (chdir("/tmp") < 0) {
			child_error(s, "couldn't chdir to /tmp either. dying.");
			_exit(1);
		}
	}
	umask(s->umask);
	job_env_set(&s->env, "SLURM_TASK_PID", "%d", (int)getpid());
	execve(argv[0], argv, s->env.v);
	child_error(s, "execve(): %s: %s", argv[0], strerror(errno));
	_exit(127);
}

int task_start(struct stepd *s)
{
	const struct batch_launch_msg *m = s->msg;
	_cleanup_free_ char **argv = calloc((size_t)m->argc + 2, sizeof(*argv));
	pid_t pid;

	if (!argv)
		return -ENOMEM;
	argv[0] = s->script_path;
	for (uint32_t i = 1; i < m->argc; i++)
		argv[i] = m->argv[i];
	pid = fork();
	if (pid < 0)
		return log_errno(-ESLURMD_EXECVE_FAILED, "JobId=%u: fork: %s", m->job_id,
				 strerror(errno));
	if (pid == 0)
		child_exec(s, argv);
	s->pid = pid;
	/* The script has its copies; ours of stdin/stdout are no longer needed. */
	close(s->in_fd);
	close(s->out_fd);
	s->in_fd = s->out_fd = -1;
	verbose("JobId=%u: script started as pid %d, uid %u", m->job_id, (int)pid, m->uid);
	return 0;
}

void task_reap(struct stepd *s)
{
	for (;;) {
		struct rusage ru;
		int status;
		pid_t pid = wait4(-1, &status, WNOHANG, &ru);

		if (pid <= 0)
			break;
		usage_reaped(s, pid, &ru);
		if (s->step) {
			step_task_reaped(s, pid, status);
		} else if (pid == s->pid && !s->has_exited) {
			s->status = status;
			s->has_exited = true;
			verbose("JobId=%u: script exited, status 0x%x", s->job_id,
				(unsigned)status);
		}
	}
}
