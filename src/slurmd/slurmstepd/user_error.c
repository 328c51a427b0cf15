/* user_error.c - the stepd's own error lines for the job's user (a
 * cancel, the memory limit), logged too.
 *
 * Where they go depends on what the stepd holds, not on the kind of job:
 * the job's stderr file when the stepd keeps it open (a batch script:
 * "slurmstepd-<node>: error: <text>\n", sharing the file offset with the
 * script), else srun's connection (IO_MESSAGE "slurmstepd: error: <text>",
 * written at once: a cancel line must reach srun before the batch script,
 * and srun with it, is signalled; slurmd's relay_all).
 */
#include "user_error.h"

#include <stdarg.h>

#include "common/io_proto.h"
#include "common/stepd_proto.h"
#include "io.h"
#include "step.h"
#include "step_io.h"
#include "stepd.h"

void user_error(struct stepd *s, const char *fmt, ...)
{
	bool is_file = s->err_fd >= 0;
	char line[1200];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = io_error_line(line, sizeof(line), is_file ? s->node_name : NULL, is_file ? "\n" : "",
			  fmt, ap);
	va_end(ap);
	if (n == 0)
		return;
	if (is_file) {
		(void)stepd_write_all(s->err_fd, line, n);
	} else if (s->step) {
		step_io_frame(s, IO_MESSAGE, 0, 0, line, n);
		step_io_flush(s);
	}
}
