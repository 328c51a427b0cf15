/* mail.c - see mail.h.
 *
 * Subjects follow Slurm 22.05: Began (with the queued time), Ended / Failed
 * (with run time, final state and exit code), Reached time limit. The
 * recipient is --mail-user or the submitting user.
 */
#include "mail.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/parse_time.h"
#include "ctld.h"
#include "job.h"

extern char **environ;

static int exit_code_of(uint32_t status)
{
	return WIFEXITED((int)status) ? WEXITSTATUS((int)status) : 0;
}

char *mail_subject(const struct job *job, uint16_t event, time_t now)
{
	const char *name = job->desc && job->desc->name ? job->desc->name : "(null)";
	time_t run = (job->end_time && !job_is_running(job) ? job->end_time : now) - job->start_time;
	char t[64], *s = NULL;
	int n;

	switch (event) {
	case MAIL_JOB_BEGIN:
		secs2time_str((uint32_t)(job->start_time - job->submit_time), t, sizeof(t));
		n = asprintf(&s, "Slurm Job_id=%u Name=%s Began, Queued time %s", job->job_id, name,
			     t);
		break;
	case MAIL_JOB_END:
	case MAIL_JOB_FAIL:
		secs2time_str(run < 0 ? 0 : (uint32_t)run, t, sizeof(t));
		n = asprintf(&s, "Slurm Job_id=%u Name=%s %s, Run time %s, %s, ExitCode %d",
			     job->job_id, name, event == MAIL_JOB_FAIL ? "Failed" : "Ended", t,
			     job_state_string(job->state), exit_code_of(job->exit_code));
		break;
	case MAIL_JOB_TIME100:
		secs2time_str(run < 0 ? 0 : (uint32_t)run, t, sizeof(t));
		n = asprintf(&s, "Slurm Job_id=%u Name=%s Reached time limit, Run time %s",
			     job->job_id, name, t);
		break;
	default:
		return NULL;
	}
	return n < 0 ? NULL : s;
}

void mail_job(struct ctld *c, const struct job *job, uint16_t event)
{
	const char *prog = c->conf->mail_prog ? c->conf->mail_prog : "/bin/mail";
	const char *to;
	char *subject;
	pid_t pid;
	int r;

	if (!job->desc || !(job->desc->mail_type & event))
		return;
	to = job->desc->mail_user ? job->desc->mail_user : job->user_name;
	subject = mail_subject(job, event, time(NULL));
	if (!subject || !to) {
		free(subject);
		return;
	}
	char *argv[] = { (char *)prog, "-s", subject, (char *)to, NULL };
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	r = posix_spawn(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		error("mail: cannot run %s: %s", prog, strerror(r));
	else
		info("email msg to %s: %s", to, subject);
	free(subject);
}

static void sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	(void)arg;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int mail_init(struct ctld *c)
{
	c->sig_chld = evsignal_new(c->base, SIGCHLD, sigchld_cb, c);
	if (!c->sig_chld)
		return -ENOMEM;
	return evsignal_add(c->sig_chld, NULL);
}

void mail_fini(struct ctld *c)
{
	if (c->sig_chld)
		event_free(c->sig_chld);
	c->sig_chld = NULL;
}
