/* proctree.c - the job's processes as /proc shows them (proctrack/linuxproc
 * style): which process belongs to which local task, and signalling them.
 *
 * A process is the job's when it is a task, in a task's session or
 * process group, or descends from one by parent links (orphans come back
 * to us: the stepd is a child subreaper). Each is attributed to one task:
 * the task leading its session/group, else its parent's. An orphan that
 * left its task's session keeps the task the last kept scan gave it
 * (task 0 when it was never seen); proctree owns that memory.
 *
 * Caveat: a scan is a snapshot; a process forked after it escapes one
 * signal, which is why SIGKILL is repeated until the tasks are gone.
 */
#include "proctree.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "cgroup.h"
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
 * someone else by now: it matches only while the task lives. Its session
 * and process group (matched through sid/pgrp) cannot be reused while a
 * process of ours is still in them. */
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

static int32_t proctree_task(const struct stepd *s, const struct proc_stat *st, pid_t self)
{
	int32_t t;

	if (st->pid == self)
		return -1;
	t = proctree_leader(s, st->pid, true);
	if (t < 0)
		t = proctree_leader(s, st->session, false);
	if (t < 0)
		t = proctree_leader(s, st->pgrp, false);
	if (t < 0 && st->ppid == self)
		t = proctree_orphan(s, st->pid);
	return t;
}

struct proc_entry *proctree_scan(const struct stepd *s, size_t *ret_n)
{
	DIR *d = opendir("/proc");
	struct proc_entry *v = NULL;
	size_t n = 0, cap = 0;
	pid_t self = getpid();
	struct dirent *e;

	*ret_n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		struct proc_entry p = {.task = -1};

		if (e->d_name[0] < '1' || e->d_name[0] > '9'
		    || proc_stat_read(atoi(e->d_name), &p.st) < 0)
			continue;
		if (n == cap) {
			struct proc_entry *nv =
			    realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		p.task = proctree_task(s, &p.st, self);
		v[n++] = p;
	}
	closedir(d);
	if (!v)
		return NULL;
	qsort(v, n, sizeof(*v), proc_entry_cmp);
	proc_entry_inherit(v, n, self);
	*ret_n = n;
	return v;
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

int proctree_signal(const struct stepd *s, int sig)
{
	const struct step *st = s->step;
	struct proc_entry *v;
	size_t n;
	int count = 0;

	for (uint32_t i = 0; st && i < st->ntasks; i++) {
		pid_t pid = st->tasks[i].pid;

		/* a task just forked may not have called setsid() yet; once
		 * reaped, its group is signalled member by member below (the
		 * id may be someone else's if the group is empty) */
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
		    && kill(v[i].st.pid, sig) == 0)
			count++;
	}
	free(v);
	return count;
}
