/* license.h - slurm.conf's Licenses=: the cluster's counted licenses, what
 * running jobs hold of them, and the checks of a job's -L/--licenses.
 *
 * A job asks "name[:count],..."; it is refused at submission when a name
 * is not configured or asks more than there are (Slurm's "Invalid license
 * specification"), and waits with reason Licenses while they are in use.
 * A job holds its licenses from its start to its end (job_res.c charges
 * and releases them with its nodes). Nothing is saved: the counts follow
 * from the running jobs.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct ctld;
struct job;

struct license {
	char *name;
	uint32_t total;
	uint32_t used; /* by running jobs */
};

/* c->licenses from c->conf->licenses, none in use: at start, before the
 * journal charges the running jobs, and at a reconfigure, whose caller
 * charges them again (license_job_apply). 0 or -ENOMEM (the old table is
 * kept). */
int license_table_build(struct ctld *c);
void license_table_free(struct ctld *c);
struct license *license_find(const struct ctld *c, const char *name);

/* A submission's (or update's) -L: 0, or -ESLURM_INVALID_LICENSES. */
int license_job_check(const struct ctld *c, const char *spec);
/* Whether the job's licenses are free now (true with none). */
bool license_job_fits(const struct ctld *c, const struct job *job);
/* Its licenses taken (a start) or given back (an end). */
void license_job_apply(struct ctld *c, const struct job *job, bool is_release);
