/* reap.h - the stepd's own signals (a signalfd in the loop) and
 * wait4() of every child: usage and the tasks' ends.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

/* Block SIGCHLD/SIGTERM/SIGINT into a signalfd (registered in the loop),
 * become a child subreaper. 0 or -errno. */
int reap_init(struct stepd *s);
void reap_close(struct stepd *s);
/* Drain the signalfd (SIGTERM/SIGINT kill the job and make us stop),
 * then wait4 every exited child: usage and the tasks' ends. */
void reap_now(struct stepd *s);
/* Wait up to ms for a signal, then reap_now(). */
void reap_wait(struct stepd *s, int ms);
