/* job_update.h - scontrol update/hold/uhold/release of a job, with
 * Slurm's permission rules: the owner may hold, release a user hold,
 * rename, lower the time limit and raise nice; changing a partition or
 * node count needs a pending job; everything else needs an admin.
 */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

struct ctld;
struct job;
struct update_job_msg;

/* Validates everything first and changes nothing on error. */
int job_update(struct ctld *c, struct job *job, const struct update_job_msg *m, uid_t uid,
	       bool is_admin);
