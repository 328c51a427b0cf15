/* msg_prio.c - pack/unpack/free of the priority factor messages. */
#include "msg_prio.h"

#include <errno.h>
#include <stdlib.h>

#include "limits.h"
#include "msg.h"
#include "msg_family.h"
#include "pack.h"

#define PRIO_TRES_WIRE_MAX 64 /* TRES weights a response may carry */

static void pack_ids(struct pack_buf *b, const uint32_t *v, uint32_t n)
{
	pack_u32(b, n);
	for (uint32_t i = 0; i < n; i++)
		pack_u32(b, v[i]);
}

static void unpack_ids(struct pack_buf *b, uint32_t **ret, uint32_t *ret_n)
{
	uint32_t n = 0;

	unpack_count(b, &n, SL_ARRAY_MAX, 4);
	if (b->err || !n)
		return;
	if (!(*ret = calloc(n, sizeof(**ret)))) {
		b->err = -ENOMEM;
		return;
	}
	*ret_n = n;
	for (uint32_t i = 0; i < n; i++)
		unpack_u32(b, &(*ret)[i]);
}

void prio_factors_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct prio_factors_req *m = msg;

	(void)ver;
	pack_ids(b, m->job_ids, m->job_id_count);
	pack_ids(b, m->uids, m->uid_count);
}

int prio_factors_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct prio_factors_req *m = msg;

	(void)ver;
	unpack_ids(b, &m->job_ids, &m->job_id_count);
	unpack_ids(b, &m->uids, &m->uid_count);
	return b->err;
}

void prio_factors_req_free(void *msg)
{
	struct prio_factors_req *m = msg;

	free(m->job_ids);
	free(m->uids);
}

static void pack_job(struct pack_buf *b, const struct prio_job_factors *j, uint32_t tres_count)
{
	pack_u32(b, j->job_id);
	pack_u32(b, j->user_id);
	pack_str(b, j->partition);
	pack_str(b, j->account);
	pack_str(b, j->qos);
	pack_u32(b, j->priority);
	pack_u32(b, j->nice);
	pack_double(b, j->age);
	pack_double(b, j->assoc);
	pack_double(b, j->fairshare);
	pack_double(b, j->job_size);
	pack_double(b, j->part);
	pack_double(b, j->qos_f);
	for (uint32_t i = 0; i < tres_count; i++)
		pack_double(b, j->tres ? j->tres[i] : 0);
}

static void unpack_job(struct pack_buf *b, struct prio_job_factors *j, uint32_t tres_count)
{
	unpack_u32(b, &j->job_id);
	unpack_u32(b, &j->user_id);
	unpack_str(b, &j->partition, SL_NAME_MAX);
	unpack_str(b, &j->account, SL_NAME_MAX);
	unpack_str(b, &j->qos, SL_NAME_MAX);
	unpack_u32(b, &j->priority);
	unpack_u32(b, &j->nice);
	unpack_double(b, &j->age);
	unpack_double(b, &j->assoc);
	unpack_double(b, &j->fairshare);
	unpack_double(b, &j->job_size);
	unpack_double(b, &j->part);
	unpack_double(b, &j->qos_f);
	if (b->err || !tres_count)
		return;
	if (!(j->tres = calloc(tres_count, sizeof(*j->tres)))) {
		b->err = -ENOMEM;
		return;
	}
	j->tres_count = tres_count;
	for (uint32_t i = 0; i < tres_count; i++)
		unpack_double(b, &j->tres[i]);
}

void prio_factors_resp_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct prio_factors_resp *m = msg;

	(void)ver;
	pack_u32(b, m->w_age);
	pack_u32(b, m->w_assoc);
	pack_u32(b, m->w_fairshare);
	pack_u32(b, m->w_job_size);
	pack_u32(b, m->w_partition);
	pack_u32(b, m->w_qos);
	pack_u32(b, m->flags);
	pack_strv(b, m->tres_names, m->tres_count);
	for (uint32_t i = 0; i < m->tres_count; i++)
		pack_double(b, m->tres_weights ? m->tres_weights[i] : 0);
	pack_u32(b, m->count);
	for (uint32_t i = 0; i < m->count; i++)
		pack_job(b, &m->jobs[i], m->tres_count);
}

int prio_factors_resp_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct prio_factors_resp *m = msg;
	uint32_t n = 0;

	(void)ver;
	unpack_u32(b, &m->w_age);
	unpack_u32(b, &m->w_assoc);
	unpack_u32(b, &m->w_fairshare);
	unpack_u32(b, &m->w_job_size);
	unpack_u32(b, &m->w_partition);
	unpack_u32(b, &m->w_qos);
	unpack_u32(b, &m->flags);
	unpack_strv(b, &m->tres_names, &m->tres_count, PRIO_TRES_WIRE_MAX);
	if (!b->err && m->tres_count
	    && !(m->tres_weights = calloc(m->tres_count, sizeof(*m->tres_weights))))
		b->err = -ENOMEM;
	for (uint32_t i = 0; !b->err && i < m->tres_count; i++)
		unpack_double(b, &m->tres_weights[i]);
	unpack_count(b, &n, SL_ARRAY_MAX, 4 * 4 + 4 * 3 + 8 * 6);
	if (b->err || !n)
		return b->err;
	if (!(m->jobs = calloc(n, sizeof(*m->jobs))))
		return b->err = -ENOMEM;
	m->count = n;
	for (uint32_t i = 0; !b->err && i < n; i++)
		unpack_job(b, &m->jobs[i], m->tres_count);
	return b->err;
}

void prio_factors_resp_free(void *msg)
{
	struct prio_factors_resp *m = msg;

	strv_free(m->tres_names, m->tres_count);
	free(m->tres_weights);
	for (uint32_t i = 0; m->jobs && i < m->count; i++) {
		free(m->jobs[i].partition);
		free(m->jobs[i].account);
		free(m->jobs[i].qos);
		free(m->jobs[i].tres);
	}
	free(m->jobs);
}
