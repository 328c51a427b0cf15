/* env.c - the environment the tasks run with: the job's (job_env_batch()
 * or job_env_step() of common/job_env.c, from the launch and this node),
 * each task's own variables, and the job's umask as submitted.
 *
 * GPU variables are exported only when gres.conf names device files for
 * this node; SLURM_CLUSTER_NAME only for a step (as the reference).
 */
#include "env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/gpu_bind.h"
#include "common/log.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "stepd.h"

/* Does gres.conf name GPU device files on this node? */
static bool env_has_gpu_files(const struct stepd *s)
{
	for (uint32_t i = 0; i < s->conf->gres_count; i++) {
		const struct gres_conf *g = &s->conf->gres[i];
		struct hostlist *hl = NULL;
		bool is_here;

		if (!g->name || !streq(g->name, "gpu") || !g->file)
			continue;
		if (!g->node_name)
			return true;
		if (hostlist_new(g->node_name, &hl) < 0)
			continue;
		is_here = hostlist_find(hl, s->node_name) >= 0;
		hostlist_free(hl);
		if (is_here)
			return true;
	}
	return false;
}

struct job_env_node env_node(const struct stepd *s)
{
	const struct sl_conf *c = s->conf;

	return (struct job_env_node){
	    .node_name = s->node_name,
	    .host_name = s->hostname,
	    .conf_path = s->conf_path,
	    .ctld_addr = c->control_addr ? c->control_addr : c->control_machine,
	    .ctld_port = c->slurmctld_port,
	    .has_gpu_files = env_has_gpu_files(s),
	};
}

mode_t env_umask(char *const *env, uint32_t env_count)
{
	static const char key[] = "SLURM_UMASK=";

	for (uint32_t i = 0; env && i < env_count; i++) {
		char *end;
		unsigned long v;

		if (!env[i] || strncmp(env[i], key, sizeof(key) - 1) != 0)
			continue;
		v = strtoul(env[i] + sizeof(key) - 1, &end, 8);
		if (*end == '\0' && v <= 0777)
			return (mode_t)v;
	}
	return 022;
}

int env_setup(struct stepd *s)
{
	struct job_env_node node = env_node(s);

	if (s->msg)
		return job_env_batch(&s->env, s->msg, &node);
	node.cluster_name = s->conf->cluster_name;
	return job_env_step(&s->env, s->launch, &node);
}

/* The step's GPUs here ("0,1,3") as a mask. */
static uint64_t gpu_mask_of(const char *list)
{
	uint64_t m = 0;

	for (const char *p = list; p && *p;) {
		char *end;
		unsigned long i = strtoul(p, &end, 10);

		if (end == p)
			break;
		if (i < GPU_BIND_MAX)
			m |= UINT64_C(1) << i;
		p = *end == ',' ? end + 1 : end;
	}
	return m;
}

/* The binding asked: --gpu-bind (SLURM_GPU_BIND), else what
 * --gpus-per-task (per_task:N) or --ntasks-per-gpu (single:N) imply, as
 * in Slurm. Returns false when there is none. */
static bool gpu_bind_of(const struct stepd *s, struct gpu_bind *b, char *buf, size_t len)
{
	const char *v = env_launch_get(s, "SLURM_GPU_BIND");
	const char *gpt = env_launch_get(s, "SLURM_GPUS_PER_TASK");
	const char *tpg = env_launch_get(s, "SLURM_NTASKS_PER_GPU");

	if (!v && gpt) { /* "[type:]N" */
		const char *n = strrchr(gpt, ':');

		snprintf(buf, len, "per_task:%s", n ? n + 1 : gpt);
		v = buf;
	} else if (!v && tpg) {
		snprintf(buf, len, "single:%s", tpg);
		v = buf;
	}
	if (!v || gpu_bind_parse(v, b) < 0) {
		if (v)
			error("%s: ignoring --gpu-bind=%s: not a valid binding", s->label, v);
		return false;
	}
	return true;
}

/* A task's own GPUs when a binding asks for them (CUDA_VISIBLE_DEVICES and
 * friends), and its verbose line for the child to print. */
static int env_task_gpus(struct stepd *s, uint32_t ltid)
{
	struct gpu_bind b;
	char buf[64], task[192];
	uint64_t all, mine;
	int r = 0;

	s->gpu_verbose[0] = '\0';
	if (!s->launch || !s->launch->gpus || !*s->launch->gpus || !env_has_gpu_files(s)
	    || !gpu_bind_of(s, &b, buf, sizeof(buf)))
		return 0;
	all = gpu_mask_of(s->launch->gpus);
	mine = gpu_bind_task(&b, all, ltid);
	gpu_bind_list(mine, task, sizeof(task));
	r |= job_env_set(&s->env, "CUDA_VISIBLE_DEVICES", "%s", task);
	r |= job_env_set(&s->env, "GPU_DEVICE_ORDINAL", "%s", task);
	r |= job_env_set(&s->env, "ROCR_VISIBLE_DEVICES", "%s", task);
	if (b.is_verbose)
		snprintf(s->gpu_verbose, sizeof(s->gpu_verbose),
			 "gpu-bind: usable_gres=0x%llx; bit_alloc=0x%llx; local_inx=%d; "
			 "global_list=%s; local_list=%s\n",
			 (unsigned long long)mine, (unsigned long long)all,
			 __builtin_popcountll(mine), task, task);
	return r ? -ENOMEM : 0;
}

int env_task(struct stepd *s, uint32_t ltid)
{
	int r = 0;

	if (s->launch) /* the script's variables are the job's */
		r = job_env_step_task(&s->env, s->launch, ltid);
	if (r == 0)
		r = env_task_gpus(s, ltid);
	if (r == 0) /* room for any pid: up to 10 digits */
		r = job_env_set(&s->env, "SLURM_TASK_PID", "%s", "0000000000");
	return r;
}

void env_task_pid(struct stepd *s, pid_t pid)
{
	char *v = (char *)job_env_get(&s->env, "SLURM_TASK_PID");
	char digits[16];
	size_t n = 0;

	if (!v || strlen(v) < 10 || pid <= 0)
		return;
	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) && n < 10);
	for (size_t i = 0; i < n; i++)
		v[i] = digits[n - 1 - i];
	v[n] = '\0';
}

/* NAME's value in the environment the job was launched with (the batch
 * script's copy leaves out SLURM_RLIMIT_*, as Slurm's does). */
const char *env_launch_get(const struct stepd *s, const char *name)
{
	char *const *env = s->msg ? s->msg->env : s->launch ? s->launch->env : NULL;
	uint32_t n = s->msg ? s->msg->env_count : s->launch ? s->launch->env_count : 0;
	size_t len = strlen(name);

	for (uint32_t i = 0; env && i < n; i++)
		if (env[i] && strncmp(env[i], name, len) == 0 && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}
