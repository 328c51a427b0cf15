/* proctree.c - the job's processes as /proc shows them (proctrack/linuxproc
 * style): which process belongs to which local task, and signalling them.
 *
 * A process is the job's when it descends from this stepd by parent
 * links. The stepd is a child subreaper, so nothing the tasks start leaves
 * its subtree while it lives: an orphan comes back to it, a daemon that
 * double-forked included. Session and process group ids only say which
 * task a process belongs to, never whether it is the job's: they are the
 * pids of their first leaders, and once every member is gone the kernel
 * hands the pid to anyone, who may lead a new session of that id (root's
 * process after a task's pid was reused must not be signalled as the
 * job's). A parent link is taken only from a parent that started no later
 * than the child, so a pid reused during a scan passes nothing on.
 *
 * Each process is attributed to one task: the stepd's children by the
 * task leading their session/group, else the task the last kept scan gave
 * them (task 0 when never seen; proctree owns that memory); the rest by
 * their parent's.
 *
 * Signals through a scan go to a process only if it is still the one
 * scanned (its start time, checked after a pidfd pins it) and its real or
 * saved uid is the job's (what the user could signal itself), or it is
 * the stepd's own child.
 *
 * A scan reads the stat of the job's processes only, never every process
 * of the host: with task cgroups, the pids in each task's cgroup.procs
 * (the task is its directory's); without, the descendants of this stepd
 * by the kernel's children lists (/proc/<pid>/task/<tid>/children), each
 * checked to still have the parent it was listed under. Only a kernel
 * without those lists (CONFIG_PROC_CHILDREN) gets the whole of /proc.
 *
 * Caveat: a scan is a snapshot; a process forked after it escapes one
 * signal, which is why SIGKILL is repeated until the tasks are gone.
 */
#include "proctree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup.h"
#include "common/log.h"
#include "common/proc_stat.h"
#include "step.h"
#include "stepd.h"

/* A process of the job at the last kept scan and its task (sorted by pid). */
struct proctree_owner {
	pid_t pid;
	int32_t task;
};

struct proctree {
	struct proctree_owner *owners;
	size_t nowners;
};

int proctree_init(struct stepd *s)
{
	s->proctree = calloc(1, sizeof(*s->proctree));
	return s->proctree ? 0 : -ENOMEM;
}

void proctree_free(struct stepd *s)
{
	if (!s->proctree)
		return;
	free(s->proctree->owners);
	free(s->proctree);
	s->proctree = NULL;
}

/* The task whose pid is pid, or -1. A reaped task's pid may belong to
 * someone else by now: is_own_pid matches only while the task lives. For
 * the sid/pgrp of one of our children any task matches: a session of ours
 * is led by one of ours. */
static int32_t proctree_leader(const struct stepd *s, pid_t pid, bool is_own_pid)
{
	const struct step *st = s->step;

	if (pid <= 0 || !st)
		return -1;
	for (uint32_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].pid == pid && !(is_own_pid && st->tasks[i].has_exited))
			return (int32_t)i;
	return -1;
}

static int proctree_owner_cmp(const void *a, const void *b)
{
	const struct proctree_owner *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The task the last kept scan gave pid, or -1. */
static int32_t proctree_owner(const struct stepd *s, pid_t pid)
{
	const struct proctree *pt = s->proctree;
	struct proctree_owner key = {.pid = pid}, *o;

	if (!pt || !pt->owners)
		return -1;
	o = bsearch(&key, pt->owners, pt->nowners, sizeof(key), proctree_owner_cmp);
	return o ? o->task : -1;
}

/* An orphan of ours outside every task's session: the task it had. */
static int32_t proctree_orphan(const struct stepd *s, pid_t pid)
{
	int32_t t;

	if (!s->proctree || !s->proctree->owners)
		return 0;
	t = proctree_owner(s, pid);
	return t < 0 ? 0 : t;
}

/* The task of one of our children; -1 for any other process, which gets
 * its parent's task from proc_entry_inherit() if it descends from us. */
static int32_t proctree_task(const struct stepd *s, const struct proc_stat *st, pid_t self)
{
	int32_t t;

	if (st->pid == self || st->ppid != self)
		return -1;
	t = proctree_leader(s, st->pid, true);
	if (t < 0)
		t = proctree_leader(s, st->session, false);
	if (t < 0)
		t = proctree_leader(s, st->pgrp, false);
	if (t < 0)
		t = proctree_orphan(s, st->pid);
	return t;
}

/* A growing array of scanned processes. */
struct proc_scan {
	struct proc_entry *v;
	size_t n, cap;
	bool has_failed; /* out of memory: the scan is short */
};

static struct proc_entry *proc_scan_add(struct proc_scan *ps)
{
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		struct proc_entry *nv = realloc(ps->v, cap * sizeof(*nv));

		if (!nv) {
			ps->has_failed = true;
			return NULL;
		}
		ps->v = nv;
		ps->cap = cap;
	}
	ps->v[ps->n] = (struct proc_entry){.task = -1};
	return &ps->v[ps->n++];
}

/* The whole of /proc, each process with its task if it is ours. */
static void proctree_scan_all(const struct stepd *s, struct proc_scan *ps, pid_t self)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct proc_stat st;
		struct proc_entry *p;

		if (e->d_name[0] < '1' || e->d_name[0] > '9'
		    || proc_stat_read(atoi(e->d_name), &st) < 0)
			continue;
		if (!(p = proc_scan_add(ps)))
			break;
		p->st = st;
		p->task = proctree_task(s, &st, self);
	}
	closedir(d);
}

/* pid, listed as a child of parent, if it still is (the list was read,
 * the pid may have been reused since). */
static void proctree_add_child(const struct stepd *s, struct proc_scan *ps, long pid,
			       pid_t parent, uint64_t parent_start, pid_t self)
{
	struct proc_stat st;
	struct proc_entry *p;

	if (pid <= 0 || pid > INT32_MAX || proc_stat_read((pid_t)pid, &st) < 0
	    || st.ppid != parent || st.start < parent_start || !(p = proc_scan_add(ps)))
		return;
	p->st = st;
	p->task = proctree_task(s, &st, self);
}

/* The whole of a small /proc file, NUL-terminated, in a buffer that grows
 * (a children list has a pid per child): the length, or -errno. */
static ssize_t proctree_read_all(const char *path, char **buf, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (len + 1 >= *size) {
			size_t nsize = *size ? *size * 2 : 512;
			char *nb = realloc(*buf, nsize);

			if (!nb) {
				close(fd);
				return -ENOMEM;
			}
			*buf = nb;
			*size = nsize;
		}
		n = read(fd, *buf + len, *size - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	(*buf)[len] = '\0';
	return n < 0 ? -EIO : (ssize_t)len;
}

/* Add the children of ps->v[i] (self's when i is SIZE_MAX), every
 * thread's. -ENOENT when the kernel keeps no children lists. */
static int proctree_children(const struct stepd *s, struct proc_scan *ps, size_t i, pid_t self,
			     char **buf, size_t *size)
{
	pid_t parent = i == SIZE_MAX ? self : ps->v[i].st.pid;
	uint64_t parent_start = i == SIZE_MAX ? 0 : ps->v[i].st.start;
	char path[64];
	struct dirent *e;
	DIR *d;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)parent);
	if (!(d = opendir(path)))
		return 0; /* gone */
	while ((e = readdir(d)) && !ps->has_failed) {
		ssize_t n;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children", (int)parent,
			 e->d_name);
		n = proctree_read_all(path, buf, size);
		if (n == -ENOENT && parent == self)
			r = -ENOENT; /* our own thread: no children lists */
		if (n == -ENOMEM)
			ps->has_failed = true;
		for (char *p = *buf, *end; n > 0 && *p; p = end) {
			long pid = strtol(p, &end, 10);

			if (end == p) {
				end = p + 1;
				continue;
			}
			proctree_add_child(s, ps, pid, parent, parent_start, self);
		}
	}
	closedir(d);
	return r;
}

/* The processes of the task cgroups: each its directory's task. */
static void proctree_cgroup_pid(void *arg, pid_t pid, uint32_t ltid)
{
	struct proc_scan *ps = arg;
	struct proc_stat st;
	struct proc_entry *p;

	if (proc_stat_read(pid, &st) < 0 || !(p = proc_scan_add(ps)))
		return;
	p->st = st;
	p->task = (int32_t)ltid;
}

struct proc_entry *proctree_scan(const struct stepd *s, size_t *ret_n)
{
	static bool has_no_children_lists;
	struct proc_scan ps = {0};
	pid_t self = getpid();

	*ret_n = 0;
	if (cgroup_task_pids(s, proctree_cgroup_pid, &ps) >= 0) {
		/* attributed by directory */
	} else if (!has_no_children_lists) {
		char *buf = NULL;
		size_t size = 0;

		/* breadth first: v grows behind i */
		if (proctree_children(s, &ps, SIZE_MAX, self, &buf, &size) == -ENOENT) {
			has_no_children_lists = true;
			ps.n = 0;
			proctree_scan_all(s, &ps, self);
		}
		for (size_t i = 0; !has_no_children_lists && i < ps.n && !ps.has_failed; i++)
			proctree_children(s, &ps, i, self, &buf, &size);
		free(buf);
	} else {
		proctree_scan_all(s, &ps, self);
	}
	if (!ps.v)
		return NULL;
	qsort(ps.v, ps.n, sizeof(*ps.v), proc_entry_cmp);
	for (size_t i = 1, k = 1; i <= ps.n; i++) { /* a pid listed twice: once */
		if (i == ps.n) {
			ps.n = k;
			break;
		}
		if (ps.v[i].st.pid != ps.v[k - 1].st.pid)
			ps.v[k++] = ps.v[i];
	}
	proc_entry_inherit(ps.v, ps.n, self);
	*ret_n = ps.n;
	return ps.v;
}

void proctree_keep(struct stepd *s, const struct proc_entry *v, size_t n)
{
	struct proctree *pt = s->proctree;
	struct proctree_owner *o;
	size_t k = 0;

	if (!pt)
		return;
	for (size_t i = 0; i < n; i++)
		k += v[i].task >= 0;
	o = k ? malloc(k * sizeof(*o)) : NULL;
	if (k && !o)
		return; /* keep the old ones */
	k = 0;
	for (size_t i = 0; i < n; i++) /* v is sorted by pid, so is o */
		if (v[i].task >= 0)
			o[k++] = (struct proctree_owner){.pid = v[i].st.pid, .task = v[i].task};
	free(pt->owners);
	pt->owners = o;
	pt->nowners = k;
}

int32_t proctree_task_of(const struct stepd *s, pid_t pid)
{
	int32_t t = proctree_leader(s, pid, false); /* being reaped: it is ours */

	return t >= 0 ? t : proctree_owner(s, pid);
}

/* A pidfd for pid (Linux 5.3+), or -1 with errno (ENOSYS before). */
static int proctree_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static int proctree_pidfd_kill(int fd, int sig)
{
#ifdef SYS_pidfd_send_signal
	return (int)syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
#else
	(void)fd;
	(void)sig;
	errno = ENOSYS;
	return -1;
#endif
}

/* The process scanned as seen is still that process (a pid reused since
 * has another start time), and the job's user could signal it, or it is
 * our own child (a task before it drops root). */
static bool proctree_is_signallable(const struct stepd *s, const struct proc_stat *seen, pid_t self)
{
	struct proc_stat now;
	uid_t ruid, suid;

	if (proc_stat_read(seen->pid, &now) < 0 || now.start != seen->start)
		return false;
	if (now.ppid == self)
		return true;
	if (proc_status_read_uids(seen->pid, &ruid, &suid) < 0)
		return false;
	if (ruid == s->uid || suid == s->uid)
		return true;
	debug("JobId=%u: pid %d of uid %u left alone: not the job's user", s->job_id,
	      (int)seen->pid, (unsigned)ruid);
	return false;
}

/* Send sig to one process of a scan if proctree_is_signallable(), which is
 * checked after a pidfd pins the process: the one checked is the one
 * signalled. Without pidfds, kill() right after the check. true: sent. */
static bool proctree_kill(const struct stepd *s, const struct proc_stat *seen, int sig, pid_t self)
{
	int fd = proctree_pidfd(seen->pid);
	bool is_sent = false;

	if (fd < 0 && errno != ENOSYS)
		return false; /* gone */
	if (proctree_is_signallable(s, seen, self))
		is_sent = fd >= 0 ? proctree_pidfd_kill(fd, sig) == 0 : kill(seen->pid, sig) == 0;
	if (fd >= 0)
		close(fd);
	return is_sent;
}

int proctree_signal(const struct stepd *s, int sig)
{
	const struct step *st = s->step;
	struct proc_entry *v;
	pid_t self = getpid();
	size_t n;
	int count = 0;

	for (uint32_t i = 0; st && i < st->ntasks; i++) {
		pid_t pid = st->tasks[i].pid;

		/* a task just forked may not have called setsid() yet; once
		 * reaped, its group is signalled member by member below (the
		 * id may be someone else's if the group is empty). While it
		 * is not reaped its pid is ours, and so is a group of that id. */
		if (pid > 0 && !st->tasks[i].has_exited
		    && (kill(-pid, sig) == 0 || kill(pid, sig) == 0))
			count++;
	}
	if (cgroup_is_tracking(s)) /* every process of the step, wherever it went */
		return count + cgroup_signal(s, sig);
	v = proctree_scan(s, &n);
	for (size_t i = 0; i < n; i++) { /* outside the live tasks' process groups */
		int32_t g = v[i].task >= 0 ? proctree_leader(s, v[i].st.pgrp, false) : -1;

		if (v[i].task >= 0 && (g < 0 || st->tasks[g].has_exited)
		    && proctree_kill(s, &v[i].st, sig, self))
			count++;
	}
	free(v);
	return count;
}
