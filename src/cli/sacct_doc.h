/* sacct_doc.h - sacct --json / --yaml: the rows the text view would show,
 * as one Slurm 22.05 dbv0.0.38 document (common/data_acct.h).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/data_out.h"

struct acct_job_rec;
struct sacct_sel;

/* Writes the jobs that -j's selections (sels, n_sels; none: every job)
 * show, each with the steps they show (no steps when with_steps is false,
 * -X), to out. A job shows when its row or any of its steps would print.
 * argv goes to meta.command. 0, or -ENOMEM / -EIO (nothing or part
 * written). */
int sacct_print_doc(FILE *out, enum dout_kind kind, const char *cluster,
		    const struct sacct_sel *sels, size_t n_sels, const struct acct_job_rec *jobs,
		    size_t count, bool with_steps, int argc, char **argv);
