/* prolog.c - see prolog.h.
 *
 * One record a job (d->pe_jobs) goes PE_PROLOG -> PE_READY or PE_FAILED
 * on its first launch here, then PE_ENDING (waiting for its stepds to
 * go) -> PE_EPILOG -> PE_DONE when the controller ends it. A terminate
 * that comes first (a node of the job where nothing ran) starts at
 * PE_ENDING. Records PE_DONE for PE_KEEP_S are dropped: a later terminate
 * then finds nothing to run and reports the Epilog as done (the
 * controller only asks again for a job it still waits for).
 */
#include "prolog.h"

#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_async.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "container.h"
#include "slurmd.h"
#include "spawn.h"

#define PE_KEEP_S	60  /* a PE_DONE record is dropped after this */
#define PE_POLL_MS	100 /* how often PE_ENDING looks for the job's stepds */
#define PE_RESEND_MAX_S 60  /* backoff of the completion's resends */
#define PE_ENV_MAX	20

enum pe_phase { PE_PROLOG, PE_READY, PE_FAILED, PE_ENDING, PE_EPILOG, PE_DONE };

struct pe_waiter {
	struct pe_waiter *next;
	struct rpc_req *req;
	pe_go_fn *go;
};

struct pe_job {
	struct pe_job *next;
	struct slurmd *d;
	uint32_t job_id;
	enum pe_phase phase;
	struct pe_waiter *waiters; /* launches waiting for the Prolog */
	char *env[PE_ENV_MAX + 1]; /* of the script running or to run */
	glob_t g;		   /* the programs of the Prolog or Epilog */
	bool has_glob;
	size_t next_prog;    /* index in g of the next to run */
	pid_t pid;	     /* the script running, 0: none, < 0: a Prolog killed, to reap */
	struct event *timer; /* its timeout, the poll, or the resend */
	int rc;		     /* the Epilog's: 0 or ESLURMD_EPILOG_FAILED */
	unsigned resend_s;   /* the next resend's delay */
	bool is_sending;     /* a report on its way */
	uint16_t report_type; /* the report to send: REQUEST_COMPLETE_PROLOG or
			       * MESSAGE_EPILOG_COMPLETE (0: none) */
	uint32_t report_rc;
	bool is_running_seq; /* its Prolog's or Epilog's programs are being run */
	bool is_queued;	     /* PrologFlags=Serial: waits for another job's to end */
	time_t done_time;
	struct extern_req *ext; /* Contain: the extern stepd to start after the Prolog */
};

static void pe_ext_free(struct pe_job *j)
{
	if (!j->ext)
		return;
	free(j->ext->user);
	free(j->ext->gpus);
	free(j->ext);
	j->ext = NULL;
}

static void pe_env_done(struct pe_job *j)
{
	for (size_t i = 0; j->env[i]; i++) {
		free(j->env[i]);
		j->env[i] = NULL;
	}
}

static void pe_job_free(struct pe_job *j)
{
	if (j->pid > 0)
		kill(-j->pid, SIGKILL);
	if (j->timer)
		event_free(j->timer);
	if (j->has_glob)
		globfree(&j->g);
	pe_env_done(j);
	pe_ext_free(j);
	free(j);
}

static struct pe_job *pe_find(struct slurmd *d, uint32_t job_id)
{
	for (struct pe_job *j = d->pe_jobs; j; j = j->next)
		if (j->job_id == job_id)
			return j;
	return NULL;
}

/* Drops the records done long ago (looked for once a second at most:
 * a busy node ends many jobs a second). */
static void pe_sweep(struct slurmd *d, time_t now)
{
	static time_t last;

	if (now == last)
		return;
	last = now;
	for (struct pe_job **p = &d->pe_jobs; *p;) {
		struct pe_job *j = *p;

		if (j->phase == PE_DONE && !j->is_sending && now - j->done_time > PE_KEEP_S) {
			*p = j->next;
			pe_job_free(j);
			continue;
		}
		p = &j->next;
	}
}

static struct pe_job *pe_new(struct slurmd *d, uint32_t job_id, enum pe_phase phase)
{
	struct pe_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	pe_sweep(d, time(NULL));
	j->d = d;
	j->job_id = job_id;
	j->phase = phase;
	j->resend_s = 1;
	j->next = d->pe_jobs;
	d->pe_jobs = j;
	return j;
}

/* NAME=value into the next free slot of j->env (values are the
 * controller's or slurmd's; never the user's environment). */
static void pe_env_add(struct pe_job *j, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void pe_env_add(struct pe_job *j, const char *name, const char *fmt, ...)
{
	_cleanup_free_ char *v = NULL;
	size_t i = 0;
	va_list ap;
	int n;

	while (j->env[i])
		i++;
	if (i >= PE_ENV_MAX)
		return;
	va_start(ap, fmt);
	n = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (n < 0) {
		v = NULL;
		return;
	}
	if (asprintf(&j->env[i], "%s=%s", name, v) < 0)
		j->env[i] = NULL;
}

static void pe_env_build(struct pe_job *j, const char *context, const struct pe_facts *f)
{
	const struct slurmd *d = j->d;

	pe_env_done(j);
	pe_env_add(j, "SLURM_SCRIPT_CONTEXT", "%s", context);
	pe_env_add(j, "SLURM_JOB_ID", "%u", f->job_id);
	pe_env_add(j, "SLURM_JOBID", "%u", f->job_id);
	pe_env_add(j, "SLURM_JOB_UID", "%u", f->uid);
	pe_env_add(j, "SLURM_JOB_GID", "%u", f->gid);
	if (f->user)
		pe_env_add(j, "SLURM_JOB_USER", "%s", f->user);
	if (f->partition)
		pe_env_add(j, "SLURM_JOB_PARTITION", "%s", f->partition);
	if (f->account)
		pe_env_add(j, "SLURM_JOB_ACCOUNT", "%s", f->account);
	if (f->nodes) {
		pe_env_add(j, "SLURM_JOB_NODELIST", "%s", f->nodes);
		pe_env_add(j, "SLURM_NODELIST", "%s", f->nodes);
	}
	if (d->conf->cluster_name)
		pe_env_add(j, "SLURM_CLUSTER_NAME", "%s", d->conf->cluster_name);
	pe_env_add(j, "SLURM_CONF", "%s", d->stepd_conf);
	pe_env_add(j, "SLURMD_NODENAME", "%s", d->node_name);
}

static const char *pe_kind(const struct pe_job *j)
{
	return j->phase == PE_PROLOG ? "prolog" : "epilog";
}

/* Starts the session of program path, /dev/null as its input and
 * output; its pid in j->pid. */
static int pe_spawn(struct pe_job *j, const char *path)
{
	char *argv[] = {(char *)path, NULL};
	const int fds[3] = {SPAWN_FD_NULL, SPAWN_FD_NULL, SPAWN_FD_NULL};
	int r = slurmd_spawn(path, argv, j->env, fds, &j->pid);

	if (r < 0)
		j->pid = 0;
	return r;
}

static void pe_finished(struct pe_job *j, int rc);

static void pe_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pe_job *j = arg;

	(void)fd;
	(void)what;
	if (j->pid <= 0)
		return;
	error("JobId=%u: %s %s still runs after PrologEpilogTimeout (%u s): killed", j->job_id,
	      pe_kind(j), j->g.gl_pathv[j->next_prog - 1],
	      (unsigned)j->d->conf->prolog_epilog_timeout);
	kill(-j->pid, SIGKILL); /* reaped as any other end: a failure */
}

/* Runs the next program of j->g, or ends the phase when none is left. */
static void pe_next(struct pe_job *j)
{
	unsigned tmo = j->d->conf->prolog_epilog_timeout;
	const char *path;
	int r;

	if (j->next_prog >= j->g.gl_pathc)
		return pe_finished(j, 0);
	path = j->g.gl_pathv[j->next_prog++];
	r = slurmd_prog_check(path);
	if (r == 0)
		r = pe_spawn(j, path);
	if (r < 0) {
		error("JobId=%u: %s %s cannot run: %s", j->job_id, pe_kind(j), path,
		      r == -EPERM ? "writable by others than root" : strerror(-r));
		return pe_finished(j, r);
	}
	debug("JobId=%u: %s %s started (pid %d)", j->job_id, pe_kind(j), path, (int)j->pid);
	if (tmo && tmo != PE_TIMEOUT_NONE) {
		struct timeval tv = {.tv_sec = tmo};

		if (j->timer)
			event_free(j->timer);
		j->timer = evtimer_new(j->d->base, pe_timeout_cb, j);
		if (j->timer)
			evtimer_add(j->timer, &tv);
	}
}

/* PrologFlags=Serial: another job's Prolog or Epilog runs here. */
static bool pe_serial_busy(const struct pe_job *self)
{
	if (!(self->d->conf->prolog_flags & PROLOG_FLAG_SERIAL))
		return false;
	for (const struct pe_job *j = self->d->pe_jobs; j; j = j->next)
		if (j != self && j->is_running_seq)
			return true;
	return false;
}

static void pe_start(struct pe_job *j, const char *pattern);

/* PrologFlags=Serial: the next job waiting for its turn starts. */
static void pe_serial_next(struct slurmd *d)
{
	for (struct pe_job *j = d->pe_jobs; j; j = j->next)
		if (j->is_queued)
			return pe_start(j, j->phase == PE_PROLOG ? d->conf->prolog : d->conf->epilog);
}

/* Starts the programs of pattern (a path or a glob) for j. */
static void pe_start(struct pe_job *j, const char *pattern)
{
	int r;

	if (pe_serial_busy(j)) {
		j->is_queued = true;
		info("JobId=%u: its %s waits for another job's (PrologFlags=Serial)", j->job_id,
		     pe_kind(j));
		return;
	}
	j->is_queued = false;
	j->is_running_seq = true;
	if (j->has_glob)
		globfree(&j->g);
	j->has_glob = true;
	j->next_prog = 0;
	r = glob(pattern, 0, NULL, &j->g);
	if (r == GLOB_NOMATCH && !strpbrk(pattern, "*?[")) {
		error("JobId=%u: %s %s: %s", j->job_id, pe_kind(j), pattern, strerror(ENOENT));
		return pe_finished(j, -ENOENT);
	}
	if (r != 0 && r != GLOB_NOMATCH)
		return pe_finished(j, -ENOMEM);
	pe_next(j);
}

static void drain_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	(void)arg;
	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc < 0)
		error("the controller did not take the drain of this node: %s", sl_strerror(rc));
}

/* Asks the controller to drain this node, as Slurm's slurmd does after
 * a failed Prolog. */
static void pe_drain(struct slurmd *d, const char *reason)
{
	const char *host = d->conf->control_addr ? d->conf->control_addr : d->conf->control_machine;
	struct update_node_msg m = {.node_names = d->node_name,
				    .state = NODE_UPDATE_DRAIN,
				    .reason = (char *)reason,
				    .weight = NO_VAL};

	if (rpc_async_call(d->base, d->conf->munge_socket, host, d->conf->slurmctld_port,
			   REQUEST_UPDATE_NODE, &m, d->conf->slurm_user_id,
			   d->conf->message_timeout, drain_done_cb, NULL)
	    < 0)
		error("cannot ask the controller to drain this node (%s)", reason);
}

static void pe_send_complete(struct pe_job *j);

struct pe_send {
	struct slurmd *d;
	uint32_t job_id;
	uint16_t type; /* the report sent */
};

static void pe_resend_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pe_job *j = arg;

	(void)fd;
	(void)what;
	pe_send_complete(j);
}

static void complete_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	struct pe_send a = *(struct pe_send *)arg;
	struct pe_job *j = pe_find(a.d, a.job_id);

	free(arg);
	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (!j)
		return;
	j->is_sending = false;
	if (rc == 0 || rc == -ESLURM_INVALID_JOB_ID) {
		j->resend_s = 1;
		if (a.type != j->report_type) /* a newer one waited for this one */
			pe_send_complete(j);
		return;
	}
	error("JobId=%u: %s not taken: %s; again in %u s", j->job_id,
	      msg_type_name(j->report_type), sl_strerror(rc), j->resend_s);
	if (j->timer)
		event_free(j->timer);
	j->timer = evtimer_new(j->d->base, pe_resend_cb, j);
	if (j->timer) {
		struct timeval tv = {.tv_sec = j->resend_s};

		evtimer_add(j->timer, &tv);
	}
	j->resend_s = j->resend_s * 2 > PE_RESEND_MAX_S ? PE_RESEND_MAX_S : j->resend_s * 2;
}

/* j's report (report_type, report_rc), until the controller takes it. */
static void pe_send_complete(struct pe_job *j)
{
	struct slurmd *d = j->d;
	const char *host = d->conf->control_addr ? d->conf->control_addr : d->conf->control_machine;
	struct epilog_complete_msg m = {
	    .job_id = j->job_id, .rc = j->report_rc, .node_name = d->node_name};
	struct pe_send *a = malloc(sizeof(*a));

	if (j->is_sending || !j->report_type || !a) {
		free(a);
		return;
	}
	*a = (struct pe_send){d, j->job_id, j->report_type};
	j->is_sending = true;
	if (rpc_async_call(d->base, d->conf->munge_socket, host, d->conf->slurmctld_port,
			   j->report_type, &m, d->conf->slurm_user_id,
			   d->conf->message_timeout, complete_done_cb, a)
	    < 0)
		complete_done_cb(a, -ENOMEM, 0, NULL);
}

/* The Prolog or Epilog ended: rc 0, or why it failed. */
static void pe_finished_one(struct pe_job *j, int rc);

static void pe_finished(struct pe_job *j, int rc)
{
	struct slurmd *d = j->d;
	bool was_running = j->is_running_seq;

	j->is_running_seq = false;
	pe_finished_one(j, rc);
	if (was_running)
		pe_serial_next(d);
}

static void pe_finished_one(struct pe_job *j, int rc)
{
	struct pe_waiter *w = j->waiters;

	if (j->timer) {
		event_free(j->timer);
		j->timer = NULL;
	}
	if (j->phase == PE_PROLOG) {
		j->waiters = NULL;
		j->phase = rc == 0 ? PE_READY : PE_FAILED;
		if (rc < 0) {
			error("JobId=%u: prolog failed; draining this node", j->job_id);
			pe_drain(j->d, "Prolog error");
		}
		while (w) {
			struct pe_waiter *next = w->next;

			w->go(j->d, w->req, j->job_id, rc == 0 ? 0 : -ESLURMD_PROLOG_FAILED);
			free(w);
			w = next;
		}
		return;
	}
	j->phase = PE_DONE;
	j->done_time = time(NULL);
	j->rc = rc == 0 ? 0 : ESLURMD_EPILOG_FAILED;
	pe_env_done(j);
	if (rc < 0)
		error("JobId=%u: epilog failed", j->job_id);
	else
		debug("JobId=%u: epilog done", j->job_id);
	j->report_type = MESSAGE_EPILOG_COMPLETE;
	j->report_rc = (uint32_t)j->rc;
	pe_send_complete(j);
}

void slurmd_pe_reap(struct slurmd *d)
{
	for (struct pe_job *j = d->pe_jobs; j; j = j->next) {
		int status;
		pid_t r;

		if (j->pid == 0)
			continue;
		do
			r = waitpid(j->pid > 0 ? j->pid : -j->pid, &status, WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			continue;
		if (j->pid < 0) { /* a Prolog killed as its job ended */
			j->pid = 0;
			continue;
		}
		j->pid = 0;
		if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			error("JobId=%u: %s %s ended with %s %d", j->job_id, pe_kind(j),
			      j->g.gl_pathv[j->next_prog - 1],
			      r < 0		    ? "error"
			      : WIFSIGNALED(status) ? "signal"
						    : "exit code",
			      r < 0		    ? errno
			      : WIFSIGNALED(status) ? WTERMSIG(status)
						    : WEXITSTATUS(status));
			pe_finished(j, -ECHILD);
		} else {
			pe_next(j);
		}
		/* j may have been dropped: start again from the head */
		return slurmd_pe_reap(d);
	}
}

int slurmd_prolog_before(struct slurmd *d, struct rpc_req *req, const struct pe_facts *f,
			 pe_go_fn *go)
{
	struct pe_job *j = pe_find(d, f->job_id);
	struct pe_waiter *w;

	if (!d->conf->prolog)
		return 1;
	if (j && j->phase == PE_DONE) { /* requeued, and sent here again */
		if (j->timer)
			event_free(j->timer);
		j->timer = NULL;
		if (j->has_glob)
			globfree(&j->g);
		j->has_glob = false;
		j->phase = PE_PROLOG;
		pe_env_build(j, "prolog_slurmd", f);
	}
	if (j) {
		switch (j->phase) {
		case PE_READY:
			return 1;
		case PE_FAILED:
			return -ESLURMD_PROLOG_FAILED;
		case PE_ENDING:
		case PE_EPILOG:
		case PE_DONE:
			return -ESLURMD_CREDENTIAL_REVOKED; /* the job ended here */
		case PE_PROLOG:
			break;
		}
	} else if (slurmd_spool_job_runs(d, f->job_id)) {
		/* a stepd of the job outlived a restart of slurmd: its Prolog ran */
		return pe_new(d, f->job_id, PE_READY) ? 1 : -ENOMEM;
	} else {
		j = pe_new(d, f->job_id, PE_PROLOG);
		if (!j)
			return -ENOMEM;
		pe_env_build(j, "prolog_slurmd", f);
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct pe_waiter){.next = j->waiters, .req = req, .go = go};
	j->waiters = w;
	if (j->pid <= 0 && !j->has_glob)
		pe_start(j, d->conf->prolog);
	return 0;
}

/* The job ends while its Prolog runs here: the Prolog is killed (its
 * end is then not reaped as a failure) and the launches waiting for it
 * fail. */
static void pe_abort_prolog(struct slurmd *d, struct pe_job *j)
{
	struct pe_waiter *w = j->waiters;

	if (j->phase != PE_PROLOG)
		return;
	if (j->pid > 0) {
		kill(-j->pid, SIGKILL);
		j->pid = -j->pid; /* reaped without a word (slurmd_pe_reap) */
	}
	j->is_queued = false;
	if (j->is_running_seq) {
		j->is_running_seq = false;
		pe_serial_next(d);
	}
	j->waiters = NULL;
	j->phase = PE_FAILED;
	while (w) {
		struct pe_waiter *next = w->next;

		w->go(d, w->req, j->job_id, -ESLURMD_CREDENTIAL_REVOKED);
		free(w);
		w = next;
	}
}

/* The Prolog asked for by the controller ended (or had run): its result
 * goes back (not for a job that ended meanwhile). */
static void prolog_report(struct slurmd *d, struct rpc_req *req, uint32_t job_id, int rc)
{
	struct pe_job *j = pe_find(d, job_id);

	(void)req;
	if (!j || rc == -ESLURMD_CREDENTIAL_REVOKED) {
		if (j)
			pe_ext_free(j);
		return;
	}
	if (rc == 0 && j->ext && d->extern_start)
		d->extern_start(d, j->ext);
	pe_ext_free(j);
	j->report_type = REQUEST_COMPLETE_PROLOG;
	j->report_rc = rc ? ESLURMD_PROLOG_FAILED : 0;
	pe_send_complete(j);
}

int slurmd_req_launch_prolog(struct slurmd *d, struct rpc_req *req)
{
	const struct signal_job_msg *m = req->body;
	struct pe_facts f = {.job_id = m->job_id, .uid = m->uid, .gid = m->gid,
			     .user = m->user_name, .partition = m->partition,
			     .account = m->account, .nodes = m->nodes};
	int r = slurmd_prolog_before(d, NULL, &f, prolog_report);
	struct pe_job *j;

	if (r != 0 && !pe_find(d, f.job_id)) /* no Prolog: a record to report from */
		(void)pe_new(d, f.job_id, PE_READY);
	j = pe_find(d, f.job_id);
	if (j && r >= 0 && (d->conf->prolog_flags & PROLOG_FLAG_CONTAIN) && !j->ext
	    && (j->ext = calloc(1, sizeof(*j->ext)))) {
		*j->ext = (struct extern_req){.job_id = m->job_id, .uid = m->uid, .gid = m->gid,
					      .cpus = m->cpus, .mem = m->mem,
					      .user = sdup(m->user_name), .gpus = sdup(m->gpus)};
		if ((m->user_name && !j->ext->user) || (m->gpus && !j->ext->gpus))
			pe_ext_free(j);
	}
	if (r != 0)
		prolog_report(d, NULL, f.job_id, r == 1 ? 0 : r);
	rpc_reply_rc(req, 0); /* the result comes in REQUEST_COMPLETE_PROLOG */
	return 0;
}

/* PE_ENDING: the Epilog starts once no stepd of the job is left. */
static void pe_poll_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pe_job *j = arg;
	struct timeval tv = {.tv_usec = PE_POLL_MS * 1000};

	(void)fd;
	(void)what;
	/* (a Prolog killed as the job ended is reaped first) */
	if (j->pid < 0 || slurmd_spool_job_runs(j->d, j->job_id)) {
		evtimer_add(j->timer, &tv);
		return;
	}
	event_free(j->timer);
	j->timer = NULL;
	slurmd_container_delete(j->d, j->job_id); /* before the Epilog, as Slurm */
	if (!j->d->conf->epilog) { /* only the container was waited for */
		pe_env_done(j);
		j->phase = PE_DONE;
		j->done_time = time(NULL);
		return;
	}
	j->phase = PE_EPILOG;
	pe_start(j, j->d->conf->epilog);
}

void slurmd_epilog_after(struct slurmd *d, const struct signal_job_msg *m)
{
	struct pe_job *j = pe_find(d, m->job_id);
	struct pe_facts f = {.job_id = m->job_id,
			     .uid = m->uid,
			     .gid = m->gid,
			     .user = m->user_name,
			     .partition = m->partition,
			     .account = m->account,
			     .nodes = m->nodes};

	if (!d->conf->epilog && d->conf->job_container != CONTAINER_TMPFS) {
		if (j && j->phase != PE_DONE) { /* its Prolog's record is done with */
			pe_abort_prolog(d, j);
			j->phase = PE_DONE;
			j->done_time = time(NULL);
		}
		return;
	}
	if (!j && !(j = pe_new(d, m->job_id, PE_ENDING)))
		return;
	switch (j->phase) {
	case PE_ENDING:
	case PE_EPILOG:
		if (j->env[0])
			return; /* on its way */
		break;
	case PE_DONE:
		if (!d->conf->epilog)
			break; /* a run after a requeue: its container goes too */
		j->report_type = MESSAGE_EPILOG_COMPLETE; /* the controller asks again */
		j->report_rc = (uint32_t)j->rc;
		pe_send_complete(j);
		return;
	case PE_PROLOG:
		pe_abort_prolog(d, j);
		break;
	case PE_READY:
	case PE_FAILED:
		break;
	}
	if (j->timer)
		event_free(j->timer);
	if (j->has_glob)
		globfree(&j->g);
	j->has_glob = false;
	j->phase = PE_ENDING;
	pe_env_build(j, "epilog_slurmd", &f);
	pe_env_add(j, "SLURM_JOB_EXIT_CODE", "%u", m->exit_code);
	pe_env_add(j, "SLURM_JOB_EXIT_CODE2", "%d:%d",
		   WIFEXITED(m->exit_code) ? WEXITSTATUS(m->exit_code) : 0,
		   WIFSIGNALED(m->exit_code) ? WTERMSIG(m->exit_code) : 0);
	j->timer = evtimer_new(d->base, pe_poll_cb, j);
	if (!j->timer) {
		pe_finished(j, -ENOMEM);
		return;
	}
	pe_poll_cb(-1, 0, j);
}

int slurmd_pe_init(struct slurmd *d)
{
	d->pe_jobs = NULL;
	return 0;
}

void slurmd_pe_fini(struct slurmd *d)
{
	while (d->pe_jobs) {
		struct pe_job *j = d->pe_jobs;

		d->pe_jobs = j->next;
		for (struct pe_waiter *w = j->waiters; w;) {
			struct pe_waiter *next = w->next;

			if (w->req)
				rpc_reply_rc(w->req, -SLURM_COMMUNICATIONS_SHUTDOWN_ERROR);
			free(w);
			w = next;
		}
		pe_job_free(j);
	}
}
