/* child_exec.h - how the controller runs a program of its own (MailProg,
 * PrologSlurmctld, EpilogSlurmctld) in a child made with fork(): from a
 * threaded process, so the child makes only async-signal-safe calls.
 */
#pragma once
#include <sys/types.h>

/* In the child: its own process group, every signal at its default and
 * unblocked, /dev/null as stdin/out/err and nothing else open, the
 * identity uid/gid when the controller is root (exits 126 when that
 * fails or root would remain), "/" as its directory, then execve (127
 * when that fails). */
_Noreturn void child_exec(const char *path, char **argv, char **envp, uid_t uid, gid_t gid);
