/* scontrol_data.h - "scontrol --json|--yaml show job|node|partition":
 * the v0.0.38 documents of data_job.h, data_node.h and data_part.h with
 * the records the text view would show.
 */
#pragma once
#include <stdbool.h>

#include "cli/cli_data.h"

struct job_info_msg;
struct node_info_msg;
struct part_info_msg;

/* The command line as typed (meta.command) and the output kind. */
struct scontrol_data {
	enum cli_mime mime;
	int argc;
	char **argv;
};

/* show job [ID]: every job, or those of ID ("12", "12_3"): the array's
 * records that hold the task. Returns 0; -ESLURM_INVALID_JOB_ID (nothing
 * printed) when no job has that id; -ENOENT after "Job 12_5 not found" on
 * stderr; -EIO when the document could not be written. */
int scontrol_data_jobs(const struct scontrol_data *s, const struct job_info_msg *m,
		       const char *id);

/* show node [NAMES]: names a host list; each name no node has is
 * reported on stderr ("Node x not found"). Returns 0, or -1 when a name
 * was not found or the document could not be written (exit 1). */
int scontrol_data_nodes(const struct scontrol_data *s, const struct node_info_msg *m,
			const char *names);

/* show partition [NAME]: hidden ones only with all. Returns as above
 * ("Partition x not found" on stderr). */
int scontrol_data_parts(const struct scontrol_data *s, const struct part_info_msg *m,
			const char *name, bool all);
