/* launch.h - the launch message -> struct stepd, and each kind's set-up
 * before slurmd hears "started".
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

/* Read the launch frame from fd (within a timeout) into s. 0, -EBADMSG
 * (not a launch) or another -errno. */
int launch_read(struct stepd *s, int fd);
/* Everything before "started": groups, socket, environment, script or
 * srun connection, files, usage. 0 or the -ESLURM* code for slurmd. */
int launch_setup(struct stepd *s);
void launch_free(struct stepd *s);
