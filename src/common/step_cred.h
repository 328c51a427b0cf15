/* step_cred.h - the step credential: proof from the controller that a
 * launch of tasks (REQUEST_LAUNCH_TASKS) is for a step it created.
 *
 * The controller munge-encodes the SHA-256 of "job_id.step_id:uid:nodes"
 * (the step's hostlist). slurmd decodes it, checks that the controller's
 * uid (root or SlurmUser) made it and that the digest matches the launch
 * it came with, so a user can only start tasks, as themselves, on nodes
 * the controller gave the step. A step launched on several nodes served by
 * one munged is decoded several times: a replay is accepted, a forgery or
 * an expired credential (munge TTL) is not.
 */
#pragma once
#include <stdint.h>
#include <sys/types.h>

/* 0 and *ret (owned), or the code of auth_munge_cause() when the local
 * munged could not sign (-ESLURM_AUTH_NET_ERROR when unreachable). */
int step_cred_create(const char *munge_socket, uint32_t job_id, uint32_t step_id, uint32_t uid,
		     const char *nodes, char **ret);
/* 0 when cred was made by root or slurm_uid for exactly these fields;
 * -ESLURMD_CREDENTIAL_EXPIRED past its munge TTL; a local code of
 * auth_munge_cause() (-ESLURM_AUTH_NET_ERROR...) when the local munged
 * could not check it; -ESLURMD_INVALID_JOB_CREDENTIAL otherwise. */
int step_cred_verify(const char *munge_socket, const char *cred, uint32_t job_id,
		     uint32_t step_id, uint32_t uid, const char *nodes, uid_t slurm_uid);
