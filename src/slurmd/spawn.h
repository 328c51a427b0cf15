/* spawn.h - how slurmd starts the programs it runs (slurmstepd, Prolog,
 * Epilog): posix_spawn (a vfork, no copy of slurmd's memory) into a
 * session of its own, every signal at its default and unblocked, only
 * descriptors 0-2 open.
 */
#pragma once
#include <sys/types.h>

#define SPAWN_FD_NULL	 (-1) /* /dev/null */
#define SPAWN_FD_INHERIT (-2) /* slurmd's own */

/* May root run path? Only a regular executable file that nobody but root
 * (or slurmd's own user) may change: 0, else -errno (-EPERM for one that
 * others may change, -EACCES for no executable file). */
int slurmd_prog_check(const char *path);

/* path with argv and envp; fds[i] becomes descriptor i (or one of the
 * SPAWN_FD_* above). 0 and *ret_pid, or -errno. */
int slurmd_spawn(const char *path, char *const argv[], char *const envp[], const int fds[3],
		 pid_t *ret_pid);
