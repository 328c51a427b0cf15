/* mail.h - --mail-type events: run MailProg with Slurm's subject lines,
 * off the event loop (fork + exec, reaped on SIGCHLD, killed at a timeout),
 * as SlurmUser (never root), with a clean environment.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct job;

#define MAIL_TIMEOUT_S	 60 /* a MailProg still running then is killed */
#define MAIL_MAX_RUNNING 64 /* more at once: the mail is dropped (logged) */

/* Send the mail for event (MAIL_JOB_BEGIN, _END, _FAIL, _TIME100...) if
 * the job asked for it. */
void mail_job(struct ctld *c, const struct job *job, uint16_t event);
/* "Slurm Job_id=12 Name=x Ended, Run time 00:00:02, COMPLETED, ExitCode 0";
 * malloc'd (exposed for unit tests). */
char *mail_subject(const struct job *job, uint16_t event, time_t now);
/* A --mail-user value: comma-separated user names or addresses, each
 * non-empty, not starting with '-' (never an option of MailProg), made of
 * letters, digits and ._+-=@%~ only, at most 1024 bytes in all. */
bool mail_user_is_valid(const char *s);
/* A child of the controller ended: true when it was a MailProg run
 * (job_script.c's SIGCHLD handler reaps every child). */
bool mail_reaped(struct ctld *c, pid_t pid, int status);
int mail_init(struct ctld *c);
void mail_fini(struct ctld *c);
