/* launch.c - see launch.h.
 *
 * Launch: the packed REQUEST_BATCH_JOB_LAUNCH or REQUEST_LAUNCH_TASKS goes
 * to a new slurmstepd on a pipe (its stdin); the stepd answers on a second
 * pipe (its stdout).
 * slurmd spawns <dir of slurmd>/slurmstepd -f <slurm.conf> -N <node> in
 * a session of its own with posix_spawn (a vfork: no copy of slurmd's
 * memory to tear down, which a fork would make the stepd pay for on
 * every launch); the stepd survives slurmd restarts, and slurmd reaps
 * the stepds it started (SIGCHLD, the pids it keeps).
 * slurmd writes nothing into the job's directories, as root or otherwise.
 *
 * Signals: connect to <SlurmdSpoolDir>/<node>_<job>.<step> (the batch
 * script's step is 4294967291), send the request as received, relay the
 * stepd's rc. SL_ALL_STEPS goes to every "<node>_<job>.*" socket in the
 * spool; the answer is 0 when at least one stepd took it. No socket: the
 * job does not run here (ESLURM_INVALID_JOB_ID); a socket nobody listens
 * on is left by a stepd that died and is removed.
 *
 * Tasks (REQUEST_LAUNCH_TASKS) come from srun, as its user: the user must
 * be the launch's (or root/SlurmUser), the node this one, the step
 * credential the controller's, granting exactly what the launch asks on
 * this node (step_cred.h: nodes, tasks, cpus, memory, GPUs), unexpired,
 * never launched here before and not of a job that ended here
 * (cred_state.h). The stepd then gets the launch, equal to the grant.
 * REQUEST_TERMINATE_JOB and REQUEST_KILL_TIMELIMIT of a whole job revoke
 * its credentials here.
 */
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "common/step_cred.h"
#include "common/stepd_proto.h"
#include "common/task_map.h"
#include "container.h"
#include "cred_state.h"
#include "health.h"
#include "prolog.h"
#include "reboot.h"
#include "slurmd.h"
#include "spawn.h"

/* One request relayed to several stepds (SL_ALL_STEPS): answered when
 * the last of them answered. */
struct relay {
	struct rpc_req *req;
	unsigned pending;
	bool is_any_ok;
	int rc;                /* the first error, when none took it */
	/* The batch stepd is told last, once every step's stepd answered: a
	 * step's "CANCELLED" line then reaches its srun before the batch
	 * script's signal makes that srun give up (relay_all). */
	struct slurmd *d;
	uint32_t job_id;
	char *batch_path;      /* NULL: none, or already told */
	struct pack_buf frame; /* a copy, for the batch stepd */
};

static int op_wait(struct slurmd *d, struct rpc_req *req, struct relay *relay, int fd,
		   uint32_t job_id);
static int op_wait_type(struct slurmd *d, struct rpc_req *req, uint16_t type,
			struct relay *relay, int fd, uint32_t job_id);
static int relay_connect(struct slurmd *d, const char *path, const struct pack_buf *frame,
			 uint32_t job_id, uint32_t step_id, int *ret_fd);

static void relay_free(struct relay *rl)
{
	free(rl->batch_path);
	pack_buf_done(&rl->frame);
	free(rl);
}

/* Tell the batch stepd now; pending counts it when it is on its way. */
static void relay_batch(struct relay *rl)
{
	_cleanup_free_ char *path = TAKE_PTR(rl->batch_path);
	int fd = -1,
	    r = relay_connect(rl->d, path, &rl->frame, rl->job_id, STEPD_BATCH_STEP_ID, &fd);

	if (r == 0) {
		rl->pending++;
		r = op_wait(rl->d, rl->req, rl, fd, rl->job_id);
		if (r < 0)
			rl->pending--;
	}
	if (r == 0)
		return;
	if (r != -ESLURM_INVALID_JOB_ID && !rl->rc)
		rl->rc = r;
}

/* A request waiting for a stepd's answer. */
struct launch_op {
	struct launch_op *next, *prev;
	struct slurmd *d;
	struct rpc_req *req;   /* answered exactly once, then gone; NULL with relay */
	struct relay *relay;   /* shared by the ops of one SL_ALL_STEPS request */
	struct event *ev;
	int fd;                /* status pipe or stepd socket */
	uint16_t type;
	uint32_t job_id;
	uint8_t *stat;         /* REQUEST_JOB_STEP_STAT: rc and frame read so far */
	size_t stat_len;
};

#define STAT_ANSWER_MAX (4 + STEPD_HDR_LEN + 4096) /* rc, a RESPONSE_JOB_STEP_STAT frame */

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
	free(op->stat);
	free(op);
}

static void op_answer(struct launch_op *op, int rc)
{
	struct relay *rl = op->relay;

	if (rc < 0)
		error("JobId=%u: %s failed: %s", op->job_id, msg_type_name(op->type),
		      sl_strerror(rc));
	if (!rl) {
		if (op->req) /* none for an extern stepd: the log says it */
			rpc_reply_rc(op->req, rc);
		op_free(op);
		return;
	}
	if (rc == 0)
		rl->is_any_ok = true;
	else if (!rl->rc)
		rl->rc = rc;
	op_free(op);
	if (--rl->pending == 0 && rl->batch_path)
		relay_batch(rl);
	if (rl->pending == 0) {
		rpc_reply_rc(rl->req, rl->is_any_ok ? 0 : rl->rc ? rl->rc : -ESLURM_INVALID_JOB_ID);
		relay_free(rl);
	}
}

/* sstat's answer: the stepd's rc, then (rc 0) its usage frame, read as
 * it comes without blocking; relayed to sstat as RESPONSE_JOB_STEP_STAT. */
static void op_stat_read(struct launch_op *op, short what)
{
	struct timeval tv = { .tv_sec = answer_timeout_s(op->d) };
	uint32_t be, body_len;
	uint16_t type;
	void *resp = NULL;
	ssize_t n;
	int r;

	if (what & EV_TIMEOUT)
		return op_answer(op, -SLURM_COMMUNICATIONS_RECEIVE_ERROR);
	if (!op->stat && !(op->stat = malloc(STAT_ANSWER_MAX)))
		return op_answer(op, -ENOMEM);
	do
		n = read(op->fd, op->stat + op->stat_len, STAT_ANSWER_MAX - op->stat_len);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		goto again;
	if (n <= 0)
		return op_answer(op, -SLURM_COMMUNICATIONS_RECEIVE_ERROR);
	op->stat_len += (size_t)n;
	if (op->stat_len < 4)
		goto again;
	memcpy(&be, op->stat, 4);
	if (be)
		return op_answer(op, -(int)be32toh(be));
	if (op->stat_len < 4 + STEPD_HDR_LEN)
		goto again;
	r = stepd_frame_header(op->stat + 4, STAT_ANSWER_MAX - 4 - STEPD_HDR_LEN, &body_len, &type);
	if (r < 0 || type != RESPONSE_JOB_STEP_STAT)
		return op_answer(op, -SLURM_PROTOCOL_VERSION_ERROR);
	if (op->stat_len < 4 + STEPD_HDR_LEN + body_len)
		goto again;
	r = msg_unpack_body(type, op->stat + 4 + STEPD_HDR_LEN, body_len, PROTOCOL_VERSION, &resp);
	if (r < 0)
		return op_answer(op, r);
	rpc_reply(op->req, RESPONSE_JOB_STEP_STAT, resp);
	msg_free(msg_lookup(type), resp);
	op_free(op);
	return;
again:
	if (event_add(op->ev, &tv) < 0)
		op_answer(op, -ENOMEM);
}

static void op_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct launch_op *op = arg;
	bool is_launch = op->type == REQUEST_BATCH_JOB_LAUNCH || op->type == REQUEST_LAUNCH_TASKS;
	uint32_t be;
	ssize_t n;

	if (op->type == REQUEST_JOB_STEP_STAT)
		return op_stat_read(op, what);
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

/* Takes ownership of fd. On success req (or relay, which then answers
 * it) is kept and answered later; on failure the caller answers it. */
static int op_wait(struct slurmd *d, struct rpc_req *req, struct relay *relay, int fd,
		   uint32_t job_id)
{
	return op_wait_type(d, req, req->type, relay, fd, job_id);
}

/* op_wait for a request of type; req NULL: nobody to answer (logged). */
static int op_wait_type(struct slurmd *d, struct rpc_req *req, uint16_t type,
			struct relay *relay, int fd, uint32_t job_id)
{
	struct timeval tv = { .tv_sec = answer_timeout_s(d) };
	struct launch_op *op = calloc(1, sizeof(*op));

	if (!op) {
		close(fd);
		return -ENOMEM;
	}
	*op = (struct launch_op){ .d = d, .req = relay ? NULL : req, .relay = relay, .fd = fd,
				  .type = type, .job_id = job_id };
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

/* Reaps the stepds this slurmd started that have exited (only those: a
 * wait for any child would take another's status). */
static void stepd_reap(struct slurmd *d)
{
	for (size_t i = 0; i < d->n_stepds;) {
		pid_t r = waitpid(d->stepds[i], NULL, WNOHANG);

		if (r == 0 || (r < 0 && errno == EINTR)) {
			i++;
			continue;
		}
		d->stepds[i] = d->stepds[--d->n_stepds];
	}
}

static void sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	stepd_reap(arg);
	slurmd_pe_reap(arg);
	slurmd_health_reap(arg);
	slurmd_reboot_reap(arg);
}

/* Room for one more stepd pid, before spawning it (a pid that could not
 * be kept would never be reaped). */
static int stepd_pids_reserve(struct slurmd *d)
{
	pid_t *v;
	size_t cap;

	if (d->n_stepds < d->cap_stepds)
		return 0;
	cap = d->cap_stepds ? d->cap_stepds * 2 : 16;
	v = realloc(d->stepds, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	d->stepds = v;
	d->cap_stepds = cap;
	return 0;
}

/* A new session running argv with in as stdin, out as stdout (spawn.h). */
static int stepd_spawn(struct slurmd *d, char *const argv[], int in, int out)
{
	const int fds[3] = {in, out, SPAWN_FD_INHERIT};
	pid_t pid;
	int r;

	if (stepd_pids_reserve(d) < 0)
		return -ENOMEM;
	r = slurmd_spawn(argv[0], argv, environ, fds, &pid);
	if (r < 0)
		return r;
	d->stepds[d->n_stepds++] = pid;
	return 0;
}

/* Start a slurmstepd for the launch message body of type; req (NULL:
 * none) is answered with the stepd's word. */
static int stepd_start_msg(struct slurmd *d, struct rpc_req *req, uint16_t type, const void *body,
			   uint32_t job_id)
{
	char *argv[] = { d->stepd_path, "-f", d->stepd_conf, "-N", d->node_name, NULL };
	_cleanup_(pack_buf_done) struct pack_buf frame = { 0 };
	int to[2] = { -1, -1 }, from[2] = { -1, -1 }, r;

	r = stepd_frame_pack(type, body, &frame);
	if (r < 0)
		return log_errno(r, "JobId=%u: cannot pack the launch", job_id);
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		r = -errno;
		goto fail;
	}
	r = stepd_spawn(d, argv, to[0], from[1]);
	if (r < 0) {
		error("JobId=%u: cannot run %s: %s", job_id, argv[0], strerror(-r));
		r = -ESLURMD_EXECVE_FAILED;
		goto fail;
	}
	close(to[0]);
	close(from[1]);
	to[0] = from[1] = -1;
	/* A stepd that died before reading still answers through EOF below. */
	r = stepd_write_all(to[1], frame.data, frame.len);
	if (r < 0)
		debug("JobId=%u: launch frame not delivered: %s", job_id, strerror(-r));
	close(to[1]);
	to[1] = -1;
	verbose("JobId=%u: slurmstepd started for %s", job_id, msg_type_name(type));
	r = op_wait_type(d, req, type, NULL, from[0], job_id);
	from[0] = -1;
	return r;
fail:
	for (int i = 0; i < 2; i++) {
		if (to[i] >= 0)
			close(to[i]);
		if (from[i] >= 0)
			close(from[i]);
	}
	return log_errno(r, "JobId=%u: cannot start slurmstepd", job_id);
}

/* The job's private directories first (job_container/tmpfs). */
static int stepd_start(struct slurmd *d, struct rpc_req *req, uint32_t job_id)
{
	int r = slurmd_container_create(d, job_id);

	if (r < 0)
		return r;
	return stepd_start_msg(d, req, req->type, req->body, job_id);
}

/* PrologFlags=Contain, the job's Prolog done here: its extern stepd, one
 * task (the stepd runs its sleeper) in the job's share of this node. */
static void extern_start(struct slurmd *d, const struct extern_req *x)
{
	static const uint32_t gtid0;
	static const uint32_t node0;
	struct launch_tasks_msg m = {
	    .job_id = x->job_id,
	    .step_id = SL_EXTERN_STEP,
	    .uid = x->uid,
	    .gid = x->gid,
	    .user_name = x->user,
	    .node_name = d->node_name,
	    .cwd = "/",
	    .step_nodes = d->node_name,
	    .num_nodes = 1,
	    .num_tasks = 1,
	    .gtids = (uint32_t *)&gtid0,
	    .ntasks_here = 1,
	    .cpus_on_node = x->cpus,
	    .mem_limit = x->mem,
	    .gpus = x->gpus,
	};
	char id[2][32], *env[] = {id[0], id[1]};
	int r = task_map_build(&node0, 1, &m.map);

	snprintf(id[0], sizeof(id[0]), "SLURM_JOB_ID=%u", x->job_id);
	snprintf(id[1], sizeof(id[1]), "SLURM_JOBID=%u", x->job_id);
	m.env = env;
	m.env_count = 2;
	if (r == 0)
		r = slurmd_container_create(d, x->job_id);
	if (r == 0)
		r = stepd_start_msg(d, NULL, REQUEST_LAUNCH_TASKS, &m, x->job_id);
	if (r < 0)
		error("JobId=%u: cannot start its extern step: %s", x->job_id, sl_strerror(r));
	free(m.map.blocks);
}

/* A launch that waited for the job's Prolog goes on (or fails). */
static void launch_go(struct slurmd *d, struct rpc_req *req, uint32_t job_id, int rc)
{
	if (rc == 0 && rpc_req_is_gone(req))
		rc = -SLURM_COMMUNICATIONS_CONNECTION_ERROR; /* nobody waits for it */
	if (rc == 0)
		rc = stepd_start(d, req, job_id);
	if (rc < 0)
		rpc_reply_rc(req, rc);
}

/* The Prolog first when this is the job's first launch here (prolog.h);
 * then the stepd, now or once the Prolog is done. */
static int launch_after_prolog(struct slurmd *d, struct rpc_req *req, const struct pe_facts *f)
{
	int r = slurmd_prolog_before(d, req, f, launch_go);

	if (r <= 0)
		return r; /* 0: kept, launch_go answers */
	return stepd_start(d, req, f->job_id);
}

int slurmd_req_batch_launch(struct slurmd *d, struct rpc_req *req)
{
	const struct batch_launch_msg *m = req->body;
	struct pe_facts f = {.job_id = m->job_id, .uid = m->uid, .gid = m->gid,
			     .user = m->user_name, .partition = m->partition,
			     .account = m->account, .nodes = m->nodes};

	return launch_after_prolog(d, req, &f);
}

/* Is gid the user's primary group or one of its supplementary groups? */
static bool gid_is_users(uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid);
	gid_t groups[256];
	int n = (int)ARRAY_SIZE(groups);

	if (!pw)
		return false;
	if (pw->pw_gid == gid)
		return true;
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/* The launch must be exactly what the controller's credential grants
 * this node, and the credential new here (cred_state). */
static int launch_cred_check(struct slurmd *d, struct rpc_req *req,
			     const struct launch_tasks_msg *m)
{
	_cleanup_(step_cred_done) struct step_cred cred = {0};
	const char *why = NULL;
	time_t now = time(NULL);
	int r;

	r = step_cred_decode(d->conf->munge_socket, m->cred, d->conf->slurm_user_id, &cred);
	if (r < 0)
		return log_errno(r, "StepId=%u.%u: credential refused (launch from uid %u)",
				 m->job_id, m->step_id, (unsigned)req->uid);
	r = step_cred_check_launch(&cred, m, d->node_name, now, &why);
	if (r == -ESLURMD_INVALID_JOB_CREDENTIAL)
		error("Security violation: REQUEST_LAUNCH_TASKS StepId=%u.%u on %s from uid %u: "
		      "credential does not grant it (%s)",
		      m->job_id, m->step_id, d->node_name, (unsigned)req->uid, why);
	else if (r < 0)
		error("StepId=%u.%u: credential from uid %u refused: %s", m->job_id, m->step_id,
		      (unsigned)req->uid, sl_strerror(r));
	if (r == 0) {
		r = cred_state_use(d->cred_state, &cred, now);
		if (r < 0)
			error("StepId=%u.%u: launch from uid %u refused: %s", m->job_id, m->step_id,
			      (unsigned)req->uid, sl_strerror(r));
	}
	return r;
}

int slurmd_req_launch_tasks(struct slurmd *d, struct rpc_req *req)
{
	const struct launch_tasks_msg *m = req->body;
	bool is_admin = req->uid == 0 || req->uid == d->conf->slurm_user_id;
	struct pe_facts f;
	struct passwd *pw;
	int r;

	if (!is_admin && (req->uid != m->uid
			  || (req->gid != m->gid && !gid_is_users(m->uid, m->gid)))) {
		error("Security violation: REQUEST_LAUNCH_TASKS for uid %u gid %u from uid %u",
		      m->uid, m->gid, (unsigned)req->uid);
		return -ESLURM_USER_ID_MISSING;
	}
	if (!m->node_name || !streq(m->node_name, d->node_name)) {
		error("StepId=%u.%u: launch for node %s refused on %s", m->job_id, m->step_id,
		      m->node_name ? m->node_name : "(null)", d->node_name);
		return -ESLURM_INVALID_NODE_NAME;
	}
	if (m->step_id == STEPD_BATCH_STEP_ID || m->step_id == SL_ALL_STEPS)
		return -ESLURM_INVALID_JOB_ID;
	r = launch_cred_check(d, req, m);
	if (r < 0)
		return r;
	verbose("StepId=%u.%u: launching %u task(s) for uid %u", m->job_id, m->step_id,
		(unsigned)m->ntasks_here, (unsigned)m->uid);
	/* the user's name as this node knows it, never as srun wrote it
	 * (asked only for a Prolog to tell) */
	pw = d->conf->prolog ? getpwuid(m->uid) : NULL;
	f = (struct pe_facts){.job_id = m->job_id, .uid = m->uid, .gid = m->gid,
			      .user = pw ? pw->pw_name : NULL};
	return launch_after_prolog(d, req, &f);
}

/* Connect to one stepd socket and send the frame; 0 and the fd, or
 * -ESLURM_INVALID_JOB_ID when nobody listens there (a socket left by a
 * stepd that died goes, with what it left running), or the error. */
static int relay_connect(struct slurmd *d, const char *path, const struct pack_buf *frame,
			 uint32_t job_id, uint32_t step_id, int *ret_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ESLURM_INVALID_JOB_ID;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		if (err == ECONNREFUSED) {
			info("JobId=%u: removing stale socket %s", job_id, sa.sun_path);
			slurmd_spool_step_died(d, sa.sun_path, job_id, step_id);
		}
		if (err == ENOENT || err == ECONNREFUSED)
			return -ESLURM_INVALID_JOB_ID;
		return log_errno(-SLURM_COMMUNICATIONS_CONNECTION_ERROR, "JobId=%u: %s: %s", job_id,
				 sa.sun_path, strerror(err));
	}
	/* A few bytes into an idle local socket: this write does not block. */
	if (stepd_write_all(fd, frame->data, frame->len) < 0)
		return -SLURM_COMMUNICATIONS_SEND_ERROR;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* Is name "<node>_<job>.<digits>"? */
static bool is_job_socket(const char *name, const char *prefix, size_t plen)
{
	const char *step = name + plen;

	return strncmp(name, prefix, plen) == 0 && *step
	       && strspn(step, "0123456789") == strlen(step);
}

/* No stepd of the job (step_id, or SL_ALL_STEPS) runs here. When its
 * completion waits in the spool the job did run and has ended: answer 0
 * now (the controller waits for that completion, sent now), else the
 * node has no trace of it: ESLURM_INVALID_JOB_ID, which the caller
 * answers. */
static int done_or_unknown(struct slurmd *d, struct rpc_req *req, uint32_t job_id, uint32_t step_id)
{
	if (slurmd_spool_has_done(d, job_id, step_id)) {
		debug("JobId=%u: %s: the job ended here, its completion is on its way", job_id,
		      msg_type_name(req->type));
		slurmd_spool_resend(d);
		rpc_reply_rc(req, 0);
		return 0;
	}
	debug("JobId=%u: %s: no such job on this node", job_id, msg_type_name(req->type));
	return -ESLURM_INVALID_JOB_ID;
}

/* SL_ALL_STEPS: every stepd of the job here, the batch stepd last. */
static int relay_all(struct slurmd *d, struct rpc_req *req, const struct pack_buf *frame,
		     uint32_t job_id)
{
	_cleanup_free_ char *prefix = NULL;
	struct relay *rl = calloc(1, sizeof(*rl));
	DIR *dir = opendir(d->spool_dir);
	struct dirent *e;
	size_t plen;
	int rc = -ESLURM_INVALID_JOB_ID;

	if (!rl || !dir || asprintf(&prefix, "%s_%u.", d->node_name, (unsigned)job_id) < 0) {
		prefix = NULL;
		if (dir)
			closedir(dir);
		free(rl);
		return dir ? -ENOMEM : -ESLURM_INVALID_JOB_ID;
	}
	*rl = (struct relay){ .req = req, .d = d, .job_id = job_id };
	rl->pending = 1; /* held by this function until the scan ends */
	plen = strlen(prefix);
	while ((e = readdir(dir))) {
		_cleanup_free_ char *path = NULL;
		int fd = -1, r;

		if (!is_job_socket(e->d_name, prefix, plen)
		    || asprintf(&path, "%s/%s", d->spool_dir, e->d_name) < 0) {
			path = NULL;
			continue;
		}
		if (strtoul(e->d_name + plen, NULL, 10) == STEPD_BATCH_STEP_ID && !rl->batch_path) {
			rl->batch_path = TAKE_PTR(path);
			continue;
		}
		r = relay_connect(d, path, frame, job_id,
				  (uint32_t)strtoul(e->d_name + plen, NULL, 10), &fd);
		if (r == 0) {
			rl->pending++;
			r = op_wait(d, req, rl, fd, job_id);
			if (r < 0)
				rl->pending--;
		}
		if (r < 0 && rc == -ESLURM_INVALID_JOB_ID)
			rc = r;
	}
	closedir(dir);
	if (rc != -ESLURM_INVALID_JOB_ID && !rl->rc)
		rl->rc = rc;
	if (rl->batch_path) {
		pack_raw(&rl->frame, frame->data, frame->len);
		if (rl->frame.err)
			rl->rc = rl->frame.err;
		else if (rl->pending == 1) /* no step stepd: the batch one now */
			relay_batch(rl);
	}
	if (--rl->pending > 0) {
		verbose("JobId=%u: %s passed to %u slurmstepd(s)", job_id,
			msg_type_name(req->type), rl->pending);
		return 0; /* the last answer replies */
	}
	rc = rl->is_any_ok ? 0 : rl->rc ? rl->rc : -ESLURM_INVALID_JOB_ID;
	relay_free(rl);
	if (rc == -ESLURM_INVALID_JOB_ID)
		rc = done_or_unknown(d, req, job_id, SL_ALL_STEPS);
	return rc;
}

/* The job ends here: no credential of it made until now launches again. */
static void launch_revoke(struct slurmd *d, uint32_t job_id)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (cred_state_revoke_job(d->cred_state, job_id,
				  (uint64_t)now.tv_sec * 1000000 + (uint64_t)now.tv_nsec / 1000,
				  now.tv_sec)
	    == 0)
		debug("JobId=%u: its step credentials are revoked here", job_id);
}

int slurmd_req_signal_job(struct slurmd *d, struct rpc_req *req)
{
	const struct signal_job_msg *m = req->body;
	char path[PATH_MAX];
	_cleanup_(pack_buf_done) struct pack_buf frame = { 0 };
	int fd = -1, r;

	r = stepd_frame_pack(req->type, m, &frame);
	if (r < 0)
		return r;
	if (m->step_id == SL_ALL_STEPS && req->type != REQUEST_SIGNAL_TASKS) {
		launch_revoke(d, m->job_id);
		slurmd_epilog_after(d, m); /* once the stepds told below are gone */
	}
	if (m->step_id == SL_ALL_STEPS)
		return relay_all(d, req, &frame, m->job_id);
	if (stepd_step_socket_path(path, sizeof(path), d->spool_dir, d->node_name, m->job_id,
				   m->step_id) < 0)
		return -ESLURM_INVALID_JOB_ID;
	r = relay_connect(d, path, &frame, m->job_id, m->step_id, &fd);
	if (r == -ESLURM_INVALID_JOB_ID)
		return done_or_unknown(d, req, m->job_id, m->step_id);
	if (r < 0)
		return r;
	verbose("JobId=%u: %s (signal %u) passed to the slurmstepd of step %u", m->job_id,
		msg_type_name(req->type), (unsigned)m->signal, m->step_id);
	return op_wait(d, req, NULL, fd, m->job_id);
}

int slurmd_req_step_stat(struct slurmd *d, struct rpc_req *req)
{
	struct step_stat_req *m = req->body;
	char path[PATH_MAX];
	_cleanup_(pack_buf_done) struct pack_buf frame = { 0 };
	int fd = -1, r;

	m->uid = req->uid; /* the credential's, whatever the sender wrote */
	r = stepd_frame_pack(req->type, m, &frame);
	if (r < 0)
		return r;
	if (stepd_step_socket_path(path, sizeof(path), d->spool_dir, d->node_name, m->job_id,
				   m->step_id) < 0)
		return -ESLURM_INVALID_JOB_ID;
	r = relay_connect(d, path, &frame, m->job_id, m->step_id, &fd);
	if (r < 0)
		return r;
	return op_wait(d, req, NULL, fd, m->job_id);
}

int slurmd_launch_init(struct slurmd *d)
{
	char exe[PATH_MAX], conf[PATH_MAX];
	_cleanup_free_ char *path = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	d->extern_start = extern_start;
	if (n <= 0)
		return log_errno(-errno, "cannot find the slurmd binary");
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	if (asprintf(&d->stepd_path, "%s/slurmstepd", exe) < 0) {
		d->stepd_path = NULL;
		return -ENOMEM;
	}
	d->sig_chld = evsignal_new(d->base, SIGCHLD, sigchld_cb, d);
	if (!d->sig_chld || evsignal_add(d->sig_chld, NULL) < 0)
		return -ENOMEM;
	if (access(d->stepd_path, X_OK) < 0)
		error("%s: %s; jobs cannot start on this node", d->stepd_path, strerror(errno));
	d->stepd_conf = strdup(realpath(d->conf_path, conf) ? conf : d->conf_path);
	d->spool_dir = conf_expand_path(d->conf->slurmd_spool_dir, d->node_name, d->hostname);
	if (!d->stepd_conf || !d->spool_dir)
		return -ENOMEM;
	if (asprintf(&path, "%s/%s_cred_state", d->spool_dir, d->node_name) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	return cred_state_open(path, time(NULL), &d->cred_state);
}

void slurmd_launch_fini(struct slurmd *d)
{
	while (d->launch_ops)
		op_answer(d->launch_ops, -SLURM_COMMUNICATIONS_SHUTDOWN_ERROR);
	free(d->stepd_path);
	free(d->stepd_conf);
	free(d->spool_dir);
	d->stepd_path = d->stepd_conf = d->spool_dir = NULL;
	cred_state_free(d->cred_state);
	d->cred_state = NULL;
	if (d->sig_chld)
		event_free(d->sig_chld);
	d->sig_chld = NULL;
	stepd_reap(d); /* those still running are init's once we exit */
	free(d->stepds);
	d->stepds = NULL;
	d->n_stepds = d->cap_stepds = 0;
}
