/* container.c - see container.h. */
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/safe_fs.h"
#include "common/sl_errno.h"
#include "slurmd.h"
#include "spawn.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/* Is path (absolute, resolved) a mount point in our namespace? */
static bool is_mount_point(const char *path)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], *o = mnt, *p;
		unsigned field = 0;

		/* id parent major:minor root MOUNTPOINT ...; spaces as \040 */
		for (p = line; *p && field < 4; p++)
			field += *p == ' ';
		while (*p && *p != ' ' && o < mnt + sizeof(mnt) - 1) {
			if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] && p[3]) {
				*o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
				p += 4;
			} else {
				*o++ = *p++;
			}
		}
		*o = '\0';
		found = streq(mnt, path);
	}
	fclose(f);
	return found;
}

static int mkdir_parents(const char *path)
{
	_cleanup_free_ char *copy = strdup(path);

	if (!copy)
		return -ENOMEM;
	for (char *p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(copy, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int slurmd_container_init(struct slurmd *d)
{
	struct container_node cn;
	char real[PATH_MAX];
	int r;

	if (d->conf->job_container != CONTAINER_TMPFS)
		return 0;
	conf_container_of(d->conf, d->node_name, &cn);
	d->container_base = conf_container_base(d->conf, d->node_name, d->hostname);
	if (!d->container_base) {
		error("job_container/tmpfs: job_container.conf gives node %s no BasePath",
		      d->node_name);
		return -EINVAL;
	}
	if (cn.auto_base_path && (r = mkdir_parents(d->container_base)) < 0)
		return log_errno(r, "job_container/tmpfs: cannot make %s", d->container_base);
	if (!realpath(d->container_base, real))
		return log_errno(-errno, "job_container/tmpfs: BasePath %s", d->container_base);
	free(d->container_base);
	d->container_base = strdup(real);
	if (!d->container_base)
		return -ENOMEM;
	/* a namespace file can only be bound where it would not propagate */
	if (!is_mount_point(real)) {
		if (mount(real, real, NULL, MS_BIND, NULL) < 0)
			return log_errno(-errno, "job_container/tmpfs: bind mount of %s", real);
		d->is_container_bound = true;
	}
	if (mount(NULL, real, NULL, MS_PRIVATE, NULL) < 0)
		return log_errno(-errno, "job_container/tmpfs: %s made private", real);
	return 0;
}

void slurmd_container_fini(struct slurmd *d)
{
	/* busy while a job's namespace is bound in it: it stays for them */
	if (d->is_container_bound && umount2(d->container_base, 0) < 0)
		verbose("job_container/tmpfs: %s stays mounted: %s", d->container_base,
			strerror(errno));
	free(d->container_base);
	d->container_base = NULL;
	d->is_container_bound = false;
}

/* "/tmp" -> "_tmp", "/var/tmp" -> "_var_tmp": the job's directory for it. */
static void private_name(const char *dir, char *buf, size_t n)
{
	snprintf(buf, n, "%s", dir);
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '_';
}

/* Is "<job>/.ns" in the open base a bound namespace? */
static bool ns_is_bound(int base_fd, const char *job)
{
	char path[64];
	struct statfs sf;
	int fd;
	bool is_ns;

	snprintf(path, sizeof(path), "%s/.ns", job);
	fd = openat(base_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	is_ns = fstatfs(fd, &sf) == 0 && sf.f_type == NSFS_MAGIC;
	close(fd);
	return is_ns;
}

struct maker {
	struct slurmd *d;
	uint32_t job_id;
	const struct container_node *cn;
	char *dirs[SL_CONTAINER_DIRS];
	bool is_tmpfs[SL_CONTAINER_DIRS]; /* /dev/shm: a fresh tmpfs */
	size_t ndirs;
	char job_path[PATH_MAX];
};

/* InitScript, in the maker, before its namespace is its own. */
static int maker_init_script(const struct maker *m)
{
	char *argv[] = {(char *)m->cn->init_script, NULL};
	char env[4][PATH_MAX + 32];
	char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", env[0], env[1], env[2], env[3], NULL};
	const int fds[3] = {SPAWN_FD_NULL, SPAWN_FD_NULL, SPAWN_FD_NULL};
	pid_t pid;
	int status;

	if (slurmd_prog_check(m->cn->init_script) < 0)
		return -1;
	snprintf(env[0], sizeof(env[0]), "SLURM_JOB_ID=%u", m->job_id);
	snprintf(env[1], sizeof(env[1]), "SLURM_CONF=%s", m->d->stepd_conf);
	snprintf(env[2], sizeof(env[2]), "SLURMD_NODENAME=%s", m->d->node_name);
	snprintf(env[3], sizeof(env[3]), "SLURM_JOB_MOUNTPOINT_SRC=%s", m->job_path);
	if (slurmd_spawn(argv[0], argv, envp, fds, &pid) < 0)
		return -1;
	/* bounded, and its session killed past the bound: slurmd gives up on
	 * the maker a little later */
	for (int waited_ms = 0;; waited_ms += 50) {
		struct timespec pause = {.tv_nsec = 50 * 1000 * 1000};
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if ((r < 0 && errno != EINTR)
		    || waited_ms >= (CONTAINER_INIT_TIMEOUT_S - 5) * 1000) {
			kill(-pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -1;
		}
		nanosleep(&pause, NULL);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* What the maker tells slurmd: 'R' ready, or 'F' with what failed. */
struct maker_word {
	char c;
	int step; /* 0 InitScript, 1 unshare, 2 the mounts' propagation, 3+i Dirs[i] */
	int err;
};

/* The child that makes the namespace: tells ready and waits for go's EOF,
 * so that slurmd binds its namespace while it lives. */
static _Noreturn void maker_run(const struct maker *m, pid_t slurmd, int ready, int go)
{
	struct maker_word w = {.c = 'F'};
	char src[2 * PATH_MAX + 2], name[PATH_MAX];
	sigset_t none;

	/* slurmd's signal handling is not ours, and we never outlive it */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != slurmd)
		_exit(1);
	if (m->cn->init_script && maker_init_script(m) < 0)
		goto out;
	w.step = 1;
	if (unshare(CLONE_NEWNS) < 0)
		goto out;
	w.step = 2;
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		goto out;
	for (size_t i = 0; i < m->ndirs; i++) {
		int r;

		w.step = 3 + (int)i;
		if (m->is_tmpfs[i]) {
			r = mount("tmpfs", m->dirs[i], "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
		} else {
			/* by its path in this namespace (a descriptor opened before
			 * is of the other one): the job's directory is root's alone */
			private_name(m->dirs[i], name, sizeof(name));
			snprintf(src, sizeof(src), "%s/%s", m->job_path, name);
			r = mount(src, m->dirs[i], NULL, MS_BIND, NULL);
		}
		if (r < 0)
			goto out;
	}
	w.c = 'R';
out:
	w.err = w.c == 'R' ? 0 : errno;
	if (write(ready, &w, sizeof(w)) == (ssize_t)sizeof(w) && w.c == 'R')
		while (read(go, &w.c, 1) < 0 && errno == EINTR)
			;
	_exit(w.c == 'R' ? 0 : 1);
}

static void maker_failed(const struct maker *m, const struct maker_word *w)
{
	if (w->step == 0)
		error("JobId=%u: job_container/tmpfs: InitScript %s failed", m->job_id,
		      m->cn->init_script);
	else if (w->step < 3)
		error("JobId=%u: job_container/tmpfs: %s: %s", m->job_id,
		      w->step == 1 ? "unshare" : "private mounts", strerror(w->err));
	else
		error("JobId=%u: job_container/tmpfs: %s not made private: %s", m->job_id,
		      m->dirs[w->step - 3], strerror(w->err));
}

/* Start the maker; bind its namespace on ns_fd's file. */
static int maker_bind(const struct maker *m, int ns_fd)
{
	int ready[2], go[2], r = -ESLURMD_SETUP_ENVIRONMENT_ERROR;
	struct maker_word w = {0};
	struct pollfd p;
	char src[64], dst[64];
	pid_t pid, self = getpid();

	if (pipe2(ready, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(go, O_CLOEXEC) < 0) {
		close(ready[0]);
		close(ready[1]);
		return -errno;
	}
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(go[1]); /* or go would never see its EOF */
		maker_run(m, self, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	p = (struct pollfd){.fd = ready[0], .events = POLLIN};
	if (pid > 0 && poll(&p, 1, CONTAINER_INIT_TIMEOUT_S * 1000) == 1
	    && read(ready[0], &w, sizeof(w)) == (ssize_t)sizeof(w) && w.c == 'R') {
		snprintf(src, sizeof(src), "/proc/%d/ns/mnt", (int)pid);
		snprintf(dst, sizeof(dst), "/proc/self/fd/%d", ns_fd);
		r = mount(src, dst, NULL, MS_BIND, NULL) < 0 ? -errno : 0;
		if (r < 0)
			error("JobId=%u: job_container/tmpfs: namespace not kept: %s", m->job_id,
			      strerror(-r));
	} else if (w.c == 'F') {
		maker_failed(m, &w);
	} else {
		error("JobId=%u: job_container/tmpfs: the namespace was not made in %d s",
		      m->job_id, CONTAINER_INIT_TIMEOUT_S);
	}
	close(ready[0]);
	close(go[1]); /* the maker exits */
	if (pid > 0) {
		if (w.c != 'R' && w.c != 'F')
			kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	return r < 0 ? -ESLURMD_SETUP_ENVIRONMENT_ERROR : 0;
}

/* Dirs= into m: a directory of the job for each but /dev/shm. */
static int maker_dirs(struct maker *m, int job_fd)
{
	_cleanup_free_ char *copy = strdup(m->cn->dirs);

	if (!copy)
		return -ENOMEM;
	for (char *save = NULL, *dir = strtok_r(copy, ",", &save);
	     dir && m->ndirs < SL_CONTAINER_DIRS; dir = strtok_r(NULL, ",", &save)) {
		char name[PATH_MAX];
		size_t i = m->ndirs;
		int fd;

		m->dirs[i] = strdup(dir);
		if (!m->dirs[i])
			return -ENOMEM;
		m->ndirs++;
		m->is_tmpfs[i] = streq(dir, "/dev/shm");
		if (m->is_tmpfs[i])
			continue;
		private_name(dir, name, sizeof(name));
		fd = safe_mkdir_at(job_fd, name, 01777, 0, 0, SAFE_FS_ANY_USER);
		if (fd < 0)
			return fd;
		close(fd); /* the maker binds it by path, in its own namespace */
	}
	return 0;
}

static void maker_done(struct maker *m)
{
	for (size_t i = 0; i < m->ndirs; i++)
		free(m->dirs[i]);
}

int slurmd_container_create(struct slurmd *d, uint32_t job_id)
{
	struct container_node cn;
	struct maker m = {.d = d, .job_id = job_id, .cn = &cn};
	_cleanup_close_ int base_fd = -1, job_fd = -1, ns_fd = -1;
	char job[16];
	int r;

	if (d->conf->job_container != CONTAINER_TMPFS || !d->container_base)
		return 0;
	conf_container_of(d->conf, d->node_name, &cn);
	snprintf(job, sizeof(job), "%u", job_id);
	base_fd = safe_open_dir(d->container_base);
	if (base_fd < 0)
		return log_errno(-ESLURMD_SETUP_ENVIRONMENT_ERROR,
				 "JobId=%u: job_container/tmpfs: %s: %s", job_id, d->container_base,
				 strerror(-base_fd));
	if (ns_is_bound(base_fd, job))
		return 0; /* made for an earlier step of the job */
	job_fd = safe_mkdir_at(base_fd, job, 0700, 0, 0, SAFE_FS_ANY_USER);
	if (job_fd < 0)
		return log_errno(-ESLURMD_SETUP_ENVIRONMENT_ERROR,
				 "JobId=%u: job_container/tmpfs: %s/%s: %s", job_id,
				 d->container_base, job, strerror(-job_fd));
	snprintf(m.job_path, sizeof(m.job_path), "%s/%s", d->container_base, job);
	ns_fd = openat(job_fd, ".ns", O_CREAT | O_EXCL | O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0400);
	r = ns_fd < 0 ? -errno : maker_dirs(&m, job_fd);
	if (r == 0)
		r = maker_bind(&m, ns_fd);
	maker_done(&m);
	if (r < 0) {
		error("JobId=%u: job_container/tmpfs: no private directories: %s", job_id,
		      sl_strerror(r));
		(void)safe_rmtree_at(base_fd, job, SAFE_FS_ANY_USER, 0);
		return -ESLURMD_SETUP_ENVIRONMENT_ERROR;
	}
	debug("JobId=%u: job_container/tmpfs: namespace in %s", job_id, m.job_path);
	return 0;
}

void slurmd_container_delete(struct slurmd *d, uint32_t job_id)
{
	char ns[PATH_MAX], job[16];
	int r;

	if (d->conf->job_container != CONTAINER_TMPFS || !d->container_base)
		return;
	snprintf(job, sizeof(job), "%u", job_id);
	/* the base and the job's directory are root's alone: a path is safe */
	snprintf(ns, sizeof(ns), "%s/%s/.ns", d->container_base, job);
	if (umount2(ns, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL && errno != ENOENT)
		error("JobId=%u: job_container/tmpfs: %s: %s", job_id, ns, strerror(errno));
	r = safe_rmtree(d->container_base, job, SAFE_FS_ANY_USER, 0);
	if (r < 0)
		error("JobId=%u: job_container/tmpfs: %s/%s not removed: %s", job_id,
		      d->container_base, job, strerror(-r));
}
