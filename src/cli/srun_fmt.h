/* srun_fmt.h - the texts srun computes: Slurm's compressed count lists
 * ("2(x3),1"), task id ranges ("0-3,5"), the -l label, and the words
 * for a task's end ("Exited with exit code 3", "Killed").
 * Pure functions, exposed for unit tests.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* "4(x2),2" from 4,4,2 (SLURM_TASKS_PER_NODE's form); malloc'd, NULL on ENOMEM. */
char *srun_counts_str(const uint32_t *v, size_t n);
/* "0-3,5" from ascending ids; malloc'd, NULL on ENOMEM. */
char *srun_ranges_str(const uint32_t *ids, size_t n);
/* Width of the -l label: digits of the largest task id. */
int srun_label_width(uint32_t ntasks);
/* "Exited with exit code N", a signal's strsignal() text (with " (core
 * dumped)"), into buf; NULL when the task ended with 0. */
const char *srun_status_text(int status, char *buf, size_t n);
/* What a task's wait status makes srun's exit code: the exit code, or
 * 128 + signal. */
int srun_status_code(int status);
