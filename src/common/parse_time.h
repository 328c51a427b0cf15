/* parse_time.h - Slurm time limits and timestamps, read and printed as
 * Slurm 22.05 does (src/common/parse_time.c, squeue/sinfo _print_secs).
 *
 * All printers write into buf (size n, truncating like snprintf) and
 * return buf; none allocates or fails.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Time limit -> seconds. Accepted: "M", "M:S", "H:M:S", "D-H", "D-H:M",
 * "D-H:M:S" (fields are digit strings; values are not range checked, so
 * "90" and "1:75" are fine), "D-" (D days, as Slurm accepts), and "-1",
 * "INFINITE", "UNLIMITED" (any case) -> INFINITE.
 * Returns 0, or -EINVAL for NULL, "", any other character (including
 * spaces and signs), more than one '-' or two ':', a ':' before the '-',
 * an empty field, or a total that does not fit below NO_VAL.
 * *ret_secs is untouched on failure. */
int time_str2secs(const char *s, uint32_t *ret_secs);
/* Same grammar in minutes, seconds rounded up ("1:30" -> 2, "0:1" -> 1);
 * INFINITE stays INFINITE. */
int time_str2mins(const char *s, uint32_t *ret_mins);

/* Minutes as scontrol prints limits (MaxTime=, TimeLimit=, DefaultTime=):
 * "HH:MM:SS" below a day, else "D-HH:MM:SS" ("00:03:00", "1-00:00:00").
 * INFINITE -> "UNLIMITED", NO_VAL -> "NONE" (Slurm's callers print "NONE"
 * for an unset limit; mins2time_str itself has no such case). */
char *mins2time_str(uint32_t mins, char *buf, size_t n);
/* Seconds in the same format ("00:00:08" for scontrol RunTime=);
 * INFINITE -> "UNLIMITED". */
char *secs2time_str(uint32_t secs, char *buf, size_t n);
/* Any duration in the same "[D-]HH:MM:SS" format, with no UNLIMITED case
 * (sacct's Elapsed and CPU times, seff's times). */
char *duration_str(uint64_t secs, char *buf, size_t n);
/* Seconds as squeue and sinfo print durations (TIME, TIME_LIMIT,
 * TIMELIMIT): "M:SS" below an hour, "H:MM:SS" below a day, else
 * "D-HH:MM:SS" ("0:00", "10:00", "1:00:00", "1-00:00:00").
 * INFINITE -> "UNLIMITED" (squeue's word; sinfo prints "infinite" for an
 * unlimited partition itself). Pass minutes * 60 for a limit. */
char *secs2elapsed_str(uint32_t secs, char *buf, size_t n);
/* Timestamp as Slurm prints it: "YYYY-MM-DDTHH:MM:SS" in local time;
 * 0 -> "Unknown" (callers that want "None"/"N/A" test for 0 themselves).
 * For daemons: a controller's text does not follow its own environment. */
char *time_to_iso(time_t t, char *buf, size_t n);
/* The same for a command's output, as $SLURM_TIME_FORMAT asks
 * (time_str_fmt). */
char *time_display(time_t t, char *buf, size_t n);
/* t in fmt at now: NULL, "" or "standard" is "YYYY-MM-DDTHH:MM:SS";
 * "relative" is "HH:MM:SS" today, "Ystday HH:MM", "Tomorr HH:MM", "Mon
 * HH:MM" in the week ahead, "25 Apr 10:00" in this year, "6 Jun 2012"
 * otherwise; anything else with a '%' is a strftime() format (output cut
 * at 255 bytes; empty when strftime makes nothing); without one it is
 * refused once, with Slurm's "invalid SLURM_TIME_FORMAT" error, for the
 * standard form. 0 -> "Unknown". */
char *time_str_fmt(time_t t, time_t now, const char *fmt, char *buf, size_t n);
