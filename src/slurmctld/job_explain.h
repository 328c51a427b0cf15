/* job_explain.h - why a pending job waits, in words, for scontrol show job
 * (Reason= says the code; this says what would let it start).
 */
#pragma once

struct ctld;
struct job;

/* malloc'd; NULL when the job is not pending (or ENOMEM). */
char *job_explain(const struct ctld *c, const struct job *job);
