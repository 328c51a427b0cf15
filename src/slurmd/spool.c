/* spool.c - what this node runs, as its SlurmdSpoolDir shows it, and the
 * completions slurmstepds left there (stepd_proto.h, 3.).
 *
 * A step runs here while its socket "<node>_<job>.<step>" answers a
 * connect(); it has ended with its completion not yet acknowledged while
 * "<node>_<job>.<step>.done" exists. Both kinds are listed in the
 * registration and in every ping reply, so the controller can compare
 * them with what it believes runs here (node_reconcile.c there).
 *
 * A socket nobody listens on is a stepd that died (SIGKILL): it is
 * removed, and the processes it left are killed (spool_kill_orphans).
 * A name of either kind that is not a socket, or not a regular file, is
 * not ours (slurmd_spool_entry): neither listed nor removed.
 *
 * Resend: at start, after each registration and every SPOOL_RESEND_S
 * seconds, each .done file that no stepd holds (flock) is read, checked
 * and sent to the controller; it is removed once the controller took it
 * or refused it for good (an error of its own, 2000 and up). The stepd
 * that wrote it died first (SIGKILL, or stopped while the controller was
 * down), so without this its job would never end. A duplicate is
 * harmless: the controller ignores a completion it already has.
 */
#include "slurmd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/cgroup_fs.h"
#include "common/conf.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_async.h"
#include "common/sl_errno.h"
#include "common/stepd_proto.h"

#define SPOOL_RESEND_S	10
#define SPOOL_DONE_MAX	(64u << 10) /* a completion frame is a few hundred bytes */
#define SPOOL_STEPS_MAX 100000u
#define SPOOL_ENV_MAX	(64u << 10) /* of a process's environment read for its job id */

struct spool_name {
	uint32_t job_id, step_id;
	bool is_done;
};

static bool parse_u32(const char *s, const char **end, uint32_t *ret)
{
	unsigned long long v = 0;
	const char *p = s;

	while (*p >= '0' && *p <= '9' && v <= UINT32_MAX)
		v = v * 10 + (unsigned)(*p++ - '0');
	if (p == s || v > UINT32_MAX)
		return false;
	*end = p;
	*ret = (uint32_t)v;
	return true;
}

/* "<node>_<job>.<step>" or "<node>_<job>.<step>.done"; anything else
 * (scripts, ".new" files, other nodes' names) is not ours to read. */
static bool spool_parse_name(const char *name, const char *node, struct spool_name *ret)
{
	size_t nlen = strlen(node);
	const char *p;

	if (strncmp(name, node, nlen) != 0 || name[nlen] != '_')
		return false;
	p = name + nlen + 1;
	if (!parse_u32(p, &p, &ret->job_id) || *p != '.' || !parse_u32(p + 1, &p, &ret->step_id))
		return false;
	ret->is_done = streq(p, ".done");
	return ret->is_done || *p == '\0';
}

int slurmd_spool_dir_make(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return log_errno(-errno, "SlurmdSpoolDir %s", dir);
	/* the stepds make and remove the jobs' files in it by name: nobody
	 * but us may change what its names point at */
	if (lstat(dir, &st) < 0)
		return log_errno(-errno, "SlurmdSpoolDir %s", dir);
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		error("SlurmdSpoolDir %s must be a directory of uid %u that group and others cannot "
		      "write (it is %s of uid %u, mode %04o)",
		      dir, (unsigned)geteuid(), S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
		      (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

bool slurmd_spool_entry(const char *name, mode_t mode, const char *node,
			struct node_step_ref *ret)
{
	struct spool_name sn;

	if (!spool_parse_name(name, node, &sn))
		return false;
	/* a stepd binds its socket and renames its completion into place:
	 * anything else under such a name (a symlink, a directory) was not
	 * made by a stepd, and is neither read, nor reported, nor removed */
	if (sn.is_done ? !S_ISREG(mode) : !S_ISSOCK(mode))
		return false;
	*ret = (struct node_step_ref){
	    .job_id = sn.job_id,
	    .step_id = sn.step_id,
	    .flags = sn.is_done ? NODE_STEP_DONE : 0,
	};
	return true;
}

/* Does a stepd listen on path? A full backlog (EAGAIN) is a live one. */
static bool spool_socket_is_live(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int fd = -1;

	if (strlen(path) >= sizeof(sa.sun_path))
		return false;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return true; /* cannot tell: do not call it gone */
	return connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 || errno == EAGAIN;
}

/* Does the NUL-separated environment env (len bytes) hold name=value? */
static bool env_has(const char *env, size_t len, const char *name, const char *value)
{
	size_t nlen = strlen(name), vlen = strlen(value);

	for (size_t at = 0; at < len; at += strlen(env + at) + 1)
		if (len - at > nlen + vlen && strncmp(env + at, name, nlen) == 0
		    && env[at + nlen] == '=' && strncmp(env + at + nlen + 1, value, vlen) == 0
		    && env[at + nlen + 1 + vlen] == '\0')
			return true;
	return false;
}

/* A stepd that died (SIGKILL) leaves its tasks running: kill the
 * processes of that job on this node (SLURM_JOB_ID, SLURMD_NODENAME and the
 * SLURM_CONF our stepds give in their environment, and SLURM_STEP_ID for a
 * step's; the config tells apart two clusters' slurmds of the same node
 * name on one host, as the tests run them). Without cgroups this is how
 * they are found; a process can only make itself a target. */
static void spool_kill_orphans(struct slurmd *d, uint32_t job_id, uint32_t step_id)
{
	char job[16], step[16], path[64], *env = malloc(SPOOL_ENV_MAX);
	DIR *proc = opendir("/proc");
	struct dirent *e;
	unsigned killed = 0;

	snprintf(job, sizeof(job), "%u", (unsigned)job_id);
	snprintf(step, sizeof(step), "%u", (unsigned)step_id);
	while (env && proc && (e = readdir(proc))) {
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
		_cleanup_close_ int fd = -1;
		ssize_t n;

		if (pid <= 1 || pid == getpid()
		    || snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid)
			   >= (int)sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, env, SPOOL_ENV_MAX - 1);
		if (n <= 0)
			continue;
		env[n] = '\0';
		if (env_has(env, (size_t)n, "SLURM_JOB_ID", job)
		    && env_has(env, (size_t)n, "SLURMD_NODENAME", d->node_name)
		    && (!d->stepd_conf || env_has(env, (size_t)n, "SLURM_CONF", d->stepd_conf))
		    && (step_id == SL_BATCH_STEP || env_has(env, (size_t)n, "SLURM_STEP_ID", step))
		    && kill(pid, SIGKILL) == 0)
			killed++;
	}
	if (proc)
		closedir(proc);
	free(env);
	if (killed)
		info("StepId=%u.%u: its slurmstepd died; %u process(es) it left killed", job_id,
		     step_id, killed);
}

/* With proctrack/cgroup or task/cgroup, a stepd that died also leaves
 * its step's cgroups (slurmstepd/cgroup.c's layout): every process in
 * them is killed (daemons that cleared their environment too), then the
 * directories go once empty (waiting at most CG_EMPTY_WAIT_MS). */
#define CG_EMPTY_WAIT_MS 500
static void spool_kill_cgroups(struct slurmd *d, uint32_t job_id, uint32_t step_id)
{
	static const char *const ctrls[] = {"freezer", "cpuset", "memory", "devices"};
	const struct sl_conf *c = d->conf;
	char step[32], dirs[8][PATH_MAX];
	size_t nd = 0;
	int version, killed = 0;

	if (c->proctrack != PROCTRACK_CGROUP && !(c->task_plugins & TASK_PLUGIN_CGROUP))
		return;
	version = cgroup_fs_version(&c->cgroup);
	if (step_id == SL_BATCH_STEP)
		snprintf(step, sizeof(step), "step_batch");
	else
		snprintf(step, sizeof(step), "step_%u", (unsigned)step_id);
	for (size_t k = 0; version > 0 && k < (version == 2 ? 1 : ARRAY_SIZE(ctrls)); k++) {
		char base[PATH_MAX];
		struct dirent *e;
		DIR *dir;

		if (version == 2)
			snprintf(base, sizeof(base), "%s/system.slice/%s_slurmstepd.scope",
				 c->cgroup.mountpoint, d->node_name);
		else
			snprintf(base, sizeof(base), "%s/%s/slurm_%s", c->cgroup.mountpoint, ctrls[k],
				 d->node_name);
		if (version == 2) {
			if (nd < ARRAY_SIZE(dirs)
			    && snprintf(dirs[nd], PATH_MAX, "%s/job_%u/%s", base, (unsigned)job_id, step)
				   < PATH_MAX)
				nd++;
			continue;
		}
		if (!(dir = opendir(base)))
			continue;
		while ((e = readdir(dir)) && nd < ARRAY_SIZE(dirs))
			if (strncmp(e->d_name, "uid_", 4) == 0
			    && snprintf(dirs[nd], PATH_MAX, "%s/%s/job_%u/%s", base, e->d_name,
					(unsigned)job_id, step)
				   < PATH_MAX
			    && access(dirs[nd], F_OK) == 0)
				nd++;
		closedir(dir);
	}
	for (size_t i = 0; i < nd; i++)
		killed += cgroup_fs_signal_tree(dirs[i], SIGKILL);
	for (int ms = 0; killed && ms < CG_EMPTY_WAIT_MS; ms += 10) {
		int left = 0;

		for (size_t i = 0; i < nd; i++)
			left += cgroup_fs_signal_tree(dirs[i], 0);
		if (!left)
			break;
		usleep(10 * 1000);
	}
	for (size_t i = 0; i < nd; i++) {
		char *slash;

		cgroup_fs_rmdir_tree(dirs[i]);
		for (int up = 0; up < 2 && (slash = strrchr(dirs[i], '/')); up++) {
			*slash = '\0'; /* the job's, then the user's, when empty */
			(void)rmdir(dirs[i]);
		}
	}
	if (killed)
		info("StepId=%u.%u: its slurmstepd died; %d process(es) of its cgroups killed", job_id,
		     step_id, killed);
}

/* Its stepd died: what it ran goes too (cgroups, then processes), and the
 * socket, so this happens once. */
void slurmd_spool_step_died(struct slurmd *d, const char *path, uint32_t job_id, uint32_t step_id)
{
	unlink(path);
	spool_kill_cgroups(d, job_id, step_id);
	spool_kill_orphans(d, job_id, step_id);
}

bool slurmd_spool_job_runs(struct slurmd *d, uint32_t job_id)
{
	DIR *dir = opendir(d->spool_dir);
	struct dirent *e;
	bool runs = false;

	if (!dir) {
		error("SlurmdSpoolDir %s: %s", d->spool_dir, strerror(errno));
		return true; /* not known to be gone */
	}
	while (!runs && (e = readdir(dir))) {
		_cleanup_free_ char *path = NULL;
		struct node_step_ref ref;
		struct stat st;

		if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0
		    || !slurmd_spool_entry(e->d_name, st.st_mode, d->node_name, &ref)
		    || ref.job_id != job_id || (ref.flags & NODE_STEP_DONE))
			continue;
		if (asprintf(&path, "%s/%s", d->spool_dir, e->d_name) < 0) {
			path = NULL;
			runs = true;
			break;
		}
		if (spool_socket_is_live(path))
			runs = true;
		else
			slurmd_spool_step_died(d, path, ref.job_id, ref.step_id);
	}
	closedir(dir);
	return runs;
}

int slurmd_spool_steps(struct slurmd *d, struct node_step_ref **ret, uint32_t *ret_count)
{
	DIR *dir = opendir(d->spool_dir);
	struct node_step_ref *refs = NULL;
	uint32_t count = 0, cap = 0;
	struct dirent *e;

	*ret = NULL;
	*ret_count = 0;
	if (!dir)
		return log_errno(-errno, "SlurmdSpoolDir %s", d->spool_dir);
	while ((e = readdir(dir)) && count < SPOOL_STEPS_MAX) {
		_cleanup_free_ char *path = NULL;
		struct node_step_ref ref;
		struct stat st;

		if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0
		    || !slurmd_spool_entry(e->d_name, st.st_mode, d->node_name, &ref))
			continue;
		if (!(ref.flags & NODE_STEP_DONE)) {
			if (asprintf(&path, "%s/%s", d->spool_dir, e->d_name) < 0) {
				path = NULL;
				continue;
			}
			if (!spool_socket_is_live(path)) {
				slurmd_spool_step_died(d, path, ref.job_id, ref.step_id);
				continue;
			}
		}
		if (count == cap) {
			struct node_step_ref *n =
			    reallocarray(refs, cap ? cap * 2 : 16, sizeof(*n));

			if (!n)
				break;
			refs = n;
			cap = cap ? cap * 2 : 16;
		}
		refs[count++] = ref;
	}
	closedir(dir);
	*ret = refs;
	*ret_count = count;
	return 0;
}

bool slurmd_spool_has_done(struct slurmd *d, uint32_t job_id, uint32_t step_id)
{
	DIR *dir = opendir(d->spool_dir);
	struct dirent *e;
	bool found = false;

	if (!dir)
		return false;
	while (!found && (e = readdir(dir))) {
		struct spool_name sn;

		found = spool_parse_name(e->d_name, d->node_name, &sn) && sn.is_done
			&& sn.job_id == job_id
			&& (step_id == SL_ALL_STEPS || sn.step_id == step_id);
	}
	closedir(dir);
	return found;
}

/* One .done file on its way to the controller; its lock is held until
 * the answer, so neither a second scan nor anyone else sends it too. */
struct resend {
	struct slurmd *d;
	int fd;
	char *path;
	uint32_t job_id, step_id;
};

static void resend_free(struct resend *rs)
{
	if (rs->fd >= 0)
		close(rs->fd);
	free(rs->path);
	free(rs);
}

/* Still the file we locked (not a newer run's report of the same step)? */
static bool resend_is_same_file(const struct resend *rs)
{
	struct stat a, b;

	return fstat(rs->fd, &a) == 0 && stat(rs->path, &b) == 0 && a.st_ino == b.st_ino
	       && a.st_dev == b.st_dev;
}

static void resend_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	struct resend *rs = arg;

	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc < 0 && -rc < 2000) { /* the controller is not there: next round */
		debug("StepId=%u.%u: completion not delivered yet: %s", rs->job_id, rs->step_id,
		      sl_strerror(rc));
		resend_free(rs);
		return;
	}
	if (rc < 0)
		error("StepId=%u.%u: completion from the spool refused: %s", rs->job_id,
		      rs->step_id, sl_strerror(rc));
	else
		info("StepId=%u.%u: completion left by its slurmstepd delivered", rs->job_id,
		     rs->step_id);
	if (resend_is_same_file(rs))
		unlink(rs->path);
	resend_free(rs);
}

/* Read and check a locked .done file: a completion of the step its name
 * says, for this node. The message is the caller's to free. */
static int resend_read(struct slurmd *d, struct resend *rs, uint16_t *ret_type, void **ret_msg)
{
	_cleanup_free_ uint8_t *data = malloc(SPOOL_DONE_MAX);
	uint32_t len = 0, job_id, step_id;
	const char *node;
	ssize_t n;
	int r;

	if (!data)
		return -ENOMEM;
	n = read(rs->fd, data, SPOOL_DONE_MAX);
	if (n < STEPD_HDR_LEN)
		return -EBADMSG;
	r = stepd_frame_header(data, SPOOL_DONE_MAX - STEPD_HDR_LEN, &len, ret_type);
	if (r < 0 || len != (size_t)n - STEPD_HDR_LEN
	    || (*ret_type != REQUEST_COMPLETE_BATCH_SCRIPT && *ret_type != REQUEST_STEP_COMPLETE))
		return -EBADMSG;
	r = msg_unpack_body(*ret_type, data + STEPD_HDR_LEN, len, PROTOCOL_VERSION, ret_msg);
	if (r < 0)
		return r;
	if (*ret_type == REQUEST_COMPLETE_BATCH_SCRIPT) {
		const struct complete_batch_msg *m = *ret_msg;

		job_id = m->job_id;
		step_id = SL_BATCH_STEP;
		node = m->node_name;
	} else {
		const struct step_complete_msg *m = *ret_msg;

		job_id = m->job_id;
		step_id = m->step_id;
		node = m->node_name;
	}
	if (job_id != rs->job_id || step_id != rs->step_id || !node || !streq(node, d->node_name)) {
		msg_free(msg_lookup(*ret_type), *ret_msg);
		*ret_msg = NULL;
		return -EBADMSG;
	}
	return 0;
}

/* Send one .done file if no stepd holds it. */
static void resend_one(struct slurmd *d, const char *name, const struct spool_name *sn)
{
	const char *host = d->conf->control_addr ? d->conf->control_addr : d->conf->control_machine;
	struct resend *rs = calloc(1, sizeof(*rs));
	void *msg = NULL;
	uint16_t type = 0;
	int r;

	if (!rs)
		return;
	*rs = (struct resend){.d = d, .fd = -1, .job_id = sn->job_id, .step_id = sn->step_id};
	if (asprintf(&rs->path, "%s/%s", d->spool_dir, name) < 0) {
		rs->path = NULL;
		return resend_free(rs);
	}
	rs->fd = open(rs->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (rs->fd < 0 || flock(rs->fd, LOCK_EX | LOCK_NB) < 0 || !resend_is_same_file(rs))
		return resend_free(rs); /* its stepd still sends it, or it is gone */
	r = resend_read(d, rs, &type, &msg);
	if (r < 0) {
		error("%s: not a completion (%s); removed", rs->path, sl_strerror(r));
		unlink(rs->path);
		return resend_free(rs);
	}
	verbose("StepId=%u.%u: sending the completion its slurmstepd left", sn->job_id,
		sn->step_id);
	r = rpc_async_call(d->base, d->conf->munge_socket, host, d->conf->slurmctld_port, type, msg,
			   d->conf->slurm_user_id, d->conf->message_timeout, resend_done_cb, rs);
	msg_free(msg_lookup(type), msg);
	if (r < 0)
		resend_free(rs);
}

void slurmd_spool_resend(struct slurmd *d)
{
	DIR *dir = d->spool_dir ? opendir(d->spool_dir) : NULL;
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		struct spool_name sn;

		if (spool_parse_name(e->d_name, d->node_name, &sn) && sn.is_done)
			resend_one(d, e->d_name, &sn);
	}
	closedir(dir);
}

static void resend_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct slurmd *d = arg;
	struct timeval tv = {.tv_sec = SPOOL_RESEND_S};

	(void)fd;
	(void)what;
	slurmd_spool_resend(d);
	evtimer_add(d->resend_timer, &tv);
}

int slurmd_spool_start(struct slurmd *d)
{
	d->resend_timer = evtimer_new(d->base, resend_timer_cb, d);
	if (!d->resend_timer)
		return -ENOMEM;
	return evtimer_add(d->resend_timer, &(struct timeval){0});
}

void slurmd_spool_stop(struct slurmd *d)
{
	if (d->resend_timer)
		event_free(d->resend_timer);
	d->resend_timer = NULL;
}
