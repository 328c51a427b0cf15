/* pam_slurm_adopt.c - a PAM account module, as Slurm's pam_slurm_adopt:
 * a user who logs in (sshd) to a node where one of their jobs runs is let
 * in, and the process that logs them in is adopted into that job's extern
 * step (PrologFlags=Contain), so what they start there counts against the
 * job, is confined by its cgroups and ends with it. A user without a job
 * there is refused; root is left to the rest of the stack.
 *
 * How: slurm.conf (conf=, else $SLURM_CONF, else the default) names this
 * node (nodename=, else the node whose NodeHostname or name is this host)
 * and SlurmdSpoolDir, where each extern stepd listens on
 * "<node>_<job>.4294967292". The module asks each, newest job first,
 * whether the job is the user's (REQUEST_ADD_EXTERN_PID with pid 0), then
 * has the newest one adopt the calling process. Only root may talk to a
 * stepd's socket; the stepd checks the uid itself.
 *
 * Options (Slurm's): action_no_jobs=deny|ignore (default deny),
 * action_unknown=newest|allow|deny (several jobs: default newest),
 * action_adopt_failure=allow|deny|ignore (default allow),
 * action_generic_failure=allow|deny|ignore (default deny: unlike Slurm's
 * ignore, a node whose spool or slurm.conf cannot be read lets nobody in
 * unless the admin says so), ignore_root=0|1 (default 1),
 * join_container=true|false (default true: with job_container/tmpfs the
 * login joins the job's mount namespace, its private /tmp),
 * single_job_skip_rpc=0|1 (accepted: the stepds are always asked
 * directly), log_level= (accepted), disable_x11= (accepted); ours: conf=,
 * nodename=. Unknown options are logged and ignored, as PAM modules do.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#define PAM_SM_ACCOUNT
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/sl_errno.h"

#define EXTERN_STEP_ID	 4294967292u /* SLURM_EXTERN_CONT */
#define STEPD_TIMEOUT_MS 5000
#define JOBS_MAX	 4096
#define NO_JOBS_MSG	 "Access denied by pam_slurm_adopt: you have no active jobs on this node"

enum action { ACT_ALLOW, ACT_DENY, ACT_IGNORE, ACT_NEWEST };

struct opts {
	enum action no_jobs, unknown, adopt_failure, generic_failure;
	bool ignore_root, join_container;
	const char *conf, *nodename;
};

static bool action_of(const char *v, enum action *ret, bool newest_ok)
{
	if (!strcmp(v, "allow"))
		*ret = ACT_ALLOW;
	else if (!strcmp(v, "deny"))
		*ret = ACT_DENY;
	else if (!strcmp(v, "ignore"))
		*ret = ACT_IGNORE;
	else if (newest_ok && !strcmp(v, "newest"))
		*ret = ACT_NEWEST;
	else
		return false;
	return true;
}

static void opts_parse(pam_handle_t *pamh, int argc, const char **argv, struct opts *o)
{
	*o = (struct opts){.no_jobs = ACT_DENY,
			   .unknown = ACT_NEWEST,
			   .adopt_failure = ACT_ALLOW,
			   .generic_failure = ACT_DENY,
			   .ignore_root = true,
			   .join_container = true};
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = strchr(a, '=');
		size_t n = v ? (size_t)(v - a) : strlen(a);
		bool ok = v != NULL;

		if (v)
			v++;
#define KEY(k) (n == sizeof(k) - 1 && !strncmp(a, k, n))
		if (ok && KEY("action_no_jobs"))
			ok = action_of(v, &o->no_jobs, false) && o->no_jobs != ACT_ALLOW;
		else if (ok && KEY("action_unknown"))
			ok = action_of(v, &o->unknown, true) && o->unknown != ACT_IGNORE;
		else if (ok && KEY("action_adopt_failure"))
			ok = action_of(v, &o->adopt_failure, false);
		else if (ok && KEY("action_generic_failure"))
			ok = action_of(v, &o->generic_failure, false);
		else if (ok && KEY("ignore_root"))
			o->ignore_root = strcmp(v, "0") != 0;
		else if (ok && KEY("join_container"))
			o->join_container = strcmp(v, "false") != 0 && strcmp(v, "0") != 0;
		else if (ok && KEY("conf"))
			o->conf = v;
		else if (ok && KEY("nodename"))
			o->nodename = v;
		else if (ok
			 && (KEY("single_job_skip_rpc") || KEY("log_level") || KEY("disable_x11")
			     || KEY("service")))
			; /* accepted */
		else
			ok = false;
#undef KEY
		if (!ok)
			pam_syslog(pamh, LOG_ERR, "ignoring bad option \"%s\"", a);
	}
}

static int act(enum action a)
{
	switch (a) {
	case ACT_ALLOW:
	case ACT_NEWEST:
		return PAM_SUCCESS;
	case ACT_IGNORE:
		return PAM_IGNORE;
	case ACT_DENY:
		break;
	}
	return PAM_PERM_DENIED;
}

/* This node in conf: nodename=, else the one whose NodeHostname (or name)
 * is this host's short name. */
static const char *node_of(const struct sl_conf *c, const char *nodename, char *host, size_t n)
{
	char *dot;

	if (nodename)
		return conf_node_find(c, nodename) ? nodename : NULL;
	if (gethostname(host, n) < 0)
		return NULL;
	host[n - 1] = '\0';
	if ((dot = strchr(host, '.')))
		*dot = '\0';
	for (uint32_t i = 0; i < c->node_count; i++) {
		const struct conf_node *nd = &c->nodes[i];

		if (!strcmp(nd->node_hostname ? nd->node_hostname : nd->name, host))
			return nd->name;
	}
	return conf_node_find(c, host) ? host : NULL;
}

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The jobs with an extern stepd socket here, newest (highest id) first. */
static int extern_jobs(const char *spool, const char *node, uint32_t *jobs, size_t *ret_n)
{
	DIR *d = opendir(spool);
	size_t plen = strlen(node), n = 0;
	struct dirent *e;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < JOBS_MAX) {
		char *end;
		unsigned long job, step;

		if (strncmp(e->d_name, node, plen) || e->d_name[plen] != '_')
			continue;
		errno = 0;
		job = strtoul(e->d_name + plen + 1, &end, 10);
		if (errno || *end != '.' || !job || job > UINT32_MAX)
			continue;
		step = strtoul(end + 1, &end, 10);
		if (*end || step != EXTERN_STEP_ID)
			continue; /* .done, .new, other steps */
		jobs[n++] = (uint32_t)job;
	}
	closedir(d);
	qsort(jobs, n, sizeof(*jobs), cmp_desc);
	*ret_n = n;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* REQUEST_ADD_EXTERN_PID {uid, pid} to job's extern stepd; its rc (0 or
 * a positive Slurm code), or -errno when it cannot be asked. */
static int stepd_ask(const char *spool, const char *node, uint32_t job, uint32_t uid, uint32_t pid)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct pack_buf b = {0};
	struct pollfd pfd;
	uint8_t rc[4];
	size_t got = 0;
	int fd, r;

	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s_%u.%u", spool, node, job,
		     EXTERN_STEP_ID)
	    >= (int)sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	pack_u32(&b, 8); /* the stepd frame: body length, version, type, body */
	pack_u16(&b, PROTOCOL_VERSION);
	pack_u16(&b, REQUEST_ADD_EXTERN_PID);
	pack_u32(&b, uid);
	pack_u32(&b, pid);
	if (b.err) {
		pack_buf_done(&b);
		return b.err;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = fd < 0 ? -errno : 0;
	if (r == 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		r = -errno;
	if (r == 0)
		r = write_all(fd, b.data, b.len);
	pack_buf_done(&b);
	pfd = (struct pollfd){.fd = fd, .events = POLLIN};
	while (r == 0 && got < sizeof(rc)) {
		ssize_t n;

		if (poll(&pfd, 1, STEPD_TIMEOUT_MS) <= 0) {
			r = -ETIMEDOUT;
			break;
		}
		n = read(fd, rc + got, sizeof(rc) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			r = n < 0 ? -errno : -ECONNRESET;
		else
			got += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return r;
	return (int)(((uint32_t)rc[0] << 24) | ((uint32_t)rc[1] << 16) | ((uint32_t)rc[2] << 8)
		     | rc[3]);
}

struct login {
	pam_handle_t *pamh;
	const struct opts *o;
	const struct sl_conf *c;
	const char *user, *spool, *node, *host;
	uid_t uid;
};

/* job_container/tmpfs: the login joins the job's mount namespace, so it
 * sees the job's private /tmp. 0, or -errno. */
static int join_container(const struct login *l, uint32_t job)
{
	char *base, path[PATH_MAX];
	int fd, r = 0;

	if (!l->o->join_container || l->c->job_container != CONTAINER_TMPFS)
		return 0;
	base = conf_container_base(l->c, l->node, l->host);
	if (!base)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%u/.ns", base, job);
	free(base);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNS) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	return r;
}

/* The user's jobs among jobs (asked in order): kept at the front. */
static size_t users_jobs(const struct login *l, uint32_t *jobs, size_t n)
{
	size_t mine = 0;

	for (size_t i = 0; i < n; i++) {
		int rc = stepd_ask(l->spool, l->node, jobs[i], (uint32_t)l->uid, 0);

		if (rc == 0)
			jobs[mine++] = jobs[i];
		else if (rc != ESLURM_USER_ID_MISSING)
			pam_syslog(l->pamh, LOG_DEBUG, "job %u: its extern step did not answer: %s",
				   jobs[i], rc < 0 ? strerror(-rc) : sl_strerror(-rc));
	}
	return mine;
}

static int adopt(const struct login *l, const uint32_t *jobs, size_t n)
{
	pid_t pid = getpid();
	int rc;

	if (n > 1 && l->o->unknown != ACT_NEWEST) {
		pam_syslog(l->pamh, LOG_INFO, "%s has %zu jobs here: action_unknown", l->user, n);
		return act(l->o->unknown);
	}
	rc = stepd_ask(l->spool, l->node, jobs[0], (uint32_t)l->uid, (uint32_t)pid);
	if (rc == 0 && (rc = join_container(l, jobs[0])) < 0) {
		pam_syslog(l->pamh, LOG_ERR, "Process %d not in job %u's namespace: %s", (int)pid,
			   jobs[0], strerror(-rc));
		return act(l->o->adopt_failure);
	}
	if (rc == 0) {
		pam_syslog(l->pamh, LOG_INFO, "Process %d adopted into job %u", (int)pid, jobs[0]);
		return PAM_SUCCESS;
	}
	pam_syslog(l->pamh, LOG_ERR, "Process %d not adopted into job %u: %s", (int)pid, jobs[0],
		   rc < 0 ? strerror(-rc) : sl_strerror(-rc));
	return act(l->o->adopt_failure);
}

static int login_check(struct login *l, const struct sl_conf *c)
{
	char host[HOST_NAME_MAX + 1];
	uint32_t *jobs;
	size_t n = 0;
	char *spool;
	int r;

	l->c = c;
	l->host = host;
	host[0] = '\0';
	l->node = node_of(c, l->o->nodename, host, sizeof(host));
	if (!l->node) {
		pam_syslog(l->pamh, LOG_ERR, "this host is no node of slurm.conf");
		return act(l->o->generic_failure);
	}
	spool = conf_expand_path(c->slurmd_spool_dir, l->node, host);
	jobs = calloc(JOBS_MAX, sizeof(*jobs));
	r = spool && jobs ? extern_jobs(spool, l->node, jobs, &n) : -ENOMEM;
	if (r < 0) {
		pam_syslog(l->pamh, LOG_ERR, "cannot list the jobs of node %s: %s", l->node,
			   strerror(-r));
		r = act(l->o->generic_failure);
	} else {
		l->spool = spool;
		n = users_jobs(l, jobs, n);
		if (n)
			r = adopt(l, jobs, n);
		else if (l->o->no_jobs == ACT_DENY) {
			pam_error(l->pamh, "%s", NO_JOBS_MSG);
			pam_syslog(l->pamh, LOG_INFO, "%s: no job on node %s", l->user, l->node);
			r = PAM_PERM_DENIED;
		} else {
			r = act(l->o->no_jobs);
		}
	}
	free(jobs);
	free(spool);
	return r;
}

PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct opts o;
	struct login l = {.pamh = pamh, .o = &o};
	struct passwd pw, *pwp = NULL;
	struct sl_conf *c = NULL;
	struct sl_error err = {{0}};
	const void *item = NULL;
	char buf[4096];
	int r;

	(void)flags;
	opts_parse(pamh, argc, argv, &o);
	if (pam_get_item(pamh, PAM_USER, &item) != PAM_SUCCESS || !item) {
		pam_syslog(pamh, LOG_ERR, "no user");
		return act(o.generic_failure);
	}
	l.user = item;
	if (getpwnam_r(l.user, &pw, buf, sizeof(buf), &pwp) != 0 || !pwp) {
		pam_syslog(pamh, LOG_ERR, "user %s unknown", l.user);
		return PAM_USER_UNKNOWN;
	}
	l.uid = pw.pw_uid;
	if (l.uid == 0 && o.ignore_root)
		return PAM_IGNORE;
	r = conf_load(o.conf ? o.conf : conf_default_path(), &c, &err);
	if (r < 0) {
		pam_syslog(pamh, LOG_ERR, "cannot read slurm.conf: %s", err.text);
		return act(o.generic_failure);
	}
	r = login_check(&l, c);
	conf_free(c);
	return r;
}
