/* data_job.h - jobs as Slurm 22.05's v0.0.38 documents (squeue --json,
 * scontrol show job --json, slurmrestd's GET /slurm/v0.0.38/jobs).
 *
 * One record per job_info (msg_job.h) as the controller sends it: array
 * meta records and split-off tasks stay separate, as Slurm's do. Field
 * names, order and types are v0.0.38's job_response_properties; fields
 * this cluster has no data for are written as Slurm's empty value (see
 * docs/json.md for the list).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/data_out.h"

struct job_info;
struct job_info_msg;

/* The v0.0.38_job_response_properties record and its job_resources
 * member (for the OpenAPI spec, data_spec.c). */
extern const struct dfield_table data_job_table;
extern const struct dfield_table data_job_resources_table;

/* true: the job goes into the document. */
typedef bool data_job_keep_fn(const struct job_info *j, void *arg);

/* The whole document: {"meta", "errors": [], "jobs": [...]} with the jobs
 * of m that keep() keeps (keep NULL: all), in m's order. argv goes into
 * meta.command (argc 0: left out). Errors of the emitter show in
 * dout_error(d). */
void data_jobs_doc(struct dout *d, const struct job_info_msg *m, data_job_keep_fn *keep,
		   void *arg, int argc, char **argv);
/* The same document in parts, for a listing that comes in pages: begin,
 * then add each page's jobs in order, then end. */
void data_jobs_doc_begin(struct dout *d, int argc, char **argv);
void data_jobs_doc_add(struct dout *d, const struct job_info_msg *m, data_job_keep_fn *keep,
		       void *arg);
void data_jobs_doc_end(struct dout *d);

/* "4(x2),2" (job_info.cpus_per_node): the CPU count of the i-th node,
 * 0 when not listed. */
uint32_t data_job_cpus_on(const char *spec, size_t i);

/* One job record (key NULL inside an array). */
void data_job_record(struct dout *d, const char *key, const struct job_info *j);
