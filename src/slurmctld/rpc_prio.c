/* rpc_prio.c - REQUEST_PRIORITY_FACTORS (sprio): the multifactor factors
 * of every pending job the caller may see, filtered by job ids and users.
 * Held jobs (priority 0) are left out, as Slurm does. The factors are
 * those of the job's last computation (as Slurm keeps them), so that they
 * add up to its priority.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "assoc.h"
#include "common/conf.h"
#include "common/conf_prio.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_prio.h"
#include "prio_multifactor.h"
#include "rpc.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* v sorted (the lists may hold a million ids: no scan per job) */
static bool has_id(const uint32_t *v, uint32_t n, uint32_t id)
{
	return n && bsearch(&id, v, n, sizeof(*v), cmp_u32);
}

static bool is_wanted(const struct ctld *c, const struct job *job, const struct prio_factors_req *m,
		      uid_t uid)
{
	if (!job_is_pending(job) || !job->priority || !job_is_visible(c, job, uid))
		return false;
	if (m->job_id_count && !has_id(m->job_ids, m->job_id_count, job->job_id)
	    && !(job->array_job_id && has_id(m->job_ids, m->job_id_count, job->array_job_id)))
		return false;
	return !m->uid_count || has_id(m->uids, m->uid_count, (uint32_t)job->uid);
}

static int fill_job(const struct ctld *c, const struct job *job, time_t now,
		    struct prio_factors_resp *r, struct prio_job_factors *j)
{
	const struct qos *q = qos_of_job(c, job);
	struct prio_weights w;
	struct prio_factors f;

	job_prio_factors(c, job, job->prio_time ? job->prio_time : now, &w, &f); /* as computed */
	*j = (struct prio_job_factors){
	    .job_id = job->job_id,
	    .user_id = (uint32_t)job->uid,
	    .partition = sdup(job->partition),
	    .account = sdup(job->desc ? job->desc->account : NULL),
	    .qos = sdup(q	    ? q->name
			: job->desc ? job->desc->qos
				    : NULL),
	    .priority = job->priority,
	    .nice = (uint32_t)((int64_t)NICE_OFFSET + f.nice),
	    .age = f.age,
	    .assoc = f.assoc,
	    .fairshare = f.fairshare,
	    .job_size = f.job_size,
	    .part = f.partition,
	    .qos_f = f.qos,
	};
	if (r->tres_count && !(j->tres = calloc(r->tres_count, sizeof(*j->tres))))
		return -ENOMEM;
	j->tres_count = r->tres_count;
	if (job->is_prio_fixed) { /* set by an admin: no factor makes it (sprio shows 0s) */
		j->age = j->assoc = j->fairshare = j->job_size = j->part = j->qos_f = 0;
		j->nice = NICE_OFFSET;
		return 0;
	}
	for (uint32_t i = 0; i < r->tres_count && i < PRIO_TRES_MAX; i++)
		j->tres[i] = f.tres[i];
	return 0;
}

static int fill_weights(const struct ctld *c, struct prio_factors_resp *r)
{
	const struct sl_conf *conf = c->conf;
	struct prio_tres_weight tw[PRIO_TRES_MAX];
	int n = conf_prio_tres_parse(conf->prio_weight_tres, tw, PRIO_TRES_MAX);

	r->w_age = conf->prio_weight_age;
	r->w_assoc = conf->prio_weight_assoc;
	r->w_fairshare = conf->prio_weight_fairshare;
	r->w_job_size = conf->prio_weight_job_size;
	r->w_partition = conf->prio_weight_partition;
	r->w_qos = conf->prio_weight_qos;
	r->flags = conf->prio_flags;
	if (n <= 0)
		return 0;
	r->tres_names = calloc((size_t)n, sizeof(*r->tres_names));
	r->tres_weights = calloc((size_t)n, sizeof(*r->tres_weights));
	if (!r->tres_names || !r->tres_weights)
		return -ENOMEM;
	r->tres_count = (uint32_t)n;
	for (int i = 0; i < n; i++) {
		r->tres_weights[i] = tw[i].weight;
		if (!(r->tres_names[i] = strdup(tw[i].name)))
			return -ENOMEM;
	}
	return 0;
}

int rpc_prio_factors(struct ctld *c, struct rpc_req *req)
{
	struct prio_factors_req *m = req->body;
	struct prio_factors_resp r = {0};
	time_t now = time(NULL);
	int rc;

	if (!job_prio_is_multifactor(c))
		return -ESLURM_NOT_SUPPORTED;
	if (m->job_id_count)
		qsort(m->job_ids, m->job_id_count, sizeof(*m->job_ids), cmp_u32);
	if (m->uid_count)
		qsort(m->uids, m->uid_count, sizeof(*m->uids), cmp_u32);
	rc = fill_weights(c, &r);
	if (!rc && c->job_count && !(r.jobs = calloc(c->job_count, sizeof(*r.jobs))))
		rc = -ENOMEM;
	for (uint32_t i = 0; !rc && i < c->job_count; i++)
		if (is_wanted(c, c->jobs[i], m, req->uid))
			rc = fill_job(c, c->jobs[i], now, &r, &r.jobs[r.count++]);
	if (!rc)
		rpc_reply(req, RESPONSE_PRIORITY_FACTORS, &r);
	msg_lookup(RESPONSE_PRIORITY_FACTORS)->free(&r); /* its fields; r is on the stack */
	return rc;
}
