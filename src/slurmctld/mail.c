/* mail.c - see mail.h.
 *
 * Subjects follow Slurm 22.05: Began (with the queued time), Ended / Failed
 * (with run time, final state and exit code), Reached time limit. The
 * recipient is --mail-user or the submitting user.
 *
 * MailProg runs as `MailProg -s <subject> -- <recipient>`: the recipient
 * was checked at submit and is checked again here, and "--" ends the
 * options, so a recipient can never be an option of the mail program
 * (mailutils' --exec=...). The child runs as SlurmUser, or as "nobody"
 * when SlurmUser is root (the controller runs no user-influenced program
 * as root), in its own process group, with stdin/out/err on /dev/null and
 * only PATH and SLURM_JOB_* in its environment. The loop never waits for
 * it: SIGCHLD reaps it (job_script.c reaps every child and hands MailProg
 * ones here), and a timer kills its group at MAIL_TIMEOUT_S.
 * Caveat: the child is made with fork() from a threaded process, so it
 * only calls async-signal-safe functions before execve().
 */
#include "mail.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/parse_time.h"
#include "child_exec.h"
#include "ctld.h"
#include "job.h"

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

struct mail_run {
	pid_t pid;
	struct event *timer;
	struct ctld *c;
};

struct mail_runs {
	struct mail_run run[MAIL_MAX_RUNNING];
	uid_t uid; /* MailProg runs as (mail_identity, at start: no user */
	gid_t gid; /* database lookup on the loop) */
};

bool mail_user_is_valid(const char *s)
{
	static const char extra[] = "._+-=@%~";
	bool is_start = true;

	if (!s || !*s || strlen(s) > 1024)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p == ',') {
			if (is_start) /* an empty item */
				return false;
			is_start = true;
			continue;
		}
		if (is_start && *p == '-')
			return false;
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z')
		    && !(*p >= '0' && *p <= '9') && !strchr(extra, *p))
			return false;
		is_start = false;
	}
	return !is_start;
}

/* Whom MailProg runs as: SlurmUser, or nobody when that is root; when the
 * controller is not root it cannot change, and runs it as itself. */
static void mail_identity(const struct ctld *c, uid_t *uid, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	*uid = geteuid();
	*gid = getegid();
	if (*uid != 0)
		return;
	if (c->conf->slurm_user_id != 0
	    && getpwuid_r(c->conf->slurm_user_id, &pw, buf, sizeof(buf), &res) == 0 && res) {
		*uid = res->pw_uid;
		*gid = res->pw_gid;
		return;
	}
	if (getpwnam_r("nobody", &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_uid != 0) {
		*uid = res->pw_uid;
		*gid = res->pw_gid;
		return;
	}
	*uid = 65534;
	*gid = 65534;
}

static void mail_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mail_run *run = arg;

	(void)fd;
	(void)what;
	/* not reaped yet (reaping frees this timer), so the pid is still ours */
	error("mail: MailProg (pid %d) still running after %d s: killed", (int)run->pid,
	      MAIL_TIMEOUT_S);
	kill(-run->pid, SIGKILL);
	kill(run->pid, SIGKILL);
}

static struct mail_run *mail_slot(struct ctld *c)
{
	for (int i = 0; c->mail && i < MAIL_MAX_RUNNING; i++)
		if (!c->mail->run[i].pid)
			return &c->mail->run[i];
	return NULL;
}

/* Fork and exec; the child is watched by slot. 0 or a negative errno. */
static int mail_spawn(struct ctld *c, struct mail_run *slot, const char *prog, char **argv,
		      char **envp)
{
	struct timeval tv = {MAIL_TIMEOUT_S, 0};
	uid_t uid = c->mail->uid;
	gid_t gid = c->mail->gid;
	pid_t pid;

	slot->timer = evtimer_new(c->base, mail_timeout_cb, slot);
	if (!slot->timer)
		return -ENOMEM;
	pid = fork();
	if (pid < 0) {
		int r = -errno;

		event_free(slot->timer);
		slot->timer = NULL;
		return r;
	}
	if (pid == 0)
		child_exec(prog, argv, envp, uid, gid);
	setpgid(pid, pid); /* also here: no race with the timer's kill(-pid) */
	slot->pid = pid;
	slot->c = c;
	evtimer_add(slot->timer, &tv);
	return 0;
}

void mail_job(struct ctld *c, const struct job *job, uint16_t event)
{
	const char *prog = c->conf->mail_prog ? c->conf->mail_prog : "/bin/mail";
	struct mail_run *slot;
	const char *to;
	char *subject, *env[5] = {NULL};
	int r;

	if (!job->desc || !(job->desc->mail_type & event))
		return;
	to = job->desc->mail_user ? job->desc->mail_user : job->user_name;
	if (!mail_user_is_valid(to)) { /* refused at submit; never an option here */
		error("mail: JobId=%u: recipient refused, no mail sent", job->job_id);
		return;
	}
	slot = mail_slot(c);
	if (!slot) {
		error("mail: JobId=%u: %d MailProg already running, mail dropped", job->job_id,
		      MAIL_MAX_RUNNING);
		return;
	}
	subject = mail_subject(job, event, time(NULL));
	if (!subject)
		return;
	char *argv[] = {(char *)prog, "-s", subject, "--", (char *)to, NULL};

	if (asprintf(&env[0], "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin") < 0
	    || asprintf(&env[1], "SLURM_JOB_ID=%u", job->job_id) < 0
	    || asprintf(&env[2], "SLURM_JOB_USER=%s", job->user_name ? job->user_name : "") < 0
	    || asprintf(&env[3], "SLURM_JOB_STATE=%s", job_state_string(job->state)) < 0) {
		error("mail: out of memory");
		goto out;
	}
	r = mail_spawn(c, slot, prog, argv, env);
	if (r < 0)
		error("mail: cannot run %s: %s", prog, strerror(-r));
	else
		info("email msg to %s: %s", to, subject);
out:
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++)
		free(env[i]);
	free(subject);
}

bool mail_reaped(struct ctld *c, pid_t pid, int status)
{
	for (int i = 0; c->mail && i < MAIL_MAX_RUNNING; i++) {
		struct mail_run *run = &c->mail->run[i];

		if (run->pid != pid)
			continue;
		if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
			error("mail: MailProg (pid %d) exited %d", (int)pid, WEXITSTATUS(status));
		if (run->timer)
			event_free(run->timer);
		*run = (struct mail_run){0};
		return true;
	}
	return false;
}

int mail_init(struct ctld *c)
{
	c->mail = calloc(1, sizeof(*c->mail));
	if (!c->mail)
		return -ENOMEM;
	mail_identity(c, &c->mail->uid, &c->mail->gid);
	return 0;
}

void mail_fini(struct ctld *c)
{
	for (int i = 0; c->mail && i < MAIL_MAX_RUNNING; i++)
		if (c->mail->run[i].timer)
			event_free(c->mail->run[i].timer);
	free(c->mail);
	c->mail = NULL;
}
