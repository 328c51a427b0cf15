/* job_submit_check.h - the rules a submission (and an update) must pass
 * whoever sends it: bounded record sizes, no negative nice from a user, a
 * --mail-user that is an address, the partition's access rules and, with
 * EnforcePartLimits, its size limits.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ctld;
struct job;
struct job_desc;
struct part;
struct part_request;

/* Bounds of one job record (besides SchedulerParameters=max_script_size). */
#define JOB_STR_MAX	   1024	      /* name, comment, account, qos, mail user, ... */
#define JOB_PATH_MAX	   4096	      /* work dir and std in/out/err patterns */
#define JOB_ENV_MAX_COUNT  16384      /* environment entries */
#define JOB_ENV_MAX_BYTES  (1u << 20) /* all entries together */
#define JOB_ARGV_MAX_COUNT 4096
#define JOB_ARGV_MAX_BYTES (1u << 20)

/* The desc's own fields, before anything else is looked at: sizes, nice,
 * --mail-user. is_admin: root or SlurmUser. 0 or a negative code with
 * *ret_msg (malloc'd) saying which field. */
int job_submit_check_desc(const struct ctld *c, const struct job_desc *d, bool is_admin,
			  char **ret_msg);

/* Where it may run: -C and --prefer name features some node has, -L
 * names configured licenses within their totals. 0,
 * -ESLURM_INVALID_FEATURE, -ESLURM_INVALID_LICENSES (or -ENOMEM). The
 * reservation is checked by job_submit.c (it needs the user). */
int job_submit_check_place(const struct ctld *c, const struct job_desc *d);

/* The built job against partition p: access rules always, size limits
 * when EnforcePartLimits is set. submit_uid: who sent the request. The
 * refusal is logged; the user sees only Slurm's text for the code. */
int job_submit_check_part(const struct ctld *c, const struct job *job, const struct part *p,
			  uid_t submit_uid);

/* What the job asks of one partition, for part_limits_check(). */
void job_part_request(const struct job *job, struct part_request *ret);
