/* msg_assoc.c - accounts, associations and QOS on the wire (msg_assoc.h).
 * Pack, unpack and free mirror each other line for line.
 */
#include "msg_assoc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "limits.h"
#include "msg_family.h"
#include "pack.h"

const char *const assoc_tres_names[ASSOC_TRES_N] = {"cpu", "mem", "node", "gres/gpu"};

void assoc_limits_none(struct assoc_limits *l)
{
	l->grp_jobs = l->grp_submit = l->max_jobs = l->max_submit = ASSOC_NO_LIMIT;
	l->max_wall = ASSOC_NO_LIMIT;
	for (int i = 0; i < ASSOC_TRES_N; i++)
		l->grp_tres[i] = l->max_tres_pj[i] = ASSOC_NO_LIMIT64;
}

bool assoc_name_in_list(const char *list, const char *name)
{
	size_t n = name ? strlen(name) : 0;

	for (const char *p = name ? list : NULL; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && strncasecmp(p, name, n) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* ---- records ---- */

static void tres_pack(const uint64_t *t, struct pack_buf *b)
{
	for (int i = 0; i < ASSOC_TRES_N; i++)
		pack_u64(b, t[i]);
}

static void tres_unpack(uint64_t *t, struct pack_buf *b)
{
	for (int i = 0; i < ASSOC_TRES_N; i++)
		unpack_u64(b, &t[i]);
}

static void limits_pack(const struct assoc_limits *l, struct pack_buf *b)
{
	pack_u32(b, l->grp_jobs);
	pack_u32(b, l->grp_submit);
	pack_u32(b, l->max_jobs);
	pack_u32(b, l->max_submit);
	pack_u32(b, l->max_wall);
	tres_pack(l->grp_tres, b);
	tres_pack(l->max_tres_pj, b);
}

static void limits_unpack(struct assoc_limits *l, struct pack_buf *b)
{
	unpack_u32(b, &l->grp_jobs);
	unpack_u32(b, &l->grp_submit);
	unpack_u32(b, &l->max_jobs);
	unpack_u32(b, &l->max_submit);
	unpack_u32(b, &l->max_wall);
	tres_unpack(l->grp_tres, b);
	tres_unpack(l->max_tres_pj, b);
}

static void assoc_rec_pack(const struct assoc_rec *r, struct pack_buf *b)
{
	pack_u32(b, r->id);
	pack_u32(b, r->parent_id);
	pack_str(b, r->acct);
	pack_str(b, r->user);
	pack_str(b, r->partition);
	pack_u32(b, r->shares);
	pack_u32(b, r->def_qos_id);
	pack_str(b, r->qos_ids);
	limits_pack(&r->lim, b);
	pack_double(b, r->usage_raw);
	pack_double(b, r->fs_factor);
	pack_double(b, r->level_fs);
}

static void assoc_rec_unpack(struct assoc_rec *r, struct pack_buf *b)
{
	unpack_u32(b, &r->id);
	unpack_u32(b, &r->parent_id);
	unpack_str(b, &r->acct, ASSOC_NAME_MAX + 1);
	unpack_str(b, &r->user, ASSOC_NAME_MAX + 1);
	unpack_str(b, &r->partition, SL_NAME_MAX);
	unpack_u32(b, &r->shares);
	unpack_u32(b, &r->def_qos_id);
	unpack_str(b, &r->qos_ids, SL_STR_MAX);
	limits_unpack(&r->lim, b);
	unpack_double(b, &r->usage_raw);
	unpack_double(b, &r->fs_factor);
	unpack_double(b, &r->level_fs);
}

static void qos_rec_pack(const struct qos_rec *r, struct pack_buf *b)
{
	pack_u32(b, r->id);
	pack_str(b, r->name);
	pack_str(b, r->description);
	pack_str(b, r->preempt);
	pack_str(b, r->preempt_mode);
	pack_u32(b, r->priority);
	pack_u32(b, r->grace_time);
	pack_double(b, r->usage_factor);
	pack_u32(b, r->max_wall);
	pack_u32(b, r->max_jobs_pu);
	pack_u32(b, r->max_submit_pu);
	pack_u32(b, r->grp_jobs);
	tres_pack(r->grp_tres, b);
	tres_pack(r->max_tres_pj, b);
}

static void qos_rec_unpack(struct qos_rec *r, struct pack_buf *b)
{
	unpack_u32(b, &r->id);
	unpack_str(b, &r->name, ASSOC_NAME_MAX + 1);
	unpack_str(b, &r->description, ASSOC_TEXT_MAX + 1);
	unpack_str(b, &r->preempt, SL_STR_MAX);
	unpack_str(b, &r->preempt_mode, ASSOC_NAME_MAX + 1);
	unpack_u32(b, &r->priority);
	unpack_u32(b, &r->grace_time);
	unpack_double(b, &r->usage_factor);
	unpack_u32(b, &r->max_wall);
	unpack_u32(b, &r->max_jobs_pu);
	unpack_u32(b, &r->max_submit_pu);
	unpack_u32(b, &r->grp_jobs);
	tres_unpack(r->grp_tres, b);
	tres_unpack(r->max_tres_pj, b);
}

void assoc_rec_done(struct assoc_rec *r)
{
	free(r->acct);
	free(r->user);
	free(r->partition);
	free(r->qos_ids);
	memset(r, 0, sizeof(*r));
}

void qos_rec_done(struct qos_rec *r)
{
	free(r->name);
	free(r->description);
	free(r->preempt);
	free(r->preempt_mode);
	memset(r, 0, sizeof(*r));
}

void user_rec_done(struct user_rec *r)
{
	free(r->name);
	free(r->default_acct);
	memset(r, 0, sizeof(*r));
}

void account_rec_done(struct account_rec *r)
{
	free(r->name);
	free(r->description);
	free(r->organization);
	memset(r, 0, sizeof(*r));
}

static int sdup(char **dst, const char *s)
{
	*dst = NULL;
	return s && !(*dst = strdup(s)) ? -ENOMEM : 0;
}

int qos_rec_copy(struct qos_rec *dst, const struct qos_rec *src)
{
	*dst = *src;
	dst->name = dst->description = dst->preempt = dst->preempt_mode = NULL;
	if (sdup(&dst->name, src->name) || sdup(&dst->description, src->description)
	    || sdup(&dst->preempt, src->preempt) || sdup(&dst->preempt_mode, src->preempt_mode)) {
		qos_rec_done(dst);
		return -ENOMEM;
	}
	return 0;
}

void assoc_dump_free(void *msg)
{
	struct assoc_dump *d = msg;

	free(d->cluster);
	strv_free(d->clusters, d->cluster_count);
	for (uint32_t i = 0; i < d->user_count; i++)
		user_rec_done(&d->users[i]);
	free(d->users);
	for (uint32_t i = 0; i < d->acct_count; i++)
		account_rec_done(&d->accts[i]);
	free(d->accts);
	for (uint32_t i = 0; i < d->assoc_count; i++)
		assoc_rec_done(&d->assocs[i]);
	free(d->assocs);
	for (uint32_t i = 0; i < d->qos_count; i++)
		qos_rec_done(&d->qos[i]);
	free(d->qos);
	memset(d, 0, sizeof(*d));
}

/* ---- RESPONSE_ASSOC_LIST ---- */

void assoc_dump_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct assoc_dump *d = msg;

	(void)ver;
	pack_u32(b, d->error_code);
	pack_str(b, d->cluster);
	pack_strv(b, d->clusters, d->cluster_count);
	pack_u32(b, d->user_count);
	for (uint32_t i = 0; i < d->user_count; i++) {
		pack_str(b, d->users[i].name);
		pack_str(b, d->users[i].default_acct);
		pack_u32(b, d->users[i].admin_level);
	}
	pack_u32(b, d->acct_count);
	for (uint32_t i = 0; i < d->acct_count; i++) {
		pack_str(b, d->accts[i].name);
		pack_str(b, d->accts[i].description);
		pack_str(b, d->accts[i].organization);
	}
	pack_u32(b, d->assoc_count);
	for (uint32_t i = 0; i < d->assoc_count; i++)
		assoc_rec_pack(&d->assocs[i], b);
	pack_u32(b, d->qos_count);
	for (uint32_t i = 0; i < d->qos_count; i++)
		qos_rec_pack(&d->qos[i], b);
	pack_u32(b, d->next_assoc_id);
	pack_u32(b, d->next_qos_id);
}

/* *ret: n zeroed elements of size sz, n read as a count of records of at
 * least min_size bytes. */
static void *unpack_array(struct pack_buf *b, uint32_t *n, size_t sz, size_t min_size)
{
	void *v;

	unpack_count(b, n, ASSOC_RECS_MAX, min_size);
	if (b->err || *n == 0) {
		*n = 0;
		return NULL;
	}
	v = calloc(*n, sz);
	if (!v) {
		b->err = -ENOMEM;
		*n = 0;
	}
	return v;
}

int assoc_dump_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct assoc_dump *d = msg;

	(void)ver;
	unpack_u32(b, &d->error_code);
	unpack_str(b, &d->cluster, ASSOC_NAME_MAX + 1);
	unpack_strv(b, &d->clusters, &d->cluster_count, ASSOC_RECS_MAX);
	d->users = unpack_array(b, &d->user_count, sizeof(*d->users), 12);
	for (uint32_t i = 0; i < d->user_count && !b->err; i++) {
		unpack_str(b, &d->users[i].name, ASSOC_NAME_MAX + 1);
		unpack_str(b, &d->users[i].default_acct, ASSOC_NAME_MAX + 1);
		unpack_u32(b, &d->users[i].admin_level);
	}
	d->accts = unpack_array(b, &d->acct_count, sizeof(*d->accts), 12);
	for (uint32_t i = 0; i < d->acct_count && !b->err; i++) {
		unpack_str(b, &d->accts[i].name, ASSOC_NAME_MAX + 1);
		unpack_str(b, &d->accts[i].description, ASSOC_TEXT_MAX + 1);
		unpack_str(b, &d->accts[i].organization, ASSOC_TEXT_MAX + 1);
	}
	d->assocs = unpack_array(b, &d->assoc_count, sizeof(*d->assocs), 100);
	for (uint32_t i = 0; i < d->assoc_count && !b->err; i++)
		assoc_rec_unpack(&d->assocs[i], b);
	d->qos = unpack_array(b, &d->qos_count, sizeof(*d->qos), 100);
	for (uint32_t i = 0; i < d->qos_count && !b->err; i++)
		qos_rec_unpack(&d->qos[i], b);
	unpack_u32(b, &d->next_assoc_id);
	unpack_u32(b, &d->next_qos_id);
	return b->err;
}

/* ---- REQUEST_ASSOC_MGR / RESPONSE_ASSOC_MGR / REQUEST_ASSOC_LIST ---- */

void assoc_mgr_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct assoc_mgr_req *m = msg;

	(void)ver;
	pack_u32(b, m->op);
	pack_u32(b, m->entity);
	pack_u32(b, m->flags);
	pack_str(b, m->names);
	pack_str(b, m->where);
	pack_str(b, m->set);
}

int assoc_mgr_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct assoc_mgr_req *m = msg;

	(void)ver;
	unpack_u32(b, &m->op);
	unpack_u32(b, &m->entity);
	unpack_u32(b, &m->flags);
	unpack_str(b, &m->names, SL_STR_MAX);
	unpack_str(b, &m->where, SL_STR_MAX);
	unpack_str(b, &m->set, SL_STR_MAX);
	return b->err;
}

void assoc_mgr_req_free(void *msg)
{
	struct assoc_mgr_req *m = msg;

	free(m->names);
	free(m->where);
	free(m->set);
	memset(m, 0, sizeof(*m));
}

void assoc_mgr_resp_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct assoc_mgr_resp *m = msg;

	(void)ver;
	pack_u32(b, m->rc);
	pack_bool(b, m->is_changed);
	pack_str(b, m->out);
	pack_str(b, m->err);
}

int assoc_mgr_resp_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct assoc_mgr_resp *m = msg;

	(void)ver;
	unpack_u32(b, &m->rc);
	unpack_bool(b, &m->is_changed);
	unpack_str(b, &m->out, SL_STR_MAX);
	unpack_str(b, &m->err, SL_STR_MAX);
	return b->err;
}

void assoc_mgr_resp_free(void *msg)
{
	struct assoc_mgr_resp *m = msg;

	free(m->out);
	free(m->err);
	memset(m, 0, sizeof(*m));
}

void assoc_list_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	(void)ver;
	pack_u32(b, ((const struct assoc_list_req *)msg)->flags);
}

int assoc_list_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	(void)ver;
	unpack_u32(b, &((struct assoc_list_req *)msg)->flags);
	return b->err;
}

void assoc_list_req_free(void *msg)
{
	(void)msg;
}
