/* step_create.h - REQUEST_JOB_STEP_CREATE's domain part, in three calls so
 * the handler can sign the credential between them (and unit tests can
 * create steps without munge): check, build, commit.
 */
#pragma once
#include <sys/types.h>

struct ctld;
struct job;
struct step;
struct step_create_req;
struct step_create_resp;

/* uid may start a step in job now (NULL job: ESLURM_INVALID_JOB_ID): 0 or
 * a negative Slurm code. */
int step_create_check(struct ctld *c, const struct job *job, uid_t uid);
/* Place m in the job's allocation: the step's record in *ret (strings
 * owned) and srun's reply in *resp (without credential). On error *ret
 * holds nothing; *resp may hold strings (free it with msg_free). Errors:
 * ESLURM_NODES_BUSY (wait), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
 * ESLURM_INVALID_NODE_COUNT, ESLURM_BAD_TASK_COUNT, ESLURM_INVALID_GRES,
 * ESLURM_INVALID_NODE_NAME, -ENOMEM. */
int step_create_build(struct ctld *c, const struct job *job, const struct step_create_req *m,
		      struct step *ret, struct step_create_resp *resp);
/* The built record joins the job with the next step id and is journaled.
 * Returns it (earlier step pointers of the job are invalid), or NULL on
 * ENOMEM with rec's strings freed. */
struct step *step_create_commit(struct ctld *c, struct job *job, struct step *rec);
