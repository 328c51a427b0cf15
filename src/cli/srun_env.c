/* srun_env.c - the environment srun gives its tasks; see srun_env.h. */
#include "cli/srun_env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/job_opt_gpu.h"
#include "cli/srun_fmt.h"
#include "cli/srun_opt.h"
#include "common/job_env.h"
#include "common/msg.h"

static int put(struct job_env *e, const char *entry)
{
	int r = job_env_put(e, entry);

	return r == -ENOMEM ? r : 0; /* an entry without '=' is skipped */
}

/* Is NAME (of len) one of the --export list's words? */
static const char *export_item(const char *list, const char *name, size_t len)
{
	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == len && !strncmp(p, name, len))
			return p;
		p += l + (p[l] == ',');
	}
	return NULL;
}

int srun_env_export(struct job_env *e, const char *x, char *const *envp)
{
	bool all = !x || !strcasecmp(x, "ALL") || export_item(x, "ALL", 3);
	int r = 0;

	for (char *const *p = envp; p && *p && r == 0; p++) {
		size_t len = strcspn(*p, "=");

		if (all || !strncmp(*p, "SLURM_", 6) || (x && export_item(x, *p, len)))
			r = put(e, *p);
	}
	/* NAME=value items of the list */
	for (const char *p = x; r == 0 && p && *p && strcasecmp(x, "NONE");) {
		size_t l = strcspn(p, ",");
		char *item = strndup(p, l);

		if (!item)
			return -ENOMEM;
		if (strchr(item, '='))
			r = put(e, item);
		free(item);
		p += l + (p[l] == ',');
	}
	return r;
}

static int set_str(struct job_env *e, const char *name, const char *v)
{
	return v ? job_env_set(e, name, "%s", v) : 0;
}

/* The per-node task counts as Slurm's compressed list. */
static int tasks_per_node(struct job_env *e, const struct step_create_resp *r)
{
	uint32_t *v = calloc(r->node_count ? r->node_count : 1, sizeof(*v));
	char *s;
	int rc;

	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->node_count; i++)
		v[i] = r->nodes[i].tasks;
	s = srun_counts_str(v, r->node_count);
	free(v);
	if (!s)
		return -ENOMEM;
	rc = job_env_set(e, "SLURM_STEP_TASKS_PER_NODE", "%s", s);
	rc |= job_env_set(e, "SLURM_TASKS_PER_NODE", "%s", s);
	free(s);
	return rc;
}

static int job_vars(struct job_env *e, const struct step_create_resp *r)
{
	int rc = 0;

	rc |= job_env_set(e, "SLURM_JOB_ID", "%u", r->job_id);
	rc |= job_env_set(e, "SLURM_JOBID", "%u", r->job_id);
	rc |= set_str(e, "SLURM_JOB_NAME", r->job_name);
	rc |= set_str(e, "SLURM_JOB_NODELIST", r->job_nodes);
	rc |= job_env_set(e, "SLURM_JOB_NUM_NODES", "%u", r->job_num_nodes);
	rc |= set_str(e, "SLURM_JOB_CPUS_PER_NODE", r->job_cpus_per_node);
	rc |= set_str(e, "SLURM_JOB_PARTITION", r->partition);
	rc |= set_str(e, "SLURM_JOB_ACCOUNT", r->account);
	rc |= set_str(e, "SLURM_JOB_QOS", r->qos);
	rc |= job_env_set(e, "SLURM_JOB_UID", "%u", r->uid);
	rc |= job_env_set(e, "SLURM_JOB_GID", "%u", r->gid);
	rc |= set_str(e, "SLURM_JOB_USER", r->user_name);
	return rc;
}

static int step_vars(struct job_env *e, const struct step_create_resp *r)
{
	int rc = 0;

	rc |= job_env_set(e, "SLURM_STEP_ID", "%u", r->step_id);
	rc |= job_env_set(e, "SLURM_STEPID", "%u", r->step_id);
	rc |= set_str(e, "SLURM_STEP_NODELIST", r->step_nodes);
	rc |= set_str(e, "SLURM_NODELIST", r->step_nodes);
	rc |= job_env_set(e, "SLURM_STEP_NUM_NODES", "%u", r->node_count);
	rc |= job_env_set(e, "SLURM_NNODES", "%u", r->node_count);
	rc |= job_env_set(e, "SLURM_STEP_NUM_TASKS", "%u", r->num_tasks);
	rc |= job_env_set(e, "SLURM_NTASKS", "%u", r->num_tasks);
	rc |= job_env_set(e, "SLURM_NPROCS", "%u", r->num_tasks);
	return rc ? rc : tasks_per_node(e, r);
}

int srun_env_step(struct job_env *e, const struct srun_opts *o, const struct step_create_resp *r,
		  const struct srun_env_ctx *c)
{
	int rc = job_vars(e, r);

	rc |= step_vars(e, r);
	if (!c->in_alloc || !job_env_get(e, "SLURM_SUBMIT_DIR"))
		rc |= set_str(e, "SLURM_SUBMIT_DIR", c->submit_dir);
	if (!c->in_alloc || !job_env_get(e, "SLURM_SUBMIT_HOST"))
		rc |= set_str(e, "SLURM_SUBMIT_HOST", c->submit_host);
	rc |= set_str(e, "SLURM_CLUSTER_NAME", c->cluster_name);
	if (o->label)
		rc |= job_env_set(e, "SLURM_LABELIO", "1");
	rc |= set_str(e, "SLURM_SRUN_COMM_HOST", c->comm_host);
	rc |= job_env_set(e, "SLURM_SRUN_COMM_PORT", "%u", c->comm_port);
	rc |= job_env_set(e, "SLURM_STEP_LAUNCHER_PORT", "%u", c->comm_port);
	rc |= set_str(e, "SLURM_LAUNCH_NODE_IPADDR", c->comm_host);
	rc |= job_env_set(e, "SLURM_UMASK", "%04o", c->umask & 07777);
	rc |= job_env_set(e, "SLURM_PRIO_PROCESS", "%d", c->nice);
	if (o->job.cpus_set)
		rc |= job_env_set(e, "SLURM_CPUS_PER_TASK", "%d", o->job.cpus_per_task);
	rc |= job_opt_gpu_env(&o->job, e);
	if (o->cpu_bind)
		rc |= set_str(e, "SLURM_CPU_BIND", o->cpu_bind);
	if (o->hint)
		rc |= set_str(e, "SLURM_HINT", o->hint);
	if (o->ntasks_per_socket)
		rc |= job_env_set(e, "SLURM_NTASKS_PER_SOCKET", "%d", o->ntasks_per_socket);
	if (o->distribution || c->in_alloc)
		rc |= set_str(e, "SLURM_DISTRIBUTION", o->distribution ? o->distribution : "block");
	if (c->in_alloc)
		rc |= set_str(e, "SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0", r->job_cpus_per_node);
	/* the tasks get srun's limits; slurmstepd applies those that
	 * PropagateResourceLimits[Except] lets through */
	rc |= job_env_set_rlimits(e, o->job.propagate);
	return rc ? -ENOMEM : 0;
}
