/* child_exec.c - see child_exec.h. */
#include "child_exec.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <unistd.h>

_Noreturn void child_exec(const char *path, char **argv, char **envp, uid_t uid, gid_t gid)
{
	sigset_t none;
	int fd;

	setpgid(0, 0);
	sigemptyset(&none);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	fd = open("/dev/null", O_RDWR);
	if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(127);
	if (close_range(3, ~0u, 0) < 0)
		for (int i = 3; i < 65536; i++)
			close(i);
	if (getuid() == 0 && uid != 0
	    && (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0))
		_exit(126);
	if (uid != 0 && (getuid() == 0 || geteuid() == 0))
		_exit(126);
	if (chdir("/") < 0)
		_exit(126);
	execve(path, argv, envp);
	_exit(127);
}
