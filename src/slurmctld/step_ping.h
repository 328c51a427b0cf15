/* step_ping.h - SRUN_PING to each running step's srun every few seconds; a
 * step whose srun cannot be reached (killed before its tasks started, so
 * no stepd saw it go) is cancelled and its cpus freed.
 */
#pragma once
#include <time.h>

struct ctld;

/* From the timer. */
void step_ping_sruns(struct ctld *c, time_t now);
