/* job_submit.h - validate a submission against partitions and limits and
 * create the job (REQUEST_SUBMIT_BATCH_JOB, REQUEST_JOB_WILL_RUN).
 */
#pragma once
#include <stdint.h>
#include <sys/types.h>

struct ctld;
struct job;
struct job_desc;

/* Build a job from desc (taken: the job owns it on success; on error the
 * caller still owns it). uid/gid come from the credential (root may
 * submit for desc->user_id). Returns 0 and the job (not yet in the table,
 * no id) or a negative Slurm code; *ret_msg may get a text for the user
 * ("invalid partition specified: x"), malloc'd. */
/* Whom a submission of desc by (uid, gid) runs as: root may name
 * another user (and group) in desc. */
void job_submit_user(const struct job_desc *desc, uid_t uid, gid_t gid, uid_t *ret_uid,
		     gid_t *ret_gid);
int job_submit_build(struct ctld *c, struct job_desc *desc, uid_t uid, gid_t gid, struct job **ret,
		     char **ret_msg);
/* Give the job an id and a priority and put it in the table. */
int job_submit_commit(struct ctld *c, struct job *job);
