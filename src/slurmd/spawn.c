/* spawn.c - see spawn.h. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <unistd.h>

int slurmd_spawn(const char *path, char *const argv[], char *const envp[], const int fds[3],
		 pid_t *ret_pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t all, none;
	int r;

	r = posix_spawn_file_actions_init(&fa);
	if (r)
		return -r;
	r = posix_spawnattr_init(&at);
	if (r) {
		posix_spawn_file_actions_destroy(&fa);
		return -r;
	}
	sigfillset(&all);
	sigemptyset(&none);
	r = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF
					      | POSIX_SPAWN_SETSIGMASK);
	if (!r)
		r = posix_spawnattr_setsigdefault(&at, &all);
	if (!r)
		r = posix_spawnattr_setsigmask(&at, &none);
	for (int i = 0; i < 3 && !r; i++) {
		if (fds[i] >= 0)
			r = posix_spawn_file_actions_adddup2(&fa, fds[i], i);
		else if (fds[i] == SPAWN_FD_NULL)
			r = posix_spawn_file_actions_addopen(&fa, i, "/dev/null",
							     i ? O_WRONLY : O_RDONLY, 0);
	}
	if (!r)
		r = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (!r)
		r = posix_spawn(ret_pid, path, &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return -r;
}

int slurmd_prog_check(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR))
		return -EACCES;
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}
