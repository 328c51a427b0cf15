/* job_submit.c - see job_submit.h.
 *
 * What is refused at once (as Slurm 22.05 does): an unknown partition,
 * bad counts, a request no node of the partition could ever hold
 * (more cpus, memory or GPUs per node than any node has: "Requested node
 * configuration is not available"). What is accepted but can never start
 * (more nodes than the partition has, a time limit over MaxTime) stays
 * pending with reason PartitionConfig, as the reference shows.
 */
#include "job_submit.h"
#include "assoc_limits.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "user_db.h"
#include "ctld.h"
#include "durable.h"
#include "job.h"
#include "job_array.h"
#include "job_depend_check.h"
#include "job_gpu.h"
#include "job_sched.h"
#include "job_submit_check.h"
#include "part.h"
#include "resv.h"
#include "job_prio.h"

static struct part *part_default(struct ctld *c)
{
	for (uint32_t i = 0; i < c->part_count; i++)
		if (c->parts[i].cfg->is_default)
			return &c->parts[i];
	return NULL;
}

/* First listed partition that exists (Slurm tries each of a list). */
static int job_pick_part(struct ctld *c, const char *list, struct part **ret, char **ret_msg)
{
	_cleanup_free_ char *copy = NULL;
	char *save = NULL, *name;

	if (!list || !*list) {
		*ret = part_default(c);
		if (*ret && !((*ret)->cfg->state_up & PART_STATE_SUBMIT_BIT))
			return -ESLURM_PARTITION_NOT_AVAIL; /* DRAIN or INACTIVE */
		return *ret ? 0 : -ESLURM_DEFAULT_PARTITION_NOT_SET;
	}
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	/* the first that takes submissions (DRAIN and INACTIVE do not) */
	for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		struct part *p = part_find(c, name);

		if (!p) {
			free(*ret_msg);
			if (asprintf(ret_msg, "invalid partition specified: %s", name) < 0)
				*ret_msg = NULL;
			return -ESLURM_INVALID_PARTITION_NAME;
		}
		if (p->cfg->state_up & PART_STATE_SUBMIT_BIT) {
			*ret = p;
			return 0;
		}
		info("_valid_job_part: partition %s does not accept jobs (%s)", name,
		     p->cfg->state_up == PART_STATE_DRAIN ? "DRAIN" : "INACTIVE");
	}
	return -ESLURM_PARTITION_NOT_AVAIL;
}

/* The user's name and every group, from the cache (rpc_table.c held the
 * request until it had them); asked of NSS here only without a cache (a
 * controller built for a test). */
static int job_user(struct ctld *c, struct job *job, uid_t uid, gid_t gid,
		    const struct user_info **ret)
{
	const struct user_info *u = c->users ? user_db_get(c->users, uid, gid) : NULL;
	static struct user_info inline_info;

	job->uid = uid;
	job->gid = gid;
	if (!u) {
		user_info_done(&inline_info);
		if (user_db_fetch(uid, gid, &inline_info) < 0)
			return -ENOMEM;
		u = &inline_info;
	}
	*ret = u;
	if (!u->is_found)
		return -ESLURM_USER_ID_MISSING;
	job->user_name = strdup(u->name);
	job->gids = calloc((size_t)u->ngids + 1, sizeof(*job->gids));
	if (!job->user_name || !job->gids)
		return -ENOMEM;
	memcpy(job->gids, u->gids, u->ngids * sizeof(*job->gids));
	job->ngids = u->ngids;
	return 0;
}

void job_submit_user(const struct job_desc *desc, uid_t uid, gid_t gid, uid_t *ret_uid,
		     gid_t *ret_gid)
{
	*ret_uid = uid;
	*ret_gid = gid;
	if (uid == 0 && desc->user_id != NO_VAL && desc->user_id != 0) {
		*ret_uid = desc->user_id; /* root submitting for someone */
		*ret_gid = desc->group_id != NO_VAL ? desc->group_id : gid;
	}
}

/* Without an association (assoc_limits_submit), a job's account defaults to
 * its user's primary group name and its QOS to "normal", Slurm's default
 * QOS: the reference's root job shows Account=root QOS=normal. */
static int job_account(struct job_desc *d, const struct user_info *u)
{
	if (!d->account && u->gid_name && !(d->account = strdup(u->gid_name)))
		return -ENOMEM;
	if (!d->qos && !(d->qos = strdup("normal")))
		return -ENOMEM;
	return 0;
}

/* Counts with Slurm's defaults: nodes from tasks and tasks from nodes. */
static int job_counts(struct job *job, const struct job_desc *d)
{
	job->cpus_per_task = d->cpus_per_task == NO_VAL16 || !d->cpus_per_task ? 1
										 : d->cpus_per_task;
	job->min_nodes = d->min_nodes == NO_VAL || !d->min_nodes ? 1 : d->min_nodes;
	/* -N 2 means exactly two; no -N lets the tasks decide (0 = no maximum) */
	job->max_nodes = d->max_nodes != NO_VAL ? d->max_nodes
		       : d->min_nodes != NO_VAL ? job->min_nodes
						: 0;
	if (job->max_nodes && job->max_nodes < job->min_nodes)
		return -ESLURM_INVALID_NODE_COUNT;
	if (d->num_tasks != NO_VAL && d->num_tasks)
		job->num_tasks = d->num_tasks;
	else if (d->ntasks_per_node != NO_VAL16 && d->ntasks_per_node)
		job->num_tasks = (uint32_t)d->ntasks_per_node * job->min_nodes;
	else
		job->num_tasks = job->min_nodes;
	if (job->num_tasks < job->min_nodes && d->num_tasks != NO_VAL)
		return -ESLURM_BAD_TASK_COUNT;
	return 0;
}

static void job_memory(struct ctld *c, struct job *job, const struct job_desc *d,
		       const struct part *p, const struct job_gpu *gpu)
{
	uint64_t def_cpu = p->cfg->def_mem_per_cpu ? p->cfg->def_mem_per_cpu
						   : c->conf->def_mem_per_cpu;
	uint64_t def_node = p->cfg->def_mem_per_node ? p->cfg->def_mem_per_node
						     : c->conf->def_mem_per_node;

	if (gpu->mem_per_gpu)
		return; /* memory comes with the GPUs (--mem-per-gpu, DefMemPerGPU) */
	if (d->mem_per_cpu != NO_VAL64)
		job->mem_per_cpu = d->mem_per_cpu;
	else if (d->mem_per_node != NO_VAL64)
		job->mem_per_node = d->mem_per_node;
	else if (def_cpu)
		job->mem_per_cpu = def_cpu;
	else
		job->mem_per_node = def_node; /* 0: the whole node, as --mem=0 */
}

int job_submit_build(struct ctld *c, struct job_desc *desc, uid_t uid, gid_t gid,
		     struct job **ret, char **ret_msg)
{
	const struct user_info *user = NULL;
	struct job *job;
	struct part *p = NULL;
	const struct resv *resv;
	uid_t submit_uid = uid;
	struct job_gpu gpu;
	int r;

	*ret_msg = NULL;
	/* an allocation (alloc_port set) runs no script */
	if (!desc->alloc_port && (!desc->script || !*desc->script))
		return -ESLURM_JOB_SCRIPT_MISSING;
	if (c->job_count >= c->conf->max_job_count) {
		/* sbatch sleeps and retries, as with Slurm */
		error("_job_create: MaxJobCount limit from slurm.conf reached (%u)",
		      c->conf->max_job_count);
		return -EAGAIN;
	}
	r = job_submit_check_desc(c, desc, ctld_is_admin(c, uid), ret_msg);
	if (r < 0)
		return r;
	if (desc->priority && !ctld_is_admin(c, uid)) {
		info("_job_create: uid %u may not set a job's priority", (unsigned)uid);
		return -ESLURM_ACCESS_DENIED;
	}
	job_submit_user(desc, uid, gid, &uid, &gid);
	resv = desc->reservation && *desc->reservation ? resv_find(c, desc->reservation) : NULL;
	if (resv && resv->partition && (!desc->partition || !*desc->partition)
	    && job_desc_set_str(desc, &desc->partition, resv->partition) < 0)
		return -ENOMEM; /* a reservation's jobs run in its partition */
	r = job_pick_part(c, desc->partition, &p, ret_msg);
	if (r == 0)
		r = job_submit_check_place(c, desc);
	if (r < 0)
		return r;
	r = job_gpu_parse(desc, &gpu);
	if (r == 0 && job_gpu_type_id(c, gpu.type) < 0)
		r = -ESLURM_INVALID_GRES; /* no node has GPUs of that type */
	if (r < 0)
		return r;
	job = calloc(1, sizeof(*job));
	if (!job)
		return -ENOMEM;
	r = job_user(c, job, uid, gid, &user);
	if (r == 0)
		r = resv_job_check(c, desc, job->user_name, ctld_is_admin(c, submit_uid));
	if (r == 0)
		r = job_counts(job, desc);
	if (r == 0 && !(job->partition = strdup(p->cfg->name)))
		r = -ENOMEM;
	if (r < 0) {
		job_free(job);
		return r;
	}
	job_gpu_defaults(c->conf, p ? p->cfg : NULL, desc, &gpu);
	job_memory(c, job, desc, p, &gpu);
	job->gpus_per_node = gpu.per_node;
	job->gpus_total = gpu.total;
	job->time_limit = desc->time_limit != NO_VAL ? desc->time_limit
			: p->cfg->default_time != NO_VAL ? p->cfg->default_time
							  : p->cfg->max_time;
	r = assoc_limits_submit(c, job, desc);
	if (r == 0)
		r = job_account(desc, user); /* without an association */
	job->desc = desc; /* borrowed for the checks */
	if (r == 0)
		r = job_submit_check_part(c, job, p, submit_uid);
	if (r == 0)
		r = job_sched_check_feasible(c, job, p);
	job->desc = NULL;
	if (r == 0 && desc->array_spec)
		r = job_array_parse(desc->array_spec, c->conf->max_array_size, &job->array_pending,
				    &job->array_pending_count, &job->array_throttle);
	if (r < 0) {
		job_free(job);
		return r;
	}
	job->array_task_id = NO_VAL;
	job->desc = desc;
	r = job_depend_check_submit(c, job, ret_msg);
	if (r < 0) {
		job->desc = NULL; /* the caller still owns it */
		job_free(job);
		return r;
	}
	*ret = job;
	return 0;
}

static uint32_t job_next_id(struct ctld *c)
{
	uint32_t id = c->next_job_id;

	if (id < c->conf->first_job_id || id > c->conf->max_job_id)
		id = c->conf->first_job_id;
	c->next_job_id = id + 1;
	return id;
}

int job_submit_commit(struct ctld *c, struct job *job)
{
	time_t now = time(NULL);
	const struct job_desc *d = job->desc;
	int r;

	job->job_id = job_next_id(c);
	if (job->array_pending_count)
		job->array_job_id = job->job_id; /* the meta record carries the array's id */
	job->state = JOB_PENDING;
	job->submit_time = now;
	job->eligible_time = d->begin_time > now ? d->begin_time : now;
	if (d->flags & JOB_DESC_HOLD) {
		job->priority = 0;
		job->is_user_hold = true;
		job->reason = WAIT_HELD_USER;
	} else if (d->priority) { /* --priority from an operator: kept as given */
		job->priority = d->priority;
		job->is_prio_fixed = true;
	} else {
		job->priority = job_next_priority(c, job);
	}
	r = job_table_add(c, job);
	if (r == 0)
		job_changed(c, job);
	return r;
}
