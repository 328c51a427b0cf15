/* cred_state.h - the step credentials this slurmd has already accepted,
 * and the jobs that ended here (Slurm's "cred state").
 *
 * A credential (step_cred.h) is good for STEP_CRED_EXPIRE_S and munged
 * decodes it any number of times within its TTL, so slurmd remembers
 * what it launched: a second launch of the same credential (the same job,
 * step and creation time) is refused as replayed, and a launch for a job
 * this node was told to terminate, with a credential created before that,
 * as revoked (a requeued job runs again with new credentials). Entries
 * live as long as the credentials they stop, so the list stays small; it
 * is written to <SlurmdSpoolDir>/<node>_cred_state (0600; a line appended
 * per change, rewritten atomically once mostly dead) and read back at
 * start, so a slurmd restart forgets nothing.
 */
#pragma once
#include <stdint.h>
#include <time.h>

#define CRED_STATE_MAX 100000 /* entries; past that new launches are refused */

struct cred_state;
struct step_cred;

/* Load path (missing: empty); entries expired at now are dropped. A file
 * that cannot be read whole is logged and its readable lines kept. 0 or
 * -ENOMEM. */
int cred_state_open(const char *path, time_t now, struct cred_state **ret);
void cred_state_free(struct cred_state *cs); /* NULL-safe */
/* Accept c's launch at now: 0 (c is then remembered until it expires),
 * -ESLURMD_CREDENTIAL_REVOKED (its job ended here after c was made),
 * -ESLURMD_CREDENTIAL_REPLAYED (c was accepted before), or
 * -ESLURMD_INVALID_JOB_CREDENTIAL when the list is full. */
int cred_state_use(struct cred_state *cs, const struct step_cred *c, time_t now);
/* The job ended here at now_us: its credentials made until then are
 * refused from now on. 0 or -ENOMEM. */
int cred_state_revoke_job(struct cred_state *cs, uint32_t job_id, uint64_t now_us, time_t now);
/* Number of live entries (for tests). */
uint32_t cred_state_count(const struct cred_state *cs);
