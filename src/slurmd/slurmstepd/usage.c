/* usage.c - the job's processes as /proc shows them (proctrack/linuxproc
 * style) and what they use (jobacct_gather/linux style).
 *
 * A process is the job's when it is the script (or a task of the step),
 * in its session or process group, or descends from one by parent links
 * (orphans come back to us: the stepd is a child subreaper). Each is
 * attributed to one task: the task leading its session/group, else its
 * parent's. An orphan that left its task's session keeps the task the
 * previous sample gave it (task 0 when it was never seen).
 *
 * A sample is one /proc scan for the whole stepd: per task the current
 * RSS and VMSize (sums over its processes) and their peaks; the SUM of
 * every task's RSS is what the memory limit is compared to. wait4's
 * ru_maxrss of a task's pid also raises its RSS peak (it catches peaks
 * between samples), as does an orphan's we reap (for the task the last
 * sample gave it); every reaped process adds its CPU time. The totals
 * (usage_total) are what the completion carries.
 *
 * Caveat: a scan is a snapshot; a process forked after it escapes one
 * signal, which is why SIGKILL is repeated until the script is gone.
 */
#include "stepd.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/proc_stat.h"
#include "step.h"

struct usage_task {
	uint64_t rss_kb, vm_kb;		/* the last sample */
	uint64_t max_rss_kb, max_vm_kb; /* peaks */
};

/* A process of the job at the last sample and its task (sorted by pid). */
struct usage_owner {
	pid_t pid;
	int32_t task;
};

struct usage {
	uint32_t ntasks; /* local tasks: 1 for a batch script */
	struct usage_task *tasks;
	struct usage_owner *owners;
	size_t nowners;
	uint64_t user_usec, sys_usec; /* every reaped process of the job */
	uint64_t page_size;
};

static uint32_t task_count(const struct stepd *s)
{
	return s->step ? s->step->ntasks : 1;
}

static pid_t task_pid(const struct stepd *s, uint32_t i)
{
	return s->step ? s->step->tasks[i].pid : s->pid;
}

static uint32_t task_gtid(const struct stepd *s, uint32_t i)
{
	return s->step ? s->step->tasks[i].gtid : 0;
}

int usage_init(struct stepd *s)
{
	struct usage *u = calloc(1, sizeof(*u));
	long page = sysconf(_SC_PAGESIZE);

	if (!u)
		return -ENOMEM;
	u->ntasks = task_count(s);
	u->tasks = calloc(u->ntasks, sizeof(*u->tasks));
	if (!u->tasks) {
		free(u);
		return -ENOMEM;
	}
	u->page_size = page > 0 ? (uint64_t)page : 4096;
	s->usage = u;
	return 0;
}

void usage_free(struct stepd *s)
{
	if (!s->usage)
		return;
	free(s->usage->tasks);
	free(s->usage->owners);
	free(s->usage);
	s->usage = NULL;
}

/* Local task i has been reaped (the script, for a batch stepd). */
static bool task_has_exited(const struct stepd *s, uint32_t i)
{
	return s->step ? s->step->tasks[i].has_exited : s->has_exited;
}

/* The task whose pid is pid, or -1. A reaped task's pid may belong to
 * someone else by now: it matches only while the task lives. Its session
 * and process group (matched through sid/pgrp) cannot be reused while a
 * process of ours is still in them. */
static int32_t leader_task(const struct stepd *s, pid_t pid, bool is_own_pid)
{
	if (pid <= 0)
		return -1;
	for (uint32_t i = 0; i < task_count(s); i++)
		if (task_pid(s, i) == pid && !(is_own_pid && task_has_exited(s, i)))
			return (int32_t)i;
	return -1;
}

static int owner_cmp(const void *a, const void *b)
{
	const struct usage_owner *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* An orphan of ours outside every task's session: the task it had. */
static int32_t orphan_task(const struct stepd *s, pid_t pid)
{
	const struct usage *u = s->usage;
	struct usage_owner key = {.pid = pid}, *o;

	if (!u || !u->owners)
		return 0;
	o = bsearch(&key, u->owners, u->nowners, sizeof(key), owner_cmp);
	return o ? o->task : 0;
}

/* Every process of the node, sorted by pid; the job's with their task. */
static struct proc_entry *proc_scan(const struct stepd *s, size_t *ret_n)
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
		if (p.st.pid != self) {
			p.task = leader_task(s, p.st.pid, true);
			if (p.task < 0)
				p.task = leader_task(s, p.st.session, false);
			if (p.task < 0)
				p.task = leader_task(s, p.st.pgrp, false);
			if (p.task < 0 && p.st.ppid == self)
				p.task = orphan_task(s, p.st.pid);
		}
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

int usage_signal_job(const struct stepd *s, int sig)
{
	size_t n;
	struct proc_entry *v;
	int count = 0;

	if (s->step) {
		for (uint32_t i = 0; i < s->step->ntasks; i++) {
			pid_t pid = s->step->tasks[i].pid;

			/* a task just forked may not have called setsid() yet; once
			 * reaped, its group is signalled member by member below (the
			 * id may be someone else's if the group is empty) */
			if (pid > 0 && !s->step->tasks[i].has_exited
			    && (kill(-pid, sig) == 0 || kill(pid, sig) == 0))
				count++;
		}
	} else {
		if (s->pid > 0 && !s->has_exited
		    && (kill(-s->pid, sig) == 0 || kill(s->pid, sig) == 0))
			count++;
	}
	v = proc_scan(s, &n);
	for (size_t i = 0; i < n; i++) { /* outside the live tasks' process groups */
		int32_t g = v[i].task >= 0 ? leader_task(s, v[i].st.pgrp, false) : -1;

		if (v[i].task >= 0 && (g < 0 || task_has_exited(s, (uint32_t)g))
		    && kill(v[i].st.pid, sig) == 0)
			count++;
	}
	free(v);
	return count;
}

/* Remember which task each of the job's processes belongs to. */
static void keep_owners(struct usage *u, const struct proc_entry *v, size_t n)
{
	size_t k = 0;
	struct usage_owner *o;

	for (size_t i = 0; i < n; i++)
		k += v[i].task >= 0;
	o = k ? malloc(k * sizeof(*o)) : NULL;
	if (k && !o)
		return; /* keep the old ones */
	k = 0;
	for (size_t i = 0; i < n; i++) /* v is sorted by pid, so is o */
		if (v[i].task >= 0)
			o[k++] = (struct usage_owner){.pid = v[i].st.pid, .task = v[i].task};
	free(u->owners);
	u->owners = o;
	u->nowners = k;
}

static void log_tasks(const struct stepd *s)
{
	const struct usage *u = s->usage;

	if (log_get_level() < LOG_LEVEL_DEBUG2)
		return;
	for (uint32_t i = 0; i < u->ntasks; i++)
		debug2("JobId=%u: task %u: RSS %llu kB (peak %llu), VMSize %llu kB (peak %llu)",
		       s->job_id, task_gtid(s, i), (unsigned long long)u->tasks[i].rss_kb,
		       (unsigned long long)u->tasks[i].max_rss_kb,
		       (unsigned long long)u->tasks[i].vm_kb,
		       (unsigned long long)u->tasks[i].max_vm_kb);
}

uint64_t usage_gather(struct stepd *s)
{
	struct usage *u = s->usage;
	size_t n;
	struct proc_entry *v = proc_scan(s, &n);
	uint64_t pages = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].task >= 0)
			pages += v[i].st.rss;
	if (u && v) {
		for (uint32_t t = 0; t < u->ntasks; t++)
			u->tasks[t].rss_kb = u->tasks[t].vm_kb = 0;
		for (size_t i = 0; i < n; i++) {
			struct usage_task *t;

			if (v[i].task < 0 || (uint32_t)v[i].task >= u->ntasks)
				continue;
			t = &u->tasks[v[i].task];
			t->rss_kb += v[i].st.rss * u->page_size / 1024;
			t->vm_kb += v[i].st.vsize / 1024;
		}
		for (uint32_t t = 0; t < u->ntasks; t++) {
			struct usage_task *ut = &u->tasks[t];

			if (ut->rss_kb > ut->max_rss_kb)
				ut->max_rss_kb = ut->rss_kb;
			if (ut->vm_kb > ut->max_vm_kb)
				ut->max_vm_kb = ut->vm_kb;
		}
		keep_owners(u, v, n);
		log_tasks(s);
	}
	free(v);
	return pages * (u ? u->page_size : 4096);
}

void usage_sample(struct stepd *s)
{
	uint64_t rss = usage_gather(s);
	uint64_t limit = s->mem_limit < (1ull << 40) ? s->mem_limit << 20 : 0; /* MB; huge: none */

	debug3("JobId=%u: RSS %llu bytes", s->job_id, (unsigned long long)rss);
	if (!limit || rss <= limit || s->is_oom || s->has_exited)
		return;
	if (s->is_batch) {
		io_job_error(s, "StepId=%u.batch exceeded memory limit (%llu > %llu), being killed",
			     s->job_id, (unsigned long long)rss, (unsigned long long)limit);
		io_job_error(s, "Exceeded job memory limit");
	} else {
		error("StepId=%u.%u exceeded memory limit (%llu > %llu), being killed", s->job_id,
		      s->step_id, (unsigned long long)rss, (unsigned long long)limit);
		step_message(s,
			     "Detected 1 oom-kill event(s) in StepId=%u.%u. Some of your "
			     "processes may have been killed by the cgroup out-of-memory handler.",
			     s->job_id, s->step_id);
	}
	s->is_oom = true;
	usage_signal_job(s, SIGKILL);
}

static uint64_t tv_usec(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000u + (uint64_t)tv->tv_usec;
}

void usage_reaped(struct stepd *s, pid_t pid, const struct rusage *ru)
{
	struct usage *u = s->usage;
	int32_t t;

	if (!u)
		return;
	u->user_usec += tv_usec(&ru->ru_utime);
	u->sys_usec += tv_usec(&ru->ru_stime);
	/* ru_maxrss (kB) covers the task and the descendants it waited for;
	 * an orphan's is a lower bound of its task's RSS at some moment */
	t = leader_task(s, pid, false); /* being reaped: it is ours */
	if (t < 0 && u->owners) {
		struct usage_owner key = {.pid = pid}, *o;

		o = bsearch(&key, u->owners, u->nowners, sizeof(key), owner_cmp);
		t = o ? o->task : -1;
	}
	if (t >= 0 && (uint32_t)t < u->ntasks && ru->ru_maxrss > 0
	    && (uint64_t)ru->ru_maxrss > u->tasks[t].max_rss_kb)
		u->tasks[t].max_rss_kb = (uint64_t)ru->ru_maxrss;
}

void usage_total(const struct stepd *s, struct acct_usage *ret)
{
	const struct usage *u = s->usage;
	bool has_started = false;

	*ret = (struct acct_usage){0};
	if (!u)
		return;
	ret->user_usec = u->user_usec;
	ret->sys_usec = u->sys_usec;
	for (uint32_t i = 0; i < u->ntasks; i++)
		has_started |= task_pid(s, i) > 0;
	if (!has_started)
		return; /* nothing ran: no task counted */
	ret->ntasks = u->ntasks;
	for (uint32_t i = 0; i < u->ntasks; i++) {
		const struct usage_task *t = &u->tasks[i];

		if (i == 0 || t->max_rss_kb > ret->max_rss_kb) {
			ret->max_rss_kb = t->max_rss_kb;
			ret->max_rss_task = task_gtid(s, i);
		}
		if (i == 0 || t->max_vm_kb > ret->max_vm_kb) {
			ret->max_vm_kb = t->max_vm_kb;
			ret->max_vm_task = task_gtid(s, i);
		}
		ret->tot_rss_kb += t->max_rss_kb;
		ret->tot_vm_kb += t->max_vm_kb;
	}
}
