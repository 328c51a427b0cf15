/* data_part.h - partitions as Slurm 22.05's v0.0.38 documents (sinfo
 * --json, scontrol show partition --json, GET /slurm/v0.0.38/partitions).
 * Fields without data here: docs/json.md.
 */
#pragma once
#include <stdbool.h>

#include "common/data_out.h"

struct part_info;
struct part_info_msg;

/* The v0.0.38_partition record (for the OpenAPI spec). */
extern const struct dfield_table data_part_table;

/* true: the partition goes into the document. */
typedef bool data_part_keep_fn(const struct part_info *p, void *arg);

/* {"meta", "errors": [], "partitions": [...]}: the partitions of m keep()
 * keeps (NULL: all), in m's order; argv into meta.command. */
void data_parts_doc(struct dout *d, const struct part_info_msg *m, data_part_keep_fn *keep,
		    void *arg, int argc, char **argv);

/* The "partitions" member alone, inside an open object. */
void data_parts_member(struct dout *d, const struct part_info_msg *m, data_part_keep_fn *keep,
		       void *arg);
