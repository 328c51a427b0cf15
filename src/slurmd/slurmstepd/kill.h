/* kill.h - ending the job's processes: terminate (SIGTERM, SIGKILL
 * after KillWait) and the leftovers after the tasks end.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

int kill_init(struct stepd *s); /* the SIGKILL timer; 0 or -ENOMEM */
/* TERMINATE / KILL_TIMELIMIT: the cancel line for the user, SIGCONT +
 * SIGTERM, SIGKILL after max(KillWait, 5 s), again every second. */
void kill_terminate(struct stepd *s, const char *why);
/* Take the last usage sample (what is still running counts), then serve
 * the loop until no process of the job is left (bounded). */
void kill_leftovers(struct stepd *s);
