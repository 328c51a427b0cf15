/* admin.h - controller-wide operations: reconfigure and shutdown. */
#pragma once
#include <stdbool.h>

struct ctld;

/* Re-read slurm.conf; a file that does not parse leaves everything as it
 * was and returns the error (logged with file:line). */
int admin_reconfigure(struct ctld *c);
/* Save state and leave the loop; with also_slurmds, first ask every
 * registered slurmd to shut down (waiting at most MessageTimeout). */
void admin_shutdown(struct ctld *c, bool also_slurmds);
