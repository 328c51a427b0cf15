/* data_diag.h - the scheduler statistics as Slurm 22.05's v0.0.38 diag
 * document (sdiag --json, GET /slurm/v0.0.38/diag).
 */
#pragma once
#include "common/data_out.h"

struct stats_info_msg;

/* The "statistics" object of v0.0.38_diag (for the OpenAPI spec). */
extern const struct dfield_table data_diag_table;

/* {"meta", "errors": [], "statistics": {...}}; argv into meta.command. */
void data_diag_doc(struct dout *d, const struct stats_info_msg *m, int argc, char **argv);
