/* wait_client.h - REQUEST_JOB_WAIT from the commands (scontrol wait_job,
 * sbatch --wait): one request holds until the jobs are done, asked again
 * after each SL_WAIT_TIMEOUT_MAX for a longer wait.
 */
#pragma once
#include <stdint.h>

struct sl_conf;
struct job_wait_resp;

/* Wait on ids (n of them, at most SL_WAIT_JOBS_MAX) until they are done
 * (msg_wait.h: states, flags) or timeout_s passed (0: no limit). Returns 0
 * with *ret (free with wait_client_free) the last answer, whose jobs not
 * done are JOB_WAIT_TIMEOUT; or a negative code (the controller's refusal,
 * or a communication error). */
int wait_client_jobs(const struct sl_conf *conf, const uint32_t *ids, uint32_t n,
		     uint32_t states, uint32_t flags, uint32_t timeout_s,
		     struct job_wait_resp **ret);
void wait_client_free(struct job_wait_resp *resp);

/* "RUNNING,COMPLETED", "started", "finished" (case-insensitive) -> the
 * states bits of msg_wait.h; -EINVAL for an unknown word. */
int wait_client_parse_states(const char *list, uint32_t *ret);
