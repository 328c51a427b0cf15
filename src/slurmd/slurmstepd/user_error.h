/* user_error.h - the stepd's own error lines for the job's user: the
 * batch job's stderr file, or srun (IO_MESSAGE).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/macros.h"

struct stepd;

/* An error line for the job's user, logged too: a batch job's goes into
 * its stderr file ("slurmstepd-<node>: error: ..."), a step's to srun
 * (IO_MESSAGE "slurmstepd: error: ...", flushed at once). */
void user_error(struct stepd *s, const char *fmt, ...) _printf_(2, 3);
