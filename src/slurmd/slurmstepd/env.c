/* env.c - the environment the tasks run with: the job's (job_env_batch()
 * or job_env_step() of common/job_env.c, from the launch and this node),
 * each task's own variables, and the job's umask as submitted.
 *
 * GPU variables are exported only when gres.conf names device files for
 * this node; SLURM_CLUSTER_NAME only for a step (as the reference).
 */
#include "env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/hostlist.h"
#include "common/msg.h"
#include "stepd.h"

bool env_has_gpu_files(const struct stepd *s)
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

int env_task(struct stepd *s, uint32_t ltid)
{
	int r = 0;

	if (s->launch) /* the script's variables are the job's */
		r = job_env_step_task(&s->env, s->launch, ltid);

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
