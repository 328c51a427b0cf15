/* parse_time.h - Slurm time limits and timestamps. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S", "-1", "INFINITE",
 * "UNLIMITED" -> minutes (seconds rounded up); INFINITE for unlimited.
 * -EINVAL on bad input. */
int time_str2mins(const char *s, uint32_t *ret_mins);
/* Same in seconds. */
int time_str2secs(const char *s, uint32_t *ret_secs);
/* Minutes -> "UNLIMITED", "MM:SS"?? no: Slurm's mins2time_str:
 * INFINITE -> "UNLIMITED", NO_VAL -> "NONE"? (see .c), otherwise
 * "[D-]HH:MM:SS". Writes buf. */
char *mins2time_str(uint32_t mins, char *buf, size_t n);
/* Seconds -> "[D-]HH:MM:SS" (INFINITE -> "UNLIMITED"). */
char *secs2time_str(uint32_t secs, char *buf, size_t n);
/* Elapsed as squeue prints: "M:SS", "H:MM:SS", "D-HH:MM:SS". */
char *secs2elapsed_str(uint32_t secs, char *buf, size_t n);
/* Timestamp as Slurm prints: "YYYY-MM-DDTHH:MM:SS" local time; 0 -> "Unknown"
 * (callers that want "None"/"N/A" test for 0 themselves). */
char *time_to_iso(time_t t, char *buf, size_t n);
