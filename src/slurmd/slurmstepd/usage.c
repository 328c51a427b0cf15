/* usage.c - the job's processes as /proc shows them (proctrack/linuxproc
 * style): the script (or each task of a step), everything in its session,
 * and every descendant by parent links (orphans come back to us: the
 * stepd is a child subreaper).
 * Used to sum RSS for the memory limit and to signal the whole job.
 *
 * Caveat: a scan is a snapshot; a process forked after it escapes one
 * signal, which is why SIGKILL is repeated until the script is gone.
 */
#include "stepd.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "step.h"

struct proc {
	pid_t pid, ppid, pgrp, sid;
	uint64_t rss_pages;
	bool is_job;
};

static int proc_read(pid_t pid, struct proc *p)
{
	char path[64], buf[1024];
	const char *rp;
	ssize_t n;
	int fd, k;
	unsigned long long rss = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	rp = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
	if (!rp)
		return -EIO;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
	 * utime stime cutime cstime priority nice threads itreal start vsize rss */
	k = sscanf(rp + 1, " %*c %d %d %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s"
			   " %*s %*s %*s %*s %llu",
		   &p->ppid, &p->pgrp, &p->sid, &rss);
	if (k != 4)
		return -EIO;
	p->pid = pid;
	p->rss_pages = rss;
	p->is_job = false;
	return 0;
}

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Is pid the script or one of the step's tasks (a session leader)? */
static bool is_leader(const struct stepd *s, pid_t pid)
{
	if (pid <= 0)
		return false;
	if (!s->step)
		return pid == s->pid;
	for (uint32_t i = 0; i < s->step->ntasks; i++)
		if (s->step->tasks[i].pid == pid)
			return true;
	return false;
}

/* Every process of the node, sorted by pid; the job's marked. */
static struct proc *proc_scan(const struct stepd *s, size_t *ret_n)
{
	DIR *d = opendir("/proc");
	struct proc *v = NULL;
	size_t n = 0, cap = 0;
	pid_t self = getpid();
	struct dirent *e;
	bool is_changed = true;

	*ret_n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		struct proc p;

		if (!isdigit((unsigned char)e->d_name[0]) || proc_read(atoi(e->d_name), &p) < 0)
			continue;
		if (n == cap) {
			struct proc *nv = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		p.is_job = p.pid != self
			   && (is_leader(s, p.pid) || is_leader(s, p.sid) || is_leader(s, p.pgrp)
			       || p.ppid == self);
		v[n++] = p;
	}
	closedir(d);
	if (!v)
		return NULL;
	qsort(v, n, sizeof(*v), proc_cmp);
	while (is_changed) { /* descendants of marked processes, to a fixpoint */
		is_changed = false;
		for (size_t i = 0; i < n; i++) {
			struct proc key = { .pid = v[i].ppid }, *parent;

			if (v[i].is_job || v[i].pid == self)
				continue;
			parent = bsearch(&key, v, n, sizeof(*v), proc_cmp);
			if (parent && parent->is_job) {
				v[i].is_job = true;
				is_changed = true;
			}
		}
	}
	*ret_n = n;
	return v;
}

uint64_t usage_job_rss(const struct stepd *s)
{
	size_t n;
	struct proc *v = proc_scan(s, &n);
	uint64_t pages = 0;
	long page = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < n; i++)
		if (v[i].is_job)
			pages += v[i].rss_pages;
	free(v);
	return pages * (uint64_t)(page > 0 ? page : 4096);
}

int usage_signal_job(const struct stepd *s, int sig)
{
	size_t n;
	struct proc *v;
	int count = 0;

	if (s->step) {
		for (uint32_t i = 0; i < s->step->ntasks; i++) {
			pid_t pid = s->step->tasks[i].pid;

			/* a task just forked may not have called setsid() yet */
			if (pid > 0 && (kill(-pid, sig) == 0
					|| (!s->step->tasks[i].has_exited && kill(pid, sig) == 0)))
				count++;
		}
	} else {
		if (s->pid <= 0)
			return 0;
		if (kill(-s->pid, sig) == 0 || (!s->has_exited && kill(s->pid, sig) == 0))
			count++;
	}
	v = proc_scan(s, &n);
	for (size_t i = 0; i < n; i++) /* those outside the process groups */
		if (v[i].is_job && !is_leader(s, v[i].pgrp) && kill(v[i].pid, sig) == 0)
			count++;
	free(v);
	return count;
}

void usage_sample(struct stepd *s)
{
	uint64_t rss = usage_job_rss(s);
	uint64_t limit = s->mem_limit < (1ull << 40) ? s->mem_limit << 20 : 0; /* MB; huge: none */

	if (rss / 1024 > s->max_rss_kb)
		s->max_rss_kb = rss / 1024;
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
		step_message(s, "Detected 1 oom-kill event(s) in StepId=%u.%u. Some of your "
				"processes may have been killed by the cgroup out-of-memory handler.",
			     s->job_id, s->step_id);
	}
	s->is_oom = true;
	usage_signal_job(s, SIGKILL);
}
