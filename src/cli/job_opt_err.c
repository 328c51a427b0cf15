/* job_opt_err.c - the error texts of the option passes (struct
 * job_opt_err, see job_opt.h): Slurm's "<prog>: error: ..." lines and the
 * exit code they end with. A leaf: the option table and the passes over it
 * both write through it.
 */
#include "cli/job_opt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macros.h"

static _printf_(2, 0) void err_append(struct job_opt_err *e, const char *fmt, va_list ap)
{
	size_t len = strnlen(e->text, sizeof(e->text));

	if (len < sizeof(e->text) - 1)
		vsnprintf(e->text + len, sizeof(e->text) - len, fmt, ap);
}

void job_opt_raw(struct job_opt_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_append(e, fmt, ap);
	va_end(ap);
}

/* "<prog>: <kind>: <fmt>\n", and the exit code the command ends with. */
static _printf_(5, 0) int err_line(struct job_opt_err *e, const char *prog, const char *kind,
				   int exit_code, const char *fmt, va_list ap)
{
	job_opt_raw(e, "%s: %s: ", prog, kind);
	err_append(e, fmt, ap);
	job_opt_raw(e, "\n");
	e->exit_code = exit_code;
	return -EINVAL;
}

int job_opt_fail(struct job_opt_err *e, const char *prog, int exit_code, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = err_line(e, prog, "error", exit_code, fmt, ap);
	va_end(ap);
	return r;
}

int job_opt_refuse(struct job_opt_err *e, const char *prog, const char *name)
{
	return job_opt_fail(e, prog, JOB_OPT_EXIT_ARG,
			    "%s is not supported by this cluster: it would change where or how "
			    "the job runs, and is refused rather than ignored",
			    name);
}

int job_opt_immediate(struct job_opt_err *e, const char *prog, const char *arg, int *ret)
{
	char *end = NULL;
	long v = arg ? strtol(arg, &end, 10) : 1;

	if (arg && (!*arg || *end || v < 0 || v > INT32_MAX))
		return job_opt_fail(e, prog, JOB_OPT_EXIT_FATAL,
				    "Invalid numeric value \"%s\" for immediate.", arg);
	*ret = v ? (int)v : 1;
	return 0;
}

int job_opt_fatal(struct job_opt_err *e, const char *prog, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = err_line(e, prog, "fatal", JOB_OPT_EXIT_FATAL, fmt, ap);
	va_end(ap);
	return r;
}
