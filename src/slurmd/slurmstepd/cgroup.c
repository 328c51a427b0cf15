/* cgroup.c - see cgroup.h.
 *
 * Levels are made top-down; values written at a level are inherited by
 * what is made below it afterwards (v1 cpuset with cgroup.clone_children
 * set on the node's directory, v1 devices by the kernel's copy at
 * creation), so the job's values go in before its step directory is
 * made, and the step's before its tasks'. The job's values are written by
 * the step that finds the job's directory without steps (the first step
 * of the job on the node, or the first after a stale tree); the CPUs are
 * picked under an flock of <spool>/cgroup.lock, so two jobs starting at
 * once never pick the same free cores. Nothing here removes another
 * step's directories: a stale tree only makes its cores less preferred.
 *
 * A node whose slurm.conf gives it more CPUs than its cpuset has (the
 * local cluster's nodes share one host) gets every job at most the
 * cpuset's CPUs: free ones first, then the least shared.
 */
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common/cgroup_fs.h"
#include "common/conf.h"
#include "common/gres_detect.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "step.h"
#include "stepd.h"

#define CPU_MAX	       1024
#define FREEZE_WAIT_MS 100

struct cpus {
	uint64_t w[CPU_MAX / 64];
};

enum { CG_FREEZER, CG_CPUSET, CG_MEMORY, CG_DEVICES, CG_N };
static const char *const cg_name[CG_N] = {"freezer", "cpuset", "memory", "devices"};

struct cgroup {
	int version;	    /* 1 or 2 */
	bool is_used[CG_N]; /* v1: the hierarchies built; v2: the tree is [0] */
	bool is_tracking, is_limiting_ram, has_cpuset;
	bool is_ram_unset; /* a memory limit could not be written */
	char *uid_dir[CG_N], *job_dir[CG_N], *step_dir[CG_N];
	char *user_dir;	   /* v2: step_<n>/user, the tasks' parent */
	char *stepd_dir;   /* where the stepd itself is (stepd_join), NULL: not moved */
	char *stepd_home;  /* the cgroup it came from, to go back to before the rmdirs */
	char **task_procs; /* ntasks x CG_N "<task dir>/cgroup.procs", NULL: unused */
	uint32_t ntasks;
	int64_t build_us; /* how long cgroup_create took, for the log */
	char cpus[256];
};

static int64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* ---- files ---- */

static int cg_write(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

/* The file's first bytes, NUL-terminated, without the trailing newline. */
static int cg_read(const char *dir, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* 1: made, 0: was there, -errno. */
static int cg_mkdir(const char *path)
{
	if (mkdir(path, 0755) == 0)
		return 1;
	return errno == EEXIST ? 0 : -errno;
}

/* "name N" in a flat keyed file (memory.events, memory.oom_control). */
static uint64_t cg_key(const char *dir, const char *file, const char *key)
{
	char buf[2048], *p = buf;
	size_t len = strlen(key);

	if (cg_read(dir, file, buf, sizeof(buf)) < 0)
		return 0;
	while (p && *p) {
		if (strncmp(p, key, len) == 0 && p[len] == ' ')
			return strtoull(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/* ---- CPU lists: "0-3,8" ---- */

static void cpus_parse(const char *s, struct cpus *ret)
{
	*ret = (struct cpus){{0}};
	while (s && *s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (unsigned long i = a; i <= b && i < CPU_MAX; i++)
			ret->w[i / 64] |= 1ull << (i % 64);
		s = *end == ',' ? end + 1 : NULL;
	}
}

static bool cpus_has(const struct cpus *c, unsigned i)
{
	return c->w[i / 64] >> (i % 64) & 1;
}

static unsigned cpus_count(const struct cpus *c)
{
	unsigned n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(c->w); i++)
		n += (unsigned)__builtin_popcountll(c->w[i]);
	return n;
}

static void cpus_format(const struct cpus *c, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < CPU_MAX; i++) {
		unsigned j = i;
		int n;

		if (!cpus_has(c, i))
			continue;
		while (j + 1 < CPU_MAX && cpus_has(c, j + 1))
			j++;
		n = j > i ? snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", i, j)
			  : snprintf(buf + len, size - len, "%s%u", len ? "," : "", i);
		if (n < 0 || (size_t)n >= size - len)
			return;
		len += (size_t)n;
		i = j;
	}
}

/* want CPUs of avail: those no sibling holds first, lowest first; then
 * the ones the fewest siblings hold. */
static void cpus_pick(const struct cpus *avail, const uint16_t *use, unsigned want,
		      struct cpus *ret)
{
	unsigned n = cpus_count(avail);

	*ret = (struct cpus){{0}};
	if (want >= n) {
		*ret = *avail;
		return;
	}
	for (unsigned got = 0; got < want; got++) {
		unsigned best = CPU_MAX;

		for (unsigned i = 0; i < CPU_MAX; i++)
			if (cpus_has(avail, i) && !cpus_has(ret, i)
			    && (best == CPU_MAX || use[i] < use[best]))
				best = i;
		if (best == CPU_MAX)
			break;
		ret->w[best / 64] |= 1ull << (best % 64);
	}
}

/* Add the cpuset.cpus of every directory of parent named prefix* (but
 * not skip) to use. */
static void cpus_siblings(const char *parent, const char *prefix, const char *skip, uint16_t *use)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	size_t len = strlen(prefix);

	if (!d)
		return;
	while ((e = readdir(d))) {
		char dir[PATH_MAX], buf[1024];
		struct cpus c;

		if (e->d_type != DT_DIR || strncmp(e->d_name, prefix, len) != 0
		    || (skip && streq(e->d_name, skip)))
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s", parent, e->d_name) >= (int)sizeof(dir))
			continue;
		if (cg_read(dir, "cpuset.cpus", buf, sizeof(buf)) < 0)
			continue;
		cpus_parse(buf, &c);
		for (unsigned i = 0; i < CPU_MAX; i++)
			if (cpus_has(&c, i) && use[i] < UINT16_MAX)
				use[i]++;
	}
	closedir(d);
}

/* Every job directory of the node's tree but ours (v1: under uid_*). */
static void cpus_other_jobs(const char *node_dir, int version, const char *ours, uint16_t *use)
{
	DIR *d;
	struct dirent *e;

	if (version == 2) {
		cpus_siblings(node_dir, "job_", ours, use);
		return;
	}
	d = opendir(node_dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char dir[PATH_MAX];

		if (e->d_type != DT_DIR || strncmp(e->d_name, "uid_", 4) != 0)
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s", node_dir, e->d_name) < (int)sizeof(dir))
			cpus_siblings(dir, "job_", ours, use);
	}
	closedir(d);
}

/* Does dir hold a step_* directory other than skip? */
static bool has_other_step(const char *dir, const char *skip)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool is_found = false;

	if (!d)
		return false;
	while (!is_found && (e = readdir(d)))
		is_found = e->d_type == DT_DIR && strncmp(e->d_name, "step_", 5) == 0
			   && !streq(e->d_name, skip);
	closedir(d);
	return is_found;
}

/* ---- what the step was given ---- */

/* The CPUs granted here: a batch script has the job's, a step its tasks
 * here x --cpus-per-task as the controller granted them (the launch's
 * cpus_on_node equals the signed credential's). Never SLURM_CPUS_PER_TASK:
 * that is the user's word. */
static unsigned granted_cpus(const struct stepd *s)
{
	unsigned n = s->is_batch ? s->msg->cpus_on_node : s->launch->cpus_on_node;

	return n ? n : 1;
}

static const char *step_gpus(const struct stepd *s)
{
	return s->is_batch ? s->msg->gpus : s->launch->gpus;
}

static const char *step_dir_name(const struct stepd *s, char *buf, size_t size)
{
	if (s->is_batch)
		snprintf(buf, size, "step_batch");
	else if (s->is_extern)
		snprintf(buf, size, "step_extern");
	else
		snprintf(buf, size, "step_%u", s->step_id);
	return buf;
}

/* ---- the hierarchy ---- */

static void cgroup_free(struct cgroup *cg)
{
	if (!cg)
		return;
	for (int c = 0; c < CG_N; c++) {
		free(cg->uid_dir[c]);
		free(cg->job_dir[c]);
		free(cg->step_dir[c]);
	}
	free(cg->user_dir);
	free(cg->stepd_dir);
	free(cg->stepd_home);
	for (uint32_t i = 0; cg->task_procs && i < cg->ntasks * CG_N; i++)
		free(cg->task_procs[i]);
	free(cg->task_procs);
	free(cg);
}

/* The node's directory: made with the parent's CPUs and memory nodes
 * (v1 cpuset), which what is made below it inherits. */
static int node_dir_make(const char *parent, const char *dir, bool is_cpuset)
{
	char cpus[1024], mems[256];
	int r = cg_mkdir(dir);

	if (r < 0 || !is_cpuset)
		return r;
	if (cg_read(dir, "cpuset.cpus", cpus, sizeof(cpus)) == 0 && cpus[0])
		return 0;
	if ((r = cg_read(parent, "cpuset.cpus", cpus, sizeof(cpus))) < 0
	    || (r = cg_read(parent, "cpuset.mems", mems, sizeof(mems))) < 0
	    || (r = cg_write(dir, "cpuset.cpus", cpus)) < 0
	    || (r = cg_write(dir, "cpuset.mems", mems)) < 0
	    || (r = cg_write(dir, "cgroup.clone_children", "1")) < 0)
		return r;
	return 0;
}

/* The CPUs: the job's (when is_job_new), then the step's among them. */
static int cpus_setup(struct cgroup *cg, const struct stepd *s, const char *node_dir,
		      const char *job_dir, const char *job_name, const char *step_name,
		      bool is_job_new)
{
	static uint16_t use[CPU_MAX];
	char buf[1024];
	struct cpus avail, job, step;
	int r;

	if (is_job_new) {
		memset(use, 0, sizeof(use));
		if ((r = cg_read(node_dir,
				 cg->version == 2 ? "cpuset.cpus.effective" : "cpuset.cpus", buf,
				 sizeof(buf)))
		    < 0)
			return r;
		cpus_parse(buf, &avail);
		cpus_other_jobs(node_dir, cg->version, job_name, use);
		cpus_pick(&avail, use, granted_cpus(s), &job);
		cpus_format(&job, buf, sizeof(buf));
		if ((r = cg_write(job_dir, "cpuset.cpus", buf)) < 0)
			return r;
	} else {
		if ((r = cg_read(job_dir, "cpuset.cpus", buf, sizeof(buf))) < 0)
			return r;
		cpus_parse(buf, &job);
	}
	memset(use, 0, sizeof(use));
	cpus_siblings(job_dir, "step_", step_name, use);
	cpus_pick(&job, use, granted_cpus(s), &step);
	cpus_format(&step, cg->cpus, sizeof(cg->cpus));
	return 0;
}

/* Memory limits of a level, in MB of the allocation (0: none). */
static void mem_setup(struct cgroup *cg, const struct stepd *s, const char *dir)
{
	const struct cgroup_conf *g = &s->conf->cgroup;
	const struct conf_node *nd = conf_node_find(s->conf, s->node_name);
	uint64_t mb = s->mem_limit, ram, max, swap;
	char v[32];
	int r;

	if (!mb || mb >= (1ull << 40))
		return;
	ram = (uint64_t)((double)mb * g->allowed_ram / 100.0);
	if (ram < g->min_ram)
		ram = g->min_ram;
	max = nd && nd->real_memory > 1
		  ? (uint64_t)((double)nd->real_memory * g->max_ram_percent / 100.0)
		  : 0;
	if (max && ram > max)
		ram = max;
	swap = (uint64_t)((double)mb * (g->allowed_ram + g->allowed_swap) / 100.0);
	if (swap < ram)
		swap = ram;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)(ram << 20));
	if (g->constrain_ram) {
		r = cg_write(dir, cg->version == 2 ? "memory.max" : "memory.limit_in_bytes", v);
		if (r < 0) { /* then the sampling keeps enforcing it */
			error("cgroup: %s: memory limit %s: %s", dir, v, strerror(-r));
			cg->is_ram_unset = true;
		}
	}
	if (g->constrain_swap) {
		snprintf(v, sizeof(v), "%llu",
			 (unsigned long long)((cg->version == 2 ? swap - ram : swap) << 20));
		r = cg_write(
		    dir, cg->version == 2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes", v);
		if (r < 0)
			debug("cgroup: %s: swap limit %s: %s", dir, v, strerror(-r));
	}
	if (g->swappiness != NO_VAL && cg->version == 1) {
		snprintf(v, sizeof(v), "%u", g->swappiness);
		(void)cg_write(dir, "memory.swappiness", v);
	}
}

/* Deny the node's GPUs not in gpus ("0,2") at dir (v1 devices); with
 * is_reset, allow everything first (a stale job directory). */
static int devices_setup(const struct stepd *s, const char *dir, const char *gpus, bool is_reset)
{
	char **files = NULL;
	size_t n = 0;
	int r = gres_gpu_files(s->conf->gres, s->conf->gres_count, s->node_name, &files, &n);

	if (r < 0)
		return r;
	if (is_reset)
		(void)cg_write(dir, "devices.allow", "a *:* rwm");
	for (size_t i = 0; i < n && r == 0; i++) {
		char idx[24], list[256], rule[64], *save = NULL;
		bool is_given = false;
		struct stat st;

		snprintf(idx, sizeof(idx), "%zu", i);
		snprintf(list, sizeof(list), "%s", gpus ? gpus : "");
		for (char *w = strtok_r(list, ",", &save); w && !is_given;
		     w = strtok_r(NULL, ",", &save))
			is_given = streq(w, idx);
		if (is_given || stat(files[i], &st) < 0
		    || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
			continue; /* a plain file (fake GPU) is no device to deny */
		snprintf(rule, sizeof(rule), "%c %u:%u rwm", S_ISCHR(st.st_mode) ? 'c' : 'b',
			 major(st.st_rdev), minor(st.st_rdev));
		r = cg_write(dir, "devices.deny", rule);
	}
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return r;
}

static int path_join(char **ret, const char *a, const char *b)
{
	if (asprintf(ret, "%s/%s", a, b) < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The task directories below parent, their cgroup.procs kept for c. */
static int tasks_make(struct cgroup *cg, int c, const char *parent)
{
	for (uint32_t i = 0; i < cg->ntasks; i++) {
		char name[32];
		_cleanup_free_ char *dir = NULL;
		int r;

		snprintf(name, sizeof(name), "task_%u", i);
		if (path_join(&dir, parent, name) < 0)
			return -ENOMEM;
		r = cg_mkdir(dir);
		if (r < 0)
			return r;
		if (path_join(&cg->task_procs[i * CG_N + c], dir, "cgroup.procs") < 0)
			return -ENOMEM;
	}
	return 0;
}

/* One v1 hierarchy c: node, uid, job (and its values), step, tasks. */
static int v1_build(struct cgroup *cg, const struct stepd *s, int c, const char *job_name,
		    const char *step_name)
{
	const struct cgroup_conf *g = &s->conf->cgroup;
	_cleanup_free_ char *ctrl = NULL, *node = NULL, *node_name = NULL, *uid_name = NULL;
	bool is_job_new, is_stale;
	int r;

	if (asprintf(&node_name, "slurm_%s", s->node_name) < 0
	    || asprintf(&uid_name, "uid_%u", s->uid) < 0) {
		node_name = uid_name = NULL;
		return -ENOMEM;
	}
	if (path_join(&ctrl, g->mountpoint, cg_name[c]) < 0
	    || path_join(&node, ctrl, node_name) < 0)
		return -ENOMEM;
	if ((r = node_dir_make(ctrl, node, c == CG_CPUSET)) < 0)
		return r;
	if (path_join(&cg->uid_dir[c], node, uid_name) < 0)
		return -ENOMEM;
	if ((r = cg_mkdir(cg->uid_dir[c])) < 0)
		return r;
	if (path_join(&cg->job_dir[c], cg->uid_dir[c], job_name) < 0)
		return -ENOMEM;
	if ((r = cg_mkdir(cg->job_dir[c])) < 0)
		return r;
	cg->is_used[c] = true; /* destroy removes it from here on */
	is_stale = r == 0 && !has_other_step(cg->job_dir[c], step_name);
	is_job_new = r == 1 || is_stale;
	if (c == CG_CPUSET
	    && (r = cpus_setup(cg, s, node, cg->job_dir[c], job_name, step_name, is_job_new)) < 0)
		return r;
	if (c == CG_MEMORY && is_job_new)
		mem_setup(cg, s, cg->job_dir[c]);
	if (c == CG_DEVICES && is_job_new
	    && (r = devices_setup(s, cg->job_dir[c], step_gpus(s), is_stale)) < 0)
		return r;
	if (path_join(&cg->step_dir[c], cg->job_dir[c], step_name) < 0)
		return -ENOMEM;
	if ((r = cg_mkdir(cg->step_dir[c])) < 0)
		return r;
	if (c == CG_CPUSET && (r = cg_write(cg->step_dir[c], "cpuset.cpus", cg->cpus)) < 0)
		return r;
	if (c == CG_MEMORY)
		mem_setup(cg, s, cg->step_dir[c]);
	if (c == CG_DEVICES && (r = devices_setup(s, cg->step_dir[c], step_gpus(s), false)) < 0)
		return r;
	return tasks_make(cg, c, cg->step_dir[c]);
}

/* Enable what we constrain in dir's subtree_control where dir offers it. */
static void v2_enable(const char *dir, bool is_cpuset, bool is_memory)
{
	char have[512], *save = NULL;

	if (cg_read(dir, "cgroup.controllers", have, sizeof(have)) < 0)
		return;
	for (const char *w = strtok_r(have, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if ((is_cpuset && streq(w, "cpuset")) || (is_memory && streq(w, "memory"))) {
			char plus[16];
			int r;

			snprintf(plus, sizeof(plus), "+%s", w);
			r = cg_write(dir, "cgroup.subtree_control", plus);
			if (r < 0)
				debug("cgroup: %s: %s: %s", dir, plus, strerror(-r));
		}
	}
}

static int v2_build(struct cgroup *cg, const struct stepd *s, const char *job_name,
		    const char *step_name)
{
	const struct cgroup_conf *g = &s->conf->cgroup;
	bool is_cpu = (s->conf->task_plugins & TASK_PLUGIN_CGROUP) && g->constrain_cores;
	bool is_mem =
	    (s->conf->task_plugins & TASK_PLUGIN_CGROUP) && (g->constrain_ram || g->constrain_swap);
	_cleanup_free_ char *slice = NULL, *node = NULL, *scope = NULL;
	char probe[16];
	bool is_job_new;
	int r;

	if (asprintf(&scope, "%s_slurmstepd.scope", s->node_name) < 0) {
		scope = NULL;
		return -ENOMEM;
	}
	if (path_join(&slice, g->mountpoint, "system.slice") < 0
	    || path_join(&node, slice, scope) < 0)
		return -ENOMEM;
	if ((r = cg_mkdir(slice)) < 0 || (r = cg_mkdir(node)) < 0)
		return r;
	v2_enable(g->mountpoint, is_cpu, is_mem);
	v2_enable(slice, is_cpu, is_mem);
	v2_enable(node, is_cpu, is_mem);
	if (path_join(&cg->job_dir[0], node, job_name) < 0)
		return -ENOMEM;
	if ((r = cg_mkdir(cg->job_dir[0])) < 0)
		return r;
	cg->is_used[0] = true;
	is_job_new = r == 1 || !has_other_step(cg->job_dir[0], step_name);
	v2_enable(cg->job_dir[0], is_cpu, is_mem);
	cg->has_cpuset =
	    is_cpu && cg_read(cg->job_dir[0], "cpuset.cpus", probe, sizeof(probe)) == 0;
	if (cg->has_cpuset
	    && (r = cpus_setup(cg, s, node, cg->job_dir[0], job_name, step_name, is_job_new)) < 0)
		return r;
	if (is_mem && is_job_new)
		mem_setup(cg, s, cg->job_dir[0]);
	if (path_join(&cg->step_dir[0], cg->job_dir[0], step_name) < 0)
		return -ENOMEM;
	if ((r = cg_mkdir(cg->step_dir[0])) < 0)
		return r;
	v2_enable(cg->step_dir[0], is_cpu, is_mem);
	if (cg->has_cpuset && (r = cg_write(cg->step_dir[0], "cpuset.cpus", cg->cpus)) < 0)
		return r;
	if (is_mem)
		mem_setup(cg, s, cg->step_dir[0]);
	cg->is_limiting_ram = is_mem && g->constrain_ram && !cg->is_ram_unset
			      && cg_read(cg->step_dir[0], "memory.max", probe, sizeof(probe)) == 0;
	if (is_mem && !cg->is_limiting_ram)
		info("cgroup: %s has no memory controller: memory is enforced by sampling",
		     cg->step_dir[0]);
	if (path_join(&cg->user_dir, cg->step_dir[0], "user") < 0)
		return -ENOMEM;
	if ((r = cg_mkdir(cg->user_dir)) < 0)
		return r;
	return tasks_make(cg, 0, cg->user_dir);
}

/* ---- the stepd's own place ---- */

/* The directory of the stepd's cgroup now, from /proc/self/cgroup: v2's
 * "0::<path>" line, or v1's freezer line, below the mount point. */
static int self_dir(const char *mnt, int version, char **ret)
{
	char line[PATH_MAX + 64];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int r = -ENOENT;

	*ret = NULL;
	if (!f)
		return -errno;
	while (r == -ENOENT && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;

		line[strcspn(line, "\n")] = '\0';
		if (!path)
			continue;
		*path++ = '\0';
		*ctl++ = '\0';
		if (version == 2 ? !(streq(line, "0") && !*ctl) : !streq(ctl, "freezer"))
			continue;
		if (asprintf(ret, "%s%s%s", mnt, version == 2 ? "" : "/freezer",
			     streq(path, "/") ? "" : path)
		    < 0) {
			*ret = NULL;
			r = -ENOMEM;
		} else {
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/* The stepd where Slurm puts it. v2: step_<n>/slurm, so its own memory
 * (PMI's key space, I/O buffers) counts in the step's and the job's
 * memory.max with the tasks'. v1 (proctrack/cgroup): the freezer's
 * job_<job>, outside the step directory that a kill freezes; v1's memory
 * hierarchy does not get it, as in Slurm, so there the stepd's own caps
 * (pmi.c) are what bounds it. A failure is logged; the step runs on. */
static void stepd_join(struct cgroup *cg, const struct stepd *s)
{
	char pid[24];
	int r;

	if (cg->version == 2) {
		if (path_join(&cg->stepd_dir, cg->step_dir[0], "slurm") < 0
		    || cg_mkdir(cg->stepd_dir) < 0)
			goto fail;
	} else if (!cg->is_used[CG_FREEZER] || !(cg->stepd_dir = strdup(cg->job_dir[CG_FREEZER]))) {
		return;
	}
	if (self_dir(s->conf->cgroup.mountpoint, cg->version, &cg->stepd_home) < 0)
		goto fail;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	r = cg_write(cg->stepd_dir, "cgroup.procs", pid);
	if (r == 0)
		return;
	info("cgroup: %s: the slurmstepd stays out of %s: %s", s->label, cg->stepd_dir,
	     strerror(-r));
fail:
	free(cg->stepd_home);
	cg->stepd_home = NULL; /* nothing to go back to; stepd_dir is still removed */
}

/* Back where it came from, so that its directories can go. */
static void stepd_leave(struct cgroup *cg)
{
	char pid[24];
	int r;

	if (!cg->stepd_home)
		return;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	r = cg_write(cg->stepd_home, "cgroup.procs", pid);
	if (r < 0)
		debug("cgroup: back to %s: %s", cg->stepd_home, strerror(-r));
}

static int cgroup_build(struct cgroup *cg, const struct stepd *s)
{
	const struct sl_conf *conf = s->conf;
	const struct cgroup_conf *g = &conf->cgroup;
	bool is_task = conf->task_plugins & TASK_PLUGIN_CGROUP;
	bool want[CG_N] = {
	    [CG_FREEZER] = conf->proctrack == PROCTRACK_CGROUP,
	    [CG_CPUSET] = is_task && g->constrain_cores,
	    [CG_MEMORY] = is_task && (g->constrain_ram || g->constrain_swap),
	    [CG_DEVICES] = is_task && g->constrain_devices,
	};
	char job_name[32], step_name[32], lock_path[PATH_MAX];
	int r = 0, lock_fd;

	snprintf(job_name, sizeof(job_name), "job_%u", s->job_id);
	step_dir_name(s, step_name, sizeof(step_name));
	if (snprintf(lock_path, sizeof(lock_path), "%s/cgroup.lock", s->spool_dir)
	    >= (int)sizeof(lock_path))
		return -ENAMETOOLONG;
	lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock_fd < 0)
		return -errno;
	if (flock(lock_fd, LOCK_EX) < 0) {
		r = -errno;
		close(lock_fd);
		return r;
	}
	if (cg->version == 2) {
		r = v2_build(cg, s, job_name, step_name);
		cg->is_tracking = r == 0 && want[CG_FREEZER];
		if (r == 0 && want[CG_DEVICES])
			info("cgroup: ConstrainDevices is not enforced on cgroup v2 (it needs "
			     "eBPF)");
	} else {
		for (int c = 0; c < CG_N && r == 0; c++)
			if (want[c])
				r = v1_build(cg, s, c, job_name, step_name);
		cg->is_tracking = r == 0 && want[CG_FREEZER];
		cg->is_limiting_ram =
		    r == 0 && want[CG_MEMORY] && g->constrain_ram && !cg->is_ram_unset;
		cg->has_cpuset = want[CG_CPUSET];
	}
	if (r == 0)
		stepd_join(cg, s);
	close(lock_fd);
	return r;
}

int cgroup_create(struct stepd *s)
{
	const struct sl_conf *conf = s->conf;
	int64_t t0 = now_us();
	struct cgroup *cg;
	int r;

	if (conf->proctrack != PROCTRACK_CGROUP && !(conf->task_plugins & TASK_PLUGIN_CGROUP))
		return 0;
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	cg->ntasks = s->step->ntasks;
	cg->task_procs = calloc((size_t)cg->ntasks * CG_N, sizeof(*cg->task_procs));
	if (!cg->task_procs) {
		cgroup_free(cg);
		return -ENOMEM;
	}
	r = cgroup_fs_version(&conf->cgroup);
	if (r > 0) {
		cg->version = r;
		r = cgroup_build(cg, s);
	}
	if (r == -ENOMEM) {
		s->cg = cg;
		cgroup_destroy(s);
		return r;
	}
	if (r < 0) {
		info("cgroup: cannot build the cgroups of %s under %s (cgroup/v%d): %s; processes "
		     "are tracked through /proc and memory by sampling",
		     s->label, conf->cgroup.mountpoint, cg->version ? cg->version : 1,
		     strerror(-r));
		s->cg = cg;
		cgroup_destroy(s);
		return 0;
	}
	s->cg = cg;
	cg->build_us = now_us() - t0;
	debug("cgroup: %s in cgroup/v%d%s%s", s->label, cg->version, cg->cpus[0] ? ", cpus " : "",
	      cg->cpus);
	return 0;
}

/* v (a pid, "0": the caller) into task ltid's cgroup.procs in every
 * hierarchy. Only system calls: the task's child calls it after vfork. */
static int task_procs_write(const struct cgroup *cg, uint32_t ltid, const char *v, size_t n)
{
	for (int c = 0; c < CG_N; c++) {
		const char *procs = cg->task_procs[ltid * CG_N + c];
		int fd, r = 0;

		if (!procs)
			continue;
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (write(fd, v, n) < 0)
			r = -errno;
		close(fd);
		if (r < 0)
			return r;
	}
	return 0;
}

int cgroup_task_join(const struct stepd *s, uint32_t ltid)
{
	const struct cgroup *cg = s->cg;

	if (!cg || ltid >= cg->ntasks)
		return 0;
	return task_procs_write(cg, ltid, "0", 1);
}

int cgroup_adopt(const struct stepd *s, pid_t pid)
{
	const struct cgroup *cg = s->cg;
	char v[24];
	int n = snprintf(v, sizeof(v), "%d", (int)pid);

	if (!cg || !cg->is_tracking || !cg->ntasks)
		return -ENOTSUP;
	return task_procs_write(cg, 0, v, (size_t)n);
}

int cgroup_task_pids(const struct stepd *s, void (*fn)(void *arg, pid_t pid, uint32_t ltid),
		     void *arg)
{
	const struct cgroup *cg = s->cg;
	int c = 0, count = 0;

	if (!cg)
		return -ENOENT;
	while (c < CG_N && !(cg->ntasks && cg->task_procs[c])) /* v1: any hierarchy has all */
		c++;
	if (c == CG_N)
		return -ENOENT;
	for (uint32_t i = 0; i < cg->ntasks; i++) {
		FILE *f = fopen(cg->task_procs[i * CG_N + c], "re");
		int pid;

		if (!f)
			continue; /* not made: that task never started */
		while (fscanf(f, "%d", &pid) == 1) {
			fn(arg, (pid_t)pid, i);
			count++;
		}
		fclose(f);
	}
	return count;
}

bool cgroup_is_tracking(const struct stepd *s)
{
	return s->cg && s->cg->is_tracking;
}

bool cgroup_is_limiting_ram(const struct stepd *s)
{
	return s->cg && s->cg->is_limiting_ram;
}

const char *cgroup_cpus(const struct stepd *s)
{
	return s->cg ? s->cg->cpus : "";
}

/* v1 freezer: FROZEN (waited for a while), or THAWED. */
static void freeze(const char *dir, bool is_frozen)
{
	struct timespec t = {0, 5 * 1000 * 1000};
	char state[32];

	if (cg_write(dir, "freezer.state", is_frozen ? "FROZEN" : "THAWED") < 0 || !is_frozen)
		return;
	for (int i = 0; i < FREEZE_WAIT_MS / 5; i++) {
		if (cg_read(dir, "freezer.state", state, sizeof(state)) < 0
		    || streq(state, "FROZEN"))
			return;
		nanosleep(&t, NULL);
	}
}

int cgroup_signal(const struct stepd *s, int sig)
{
	const struct cgroup *cg = s->cg;
	const char *dir;
	int count;

	if (!cgroup_is_tracking(s))
		return 0;
	/* v2: the tasks' part of the step, not the stepd's (cgroup.kill) */
	dir = cg->version == 2 ? cg->user_dir : cg->step_dir[CG_FREEZER];
	if (sig != SIGKILL)
		return cgroup_fs_signal_tree(dir, sig);
	if (cg->version == 2) {
		count = cgroup_fs_signal_tree(dir, 0);
		if (count && cg_write(dir, "cgroup.kill", "1") == 0)
			return count;
		return cgroup_fs_signal_tree(dir, SIGKILL);
	}
	if (!cgroup_fs_signal_tree(dir, 0))
		return 0; /* nothing left: no freeze (every step's end asks) */
	freeze(dir, true);
	count = cgroup_fs_signal_tree(dir, SIGKILL);
	freeze(dir, false);
	return count;
}

/* oom_kill counters below dir (v1 counts each kill in the victim's own
 * cgroup only, so the task directories are read too). */
static uint64_t oom_tree(const char *dir, const char *file, int depth)
{
	uint64_t n = cg_key(dir, file, "oom_kill");
	struct dirent *e;
	DIR *d;

	if (depth > 2 || !(d = opendir(dir)))
		return n;
	while ((e = readdir(d))) {
		char path[PATH_MAX];

		if (e->d_type == DT_DIR && e->d_name[0] != '.'
		    && snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
			n += oom_tree(path, file, depth + 1);
	}
	closedir(d);
	return n;
}

uint64_t cgroup_oom_kills(const struct stepd *s)
{
	const struct cgroup *cg = s->cg;

	if (!cg)
		return 0;
	if (cg->version == 2) /* hierarchical */
		return cg->is_used[0] && cg->step_dir[0]
			   ? cg_key(cg->step_dir[0], "memory.events", "oom_kill")
			   : 0;
	if (!cg->is_used[CG_MEMORY] || !cg->step_dir[CG_MEMORY])
		return 0;
	return oom_tree(cg->step_dir[CG_MEMORY], "memory.oom_control", 0);
}

static void rmdir_quiet(const char *dir)
{
	if (dir && rmdir(dir) < 0 && errno != ENOENT && errno != EBUSY && errno != ENOTEMPTY)
		debug("cgroup: rmdir %s: %s", dir, strerror(errno));
}

void cgroup_destroy(struct stepd *s)
{
	struct cgroup *cg = s->cg;
	int64_t t0 = now_us();

	if (!cg)
		return;
	stepd_leave(cg);
	if (cg->version == 2)
		rmdir_quiet(cg->stepd_dir);
	for (int c = 0; c < CG_N; c++) {
		for (uint32_t i = 0; i < cg->ntasks; i++) {
			char *procs = cg->task_procs[i * CG_N + c];
			char *slash = procs ? strrchr(procs, '/') : NULL;

			if (!slash)
				continue;
			*slash = '\0'; /* the task's directory */
			if (rmdir(procs) < 0 && errno != ENOENT)
				info("cgroup: rmdir %s: %s", procs, strerror(errno));
			*slash = '/';
		}
		if (c == 0)
			rmdir_quiet(cg->user_dir);
		rmdir_quiet(cg->step_dir[c]);
		rmdir_quiet(cg->job_dir[c]);
		rmdir_quiet(cg->uid_dir[c]);
	}
	if (cg->build_us) /* bench/srun_latency.py --cgroup reads this line */
		debug("cgroup: %s: built in %lld us, removed in %lld us", s->label,
		      (long long)cg->build_us, (long long)(now_us() - t0));
	cgroup_free(cg);
	s->cg = NULL;
}
