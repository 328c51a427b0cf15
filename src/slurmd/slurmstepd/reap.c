/* reap.c - the stepd's own signals and its children: SIGCHLD, SIGTERM and
 * SIGINT arrive on a signalfd registered in the loop (first in a round,
 * so a task's end is known before its pipes are read); every exited
 * child is reaped with wait4(): its usage counts (usage.c), a task's end
 * is noted (step.c). The stepd is a child subreaper, so the job's orphans
 * come back to it and are reaped here too.
 *
 * SIGTERM or SIGINT to the stepd (an admin, a test harness wiping a node)
 * kills the job at once and marks the stepd stopping: one report try,
 * then exit.
 */
#include "reap.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "loop.h"
#include "proctree.h"
#include "step.h"
#include "stepd.h"
#include "usage.h"

static void reap_children(struct stepd *s)
{
	for (;;) {
		struct rusage ru;
		int status;
		pid_t pid = wait4(-1, &status, WNOHANG, &ru);

		if (pid <= 0)
			break;
		usage_reaped(s, pid, &ru);
		if (s->step)
			step_reaped(s, pid, status);
	}
}

void reap_now(struct stepd *s)
{
	struct signalfd_siginfo si;

	while (read(s->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD || s->is_stopping)
			continue;
		s->is_stopping = true;
		info("JobId=%u: slurmstepd got signal %u: killing the job", s->job_id,
		     (unsigned)si.ssi_signo);
		if (!s->has_exited)
			proctree_signal(s, SIGKILL);
	}
	reap_children(s);
}

static void reap_ready(void *arg, short revents)
{
	if (revents & POLLIN)
		reap_now(arg);
}

void reap_wait(struct stepd *s, int ms)
{
	struct pollfd p = {.fd = s->sig_fd, .events = POLLIN};

	poll(&p, 1, ms);
	reap_now(s);
}

int reap_init(struct stepd *s)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	s->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	/* Orphans of the job come back to us, so we can find and reap them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (s->sig_fd < 0)
		return -errno;
	if (loop_fd_add(s->loop, STEPD_PRIO_SIGNALS, s->sig_fd, POLLIN, reap_ready, s) < 0)
		return -ENOMEM;
	return 0;
}

void reap_close(struct stepd *s)
{
	if (s->sig_fd >= 0)
		close(s->sig_fd);
	s->sig_fd = -1;
}
