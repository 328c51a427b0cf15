/* scontrol_job.h - scontrol's job verbs: show job, hold, uhold, release,
 * requeue, requeuehold and update JobId=..., with Slurm 22.05's words.
 *
 * The parsers and the show filter are pure; the verb functions send one
 * request per job id and print scontrol's per-job error lines
 * ("Invalid job id specified for job 12") on stderr. The verb's closing
 * line ("slurm_suspend error: ...", "slurm_update error: ...") and the exit
 * code are the caller's, from the value returned.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct job_info_msg;
struct scontrol_show_opts;
struct sl_conf;
struct update_job_msg;

/* Expand a job id argument as scontrol does: ids separated by ',' or ' '
 * outside brackets, "[12-14]" ranges of jobs, "12_[1-3]" (sent as
 * "12_1-3"), "12_7", "12+1". Returns 0 with a malloc'd vector of malloc'd
 * strings, or -EINVAL when s is not a job id expression (anything but
 * digits, "_+[]-, " or a '-' outside brackets and before any '_'). */
int scontrol_job_ids(const char *s, char ***ret, size_t *ret_n);
void scontrol_job_ids_free(char **v, size_t n);

/* "show job ID": digits, '_' and '+' only. */
bool scontrol_job_id_valid(const char *s);

/* Print the records of "show job [id]" from a full job list: every job
 * without an id; with one, the job, or all records of the array it names,
 * or one task ("12_3", shown from the meta record while still pending).
 * Returns 0; -ESLURM_INVALID_JOB_ID when no record has that job id (the
 * caller prints "slurm_load_jobs error: ..."); -ENOENT after "Job 12_9 not
 * found" on out (not with quiet 1). Prints "No jobs in the system" for an
 * empty list without an id. */
int scontrol_job_print(FILE *out, const struct job_info_msg *m, const char *id,
		       const struct scontrol_show_opts *o, int quiet);

/* "update JobId=12 TimeLimit=3 Partition=p NumNodes=2 Name=x Nice=5
 * Priority=10": words into *m (reset first; strings point into argv).
 * TimeLimit=+N / -N set *ret_delta to +1/-1 with m->time_limit N.
 * *ret_ids is the JobId= value, or NULL when a Name= (or JobName=) is to
 * be resolved by the caller. Returns 0, or -EINVAL after scontrol's
 * message ("scontrol: error: Invalid TimeLimit value", "Update of this
 * parameter is not supported: X" + "Request aborted", "No changes
 * specified", ...). */
int scontrol_job_update_parse(int argc, char **argv, struct update_job_msg *m, int *ret_delta,
			      const char **ret_ids);

/* The verbs. quiet is scontrol's: 1 (-Q) silences the per-job lines.
 * Each returns 0, -EINVAL when nothing could be sent (already reported),
 * or the worst positive sl_errno code a request got. */
int scontrol_job_hold(const struct sl_conf *conf, const char *op, const char *arg, int quiet);
int scontrol_job_requeue(const struct sl_conf *conf, bool hold, const char *arg, int quiet);
int scontrol_job_update(const struct sl_conf *conf, int argc, char **argv, int quiet);

/* "Incomplete" or "State=SpecialExit" before the ids of requeue: true. */
bool scontrol_job_requeue_flag(const char *word);
