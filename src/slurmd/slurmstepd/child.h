/* child.h - fork and exec of the tasks (a batch script is one task):
 * the child's set-up and error paths, once for both kinds.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

/* Fork every task; in each child set up fds, identity, cwd, umask (nice),
 * environment and exec s->exec. The parent closes the children's fds.
 * -ESLURMD_EXECVE_FAILED when a fork failed: the tasks not started count
 * as exited with exec_fail_exit. */
int child_start(struct stepd *s);
