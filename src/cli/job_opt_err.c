/* job_opt_err.c - the error texts of the option passes (struct
 * job_opt_err, see job_opt.h): Slurm's "<prog>: error: ..." lines and the
 * exit code they end with. A leaf: the option table and the passes over it
 * both write through it.
 */
#include "cli/job_opt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/macros.h"

static _printf_(2, 0) void err_append(struct job_opt_err *e, const char *fmt, va_list ap)
{
	size_t len = strnlen(e->text, sizeof(e->text));

	if (len < sizeof(e->text) - 1)
		vsnprintf(e->text + len, sizeof(e->text) - len, fmt, ap);
}

static _printf_(2, 3) void err_add(struct job_opt_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_append(e, fmt, ap);
	va_end(ap);
}

void job_opt_raw(struct job_opt_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_append(e, fmt, ap);
	va_end(ap);
}

int job_opt_fail(struct job_opt_err *e, const char *prog, int exit_code, const char *fmt, ...)
{
	va_list ap;

	err_add(e, "%s: error: ", prog);
	va_start(ap, fmt);
	err_append(e, fmt, ap);
	va_end(ap);
	err_add(e, "\n");
	e->exit_code = exit_code;
	return -EINVAL;
}

int job_opt_fatal(struct job_opt_err *e, const char *prog, const char *fmt, ...)
{
	va_list ap;

	err_add(e, "%s: fatal: ", prog);
	va_start(ap, fmt);
	err_append(e, fmt, ap);
	va_end(ap);
	err_add(e, "\n");
	e->exit_code = JOB_OPT_EXIT_FATAL;
	return -EINVAL;
}
