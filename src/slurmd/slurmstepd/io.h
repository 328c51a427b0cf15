/* io.h - files opened as the job's user, the batch script's stdio
 * files, the form of the stepd's error lines.
 */
#pragma once
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/macros.h"

struct stepd;

/* open(path, flags) as the job's user, never blocking: only a regular file
 * or /dev/null is accepted (given to the task blocking); a FIFO, socket,
 * directory or other device is refused. -ESLURMD_IO_ERROR (logged) on
 * failure. */
int io_open_as_user(const struct stepd *s, const char *what, const char *path, int flags,
		    int *ret_fd);
/* The batch script's stdin/stdout/stderr files, as the user, on the one
 * task's child fds; s->err_fd a copy of stderr for our messages. */
int io_open_batch(struct stepd *s);
void io_close(struct stepd *s);
/* Format fmt (at most 1023 characters), log it with error() and write
 * "slurmstepd[-<node>]: error: <text><eol>" into line (no "-<node>" when
 * node is NULL). Returns its length, cut to size - 1; 0 on failure. */
size_t io_error_line(char *line, size_t size, const char *node, const char *eol, const char *fmt,
		     va_list ap) _printf_(5, 0);
