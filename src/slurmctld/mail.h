/* mail.h - --mail-type events: run MailProg with Slurm's subject lines,
 * without waiting for it (posix_spawn; children reaped on SIGCHLD).
 */
#pragma once
#include <stdint.h>
#include <time.h>

struct ctld;
struct job;

/* Send the mail for event (MAIL_JOB_BEGIN, _END, _FAIL, _TIME100...) if
 * the job asked for it. */
void mail_job(struct ctld *c, const struct job *job, uint16_t event);
/* "Slurm Job_id=12 Name=x Ended, Run time 00:00:02, COMPLETED, ExitCode 0";
 * malloc'd (exposed for unit tests). */
char *mail_subject(const struct job *job, uint16_t event, time_t now);
int mail_init(struct ctld *c);
void mail_fini(struct ctld *c);
