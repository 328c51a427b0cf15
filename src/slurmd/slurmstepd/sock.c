/* sock.c - the stepd's unix socket, how slurmd reaches a running job or step
 * (stepd_proto.h has the protocol). Only root and the stepd's own uid
 * (the SlurmdUser of a test cluster) may talk to it: SO_PEERCRED, and the
 * socket file is 0700.
 *
 * One request per connection, answered at once from the stepd's loop
 * (the listening socket is registered there, last in a round); a peer
 * that stalls costs at most SOCK_READ_TIMEOUT_MS.
 */
#include "sock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/stepd_proto.h"
#include "cgroup.h"
#include "frame.h"
#include "kill.h"
#include "loop.h"
#include "proctree.h"
#include "stepd.h"
#include "usage.h"

#define SOCK_READ_TIMEOUT_MS 2000
#define SOCK_GONE_WAIT_MS    2000 /* for the stepd of a run that is ending */

static void sock_ready(void *arg, short revents);

/* Is a stepd answering on path? */
static bool sock_is_alive(const struct sockaddr_un *sa)
{
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	return fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
}

/* A requeued batch job may be launched again on the same node while the
 * stepd of its previous run, whose completion the controller already
 * has, is still closing: give that one a moment to go before calling the
 * step a duplicate. True when path is free (or answers no more). */
static bool sock_wait_gone(const struct sockaddr_un *sa)
{
	struct timespec pause = {.tv_nsec = 50 * 1000 * 1000};

	for (int waited = 0; waited < SOCK_GONE_WAIT_MS; waited += 50) {
		if (access(sa->sun_path, F_OK) < 0 || !sock_is_alive(sa))
			return true;
		nanosleep(&pause, NULL);
	}
	return access(sa->sun_path, F_OK) < 0 || !sock_is_alive(sa);
}

int sock_open(struct stepd *s)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	mode_t old;
	int r;

	r = stepd_step_socket_path(s->sock_path, sizeof(s->sock_path), s->spool_dir, s->node_name,
				   s->job_id, s->step_id);
	if (r < 0 || strlen(s->sock_path) >= sizeof(sa.sun_path)) {
		s->sock_path[0] = '\0';
		return log_errno(-ESLURMD_INVALID_SOCKET_NAME_LEN, "JobId=%u: socket in %s",
				 s->job_id, s->spool_dir);
	}
	strcpy(sa.sun_path, s->sock_path);
	if (access(s->sock_path, F_OK) == 0) {
		if (sock_is_alive(&sa) && !sock_wait_gone(&sa)) {
			s->sock_path[0] = '\0'; /* not ours to remove */
			return -ESLURMD_STEP_EXISTS;
		}
		unlink(s->sock_path); /* left by a stepd that died */
	}
	/* Bound and listening under "<path>.new" (a name slurmd ignores),
	 * then linked to its real name: slurmd never finds the socket bound
	 * but not yet listening, which it would take for one left by a dead
	 * stepd (ECONNREFUSED) and remove, and the link fails (EEXIST) if
	 * another stepd of the step got there first. */
	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.new", s->sock_path)
	    >= (int)sizeof(sa.sun_path)) {
		s->sock_path[0] = '\0';
		return log_errno(-ESLURMD_INVALID_SOCKET_NAME_LEN, "JobId=%u: socket in %s",
				 s->job_id, s->spool_dir);
	}
	unlink(sa.sun_path); /* a dead stepd's */
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->listen_fd < 0)
		return -errno;
	old = umask(0077); /* the file is created 0700, no window */
	r = bind(s->listen_fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r == 0)
		r = listen(s->listen_fd, 64);
	if (r == 0)
		r = link(sa.sun_path, s->sock_path);
	if (r < 0) {
		r = -errno;
		error("JobId=%u: cannot listen on %s: %s", s->job_id, s->sock_path, strerror(-r));
		unlink(sa.sun_path);
		close(s->listen_fd);
		s->listen_fd = -1;
		s->sock_path[0] = '\0';
		return r == -EEXIST ? -ESLURMD_STEP_EXISTS : r;
	}
	unlink(sa.sun_path);
	s->listen_id = loop_fd_add(s->loop, STEPD_PRIO_SOCK, s->listen_fd, POLLIN, sock_ready, s);
	return s->listen_id < 0 ? -ENOMEM : 0;
}

static int sock_signal(struct stepd *s, const struct signal_job_msg *m)
{
	if (m->signal >= NSIG)
		return -EINVAL;
	if (s->has_exited)
		return -ESLURMD_JOB_NOTRUNNING;
	verbose("JobId=%u: signal %u", s->job_id, (unsigned)m->signal);
	if (m->signal) /* 0 only asks whether the job still runs */
		proctree_signal(s, m->signal);
	return 0;
}

/* sstat: the step's owner, root or SlurmUser may look. 0 with *ret
 * filled, or the rc to send. */
static int sock_stat(struct stepd *s, const struct step_stat_req *m, struct step_stat_resp *ret)
{
	if (m->uid != 0 && m->uid != s->uid && m->uid != s->conf->slurm_user_id)
		return -ESLURM_ACCESS_DENIED;
	if (s->has_exited)
		return -ESLURM_ALREADY_DONE;
	*ret = (struct step_stat_resp){
	    .job_id = s->job_id, .step_id = s->step_id, .node_name = s->node_name};
	usage_live(s, &ret->usage, &ret->min_cpu_usec, &ret->min_cpu_task);
	return 0;
}

/* pam_slurm_adopt: a login of the job's owner joins the extern step (pid
 * 0: is the job uid's?). The caller is root or our own user
 * (sock_handle); the uid is whom PAM authenticated. */
static int sock_adopt(struct stepd *s, const struct extern_pid_msg *m)
{
	int r;

	if (!s->is_extern)
		return -SLURM_UNEXPECTED_MSG_ERROR;
	if (m->uid != s->uid)
		return -ESLURM_USER_ID_MISSING;
	if (s->has_exited || s->is_terminating)
		return -ESLURM_ALREADY_DONE;
	if (m->pid == 0)
		return 0; /* only asked whose job this is */
	if (m->pid == 1 || m->pid > (uint32_t)INT32_MAX)
		return -EINVAL;
	r = cgroup_adopt(s, (pid_t)m->pid);
	if (r < 0) {
		error("%s: process %u not adopted: %s", s->label, m->pid, strerror(-r));
		return r == -ENOTSUP ? -ESLURM_NOT_SUPPORTED : -ESLURMD_SETUP_ENVIRONMENT_ERROR;
	}
	info("%s: process %u adopted", s->label, m->pid);
	return 0;
}

/* Decode and act on one request; returns the rc to send. */
static int sock_dispatch(struct stepd *s, uint16_t type, const void *body)
{
	const struct signal_job_msg *sig = body;

	switch (type) {
	case REQUEST_PING:
		return s->has_exited ? -ESLURM_ALREADY_DONE : 0;
	case REQUEST_SIGNAL_TASKS:
		return sock_signal(s, sig);
	case REQUEST_TERMINATE_JOB:
		kill_terminate(s, sig->reason && *sig->reason ? sig->reason : NULL);
		return 0;
	case REQUEST_KILL_TIMELIMIT:
		kill_terminate(s, "TIME LIMIT");
		return 0;
	case REQUEST_ADD_EXTERN_PID:
		return sock_adopt(s, body);
	default:
		return -SLURM_UNEXPECTED_MSG_ERROR;
	}
}

/* Accept and answer one request. */
static void sock_handle(struct stepd *s)
{
	_cleanup_close_ int fd = -1;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	uint16_t type = 0;
	void *msg = NULL;
	int r;

	fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0
	    || (cred.uid != 0 && cred.uid != geteuid())) {
		error("JobId=%u: request on %s from uid %d refused", s->job_id, s->sock_path,
		      len == sizeof(cred) ? (int)cred.uid : -1);
		(void)stepd_write_rc(fd, ESLURM_ACCESS_DENIED);
		return;
	}
	r = frame_read(fd, STEPD_CTL_BODY_MAX, SOCK_READ_TIMEOUT_MS, NULL, 0, &type, &msg);
	if (r < 0) {
		debug("JobId=%u: bad request on %s: %s", s->job_id, s->sock_path, sl_strerror(r));
		return;
	}
	if (type == REQUEST_JOB_STEP_STAT) { /* rc, then the usage as a frame */
		struct step_stat_resp resp;
		_cleanup_(pack_buf_done) struct pack_buf out = {0};

		r = sock_stat(s, msg, &resp);
		msg_free(msg_lookup(type), msg);
		if (r == 0 && stepd_frame_pack(RESPONSE_JOB_STEP_STAT, &resp, &out) < 0)
			r = -ENOMEM;
		if (stepd_write_rc(fd, r) == 0 && r == 0)
			(void)stepd_write_all(fd, out.data, out.len);
		return;
	}
	r = sock_dispatch(s, type, msg);
	msg_free(msg_lookup(type), msg);
	(void)stepd_write_rc(fd, r);
}

static void sock_ready(void *arg, short revents)
{
	if (revents & POLLIN)
		sock_handle(arg);
}

void sock_close(struct stepd *s)
{
	/* Unlink first: slurmd then finds no stepd (ESLURM_INVALID_JOB_ID).
	 * Requests already queued get their answer instead of a reset. */
	if (s->sock_path[0])
		unlink(s->sock_path);
	s->sock_path[0] = '\0';
	if (s->listen_fd < 0)
		return;
	for (int i = 0; i < 64; i++) {
		struct pollfd p = {.fd = s->listen_fd, .events = POLLIN};

		if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN))
			break;
		sock_handle(s);
	}
	close(s->listen_fd);
	s->listen_fd = -1;
	loop_fd_set(s->loop, s->listen_id, -1, 0);
}
