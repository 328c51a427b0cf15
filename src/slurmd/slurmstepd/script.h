/* script.h - the batch script in the spool:
 * <SlurmdSpoolDir>/job%05u/slurm_script, 0700, the user's.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

int script_write(struct stepd *s); /* <spool>/job%05u/slurm_script, 0700, the user's */
/* Remove the script and its directory, once (later calls do nothing). */
void script_remove(struct stepd *s);
