/* assoc_limits.c - AccountingStorageEnforce (assoc_limits.h).
 *
 * Purpose: at submit, the account and QOS a job runs under and Slurm's
 * refusals; on the scheduler's pass, the limits of running jobs
 * (GrpJobs, MaxJobs, GrpTRES, MaxTRESPerJob, MaxWall of the association
 * and its parents; the QOS's GrpJobs, GrpTRES, MaxJobsPerUser,
 * MaxTRESPerJob, MaxWall) as Slurm's pending reasons.
 * Owns: the counters of struct assoc and struct qos (used_jobs,
 * used_tres, the per-user counts). A job is charged when its base state
 * becomes RUNNING and released when it leaves it (job hook); each costs
 * O(depth of the tree). The submit counts (MaxSubmitJobs) are a scan of
 * the job table: O(jobs) per submission.
 * Caveats: a job's TRES are what it asked for (cpus, memory, nodes, GPUs),
 * as Slurm counts a pending job against the limits.
 */
#include "assoc_limits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_res.h"

/* With accounting on: a table that could not be loaded has no
 * association, so enforcement refuses (fails closed). */
static uint16_t enforce(const struct ctld *c)
{
	return c->acct ? c->conf->acct_enforce : 0;
}

static void job_tres(const struct job *job, uint64_t *t)
{
	uint32_t cpus = job_res_req_cpus(job);

	t[ASSOC_TRES_CPU] = cpus;
	t[ASSOC_TRES_MEM] =
	    job->mem_per_cpu ? job->mem_per_cpu * cpus : job->mem_per_node * job->min_nodes;
	t[ASSOC_TRES_NODE] = job->min_nodes;
	t[ASSOC_TRES_GPU] =
	    job->gpus_total ? job->gpus_total : (uint64_t)job->gpus_per_node * job->min_nodes;
}

static bool is_live(const struct job *job)
{
	return !job_is_finished(job);
}

/* Jobs pending or running under the association (with those below it) or,
 * for a QOS, of the user under it. */
static uint32_t submitted(const struct ctld *c, const struct assoc *a, const struct qos *q,
			  uid_t uid)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < c->job_count; i++) {
		const struct job *j = c->jobs[i];

		if (!is_live(j))
			continue;
		if (q) {
			n += j->qos_id == q->id && j->uid == uid;
			continue;
		}
		for (const struct assoc *x = assoc_by_id(&c->assoc, j->assoc_id); x; x = x->parent)
			if (x == a) {
				n++;
				break;
			}
	}
	return n;
}

static int check_submit_limits(const struct ctld *c, const struct job *job, const struct assoc *a,
			       const struct qos *q)
{
	bool is_max_checked = false;

	for (const struct assoc *x = a; x; x = x->parent) {
		uint32_t n = (x->lim.grp_submit != ASSOC_NO_LIMIT
			      || (!is_max_checked && x->lim.max_submit != ASSOC_NO_LIMIT))
				 ? submitted(c, x, NULL, 0)
				 : 0;

		if (x->lim.grp_submit != ASSOC_NO_LIMIT && n >= x->lim.grp_submit)
			return -ESLURM_ACCOUNTING_POLICY;
		if (!is_max_checked && x->lim.max_submit != ASSOC_NO_LIMIT) {
			is_max_checked = true; /* the nearest MaxSubmitJobs applies */
			if (submitted(c, a, NULL, 0) >= x->lim.max_submit)
				return -ESLURM_ACCOUNTING_POLICY;
		}
	}
	if (q && q->rec.max_submit_pu != ASSOC_NO_LIMIT
	    && submitted(c, NULL, q, job->uid) >= q->rec.max_submit_pu)
		return -ESLURM_ACCOUNTING_POLICY;
	return 0;
}

static bool qos_is_allowed(const struct assoc *a, const struct qos *q)
{
	uint32_t n;
	const uint32_t *ids = assoc_qos_allowed(a, &n);

	for (uint32_t i = 0; i < n; i++)
		if (ids[i] == q->id)
			return true;
	return n == 0; /* no list anywhere: any QOS */
}

int assoc_limits_submit(struct ctld *c, struct job *job, struct job_desc *d)
{
	const struct assoc_table *t = &c->assoc;
	uint16_t how = enforce(c);
	const struct user_rec *u = assoc_user_find(t, job->user_name);
	const char *acct = d->account ? d->account : u ? u->default_acct : NULL;
	struct assoc *a = assoc_find(t, acct, job->user_name, job->partition);
	struct qos *q;
	char *new_acct = NULL, *new_qos = NULL;
	int r;

	if (!a && (how & ACCT_ENFORCE_ASSOCS))
		return -ESLURM_INVALID_ACCOUNT;
	q = d->qos ? assoc_qos_find(t, d->qos) : assoc_qos_by_id(t, assoc_def_qos(a));
	if (!d->qos && !q)
		q = assoc_qos_find(t, "normal");
	if ((how & (ACCT_ENFORCE_QOS | ACCT_ENFORCE_ASSOCS)) && d->qos && !q)
		return -ESLURM_INVALID_QOS;
	if ((how & ACCT_ENFORCE_QOS) && q && a && !qos_is_allowed(a, q))
		return -ESLURM_INVALID_QOS;
	if (how & ACCT_ENFORCE_LIMITS) {
		r = check_submit_limits(c, job, a, q);
		if (r < 0)
			return r;
	}
	if (!d->account && a && !(new_acct = strdup(a->acct)))
		return -ENOMEM;
	if (!d->qos && q && !(new_qos = strdup(q->name))) {
		free(new_acct);
		return -ENOMEM;
	}
	if (new_acct)
		d->account = new_acct;
	if (new_qos)
		d->qos = new_qos;
	job->assoc_id = a ? a->id : 0;
	job->qos_id = q ? q->id : 0;
	return 0;
}

/* ---- limits of running jobs ---- */

static const enum job_state_reason assoc_grp_reason[ASSOC_TRES_N] = {
    WAIT_ASSOC_GRP_CPU, WAIT_ASSOC_GRP_MEM, WAIT_ASSOC_GRP_NODE, WAIT_ASSOC_GRP_GRES};
static const enum job_state_reason assoc_pj_reason[ASSOC_TRES_N] = {
    WAIT_ASSOC_MAX_CPU_PER_JOB, WAIT_ASSOC_MAX_MEM_PER_JOB, WAIT_ASSOC_MAX_NODE_PER_JOB,
    WAIT_ASSOC_MAX_GRES_PER_JOB};
static const enum job_state_reason qos_grp_reason[ASSOC_TRES_N] = {
    WAIT_QOS_GRP_CPU, WAIT_QOS_GRP_MEM, WAIT_QOS_GRP_NODE, WAIT_QOS_GRP_GRES};
static const enum job_state_reason qos_pj_reason[ASSOC_TRES_N] = {
    WAIT_QOS_MAX_CPU_PER_JOB, WAIT_QOS_MAX_MEM_PER_JOB, WAIT_QOS_MAX_NODE_PER_JOB,
    WAIT_QOS_MAX_GRES_PER_JOB};

static struct qos_user_use *qos_user(struct qos *q, uid_t uid, bool is_add)
{
	struct qos_user_use *v;

	for (uint32_t i = 0; i < q->user_count; i++)
		if (q->users[i].uid == uid)
			return &q->users[i];
	if (!is_add || !(v = realloc(q->users, (q->user_count + 1) * sizeof(*v))))
		return NULL;
	q->users = v;
	v[q->user_count] = (struct qos_user_use){.uid = uid};
	return &v[q->user_count++];
}

static enum job_state_reason qos_blocker(struct qos *q, const struct job *job, const uint64_t *t)
{
	struct qos_user_use *u = qos_user(q, job->uid, false);

	if (q->rec.max_wall != ASSOC_NO_LIMIT && job->time_limit > q->rec.max_wall)
		return WAIT_QOS_MAX_WALL_PER_JOB;
	for (int i = 0; i < ASSOC_TRES_N; i++)
		if (q->rec.max_tres_pj[i] != ASSOC_NO_LIMIT64 && t[i] > q->rec.max_tres_pj[i])
			return qos_pj_reason[i];
	if (q->rec.max_jobs_pu != ASSOC_NO_LIMIT && u && u->jobs >= q->rec.max_jobs_pu)
		return WAIT_QOS_MAX_JOB_PER_USER;
	if (q->rec.grp_jobs != ASSOC_NO_LIMIT && q->used_jobs >= q->rec.grp_jobs)
		return WAIT_QOS_GRP_JOB;
	for (int i = 0; i < ASSOC_TRES_N; i++)
		if (q->rec.grp_tres[i] != ASSOC_NO_LIMIT64
		    && q->used_tres[i] + t[i] > q->rec.grp_tres[i])
			return qos_grp_reason[i];
	return WAIT_NO_REASON;
}

/* The per-job limits: the nearest association that sets each. */
static enum job_state_reason assoc_job_blocker(const struct assoc *a, const struct job *job,
					       const uint64_t *t)
{
	bool is_wall = false, is_jobs = false, is_tres[ASSOC_TRES_N] = {false};

	for (const struct assoc *x = a; x; x = x->parent) {
		if (!is_wall && x->lim.max_wall != ASSOC_NO_LIMIT) {
			is_wall = true;
			if (job->time_limit > x->lim.max_wall)
				return WAIT_ASSOC_MAX_WALL_PER_JOB;
		}
		for (int i = 0; i < ASSOC_TRES_N; i++)
			if (!is_tres[i] && x->lim.max_tres_pj[i] != ASSOC_NO_LIMIT64) {
				is_tres[i] = true;
				if (t[i] > x->lim.max_tres_pj[i])
					return assoc_pj_reason[i];
			}
		if (!is_jobs && x->lim.max_jobs != ASSOC_NO_LIMIT) {
			is_jobs = true;
			if (a->used_jobs >= x->lim.max_jobs)
				return WAIT_ASSOC_MAX_JOBS;
		}
	}
	return WAIT_NO_REASON;
}

enum job_state_reason assoc_limits_blocker(struct ctld *c, const struct job *job)
{
	struct assoc *a;
	struct qos *q;
	uint64_t t[ASSOC_TRES_N];
	enum job_state_reason why;

	if (!(enforce(c) & ACCT_ENFORCE_LIMITS))
		return WAIT_NO_REASON;
	job_tres(job, t);
	q = qos_of_job(c, job);
	if (q && (why = qos_blocker(q, job, t)) != WAIT_NO_REASON)
		return why;
	a = assoc_of_job(c, job);
	if (!a)
		return WAIT_NO_REASON;
	why = assoc_job_blocker(a, job, t);
	if (why != WAIT_NO_REASON)
		return why;
	for (const struct assoc *x = a; x; x = x->parent) {
		if (x->lim.grp_jobs != ASSOC_NO_LIMIT && x->used_jobs >= x->lim.grp_jobs)
			return WAIT_ASSOC_GRP_JOB;
		for (int i = 0; i < ASSOC_TRES_N; i++)
			if (x->lim.grp_tres[i] != ASSOC_NO_LIMIT64
			    && x->used_tres[i] + t[i] > x->lim.grp_tres[i])
				return assoc_grp_reason[i];
	}
	return WAIT_NO_REASON;
}

/* ---- counters ---- */

static void charge(struct ctld *c, struct job *job, int sign)
{
	struct assoc *a = assoc_by_id(&c->assoc, job->charged_assoc_id);
	struct qos *q = assoc_qos_by_id(&c->assoc, job->charged_qos_id);
	struct qos_user_use *u = q ? qos_user(q, job->uid, sign > 0) : NULL;
	uint64_t t[ASSOC_TRES_N];

	job_tres(job, t);
	for (; a; a = a->parent) {
		a->used_jobs += (uint32_t)sign;
		for (int i = 0; i < ASSOC_TRES_N; i++)
			a->used_tres[i] += sign > 0 ? t[i] : -t[i];
	}
	if (q) {
		q->used_jobs += (uint32_t)sign;
		for (int i = 0; i < ASSOC_TRES_N; i++)
			q->used_tres[i] += sign > 0 ? t[i] : -t[i];
		if (u)
			u->jobs += (uint32_t)sign;
	}
}

static void limits_job_changed(struct ctld *c, struct job *job)
{
	bool is_running = (job->state & JOB_STATE_BASE) == JOB_RUNNING
			  || (job->state & JOB_STATE_BASE) == JOB_SUSPENDED;

	if (is_running == job->is_assoc_charged || !c->assoc.is_loaded)
		return;
	if (is_running) {
		struct assoc *a = assoc_of_job(c, job);
		struct qos *q = qos_of_job(c, job);

		job->charged_assoc_id = a ? a->id : 0;
		job->charged_qos_id = q ? q->id : 0;
		charge(c, job, 1);
	} else {
		charge(c, job, -1);
		job->charged_assoc_id = job->charged_qos_id = 0;
	}
	job->is_assoc_charged = is_running;
}

static const struct job_hook limits_hook = {.changed = limits_job_changed};

int assoc_limits_init(struct ctld *c)
{
	int r = job_hook_add(c, &limits_hook);

	if (r < 0)
		return r;
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];

		if (!job->assoc_id) { /* not journaled: resolved again */
			struct assoc *a = assoc_of_job(c, job);
			struct qos *q = qos_of_job(c, job);

			job->assoc_id = a ? a->id : 0;
			job->qos_id = q ? q->id : 0;
		}
		limits_job_changed(c, job);
	}
	return 0;
}
