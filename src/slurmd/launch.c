/* launch.c - see launch.h.
 *
 * Launch: the packed REQUEST_BATCH_JOB_LAUNCH goes to a new slurmstepd on
 * a pipe (its stdin); the stepd answers on a second pipe (its stdout).
 * slurmd forks, the child calls setsid() and forks again and exits, so
 * the stepd is re-parented to init and survives slurmd restarts; the
 * grandchild execs <dir of slurmd>/slurmstepd -f <slurm.conf> -N <node>.
 * slurmd writes nothing into the job's directories, as root or otherwise.
 *
 * Signals: connect to <SlurmdSpoolDir>/<node>_<job>.4294967291, send the
 * request as received, relay the stepd's rc. No socket: the job does not
 * run here (ESLURM_INVALID_JOB_ID); a socket nobody listens on is left by
 * a stepd that died and is removed.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "slurmd.h"
#include "slurmstepd/stepd_proto.h"

/* A request waiting for a stepd's answer. */
struct launch_op {
	struct launch_op *next, *prev;
	struct slurmd *d;
	struct rpc_req *req;   /* answered exactly once, then gone */
	struct event *ev;
	int fd;                /* status pipe or stepd socket */
	uint16_t type;
	uint32_t job_id;
};

static unsigned answer_timeout_s(const struct slurmd *d)
{
	/* Answer before the controller's own MessageTimeout runs out. */
	unsigned mt = d->conf->message_timeout;

	return mt > 3 ? mt - 2 : 1;
}

static void op_free(struct launch_op *op)
{
	if (op->prev)
		op->prev->next = op->next;
	else if (op->d->launch_ops == op)
		op->d->launch_ops = op->next;
	if (op->next)
		op->next->prev = op->prev;
	if (op->ev)
		event_free(op->ev);
	if (op->fd >= 0)
		close(op->fd);
	free(op);
}

static void op_answer(struct launch_op *op, int rc)
{
	if (rc < 0)
		error("JobId=%u: %s failed: %s", op->job_id, msg_type_name(op->type),
		      sl_strerror(rc));
	rpc_reply_rc(op->req, rc);
	op_free(op);
}

static void op_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct launch_op *op = arg;
	bool is_launch = op->type == REQUEST_BATCH_JOB_LAUNCH;
	uint32_t be;
	ssize_t n;

	if (what & EV_TIMEOUT)
		return op_answer(op, is_launch ? -ESLURMD_EXECVE_FAILED
					       : -SLURM_COMMUNICATIONS_RECEIVE_ERROR);
	do
		n = read(fd, &be, sizeof(be));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(be)) /* the stepd died before answering */
		return op_answer(op, is_launch ? -ESLURMD_EXECVE_FAILED
					       : -SLURM_COMMUNICATIONS_RECEIVE_ERROR);
	op_answer(op, -(int)be32toh(be));
}

/* Takes ownership of fd. On success req is kept and answered later; on
 * failure the caller's dispatcher answers it. */
static int op_wait(struct slurmd *d, struct rpc_req *req, int fd, uint32_t job_id)
{
	struct timeval tv = { .tv_sec = answer_timeout_s(d) };
	struct launch_op *op = calloc(1, sizeof(*op));

	if (!op) {
		close(fd);
		return -ENOMEM;
	}
	*op = (struct launch_op){ .d = d, .req = req, .fd = fd, .type = req->type, .job_id = job_id };
	op->ev = event_new(d->base, fd, EV_READ, op_read_cb, op);
	if (!op->ev || event_add(op->ev, &tv) < 0) {
		op_free(op);
		return -ENOMEM;
	}
	op->next = d->launch_ops;
	if (d->launch_ops)
		d->launch_ops->prev = op;
	d->launch_ops = op;
	return 0;
}

/* The intermediate child: new session, fork the stepd, exit. Only
 * async-signal-safe calls from here on. */
static _Noreturn void launch_child(int in, int out, char *const argv[])
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	pid_t pid;

	if (setsid() < 0)
		_exit(1);
	pid = fork();
	if (pid != 0)
		_exit(pid < 0 ? 1 : 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0)
		_exit(127);
	if (close_range(3, ~0u, 0) < 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	execv(argv[0], argv);
	_exit(127);
}

int slurmd_req_batch_launch(struct slurmd *d, struct rpc_req *req)
{
	const struct batch_launch_msg *m = req->body;
	char *argv[] = { d->stepd_path, "-f", d->stepd_conf, "-N", d->node_name, NULL };
	_cleanup_(pack_buf_done) struct pack_buf frame = { 0 };
	int to[2] = { -1, -1 }, from[2] = { -1, -1 }, status = 0, r;
	pid_t pid;

	r = stepd_frame_pack(REQUEST_BATCH_JOB_LAUNCH, m, &frame);
	if (r < 0)
		return log_errno(r, "JobId=%u: cannot pack the launch", m->job_id);
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		r = -errno;
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto fail;
	}
	if (pid == 0)
		launch_child(to[0], from[1], argv);
	close(to[0]);
	close(from[1]);
	to[0] = from[1] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		r = -ESLURMD_EXECVE_FAILED;
		goto fail;
	}
	/* A stepd that died before reading still answers through EOF below. */
	r = stepd_write_all(to[1], frame.data, frame.len);
	if (r < 0)
		debug("JobId=%u: launch frame not delivered: %s", m->job_id, strerror(-r));
	close(to[1]);
	to[1] = -1;
	verbose("JobId=%u: slurmstepd started", m->job_id);
	r = op_wait(d, req, from[0], m->job_id);
	from[0] = -1;
	return r;
fail:
	for (int i = 0; i < 2; i++) {
		if (to[i] >= 0)
			close(to[i]);
		if (from[i] >= 0)
			close(from[i]);
	}
	return log_errno(r, "JobId=%u: cannot start slurmstepd", m->job_id);
}

int slurmd_req_signal_job(struct slurmd *d, struct rpc_req *req)
{
	const struct signal_job_msg *m = req->body;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_(pack_buf_done) struct pack_buf frame = { 0 };
	_cleanup_close_ int fd = -1;
	uint32_t job_id = m->job_id;
	int r;

	if (stepd_socket_path(sa.sun_path, sizeof(sa.sun_path), d->spool_dir, d->node_name,
			      m->job_id) < 0)
		return -ESLURM_INVALID_JOB_ID;
	r = stepd_frame_pack(req->type, m, &frame);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		if (err == ECONNREFUSED) {
			info("JobId=%u: removing stale socket %s", job_id, sa.sun_path);
			unlink(sa.sun_path);
		}
		if (err == ENOENT || err == ECONNREFUSED) {
			debug("JobId=%u: %s: no such job on this node", job_id,
			      msg_type_name(req->type));
			return -ESLURM_INVALID_JOB_ID;
		}
		return log_errno(-SLURM_COMMUNICATIONS_CONNECTION_ERROR, "JobId=%u: %s: %s", job_id,
				 sa.sun_path, strerror(err));
	}
	/* A few bytes into an idle local socket: this write does not block. */
	r = stepd_write_all(fd, frame.data, frame.len);
	if (r < 0)
		return -SLURM_COMMUNICATIONS_SEND_ERROR;
	verbose("JobId=%u: %s (signal %u) passed to its slurmstepd", job_id,
		msg_type_name(req->type), (unsigned)m->signal);
	return op_wait(d, req, TAKE_FD(fd), job_id);
}

int slurmd_launch_init(struct slurmd *d)
{
	char exe[PATH_MAX], conf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return log_errno(-errno, "cannot find the slurmd binary");
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	if (asprintf(&d->stepd_path, "%s/slurmstepd", exe) < 0) {
		d->stepd_path = NULL;
		return -ENOMEM;
	}
	if (access(d->stepd_path, X_OK) < 0)
		error("%s: %s; jobs cannot start on this node", d->stepd_path, strerror(errno));
	d->stepd_conf = strdup(realpath(d->conf_path, conf) ? conf : d->conf_path);
	d->spool_dir = conf_expand_path(d->conf->slurmd_spool_dir, d->node_name, d->hostname);
	if (!d->stepd_conf || !d->spool_dir)
		return -ENOMEM;
	return 0;
}

void slurmd_launch_fini(struct slurmd *d)
{
	while (d->launch_ops)
		op_answer(d->launch_ops, -SLURM_COMMUNICATIONS_SHUTDOWN_ERROR);
	free(d->stepd_path);
	free(d->stepd_conf);
	free(d->spool_dir);
	d->stepd_path = d->stepd_conf = d->spool_dir = NULL;
}
