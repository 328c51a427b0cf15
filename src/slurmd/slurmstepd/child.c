/* child.c - the tasks as processes: vfork, and what each child does before
 * exec, for a step's tasks and the batch script alike (the script is the
 * one task of its step).
 *
 * vfork, not fork: copying the stepd's page tables and then taking its
 * copy-on-write faults was a third of a stepd's CPU for a trivial job.
 * The child shares the stepd's memory until it execs, so everything that
 * allocates (the task's environment) is done before, in the stepd, and
 * the child only makes system calls and writes its pid into the room kept
 * for it (env_task_pid). Every signal is blocked around the vfork, so no
 * handler of the stepd runs in the child before it resets them. A stepd
 * that has started threads (PMIx's) forks instead: glibc's setuid and
 * setgroups in a vfork child would coordinate with the parent's threads
 * through memory they share.
 *
 * The child runs in its own session (so its process group is its pid),
 * with its fds on 0/1/2, nothing else open, default signal dispositions
 * and an empty signal mask; then the user's identity, the work dir (or
 * /tmp with Slurm's error line), the job's umask (and srun's nice),
 * the task's environment, and exec of s->exec. A failure is Slurm's
 * error line on the task's stderr and an exit code: 1 before exec,
 * exec_fail_exit when exec fails. The child has no log.
 */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/single_threaded.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/job_env.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/multi_prog.h"
#include "common/sl_errno.h"
#include "cgroup.h"
#include "affinity.h"
#include "env.h"
#include "gpu_task.h"
#include "pmi.h"
#include "pmix_srv.h"
#include "loop.h"
#include "privs.h"
#include "step.h"
#include "stepd.h"
#include "task_script.h"

extern char **environ;

/* "<prefix>: error: <text>" on the task's stderr (fd 2). */
static void child_error(const struct stepd *s, const char *fmt, ...) _printf_(2, 3);
static void child_error(const struct stepd *s, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	dprintf(STDERR_FILENO, "%s: error: %s\n", s->exec.prefix, text);
}

/* Every fd from first up closed. */
static void child_close_fds(int first)
{
	long max = sysconf(_SC_OPEN_MAX);

	if (close_range((unsigned)first, ~0u, 0) == 0)
		return;
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = first; fd < max; fd++)
		close(fd);
}

/* Empty signal mask, default dispositions, a new session, the three fds
 * on 0/1/2 and the PMI one (>= 0) on PMI_TASK_FD (_exit(127) when that
 * fails), every other fd closed. */
static void child_setup(const int fd[3], int pmi_fd)
{
	sigset_t none;

	/* the dispositions first: a signal unblocked before would run the
	 * stepd's handler in a child that shares its memory */
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	if (dup2(fd[0], STDIN_FILENO) < 0 || dup2(fd[1], STDOUT_FILENO) < 0
	    || dup2(fd[2], STDERR_FILENO) < 0)
		_exit(127);
	if (pmi_fd < 0) {
		child_close_fds(3);
		return;
	}
	if (pmi_fd == PMI_TASK_FD ? fcntl(pmi_fd, F_SETFD, 0) < 0
				  : dup2(pmi_fd, PMI_TASK_FD) < 0) /* dup2 clears FD_CLOEXEC */
		_exit(127);
	child_close_fds(PMI_TASK_FD + 1);
}

/* SLURM_PRIO_PROCESS from srun's environment: the task's nice value. */
static void child_nice(const struct stepd *s)
{
	const char *v = job_env_get(&s->env, "SLURM_PRIO_PROCESS");
	char *end;
	long n;

	if (!v)
		return;
	n = strtol(v, &end, 10);
	if (*end == '\0' && n >= -20 && n <= 19)
		(void)setpriority(PRIO_PROCESS, 0, (int)n);
}

/* The submitting shell's limits (SLURM_RLIMIT_*), as far as
 * PropagateResourceLimits[Except] lets them through; a soft limit is
 * raised at most to the hard limit this process has. Runs as the user. */
static void child_rlimits(const struct stepd *s)
{
	const char *prop = s->conf ? s->conf->propagate_rlimits : NULL;
	const char *except = s->conf ? s->conf->propagate_rlimits_except : NULL;

	for (size_t i = 0; i < job_env_rlimits_count; i++) {
		const struct job_env_rlimit *l = &job_env_rlimits[i];
		char name[32];
		struct rlimit rl;
		uint64_t v;
		bool is_forced;

		snprintf(name, sizeof(name), "SLURM_RLIMIT_%s", l->name);
		if (job_env_rlimit_parse(env_launch_get(s, name), &v, &is_forced) < 0)
			continue;
		if (!is_forced && !job_env_rlimit_is_propagated(l->name, prop, except))
			continue;
		if (getrlimit(l->resource, &rl) < 0)
			continue;
		rl.rlim_cur =
		    v == (uint64_t)RLIM_INFINITY || v > rl.rlim_max ? rl.rlim_max : (rlim_t)v;
		(void)setrlimit(l->resource, &rl);
	}
}

static void child_chdir(const struct stepd *s)
{
	const char *cwd = s->exec.cwd;

	if (cwd && chdir(cwd) == 0)
		return;
	child_error(s, "couldn't chdir to `%s': %s: going to /tmp instead", cwd ? cwd : "(null)",
		    cwd ? strerror(errno) : "No such file or directory");
	if (chdir("/tmp") < 0) {
		child_error(s, "couldn't chdir to /tmp either. dying.");
		_exit(1);
	}
}

/* srun --multi-prog: the step's argv[0] is the configuration file, read
 * here as the user; the task's own program and arguments (then the
 * step's argv[1..]) come from it (multi_prog.h). NULL with the task's
 * stderr saying why. */
static bool is_multi_prog(const struct stepd *s)
{
	return s->launch && (s->launch->flags & LAUNCH_MULTI_PROG);
}

static char **child_multi_prog(const struct stepd *s, const struct step_task *t)
{
	const char *path = s->exec.argv[0];
	char *text = NULL, **argv = NULL;
	size_t n_extra = 0;
	unsigned line = 0;
	int r = multi_prog_read(path, &text);

	if (r < 0) {
		child_error(s, "Unable to open configuration file %s: %s", path, strerror(-r));
		return NULL;
	}
	while (s->exec.argv[1 + n_extra])
		n_extra++;
	r = multi_prog_argv(text, t->gtid, s->exec.argv + 1, n_extra, &argv, &line);
	free(text);
	if (r == -ENOENT)
		child_error(s, "No executable program specified for this task");
	else if (r < 0)
		child_error(s, "Invalid line %u of configuration file %s", line, path);
	return r < 0 ? NULL : argv;
}

static _Noreturn void child_exec(struct stepd *s, struct step_task *t)
{
	char **argv = s->exec.argv;
	int r;

	/* job_container/tmpfs: the job's private /tmp (cwd and root become
	 * the namespace's; child_chdir sets the task's below); before
	 * child_setup closes every other descriptor */
	if (s->ns_fd >= 0 && setns(s->ns_fd, CLONE_NEWNS) < 0) {
		int e = errno;

		child_setup(t->child_fd, pmi_child_fd(s, t->ltid));
		child_error(s, "cannot join the job's namespace: %s", strerror(e));
		_exit(1);
	}
	child_setup(t->child_fd, pmi_child_fd(s, t->ltid));
	if (t->is_pty && ioctl(STDIN_FILENO, TIOCSCTTY, 0) < 0) {
		child_error(s, "cannot make the pseudo-terminal its terminal: %s", strerror(errno));
		_exit(1);
	}
	r = cgroup_task_join(s, t->ltid); /* before exec: nothing escapes its cgroup */
	if (r < 0) {
		child_error(s, "cannot join the step's cgroup: %s", strerror(-r));
		_exit(1);
	}
	affinity_apply(s, t->ltid); /* within the cgroup's cpuset */
	if (s->gpu_verbose[0]) /* --gpu-bind=verbose, made by env_task() */
		(void)!write(STDERR_FILENO, s->gpu_verbose, strlen(s->gpu_verbose));
	r = privs_drop_final(s);
	if (r < 0) {
		child_error(s, "cannot run as uid %u gid %u: %s", s->uid, s->gid, strerror(-r));
		_exit(1);
	}
	child_chdir(s);
	umask(s->umask);
	if (s->exec.has_nice)
		child_nice(s);
	env_task_pid(s, getpid());
	child_rlimits(s);
	if (task_script_has_prolog(s)) { /* a forked child: it may allocate */
		r = task_script_prolog(s);
		if (r)
			_exit(r);
	}
	if (is_multi_prog(s)) { /* a forked child: it may allocate */
		argv = child_multi_prog(s, t);
		if (!argv)
			_exit(s->exec.exec_fail_exit);
		environ = s->env.v;
		execvpe(argv[0], argv, s->env.v);
		child_error(s, "execve(): %s: %s", argv[0], strerror(errno));
		_exit(s->exec.exec_fail_exit);
	}
	environ = s->env.v; /* execvpe searches the task's PATH, not ours */
	if (s->exec.is_path_search)
		execvpe(argv[0], argv, s->env.v);
	else
		execve(argv[0], argv, s->env.v);
	child_error(s, "execve(): %s: %s", argv[0], strerror(errno));
	_exit(s->exec.exec_fail_exit);
}

/* The task's child, every signal blocked around the vfork; in the
 * stepd its pid (or -1, errno set). Its own function, so that what lives
 * across the vfork is only this frame's, kept in memory (volatile). */
static __attribute__((noinline)) pid_t child_vfork(struct stepd *s, struct step_task *t)
{
	char **volatile our_environ = environ; /* the child sets it for execvpe */
	sigset_t all, was;
	pid_t pid;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	/* a task prolog's output, or --multi-prog's file, is read in the
	 * child: fork for them */
	pid = __libc_single_threaded && !task_script_has_prolog(s) && !is_multi_prog(s) ? vfork()
											: fork();
	if (pid == 0)
		child_exec(s, t);
	e = errno;
	environ = our_environ;
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	errno = e;
	return pid;
}

int child_start(struct stepd *s)
{
	struct step *st = s->step;
	int r = 0;

	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];
		pid_t pid = -1;

		/* the task's own variables, made here: the child allocates nothing */
		if (env_task(s, t->ltid) < 0 || gpu_task_env(s, t->ltid) < 0
		    || pmi_task_env(s, t->ltid) < 0
		    || pmix_srv_task_env(s, t->ltid) < 0)
			error("%s: task %u: cannot build its environment", s->label, t->gtid);
		else if ((pid = child_vfork(s, t)) < 0)
			error("%s: fork: %s", s->label, strerror(errno));
		if (pid < 0) {
			r = -ESLURMD_EXECVE_FAILED;
			/* the ones not started count as failed to exec */
			for (uint32_t k = i; k < st->ntasks; k++) {
				st->tasks[k].has_exited = true;
				st->tasks[k].status = s->exec.exec_fail_exit << 8;
				st->tasks[k].exit_ms = loop_now_ms();
			}
			break;
		}
		if (pid == 0)
			child_exec(s, t);
		t->pid = pid;
		verbose("%s: task %u started as pid %d, uid %u", s->label, t->gtid, (int)pid,
			s->uid);
	}
	/* The tasks have their copies; the files and pipe ends go. */
	step_close_child_fds(st);
	return r;
}
