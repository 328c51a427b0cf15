/* job_script.c - see job_script.h. The child is child_exec.h's: its argv
 * and environment are built before the fork. */
#include "job_script.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "child_exec.h"
#include "ctld.h"
#include "job.h"
#include "job_alloc.h"
#include "job_end.h"
#include "job_launch.h"
#include "job_epilog.h"
#include "node.h"
#include "select.h"
#include "step.h"
#include "mail.h"

#define SCRIPT_ENV_MAX 24

enum script_kind { SCRIPT_PROLOG, SCRIPT_EPILOG };

struct job_run {
	struct job_run *next;
	struct ctld *c;
	pid_t pid;
	uint32_t job_id;
	enum script_kind kind;
	struct event *timer;
};

struct job_scripts {
	struct job_run *runs;
	struct event *sig_chld; /* reaps every child of the controller */
	uid_t uid;		/* the scripts run as SlurmUser (asked of NSS once, */
	gid_t gid;		/* at start: no lookup on the loop) */
};

/* SlurmUser and its primary group; ourselves when we are not root. */
static void script_identity(const struct ctld *c, uid_t *uid, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	*uid = geteuid();
	*gid = getegid();
	if (*uid != 0 || c->conf->slurm_user_id == 0)
		return;
	*uid = c->conf->slurm_user_id;
	*gid = getpwuid_r(*uid, &pw, buf, sizeof(buf), &res) == 0 && res ? res->pw_gid : *uid;
}

static const char *kind_name(enum script_kind k)
{
	return k == SCRIPT_PROLOG ? "PrologSlurmctld" : "EpilogSlurmctld";
}

/* PrologFlags=Alloc with a Prolog: the nodes run it when the job gets
 * them, asked by the controller. */
static bool alloc_prolog(const struct ctld *c)
{
	/* Contain: the nodes start the extern step then, Prolog or not */
	return (c->conf->prolog_flags & PROLOG_FLAG_ALLOC)
	       && (c->conf->prolog || (c->conf->prolog_flags & PROLOG_FLAG_CONTAIN));
}

bool job_script_has_prolog(const struct ctld *c)
{
	return c->conf->prolog_slurmctld != NULL || alloc_prolog(c);
}

static void run_free(struct job_run *r)
{
	if (r->timer)
		event_free(r->timer);
	free(r);
}

static void run_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job_run *r = arg;

	(void)fd;
	(void)what;
	error("JobId=%u: %s (pid %d) still runs after PrologEpilogTimeout: killed", r->job_id,
	      kind_name(r->kind), (int)r->pid);
	kill(-r->pid, SIGKILL); /* reaped as any end: a failure */
}

static void env_add(char **env, size_t *n, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void env_add(char **env, size_t *n, const char *name, const char *fmt, ...)
{
	char *v = NULL;
	va_list ap;
	int r;

	if (*n >= SCRIPT_ENV_MAX)
		return;
	va_start(ap, fmt);
	r = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	if (asprintf(&env[*n], "%s=%s", name, v) >= 0)
		(*n)++;
	free(v);
}

static void env_build(const struct ctld *c, const struct job *job, enum script_kind kind,
		      char **env)
{
	const struct job_desc *d = job->desc;
	size_t n = 0;

	env_add(env, &n, "SLURM_SCRIPT_CONTEXT", "%s",
		kind == SCRIPT_PROLOG ? "prolog_slurmctld" : "epilog_slurmctld");
	env_add(env, &n, "SLURM_JOB_ID", "%u", job->job_id);
	env_add(env, &n, "SLURM_JOBID", "%u", job->job_id);
	env_add(env, &n, "SLURM_JOB_UID", "%u", (unsigned)job->uid);
	env_add(env, &n, "SLURM_JOB_GID", "%u", (unsigned)job->gid);
	if (job->user_name)
		env_add(env, &n, "SLURM_JOB_USER", "%s", job->user_name);
	if (d && d->name)
		env_add(env, &n, "SLURM_JOB_NAME", "%s", d->name);
	if (job->nodes)
		env_add(env, &n, "SLURM_JOB_NODELIST", "%s", job->nodes);
	if (job->partition)
		env_add(env, &n, "SLURM_JOB_PARTITION", "%s", job->partition);
	if (d && d->account)
		env_add(env, &n, "SLURM_JOB_ACCOUNT", "%s", d->account);
	if (d && d->comment)
		env_add(env, &n, "SLURM_JOB_COMMENT", "%s", d->comment);
	if (c->conf->cluster_name)
		env_add(env, &n, "SLURM_CLUSTER_NAME", "%s", c->conf->cluster_name);
	if (job->array_job_id) {
		env_add(env, &n, "SLURM_ARRAY_JOB_ID", "%u", job->array_job_id);
		env_add(env, &n, "SLURM_ARRAY_TASK_ID", "%u", job->array_task_id);
	}
	if (kind == SCRIPT_EPILOG) {
		int st = (int)job->exit_code;

		env_add(env, &n, "SLURM_JOB_EXIT_CODE", "%u", job->exit_code);
		env_add(env, &n, "SLURM_JOB_EXIT_CODE2", "%d:%d",
			WIFEXITED(st) ? WEXITSTATUS(st) : 0, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	}
	env[n] = NULL;
}

/* Starts path for job; 0 or a negative errno. */
static int run_start(struct ctld *c, struct job *job, enum script_kind kind, const char *path)
{
	char *env[SCRIPT_ENV_MAX + 1] = {NULL}, *argv[] = {(char *)path, NULL};
	unsigned tmo = c->conf->prolog_epilog_timeout;
	struct job_run *r = calloc(1, sizeof(*r));
	uid_t uid = c->scripts ? c->scripts->uid : geteuid();
	gid_t gid = c->scripts ? c->scripts->gid : getegid();
	int err = 0;

	if (!r || !c->scripts) {
		free(r);
		return -ENOMEM;
	}
	*r = (struct job_run){.c = c, .job_id = job->job_id, .kind = kind};
	r->timer = evtimer_new(c->base, run_timeout_cb, r);
	env_build(c, job, kind, env);
	if (!r->timer)
		err = -ENOMEM;
	if (!err) {
		r->pid = fork();
		if (r->pid == 0)
			child_exec(path, argv, env, uid, gid);
		if (r->pid < 0)
			err = -errno;
	}
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	if (err) {
		run_free(r);
		return err;
	}
	setpgid(r->pid, r->pid); /* also here: no race with the timer's kill(-pid) */
	if (tmo && tmo != PE_TIMEOUT_NONE) {
		struct timeval tv = {.tv_sec = tmo};

		evtimer_add(r->timer, &tv);
	}
	r->next = c->scripts->runs;
	c->scripts->runs = r;
	debug("JobId=%u: %s %s started (pid %d)", job->job_id, kind_name(kind), path, (int)r->pid);
	return 0;
}

/* Is a node (index) of the job's still running its Prolog? */
static bool prolog_pending_on(const struct job *job, uint32_t node)
{
	for (uint32_t i = 0; i < job->prolog_count; i++)
		if (job->prolog_nodes[i] == node)
			return true;
	return false;
}

/* CONFIGURING ends, and the job is launched or granted, once
 * PrologSlurmctld is done and the nodes' Prologs it waits for are:
 * every node for an allocation (none with NoHold: its steps wait on the
 * nodes) and with DeferBatch, else the batch host. */
static void configured_check(struct ctld *c, struct job *job)
{
	bool is_waiting;

	if (!(job->state & JOB_CONFIGURING) || job_is_finished(job) || (job->state & JOB_COMPLETING)
	    || job->is_prolog_ctld)
		return;
	if (job_is_interactive(job))
		is_waiting = job->prolog_count && !(c->conf->prolog_flags & PROLOG_FLAG_NOHOLD);
	else if (c->conf->prolog_flags & PROLOG_FLAG_DEFER_BATCH)
		is_waiting = job->prolog_count;
	else
		is_waiting = job->alloc.count && prolog_pending_on(job, job->alloc.nodes[0].node);
	if (is_waiting)
		return;
	job->state &= ~JOB_CONFIGURING;
	job_changed(c, job);
	if (job_is_interactive(job))
		job_alloc_grant(c, job);
	else
		job_launch(c, job);
}

static void prolog_done(struct ctld *c, struct job *job, bool ok)
{
	if (!(job->state & JOB_CONFIGURING) || job_is_finished(job)
	    || (job->state & JOB_COMPLETING))
		return; /* cancelled meanwhile */
	job->is_prolog_ctld = false;
	if (ok)
		return configured_check(c, job);
	job->state &= ~JOB_CONFIGURING;
	job_changed(c, job);
	if (job_is_interactive(job)) {
		info("JobId=%u: PrologSlurmctld failed; the allocation is cancelled", job->job_id);
		job_end_alloc(c, job, JOB_CANCELLED, WAIT_NO_REASON, REQUEST_TERMINATE_JOB,
			      SRUN_END_CANCELLED);
	} else {
		info("JobId=%u: PrologSlurmctld failed; the job is requeued", job->job_id);
		job_end_launch_retry(c, job);
	}
}

static void epilog_done(struct ctld *c, struct job *job)
{
	if (!job->is_epilog_ctld)
		return;
	job->is_epilog_ctld = false;
	if (!job->epilog_count)
		job->state &= ~JOB_COMPLETING;
	job_changed(c, job);
	ctld_sched_request(c);
}

static bool job_script_reaped(struct ctld *c, pid_t pid, int status)
{
	for (struct job_run **p = c->scripts ? &c->scripts->runs : NULL; p && *p; p = &(*p)->next) {
		struct job_run *r = *p;
		struct job *job;
		bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;

		if (r->pid != pid)
			continue;
		*p = r->next;
		if (!ok)
			error("JobId=%u: %s failed: %s %d", r->job_id, kind_name(r->kind),
			      WIFSIGNALED(status) ? "signal" : "exit code",
			      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		job = job_find(c, r->job_id);
		if (job && r->kind == SCRIPT_PROLOG)
			prolog_done(c, job, ok);
		else if (job)
			epilog_done(c, job);
		run_free(r);
		return true;
	}
	return false;
}

static void launch_prolog_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	uint32_t job_id = (uint32_t)(uintptr_t)arg;

	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc < 0)
		debug("JobId=%u: REQUEST_LAUNCH_PROLOG not delivered: %s", job_id, sl_strerror(rc));
}

/* REQUEST_LAUNCH_PROLOG to each node still owing its Prolog. */
static void prolog_ask(struct ctld *c, struct job *job)
{
	struct signal_job_msg m = {.job_id = job->job_id, .step_id = SL_ALL_STEPS};

	job_epilog_facts(job, &m);
	for (uint32_t i = 0; i < job->prolog_count; i++) {
		const struct sel_alloc *a = NULL;

		for (uint32_t k = 0; k < job->alloc.count && !a; k++)
			if (job->alloc.nodes[k].node == job->prolog_nodes[i])
				a = &job->alloc.nodes[k];
		m.cpus = a ? a->cpus : 0;
		m.mem = a ? a->mem : 0;
		m.gpus = a ? select_gpu_list(a->gpus) : NULL;
		(void)ctld_send_node(c, &c->nodes[job->prolog_nodes[i]], REQUEST_LAUNCH_PROLOG, &m,
				     launch_prolog_done_cb, (void *)(uintptr_t)job->job_id);
		free(m.gpus);
	}
}

void job_script_prolog(struct ctld *c, struct job *job)
{
	int r;

	job->state |= JOB_CONFIGURING;
	if ((c->conf->prolog_flags & PROLOG_FLAG_CONTAIN) && job->alloc.count
	    && step_extern_create(c, job, time(NULL)) < 0)
		error("JobId=%u: no memory for its extern step", job->job_id);
	if (alloc_prolog(c) && job->alloc.count && !job->prolog_nodes) {
		job->prolog_nodes = calloc(job->alloc.count, sizeof(*job->prolog_nodes));
		for (uint32_t i = 0; job->prolog_nodes && i < job->alloc.count; i++)
			job->prolog_nodes[job->prolog_count++] = job->alloc.nodes[i].node;
		prolog_ask(c, job);
	}
	if (c->conf->prolog_slurmctld) {
		job->is_prolog_ctld = true;
		r = run_start(c, job, SCRIPT_PROLOG, c->conf->prolog_slurmctld);
		if (r < 0) {
			error("JobId=%u: PrologSlurmctld %s cannot run: %s", job->job_id,
			      c->conf->prolog_slurmctld, strerror(-r));
			prolog_done(c, job, false);
			return;
		}
	}
	configured_check(c, job);
}

int job_script_node_prolog(struct ctld *c, const struct epilog_complete_msg *m)
{
	struct job *job;
	uint32_t k, node;
	int r = job_node_report(c, m, true, &job, &k);

	if (r < 0)
		return r;
	node = job->prolog_nodes[k];
	job->prolog_nodes[k] = job->prolog_nodes[--job->prolog_count];
	if (job->prolog_count == 0) {
		free(job->prolog_nodes);
		job->prolog_nodes = NULL;
	}
	if (!m->rc) {
		configured_check(c, job);
		return 0;
	}
	error("JobId=%u: prolog error on %s", job->job_id, node_name(&c->nodes[node]));
	if (job_is_running(job) && !job_is_finished(job) && !(job->state & JOB_COMPLETING))
		job_end_prolog_failed(c, job, node);
	return 0;
}

void job_script_epilog(struct ctld *c, struct job *job)
{
	int r;

	if (!c->conf->epilog_slurmctld)
		return;
	job->is_epilog_ctld = true;
	job->state |= JOB_COMPLETING;
	r = run_start(c, job, SCRIPT_EPILOG, c->conf->epilog_slurmctld);
	if (r < 0) {
		error("JobId=%u: EpilogSlurmctld %s cannot run: %s", job->job_id,
		      c->conf->epilog_slurmctld, strerror(-r));
		job->is_epilog_ctld = false;
		if (!job->epilog_count)
			job->state &= ~JOB_COMPLETING;
	}
}

/* Every child of the controller: ours, else MailProg's. */
static void sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	struct ctld *c = arg;
	int status;
	pid_t pid;

	(void)sig;
	(void)what;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (!job_script_reaped(c, pid, status) && !mail_reaped(c, pid, status))
			debug("reaped pid %d, not one of ours", (int)pid);
}

static const struct job_hook script_hook = {.ended = job_script_epilog};

int job_script_init(struct ctld *c)
{
	c->scripts = calloc(1, sizeof(*c->scripts));
	if (!c->scripts)
		return -ENOMEM;
	script_identity(c, &c->scripts->uid, &c->scripts->gid);
	c->scripts->sig_chld = evsignal_new(c->base, SIGCHLD, sigchld_cb, c);
	if (!c->scripts->sig_chld || evsignal_add(c->scripts->sig_chld, NULL) < 0)
		return -ENOMEM;
	if (job_hook_add(c, &script_hook) < 0)
		return -ENOMEM;
	if (c->conf->prolog_flags & PROLOG_FLAG_X11)
		error("PrologFlags=X11: no X11 forwarding yet; acted on as Contain");
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];

		if ((job->state & JOB_CONFIGURING) && job_is_running(job) && !job_is_finished(job))
			job_script_prolog(c, job); /* again; without any, configured now */
		if (job->is_epilog_ctld) {
			job->is_epilog_ctld = false;
			if (c->conf->epilog_slurmctld)
				job_script_epilog(c, job);
			else if (!job->epilog_count)
				job->state &= ~JOB_COMPLETING;
			job_changed(c, job);
		}
	}
	return 0;
}

void job_script_fini(struct ctld *c)
{
	if (!c->scripts)
		return;
	while (c->scripts->runs) {
		struct job_run *r = c->scripts->runs;

		c->scripts->runs = r->next;
		kill(-r->pid, SIGKILL); /* run again at the next start */
		run_free(r);
	}
	if (c->scripts->sig_chld)
		event_free(c->scripts->sig_chld);
	free(c->scripts);
	c->scripts = NULL;
}
