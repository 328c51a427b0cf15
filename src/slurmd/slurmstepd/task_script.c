/* task_script.c - see task_script.h. */
#include "task_script.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/job_env.h"
#include "common/log.h"
#include "common/msg.h"
#include "env.h"
#include "privs.h"
#include "step.h"
#include "stepd.h"

static const char *launch_prolog(const struct stepd *s)
{
	return s->launch ? s->launch->task_prolog : NULL;
}

static const char *launch_epilog(const struct stepd *s)
{
	return s->launch ? s->launch->task_epilog : NULL;
}

/* SLURM_GET_USER_ENV=1 (sbatch --get-user-env, or an --export other
 * than ALL): the batch script also gets the user's login environment. */
static bool wants_user_env(const struct stepd *s)
{
	const char *v = s->is_batch ? job_env_get(&s->env, "SLURM_GET_USER_ENV") : NULL;

	return v && strcmp(v, "1") == 0;
}

bool task_script_has_prolog(const struct stepd *s)
{
	return s->conf->task_prolog || launch_prolog(s) || wants_user_env(s);
}

/* A pidfd for pid (Linux 5.3): poll()able until the process exits. */
static int pid_fd(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Wait for pid, at most timeout_ms (< 0: for ever), then kill it. Its
 * wait status, or -1. */
static int wait_bounded(pid_t pid, int timeout_ms)
{
	int fd = pid_fd(pid), status = -1;

	if (fd >= 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r;

		do
			r = poll(&p, 1, timeout_ms);
		while (r < 0 && errno == EINTR);
		close(fd);
		if (r == 0)
			kill(-pid, SIGKILL); /* past the timeout: its session */
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* One line of a prolog's output. */
static void prolog_line(struct stepd *s, char *line)
{
	char *eq;

	if (strncmp(line, "print ", 6) == 0) {
		size_t n = strlen(line + 6);

		line[6 + n] = '\n';
		(void)!write(STDOUT_FILENO, line + 6, n + 1);
		line[6 + n] = '\0';
	} else if (strncmp(line, "export ", 7) == 0 && (eq = strchr(line + 7, '='))) {
		char *name = line + 7;

		while (*name == ' ')
			name++;
		*eq = '\0';
		if (*name)
			(void)job_env_set(&s->env, name, "%s", eq + 1);
	} else if (strncmp(line, "unset ", 6) == 0) {
		char *name = line + 6;

		while (*name == ' ')
			name++;
		if (*name)
			job_env_unset(&s->env, name);
	}
}

/* Run path with the task's environment, its stdout into a pipe read
 * here; returns its wait status (or -1) and acts on the lines. */
static int prolog_run(struct stepd *s, const char *path)
{
	char *argv[] = {(char *)path, NULL};
	char *buf = malloc(TASK_PROLOG_OUTPUT_MAX + 1);
	size_t len = 0;
	int pfd[2], status;
	pid_t pid;

	if (!buf || pipe2(pfd, O_CLOEXEC) < 0) {
		free(buf);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(pfd[1], STDOUT_FILENO);
		setpgid(0, 0);
		execve(path, argv, s->env.v);
		fprintf(stderr, "execve(): %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		char chunk[4096];
		ssize_t n = read(pfd[0], chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < TASK_PROLOG_OUTPUT_MAX) {
			size_t take = (size_t)n < TASK_PROLOG_OUTPUT_MAX - len
					  ? (size_t)n
					  : TASK_PROLOG_OUTPUT_MAX - len;

			memcpy(buf + len, chunk, take);
			len += take;
		}
	}
	close(pfd[0]);
	status = pid > 0 ? wait_bounded(pid, -1) : -1;
	buf[len] = '\0';
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		prolog_line(s, line);
	free(buf);
	return status;
}

/* Read what fd gives until EOF or deadline (ms, CLOCK_MONOTONIC), at most
 * max bytes kept in buf (NUL-terminated). Returns the length kept; *timed_out
 * says whether the deadline came first. */
static size_t read_until(int fd, char *buf, size_t max, int timeout_ms, bool *timed_out)
{
	struct timespec t0, now;
	size_t len = 0;

	*timed_out = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		char chunk[4096];
		long spent;
		ssize_t n;
		int r;

		clock_gettime(CLOCK_MONOTONIC, &now);
		spent = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (spent >= timeout_ms) {
			*timed_out = true;
			break;
		}
		r = poll(&p, 1, (int)(timeout_ms - spent));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue; /* the deadline check above ends it */
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < max) {
			size_t take = (size_t)n < max - len ? (size_t)n : max - len;

			memcpy(buf + len, chunk, take);
			len += take;
		}
	}
	buf[len] = '\0';
	return len;
}

/* The user's login environment, as Slurm's "su - user -c env": the
 * user's shell as a login shell ("-bash") prints it; every variable the
 * job does not set already joins it (the job's own win). Runs as the user
 * (after privs_drop_final), bounded by USER_ENV_TIMEOUT_S; a failure is a
 * line on the script's stderr and the job runs with what it has. */
static void user_env_load(struct stepd *s)
{
	struct passwd *pw = getpwuid(s->uid);
	const char *shell = pw && pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh";
	const char *base = strrchr(shell, '/') ? strrchr(shell, '/') + 1 : shell;
	char argv0[256], *argv[] = {argv0, "-c", "exec /usr/bin/env -0", NULL};
	char *buf = malloc(TASK_PROLOG_OUTPUT_MAX + 1);
	struct job_env env = {0};
	bool timed_out = false;
	size_t len;
	int pfd[2], status;
	pid_t pid;

	snprintf(argv0, sizeof(argv0), "-%s", base);
	if (!buf || !pw || pipe2(pfd, O_CLOEXEC) < 0) {
		free(buf);
		fprintf(stderr, "slurmstepd: error: cannot load the user's login environment\n");
		return;
	}
	(void)job_env_set(&env, "HOME", "%s", pw->pw_dir ? pw->pw_dir : "/");
	(void)job_env_set(&env, "USER", "%s", pw->pw_name);
	(void)job_env_set(&env, "LOGNAME", "%s", pw->pw_name);
	(void)job_env_set(&env, "SHELL", "%s", shell);
	(void)job_env_set(&env, "PATH", "%s", "/usr/local/bin:/usr/bin:/bin");
	pid = env.v ? fork() : -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO); /* the profile's chatter is not the job's */
		}
		dup2(pfd[1], STDOUT_FILENO);
		setpgid(0, 0);
		if (pw->pw_dir)
			(void)!chdir(pw->pw_dir);
		execve(shell, argv, env.v);
		_exit(127);
	}
	close(pfd[1]);
	len = pid > 0 ? read_until(pfd[0], buf, TASK_PROLOG_OUTPUT_MAX, USER_ENV_TIMEOUT_S * 1000,
				   &timed_out)
		      : 0;
	close(pfd[0]);
	if (pid > 0 && timed_out)
		kill(-pid, SIGKILL);
	status = pid > 0 ? wait_bounded(pid, -1) : -1;
	job_env_done(&env);
	if (status != 0 || timed_out) {
		fprintf(stderr, "slurmstepd: error: Unable to get the user's login environment%s\n",
			timed_out ? " (timed out)" : "");
		free(buf);
		return;
	}
	for (size_t i = 0; i < len;) {
		char *e = buf + i, *eq = strchr(e, '=');
		size_t el = strlen(e);

		if (eq && eq != e) {
			*eq = '\0';
			if (!job_env_get(&s->env, e) && strcmp(e, "_") != 0)
				(void)job_env_set(&s->env, e, "%s", eq + 1);
		}
		i += el + 1;
	}
	free(buf);
}

int task_script_prolog(struct stepd *s)
{
	const char *paths[] = {s->conf->task_prolog, launch_prolog(s)};

	if (wants_user_env(s))
		user_env_load(s);
	for (size_t i = 0; i < 2; i++) {
		int status;

		if (!paths[i])
			continue;
		status = prolog_run(s, paths[i]);
		if (status == 0)
			continue;
		fprintf(stderr, "slurmstepd: error: TaskProlog failed status=%d\n", status);
		return status < 0 ? 1 : WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	return 0;
}

/* One epilog for one task: a child that becomes the user and execs it. */
static void epilog_run(struct stepd *s, const char *path, uint32_t gtid)
{
	char *argv[] = {(char *)path, NULL};
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		error("%s: task epilog %s: fork: %s", s->label, path, strerror(errno));
		return;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		setsid();
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		if (privs_drop_final(s) < 0)
			_exit(1);
		if (s->exec.cwd && chdir(s->exec.cwd) < 0 && chdir("/tmp") < 0)
			_exit(1);
		execve(path, argv, s->env.v);
		_exit(127);
	}
	status = wait_bounded(pid, TASK_EPILOG_TIMEOUT_S * 1000);
	if (status != 0)
		error("%s: task epilog %s for task %u: status %d", s->label, path, gtid, status);
}

void task_script_epilog(struct stepd *s)
{
	const char *paths[] = {s->conf->task_epilog, launch_epilog(s)};
	struct step *st = s->step;

	if (!paths[0] && !paths[1])
		return;
	for (uint32_t i = 0; i < st->ntasks; i++) {
		if (env_task(s, st->tasks[i].ltid) < 0)
			continue;
		env_task_pid(s, st->tasks[i].pid);
		for (size_t k = 0; k < 2; k++)
			if (paths[k])
				epilog_run(s, paths[k], st->tasks[i].gtid);
	}
}
