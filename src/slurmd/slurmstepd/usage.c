/* usage.c - what the job's processes use (jobacct_gather/linux style),
 * sampled every JobAcctGatherFrequency on a loop timer, and the memory
 * limit enforced on the samples. Which process is whose: proctree.c.
 *
 * A sample is one /proc scan for the whole stepd: per task the current
 * RSS and VMSize (sums over its processes) and their peaks; the SUM of
 * every task's RSS is what the memory limit is compared to. wait4's
 * ru_maxrss of a task's pid also raises its RSS peak (it catches peaks
 * between samples), as does an orphan's we reap (for the task the last
 * sample gave it); every reaped process adds its CPU time. The totals
 * (usage_total) are what the completion carries.
 */
#include "usage.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cgroup.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/conf.h"
#include "common/proc_stat.h"
#include "loop.h"
#include "proctree.h"
#include "step.h"
#include "stepd.h"
#include "user_error.h"

struct usage_task {
	uint64_t rss_kb, vm_kb;		/* the last sample */
	uint64_t max_rss_kb, max_vm_kb; /* peaks */
};

struct usage {
	uint32_t ntasks; /* local tasks: 1 for a batch script */
	struct usage_task *tasks;
	uint64_t user_usec, sys_usec; /* every reaped process of the job */
	uint64_t page_size;
};

#define USAGE_FREQ_DEFAULT 30 /* JobAcctGatherFrequency task=30 */

unsigned usage_freq(const struct sl_conf *c)
{
	const char *v = conf_get_raw(c, "JobAcctGatherFrequency"), *t;
	unsigned long n;
	char *end;

	if (!v)
		return USAGE_FREQ_DEFAULT;
	t = strcasestr(v, "task=");
	n = strtoul(t ? t + 5 : v, &end, 10);
	if (end == (t ? t + 5 : v) || n > 86400)
		return USAGE_FREQ_DEFAULT;
	return (unsigned)n;
}

static void usage_sample(void *arg);

int usage_init(struct stepd *s)
{
	struct usage *u = calloc(1, sizeof(*u));
	long page = sysconf(_SC_PAGESIZE);

	if (!u)
		return -ENOMEM;
	u->ntasks = s->step->ntasks;
	u->tasks = calloc(u->ntasks, sizeof(*u->tasks));
	if (!u->tasks) {
		free(u);
		return -ENOMEM;
	}
	u->page_size = page > 0 ? (uint64_t)page : 4096;
	s->usage = u;
	s->sample_timer = loop_timer_add(s->loop, usage_sample, s);
	return s->sample_timer < 0 ? -ENOMEM : 0;
}

void usage_free(struct stepd *s)
{
	if (!s->usage)
		return;
	free(s->usage->tasks);
	free(s->usage);
	s->usage = NULL;
}

static void usage_log_tasks(const struct stepd *s)
{
	const struct usage *u = s->usage;

	if (log_get_level() < LOG_LEVEL_DEBUG2)
		return;
	for (uint32_t i = 0; i < u->ntasks; i++)
		debug2("JobId=%u: task %u: RSS %llu kB (peak %llu), VMSize %llu kB (peak %llu)",
		       s->job_id, s->step->tasks[i].gtid, (unsigned long long)u->tasks[i].rss_kb,
		       (unsigned long long)u->tasks[i].max_rss_kb,
		       (unsigned long long)u->tasks[i].vm_kb,
		       (unsigned long long)u->tasks[i].max_vm_kb);
}

uint64_t usage_gather(struct stepd *s)
{
	struct usage *u = s->usage;
	size_t n;
	struct proc_entry *v = proctree_scan(s, &n);
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
		proctree_keep(s, v, n);
		usage_log_tasks(s);
	}
	free(v);
	return pages * (u ? u->page_size : 4096);
}

/* Over the memory limit: the user's lines, the OOM mark, SIGKILL. */
static void usage_oom(struct stepd *s, uint64_t rss, uint64_t limit)
{
	if (s->is_batch) {
		user_error(s, "StepId=%u.batch exceeded memory limit (%llu > %llu), being killed",
			   s->job_id, (unsigned long long)rss, (unsigned long long)limit);
		user_error(s, "Exceeded job memory limit");
	} else {
		error("StepId=%u.%u exceeded memory limit (%llu > %llu), being killed", s->job_id,
		      s->step_id, (unsigned long long)rss, (unsigned long long)limit);
		user_error(s,
			   "Detected 1 oom-kill event(s) in StepId=%u.%u. Some of your "
			   "processes may have been killed by the cgroup out-of-memory handler.",
			   s->job_id, s->step_id);
	}
	s->is_oom = true;
	proctree_signal(s, SIGKILL);
}

/* The sampling timer: usage_gather(), then the sum against the memory
 * limit; again in acct_freq_s while a task runs. */
static void usage_sample(void *arg)
{
	struct stepd *s = arg;
	uint64_t rss, limit = s->mem_limit < (1ull << 40) ? s->mem_limit << 20 : 0; /* MB */

	if (s->has_exited)
		return;
	rss = usage_gather(s);
	debug3("JobId=%u: RSS %llu bytes", s->job_id, (unsigned long long)rss);
	if (limit && rss > limit && !s->is_oom && !cgroup_is_limiting_ram(s))
		usage_oom(s, rss, limit); /* with ConstrainRAMSpace the kernel does it */
	loop_timer_arm(s->loop, s->sample_timer, loop_now_ms() + (int64_t)s->acct_freq_s * 1000);
}

void usage_check_oom(struct stepd *s)
{
	uint64_t n = cgroup_oom_kills(s);
	char id[48];

	if (!n || s->is_oom)
		return;
	if (s->is_batch)
		snprintf(id, sizeof(id), "StepId=%u.batch", s->job_id);
	else
		snprintf(id, sizeof(id), "StepId=%u.%u", s->job_id, s->step_id);
	user_error(s,
		   "Detected %llu oom-kill event(s) in %s. Some of your processes may have been "
		   "killed by the cgroup out-of-memory handler.",
		   (unsigned long long)n, id);
	s->is_oom = true;
}

void usage_sampling_start(struct stepd *s)
{
	s->acct_freq_s = usage_freq(s->conf);
	if (s->acct_freq_s) /* a step shorter than that costs no sample */
		loop_timer_arm(s->loop, s->sample_timer,
			       loop_now_ms() + (int64_t)s->acct_freq_s * 1000);
}

void usage_sampling_stop(struct stepd *s)
{
	loop_timer_arm(s->loop, s->sample_timer, 0);
}

static uint64_t usage_usec(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000u + (uint64_t)tv->tv_usec;
}

void usage_reaped(struct stepd *s, pid_t pid, const struct rusage *ru)
{
	struct usage *u = s->usage;
	int32_t t;

	if (!u)
		return;
	u->user_usec += usage_usec(&ru->ru_utime);
	u->sys_usec += usage_usec(&ru->ru_stime);
	/* ru_maxrss (kB) covers the task and the descendants it waited for;
	 * an orphan's is a lower bound of its task's RSS at some moment */
	t = proctree_task_of(s, pid);
	if (t >= 0 && (uint32_t)t < u->ntasks && ru->ru_maxrss > 0
	    && (uint64_t)ru->ru_maxrss > u->tasks[t].max_rss_kb)
		u->tasks[t].max_rss_kb = (uint64_t)ru->ru_maxrss;
}

void usage_live(struct stepd *s, struct acct_usage *ret, uint64_t *ret_min_cpu_usec,
		uint32_t *ret_min_task)
{
	const struct usage *u = s->usage;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t *task_usec, tick = hz > 0 ? 1000000u / (uint64_t)hz : 10000u;
	struct proc_entry *v;
	size_t n = 0;

	usage_gather(s); /* the peaks as of now */
	usage_total(s, ret);
	*ret_min_cpu_usec = 0;
	*ret_min_task = s->step && s->step->ntasks ? s->step->tasks[0].gtid : 0;
	if (!u || !(task_usec = calloc(u->ntasks, sizeof(*task_usec))))
		return;
	v = proctree_scan(s, &n);
	for (size_t i = 0; v && i < n; i++) { /* the live processes' CPU time */
		uint64_t user = v[i].st.utime * tick, sys = v[i].st.stime * tick;

		if (v[i].task < 0 || (uint32_t)v[i].task >= u->ntasks)
			continue;
		ret->user_usec += user;
		ret->sys_usec += sys;
		task_usec[v[i].task] += user + sys;
	}
	free(v);
	for (uint32_t t = 0; t < u->ntasks; t++)
		if (t == 0 || task_usec[t] < *ret_min_cpu_usec) {
			*ret_min_cpu_usec = task_usec[t];
			*ret_min_task = s->step->tasks[t].gtid;
		}
	free(task_usec);
}

void usage_adopted(struct stepd *s)
{
	struct usage *u = s->usage;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t tick = hz > 0 ? 1000000u / (uint64_t)hz : 10000u;
	struct proc_entry *v;
	size_t n = 0;

	if (!u || !s->step)
		return;
	v = proctree_scan(s, &n);
	for (size_t i = 0; v && i < n; i++) {
		bool is_task = false;

		for (uint32_t t = 0; t < s->step->ntasks && !is_task; t++)
			is_task = s->step->tasks[t].pid == v[i].st.pid;
		if (is_task || v[i].task < 0)
			continue; /* ours are counted when reaped */
		u->user_usec += v[i].st.utime * tick;
		u->sys_usec += v[i].st.stime * tick;
	}
	free(v);
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
		has_started |= s->step->tasks[i].pid > 0;
	if (!has_started)
		return; /* nothing ran: no task counted */
	ret->ntasks = u->ntasks;
	for (uint32_t i = 0; i < u->ntasks; i++) {
		const struct usage_task *t = &u->tasks[i];

		if (i == 0 || t->max_rss_kb > ret->max_rss_kb) {
			ret->max_rss_kb = t->max_rss_kb;
			ret->max_rss_task = s->step->tasks[i].gtid;
		}
		if (i == 0 || t->max_vm_kb > ret->max_vm_kb) {
			ret->max_vm_kb = t->max_vm_kb;
			ret->max_vm_task = s->step->tasks[i].gtid;
		}
		ret->tot_rss_kb += t->max_rss_kb;
		ret->tot_vm_kb += t->max_vm_kb;
	}
}
