/* sock.h - the unix socket slurmd reaches the step on (ping, signal,
 * terminate), served from the loop.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

int sock_open(struct stepd *s); /* bind + listen + register; -ESLURMD_STEP_EXISTS if one answers */
void sock_close(struct stepd *s);
