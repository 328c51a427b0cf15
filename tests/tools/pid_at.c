/* pid_at.c - run a command as a session leader on a chosen, free pid.
 *
 *   pid_at PID CMD [ARG...]
 *
 * clone3() with set_tid gives the child exactly PID (root only; EEXIST when
 * the pid is in use), so a test can put a process of its own on the pid of
 * a task that just ended, whatever else forks on the machine meanwhile.
 * The child calls setsid() and execs CMD. pid_at prints the pid, waits for
 * the child and prints how it ended ("exit N" or "signal NAME"), so the test
 * that started it learns what happened to it.
 */
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct clone_args args;
	pid_t want, child;
	char *end;
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: pid_at PID CMD [ARG...]\n");
		return 2;
	}
	errno = 0;
	want = (pid_t)strtol(argv[1], &end, 10);
	if (errno || *end || want <= 1) {
		fprintf(stderr, "pid_at: bad pid '%s'\n", argv[1]);
		return 2;
	}
	memset(&args, 0, sizeof(args));
	args.exit_signal = SIGCHLD;
	args.set_tid = (uint64_t)(uintptr_t)&want;
	args.set_tid_size = 1;
	fflush(NULL);
	child = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	if (child < 0) {
		fprintf(stderr, "pid_at: clone3 on pid %d: %s\n", (int)want, strerror(errno));
		return 1;
	}
	if (child == 0) {
		setsid();
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	printf("%d\n", (int)child);
	fflush(stdout);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (WIFSIGNALED(status))
		printf("signal %s\n", sigabbrev_np(WTERMSIG(status)));
	else
		printf("exit %d\n", WEXITSTATUS(status));
	return 0;
}
