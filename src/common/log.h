/* log.h - leveled logging for daemons and CLIs.
 *
 * Levels follow Slurm's SlurmctldDebug names: quiet, fatal, error, info,
 * verbose, debug, debug2..debug5. Daemons log to a file (or stderr with
 * -D and no log file); CLIs log errors to stderr prefixed "prog: error: ".
 */
#pragma once
#include <stdarg.h>
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

/* prog: name printed in CLI messages; file: NULL = stderr. */
int log_init(const char *prog, enum log_level level, const char *file, int is_daemon);
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* "info", "debug3", ... -> level; -EINVAL if unknown. Numbers 0-9 too. */
int log_level_from_string(const char *s);
const char *log_level_to_string(enum log_level level);
/* Reopen the log file (after rotation / reconfigure). */
int log_reopen(void);

void log_msg(enum log_level level, const char *fmt, ...) _printf_(2, 3);
void log_vmsg(enum log_level level, const char *fmt, va_list ap);

#define fatal(...)                                                                                 \
	do {                                                                                       \
		log_msg(LOG_LEVEL_FATAL, __VA_ARGS__);                                             \
		exit(1);                                                                           \
	} while (0)
#define error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define verbose(...) log_msg(LOG_LEVEL_VERBOSE, __VA_ARGS__)
#define debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)
#define debug2(...) log_msg(LOG_LEVEL_DEBUG2, __VA_ARGS__)
#define debug3(...) log_msg(LOG_LEVEL_DEBUG3, __VA_ARGS__)

/* Log at error level with the text of negative code r appended; returns r. */
int log_errno(int r, const char *fmt, ...) _printf_(2, 3);
