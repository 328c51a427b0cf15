/* log.h - leveled logging for daemons and CLIs, in Slurm's line formats.
 *
 * Levels follow Slurm's SlurmctldDebug names: quiet, fatal, error, info,
 * verbose, debug, debug2..debug5. A message prints when its level is at or
 * below the configured one (quiet prints nothing). Text gets Slurm's level
 * prefix: "fatal: ", "error: ", none for info and verbose, "debug:  " (two
 * spaces), "debug2: " .. "debug5: ".
 *   daemon (is_daemon): "[2026-12-02T08:52:03.123] error: text" to the log
 *                       file, or to stderr when there is none
 *   CLI:                "sbatch: error: text" to stderr, stdout flushed first
 * One write(2) per line, under a lock, so threads and processes appending
 * to the same file do not interleave. Before log_init() messages go to
 * stderr in CLI form at level info, named after the program.
 */
#pragma once
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include "macros.h"

enum log_level {
	LOG_LEVEL_QUIET,
	LOG_LEVEL_FATAL,
	LOG_LEVEL_ERROR,
	LOG_LEVEL_INFO,
	LOG_LEVEL_VERBOSE,
	LOG_LEVEL_DEBUG,
	LOG_LEVEL_DEBUG2,
	LOG_LEVEL_DEBUG3,
	LOG_LEVEL_DEBUG4,
	LOG_LEVEL_DEBUG5,
	_LOG_LEVEL_MAX,
};

/* prog: name printed in CLI lines (copied, truncated to 63 bytes; NULL
 * keeps the current one); file: NULL = stderr, else opened append-only and
 * O_CLOEXEC, created 0640. Can be called again to reconfigure. Returns 0 or
 * -errno from open(2), in which case the previous setup stays. */
int log_init(const char *prog, enum log_level level, const char *file, int is_daemon);
/* Close the log file and go back to the pre-init defaults. */
void log_fini(void);
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* "info", "debug3", ... (any case) -> level; the numbers "0".."9" too.
 * Returns the level or -EINVAL. */
int log_level_from_string(const char *s);
/* "quiet" .. "debug5"; NULL outside the enum. */
const char *log_level_to_string(enum log_level level);
/* Reopen the log file (after rotation); 0 when logging to stderr.
 * Returns 0 or -errno, in which case the old file stays open. */
int log_reopen(void);

/* Copy len bytes of src to dst with every control byte (but tab) and DEL
 * written as "\xNN", NUL-terminated; a character that does not fit whole
 * is left out. Returns the length the whole copy needs (without its NUL),
 * so log_escape(NULL, 0, src, len) sizes it. Every line logged goes
 * through it: a quoted string never starts a line of its own. */
size_t log_escape(char *dst, size_t dstlen, const char *src, size_t len);

void log_msg(enum log_level level, const char *fmt, ...) _printf_(2, 3);
void log_vmsg(enum log_level level, const char *fmt, va_list ap) _printf_(2, 0);

#define fatal(...)                                                                                 \
	do {                                                                                       \
		log_msg(LOG_LEVEL_FATAL, __VA_ARGS__);                                             \
		exit(1);                                                                           \
	} while (0)
#define error(...)   log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define info(...)    log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define verbose(...) log_msg(LOG_LEVEL_VERBOSE, __VA_ARGS__)
#define debug(...)   log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)
#define debug2(...)  log_msg(LOG_LEVEL_DEBUG2, __VA_ARGS__)
#define debug3(...)  log_msg(LOG_LEVEL_DEBUG3, __VA_ARGS__)

/* Log at error level with ": " and sl_strerror(r) appended ("...: Invalid
 * job id specified"); returns r, so callers can `return log_errno(r, ..)`. */
int log_errno(int r, const char *fmt, ...) _printf_(2, 3);
