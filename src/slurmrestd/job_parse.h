/* job_parse.h - request bodies of the job endpoints, parsed with jansson
 * into the messages sbatch and scontrol send:
 *   POST /slurm/v0.0.38/job/submit  {"script": "...", "job": {...}}
 *       -> struct job_desc (REQUEST_SUBMIT_BATCH_JOB)
 *   POST /slurm/v0.0.38/job/{id}    {"job": {...}} or {...}
 *       -> struct update_job_msg (REQUEST_UPDATE_JOB)
 * Field names are Slurm's v0.0.38 job properties. A field we do not know
 * or do not take, a value of the wrong type or out of range, is refused
 * with its name in err: -ESLURM_REST_FAIL_PARSING for JSON that does not
 * parse, -ESLURM_REST_INVALID_JOBS_DESC for a description we refuse.
 */
#pragma once
#include <stddef.h>

struct job_desc;
struct update_job_msg;

/* d is filled (free with job_desc_done, also on failure). */
int job_parse_submit(const char *body, size_t len, struct job_desc *d, char *err, size_t errsz);
/* m is filled for sjob_id (free with update_job_msg_free, also on failure). */
int job_parse_update(const char *body, size_t len, const char *sjob_id, struct update_job_msg *m,
		     char *err, size_t errsz);
