/* job_update.c - see job_update.h. */
#include "job_update.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "assoc_limits.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "durable.h"
#include "job_sched.h"
#include "job_submit.h"
#include "job_submit_check.h"
#include "job_submit_lua.h"
#include "part.h"
#include "part_access.h"
#include "job_prio.h"

static int job_update_check(const struct ctld *c, const struct job *job,
			    const struct update_job_msg *m, bool is_admin)
{
	bool is_pending = job_is_pending(job);

	if (job_is_finished(job))
		return -ESLURM_JOB_FINISHED;
	if ((m->priority == 0 || m->priority == INFINITE) && !is_pending)
		return -ESLURM_JOB_NOT_PENDING;
	if (m->priority == INFINITE && job->priority == 0 && !job->is_user_hold && !is_admin)
		return -ESLURM_ACCESS_DENIED; /* an admin hold is the admin's to release */
	if (m->priority != NO_VAL && m->priority != 0 && m->priority != INFINITE && !is_admin)
		return -ESLURM_ACCESS_DENIED;
	if (m->time_limit != NO_VAL && !is_admin
	    && (m->time_limit == INFINITE || m->time_limit > job->time_limit))
		return -ESLURM_ACCESS_DENIED; /* owners may only lower it */
	if (m->nice != NO_VAL && !is_admin && m->nice < NICE_OFFSET)
		return -ESLURM_ACCESS_DENIED; /* negative nice raises priority */
	if ((m->partition || m->min_nodes != NO_VAL || m->max_nodes != NO_VAL || m->account
	     || m->qos)
	    && !is_pending)
		return -ESLURM_JOB_NOT_PENDING;
	if (m->partition && !part_find(c, m->partition))
		return -ESLURM_INVALID_PARTITION_NAME;
	if (m->min_nodes != NO_VAL && m->max_nodes != NO_VAL && m->max_nodes
	    && m->max_nodes < m->min_nodes)
		return -ESLURM_INVALID_NODE_COUNT;
	return 0;
}

/* A new partition must let the job in (its access rules, and its limits
 * with EnforcePartLimits); a user's new node counts must fit the
 * partition's limits when they are enforced (an administrator's may pass
 * them). uid: who asks for the update. */
static int job_update_part_check(const struct ctld *c, const struct job *job,
				 const struct update_job_msg *m, uid_t uid, bool is_admin)
{
	const struct part *p = part_find(c, m->partition ? m->partition : job->partition);
	struct part_request req;
	struct job tmp = *job;

	if (!p || (!m->partition && m->min_nodes == NO_VAL && m->max_nodes == NO_VAL))
		return 0;
	if (m->min_nodes != NO_VAL)
		tmp.min_nodes = m->min_nodes;
	if (m->max_nodes != NO_VAL)
		tmp.max_nodes = m->max_nodes;
	if (m->partition)
		return job_submit_check_part(c, &tmp, p, uid);
	if (c->conf->enforce_part_limits == ENFORCE_PART_NO || is_admin)
		return 0;
	job_part_request(&tmp, &req);
	return part_limits_check(p->cfg, p->node_count, &req);
}

/* A new account, QOS or partition: the association and QOS again, with
 * AccountingStorageEnforce's refusals (assoc_limits_submit). The resolved
 * names are set in *ret_acct / *ret_qos (malloc'd, NULL: unchanged). */
static int job_update_assoc(struct ctld *c, struct job *job, const struct update_job_msg *m,
			    char **ret_acct, char **ret_qos)
{
	struct job tmp = *job;
	struct job_desc d = {0};
	int r;

	*ret_acct = *ret_qos = NULL;
	if (!m->account && !m->qos && !m->partition)
		return 0;
	d.account = m->account ? strdup(m->account) : NULL;
	d.qos = m->qos ? strdup(m->qos) : job->desc->qos ? strdup(job->desc->qos) : NULL;
	if (!m->account && job->desc->account)
		d.account = strdup(job->desc->account);
	if ((!d.account && (m->account || job->desc->account))
	    || (!d.qos && (m->qos || job->desc->qos))) {
		free(d.account);
		free(d.qos);
		return -ENOMEM;
	}
	tmp.partition = m->partition ? m->partition : job->partition;
	tmp.assoc_id = tmp.qos_id = 0;
	r = assoc_limits_submit(c, &tmp, &d);
	if (r == 0) {
		job->assoc_id = tmp.assoc_id;
		job->qos_id = tmp.qos_id;
		*ret_acct = d.account;
		*ret_qos = d.qos;
	} else {
		free(d.account);
		free(d.qos);
	}
	return r;
}

static int job_update_apply(struct ctld *c, struct job *job, const struct update_job_msg *m,
			    uid_t uid, bool is_admin)
{
	int r = job_update_check(c, job, m, is_admin);
	char *acct = NULL, *qos = NULL;

	if (r == 0)
		r = job_update_part_check(c, job, m, uid, is_admin);
	if (r == 0)
		r = job_update_assoc(c, job, m, &acct, &qos);
	if (r < 0)
		return r;
	if (acct)
		r = job_desc_set_str(job->desc, &job->desc->account, acct);
	if (qos && r == 0)
		r = job_desc_set_str(job->desc, &job->desc->qos, qos);
	free(acct);
	free(qos);
	if (r == 0 && m->name)
		r = job_desc_set_str(job->desc, &job->desc->name, m->name);
	if (r == 0 && m->partition)
		r = job_set_partition(job, m->partition);
	if (r < 0)
		return r;
	if (m->priority == 0) {
		job->priority = 0;
		job->is_user_hold = m->hold_user || !is_admin;
		job->reason = job->is_user_hold ? WAIT_HELD_USER : WAIT_HELD;
	} else if (m->priority == INFINITE) {
		if (job->priority == 0)
			job->priority = job_next_priority(c, job);
		job->is_user_hold = false;
		job->is_prio_fixed = false;
		job->reason = WAIT_NO_REASON;
	} else if (m->priority != NO_VAL) {
		job->priority = m->priority;
		job->is_prio_fixed = true; /* multifactor leaves it as set */
	}
	if (job->priority && (job->state & JOB_RESV_DEL_HOLD)) {
		job->state &= ~JOB_RESV_DEL_HOLD; /* released: its reservation's words go */
		job->reason = WAIT_NO_REASON;
		free(job->state_desc);
		job->state_desc = NULL;
	}
	if (m->time_limit != NO_VAL) {
		job->time_limit = m->time_limit;
		if (job->start_time && !job_is_pending(job))
			job->end_time = m->time_limit == INFINITE
						? 0
						: job->start_time + (time_t)m->time_limit * 60;
	}
	if (m->nice != NO_VAL) {
		uint32_t old = job->desc->nice;

		job->desc->nice = m->nice;
		if (job->priority) /* re-apply: undo the old nice, apply the new */
			job->priority = job_nice_priority(
			    job_nice_priority(job->priority,
					      old == NO_VAL ? NO_VAL : 2 * NICE_OFFSET - old),
			    m->nice);
	}
	if (m->min_nodes != NO_VAL)
		job->min_nodes = m->min_nodes;
	if (m->max_nodes != NO_VAL)
		job->max_nodes = m->max_nodes;
	if (job->priority && !job->is_prio_fixed && job_is_pending(job)
	    && job_prio_is_multifactor(c))
		job->priority = job_next_priority(c, job); /* its factors may have changed */
	info("update_job: JobId=%u updated by uid %u", job->job_id, (unsigned)uid);
	job_changed(c, job);
	ctld_sched_request(c);
	return 0;
}

int job_update(struct ctld *c, struct job *job, const struct update_job_msg *m, uid_t uid,
	       bool is_admin)
{
	struct update_job_msg *mod = NULL;
	/* JobSubmitPlugins=lua: slurm_job_modify may refuse or change it */
	int r = job_submit_lua_modify(c, job, m, uid, &mod);

	if (r == 0)
		r = job_update_apply(c, job, mod ? mod : m, uid, is_admin);
	msg_free(msg_lookup(REQUEST_UPDATE_JOB), mod);
	return r;
}
