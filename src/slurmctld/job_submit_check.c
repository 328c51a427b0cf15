/* job_submit_check.c - see job_submit_check.h.
 *
 * Errors are Slurm's codes, so the user reads Slurm's text after "Batch
 * job submission failed:"; the message line before it names the field or
 * the partition. Every check runs before the job is created, so a refusal
 * leaves nothing behind.
 */
#include "job_submit_check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_feat.h"
#include "license.h"
#include "mail.h"
#include "part.h"
#include "part_access.h"

static int too_long(char **ret_msg, const char *what, size_t have, size_t max)
{
	if (asprintf(ret_msg, "%s is too large (%zu > %zu bytes)", what, have, max) < 0)
		*ret_msg = NULL;
	return -ESLURM_PATHNAME_TOO_LONG;
}

static int check_strs(const struct job_desc *d, char **ret_msg)
{
	const struct {
		const char *what, *s;
		size_t max;
	} f[] = {
	    {"job name", d->name, JOB_STR_MAX},
	    {"partition", d->partition, JOB_STR_MAX},
	    {"comment", d->comment, JOB_STR_MAX},
	    {"account", d->account, JOB_STR_MAX},
	    {"qos", d->qos, JOB_STR_MAX},
	    {"dependency", d->dependency, JOB_STR_MAX},
	    {"array", d->array_spec, JOB_STR_MAX},
	    {"nodelist", d->req_nodes, JOB_STR_MAX},
	    {"exclude", d->exc_nodes, JOB_STR_MAX},
	    {"mail_user", d->mail_user, JOB_STR_MAX},
	    {"gres", d->tres_per_node, JOB_STR_MAX},
	    {"gpus", d->tres_per_job, JOB_STR_MAX},
	    {"submit host", d->submit_host, JOB_STR_MAX},
	    {"alloc host", d->alloc_host, JOB_STR_MAX},
	    {"constraint", d->features, JOB_STR_MAX},
	    {"prefer", d->prefer, JOB_STR_MAX},
	    {"licenses", d->licenses, JOB_STR_MAX},
	    {"reservation", d->reservation, JOB_STR_MAX},
	    {"gpus per task", d->tres_per_task, JOB_STR_MAX},
	    {"gpus per socket", d->tres_per_socket, JOB_STR_MAX},
	    {"gpu bind", d->gpu_bind, JOB_STR_MAX},
	    {"work dir", d->work_dir, JOB_PATH_MAX},
	    {"input", d->std_in, JOB_PATH_MAX},
	    {"output", d->std_out, JOB_PATH_MAX},
	    {"error", d->std_err, JOB_PATH_MAX},
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		size_t n = f[i].s ? strlen(f[i].s) : 0;

		if (n > f[i].max)
			return too_long(ret_msg, f[i].what, n, f[i].max);
	}
	return 0;
}

/* Total bytes of a string array, stopping once past max. */
static size_t strv_bytes(char *const *v, uint32_t n, size_t max)
{
	size_t total = 0;

	for (uint32_t i = 0; v && i < n && total <= max; i++)
		total += v[i] ? strlen(v[i]) + 1 : 0;
	return total;
}

static int check_sizes(const struct ctld *c, const struct job_desc *d, char **ret_msg)
{
	size_t n;
	int r = check_strs(d, ret_msg);

	if (r < 0)
		return r;
	n = d->script ? strlen(d->script) : 0;
	if (n > c->conf->max_script_size)
		return too_long(ret_msg, "batch script (SchedulerParameters=max_script_size)", n,
				c->conf->max_script_size);
	if (d->env_count > JOB_ENV_MAX_COUNT)
		return too_long(ret_msg, "environment (variable count)", d->env_count,
				JOB_ENV_MAX_COUNT);
	n = strv_bytes(d->env, d->env_count, JOB_ENV_MAX_BYTES);
	if (n > JOB_ENV_MAX_BYTES)
		return too_long(ret_msg, "environment", n, JOB_ENV_MAX_BYTES);
	if (d->argc > JOB_ARGV_MAX_COUNT)
		return too_long(ret_msg, "script arguments (count)", d->argc, JOB_ARGV_MAX_COUNT);
	n = strv_bytes(d->argv, d->argc, JOB_ARGV_MAX_BYTES);
	if (n > JOB_ARGV_MAX_BYTES)
		return too_long(ret_msg, "script arguments", n, JOB_ARGV_MAX_BYTES);
	return 0;
}

int job_submit_check_desc(const struct ctld *c, const struct job_desc *d, bool is_admin,
			  char **ret_msg)
{
	int r = check_sizes(c, d, ret_msg);

	if (r < 0)
		return r;
	if (d->nice != NO_VAL && d->nice < NICE_OFFSET && !is_admin)
		return -ESLURM_ACCESS_DENIED; /* as for scontrol update Nice= */
	if (d->mail_user && !mail_user_is_valid(d->mail_user)) {
		if (asprintf(ret_msg, "invalid --mail-user: a user name or address, not an option")
		    < 0)
			*ret_msg = NULL;
		return -EINVAL;
	}
	return 0;
}

int job_submit_check_place(const struct ctld *c, const struct job_desc *d)
{
	int r = job_feat_check(c, d->features);

	if (r == 0)
		r = job_feat_check(c, d->prefer);
	if (r == 0)
		r = license_job_check(c, d->licenses);
	return r;
}

void job_part_request(const struct job *job, struct part_request *ret)
{
	uint32_t nodes = job->min_nodes ? job->min_nodes : 1;
	uint32_t tasks_per_node = (job->num_tasks + nodes - 1) / nodes;
	uint32_t cpus = (tasks_per_node ? tasks_per_node : 1) * (uint32_t)job->cpus_per_task;

	*ret = (struct part_request){
	    .min_nodes = job->min_nodes,
	    .max_nodes = job->max_nodes,
	    .time_limit = job->time_limit,
	    .cpus_per_node = cpus,
	    .mem_per_node = job->mem_per_node ? job->mem_per_node : job->mem_per_cpu * cpus,
	    .mem_per_cpu = job->mem_per_cpu,
	};
}

int job_submit_check_part(const struct ctld *c, const struct job *job, const struct part *p,
			  uid_t submit_uid)
{
	struct part_access a = {
	    .submit_uid = submit_uid,
	    .uid = job->uid,
	    .gids = job->gids,
	    .ngids = job->ngids,
	    .account = job->desc ? job->desc->account : NULL,
	    .qos = job->desc ? job->desc->qos : NULL,
	    .slurm_user_id = c->conf->slurm_user_id,
	};
	struct part_request req;
	int r = part_access_check(p->cfg, &a);

	if (r == 0 && c->conf->enforce_part_limits != ENFORCE_PART_NO) {
		job_part_request(job, &req);
		r = part_limits_check(p->cfg, p->node_count, &req);
	}
	if (r < 0)
		info("_job_create: uid %u (job user %u) refused partition %s: %s",
		     (unsigned)submit_uid, (unsigned)job->uid, p->cfg->name, sl_strerror(r));
	return r;
}
