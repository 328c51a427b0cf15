/* assoc.c - the association/QOS table (assoc.h).
 *
 * Purpose: the controller's copy of sacctmgr's records: the association
 * tree (pointers to parents), the QOS, users, accounts and clusters; the
 * lookups a job's account/QOS resolution needs; the conversion to and from
 * flat records (struct assoc_dump) for the store and the RPCs.
 * Owns: every record of c->assoc. Changes come from assoc_edit.c only.
 * Caveats: lookups are linear (sacctmgr tables are small; a job caches its
 * association id in job->assoc_id).
 */
#include "assoc.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/msg.h"
#include "common/pack.h"
#include "ctld.h"
#include "job.h"

struct assoc *assoc_by_id(const struct assoc_table *t, uint32_t id)
{
	uint32_t lo = 0, hi = t->assoc_count;

	while (lo < hi) { /* id order */
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->assocs[mid]->id == id)
			return t->assocs[mid];
		if (t->assocs[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct qos *assoc_qos_by_id(const struct assoc_table *t, uint32_t id)
{
	for (uint32_t i = 0; i < t->qos_count; i++)
		if (t->qos[i]->id == id)
			return t->qos[i];
	return NULL;
}

struct qos *assoc_qos_find(const struct assoc_table *t, const char *name)
{
	for (uint32_t i = 0; name && i < t->qos_count; i++)
		if (strcasecmp(t->qos[i]->name, name) == 0)
			return t->qos[i];
	return NULL;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

struct assoc *assoc_find(const struct assoc_table *t, const char *acct, const char *user,
			 const char *partition)
{
	struct assoc *any = NULL;

	if (!acct)
		return NULL;
	for (uint32_t i = 0; i < t->assoc_count; i++) {
		struct assoc *a = t->assocs[i];

		if (a->is_deleted || strcasecmp(a->acct, acct) != 0 || !str_eq(a->user, user))
			continue;
		if (str_eq(a->partition, partition))
			return a;
		if (!a->partition)
			any = a;
	}
	return any;
}

struct user_rec *assoc_user_find(const struct assoc_table *t, const char *name)
{
	for (uint32_t i = 0; name && i < t->user_count; i++)
		if (strcmp(t->users[i].name, name) == 0)
			return &t->users[i];
	return NULL;
}

struct account_rec *assoc_acct_find(const struct assoc_table *t, const char *name)
{
	for (uint32_t i = 0; name && i < t->acct_count; i++)
		if (strcmp(t->accts[i].name, name) == 0)
			return &t->accts[i];
	return NULL;
}

const uint32_t *assoc_qos_allowed(const struct assoc *a, uint32_t *ret_count)
{
	for (; a; a = a->parent)
		if (a->qos_id_count) {
			*ret_count = a->qos_id_count;
			return a->qos_ids;
		}
	*ret_count = 0;
	return NULL;
}

uint32_t assoc_def_qos(const struct assoc *a)
{
	for (; a; a = a->parent)
		if (a->def_qos_id)
			return a->def_qos_id;
	return 0;
}

struct assoc *assoc_of_job(const struct ctld *c, const struct job *job)
{
	const struct assoc_table *t = &c->assoc;
	struct assoc *a;

	if (!t->assoc_count)
		return NULL;
	if (job->assoc_id && (a = assoc_by_id(t, job->assoc_id)))
		return a;
	return assoc_find(t, job->desc ? job->desc->account : NULL, job->user_name, job->partition);
}

struct qos *qos_of_job(const struct ctld *c, const struct job *job)
{
	struct qos *q;

	if (job->qos_id && (q = assoc_qos_by_id(&c->assoc, job->qos_id)))
		return q;
	return assoc_qos_find(&c->assoc, job->desc ? job->desc->qos : NULL);
}

/* ---- records ---- */

static int sdup(char **dst, const char *s)
{
	*dst = NULL;
	return s && !(*dst = strdup(s)) ? -ENOMEM : 0;
}

/* "1,3" from the ids, "" when none. */
static char *ids_str(const uint32_t *ids, uint32_t n)
{
	size_t cap = (size_t)n * 11 + 1, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s%u", i ? "," : "", ids[i]);
	return s;
}

static int assoc_to_rec(const struct assoc *a, struct assoc_rec *r)
{
	*r = (struct assoc_rec){
	    .id = a->id,
	    .parent_id = a->parent ? a->parent->id : 0,
	    .shares = a->shares_raw,
	    .def_qos_id = a->def_qos_id,
	    .lim = a->lim,
	    .usage_raw = a->usage_raw,
	    .fs_factor = a->fs_factor,
	    .level_fs = a->level_fs,
	};
	if (sdup(&r->acct, a->acct) || sdup(&r->user, a->user) || sdup(&r->partition, a->partition)
	    || !(r->qos_ids = ids_str(a->qos_ids, a->qos_id_count))) {
		assoc_rec_done(r);
		return -ENOMEM;
	}
	return 0;
}

static int dump_users(const struct assoc_table *t, struct assoc_dump *d)
{
	d->users = calloc(t->user_count + 1, sizeof(*d->users));
	d->accts = calloc(t->acct_count + 1, sizeof(*d->accts));
	d->clusters = calloc(t->cluster_count + 1, sizeof(*d->clusters));
	if (!d->users || !d->accts || !d->clusters)
		return -ENOMEM;
	for (; d->user_count < t->user_count; d->user_count++) {
		const struct user_rec *u = &t->users[d->user_count];
		struct user_rec *o = &d->users[d->user_count];

		o->admin_level = u->admin_level;
		if (sdup(&o->name, u->name) || sdup(&o->default_acct, u->default_acct))
			return -ENOMEM;
	}
	for (; d->acct_count < t->acct_count; d->acct_count++) {
		const struct account_rec *a = &t->accts[d->acct_count];
		struct account_rec *o = &d->accts[d->acct_count];

		if (sdup(&o->name, a->name) || sdup(&o->description, a->description)
		    || sdup(&o->organization, a->organization))
			return -ENOMEM;
	}
	for (; d->cluster_count < t->cluster_count; d->cluster_count++)
		if (sdup(&d->clusters[d->cluster_count], t->clusters[d->cluster_count]))
			return -ENOMEM;
	return 0;
}

int assoc_table_dump(const struct assoc_table *t, struct assoc_dump *d)
{
	int r;

	*d = (struct assoc_dump){.next_assoc_id = t->next_assoc_id, .next_qos_id = t->next_qos_id};
	r = dump_users(t, d);
	d->assocs = calloc(t->assoc_count + 1, sizeof(*d->assocs));
	d->qos = calloc(t->qos_count + 1, sizeof(*d->qos));
	if (!d->assocs || !d->qos)
		r = -ENOMEM;
	for (uint32_t i = 0; r == 0 && i < t->assoc_count; i++) {
		if (t->assocs[i]->is_deleted)
			continue;
		r = assoc_to_rec(t->assocs[i], &d->assocs[d->assoc_count]);
		if (r == 0)
			d->assoc_count++;
	}
	for (uint32_t i = 0; r == 0 && i < t->qos_count; i++) {
		const struct qos *q = t->qos[i];

		r = qos_rec_copy(&d->qos[d->qos_count], &q->rec);
		if (r == 0) {
			struct qos_rec *o = &d->qos[d->qos_count++];

			o->id = q->id;
			o->priority = q->priority;
			o->usage_factor = q->usage_factor;
		}
	}
	if (r < 0)
		assoc_dump_free(d);
	return r;
}

struct assoc *assoc_free(struct assoc *a)
{
	if (a) {
		free(a->acct);
		free(a->user);
		free(a->partition);
		free(a->qos_ids);
		free(a);
	}
	return NULL;
}

struct qos *qos_free(struct qos *q)
{
	if (q) {
		qos_rec_done(&q->rec);
		free(q->users);
		free(q);
	}
	return NULL;
}

void assoc_table_free(struct assoc_table *t)
{
	for (uint32_t i = 0; i < t->assoc_count; i++)
		assoc_free(t->assocs[i]);
	free(t->assocs);
	for (uint32_t i = 0; i < t->qos_count; i++)
		qos_free(t->qos[i]);
	free(t->qos);
	for (uint32_t i = 0; i < t->user_count; i++)
		user_rec_done(&t->users[i]);
	free(t->users);
	for (uint32_t i = 0; i < t->acct_count; i++)
		account_rec_done(&t->accts[i]);
	free(t->accts);
	strv_free(t->clusters, t->cluster_count);
	*t = (struct assoc_table){0};
}

/* "1,3" -> ids; unknown ids are dropped. */
static int ids_parse(const struct assoc_table *t, const char *s, uint32_t **ret, uint32_t *ret_n)
{
	uint32_t n = 0, cap = 0, *v = NULL;

	*ret = NULL;
	*ret_n = 0;
	while (s && *s) {
		char *end;
		unsigned long id = strtoul(s, &end, 10);

		if (end == s)
			break;
		if (assoc_qos_by_id(t, (uint32_t)id)) {
			if (n == cap) {
				uint32_t *nv = realloc(v, (cap = cap * 2 + 4) * sizeof(*v));

				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[n++] = (uint32_t)id;
		}
		s = *end == ',' ? end + 1 : end;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int assoc_table_add_qos(struct assoc_table *t, struct qos *q)
{
	struct qos **v = realloc(t->qos, (t->qos_count + 1) * sizeof(*v));

	if (!v) {
		qos_free(q);
		return -ENOMEM;
	}
	t->qos = v;
	t->qos[t->qos_count++] = q;
	if (q->id >= t->next_qos_id)
		t->next_qos_id = q->id + 1;
	return 0;
}

int assoc_table_add_assoc(struct assoc_table *t, struct assoc *a)
{
	struct assoc **v = realloc(t->assocs, (t->assoc_count + 1) * sizeof(*v));

	if (!v) {
		assoc_free(a);
		return -ENOMEM;
	}
	t->assocs = v;
	t->assocs[t->assoc_count++] = a;
	if (a->id >= t->next_assoc_id)
		t->next_assoc_id = a->id + 1;
	return 0;
}

static int load_qos(struct assoc_table *t, const struct qos_rec *r)
{
	struct qos *q = calloc(1, sizeof(*q));

	if (!q || qos_rec_copy(&q->rec, r) < 0 || sdup(&q->name, r->name)) {
		qos_free(q);
		return -ENOMEM;
	}
	free(q->name); /* the name lives in rec */
	q->name = q->rec.name;
	q->id = r->id;
	q->priority = r->priority;
	q->usage_factor = r->usage_factor;
	return assoc_table_add_qos(t, q);
}

static int cmp_rec_id(const void *x, const void *y)
{
	uint32_t a = ((const struct assoc_rec *)x)->id, b = ((const struct assoc_rec *)y)->id;

	return a < b ? -1 : a > b;
}

static int load_assoc(struct assoc_table *t, const struct assoc_rec *r)
{
	struct assoc *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->id = r->id;
	a->shares_raw = r->shares;
	a->def_qos_id = r->def_qos_id;
	a->lim = r->lim;
	a->usage_raw = r->usage_raw;
	if (r->parent_id && !(a->parent = assoc_by_id(t, r->parent_id))) {
		assoc_free(a);
		return -EINVAL;
	}
	if (sdup(&a->acct, r->acct) || sdup(&a->user, r->user) || sdup(&a->partition, r->partition)
	    || ids_parse(t, r->qos_ids, &a->qos_ids, &a->qos_id_count) < 0) {
		assoc_free(a);
		return -ENOMEM;
	}
	if (!a->acct) {
		assoc_free(a);
		return -EINVAL;
	}
	return assoc_table_add_assoc(t, a);
}

int assoc_table_load(struct assoc_table *t, const struct assoc_dump *d)
{
	struct assoc_dump copy = {0};
	int r;

	assoc_table_free(t);
	t->next_assoc_id = d->next_assoc_id ? d->next_assoc_id : 1;
	t->next_qos_id = d->next_qos_id ? d->next_qos_id : 1;
	r = 0;
	for (uint32_t i = 0; r == 0 && i < d->qos_count; i++)
		r = load_qos(t, &d->qos[i]);
	/* parents before children: ids are given in creation order */
	if (r == 0 && d->assoc_count) {
		copy.assocs = malloc(d->assoc_count * sizeof(*copy.assocs));
		if (!copy.assocs)
			r = -ENOMEM;
		else
			memcpy(copy.assocs, d->assocs, d->assoc_count * sizeof(*copy.assocs));
		if (r == 0)
			qsort(copy.assocs, d->assoc_count, sizeof(*copy.assocs), cmp_rec_id);
	}
	for (uint32_t i = 0; r == 0 && i < d->assoc_count; i++)
		r = load_assoc(t, &copy.assocs[i]);
	free(copy.assocs); /* shallow */
	/* users, accounts and clusters: the dump's own deep copy */
	if (r == 0) {
		struct assoc_table tmp = {.users = d->users,
					  .user_count = d->user_count,
					  .accts = d->accts,
					  .acct_count = d->acct_count,
					  .clusters = d->clusters,
					  .cluster_count = d->cluster_count};
		struct assoc_dump dd = {0};

		r = dump_users(&tmp, &dd);
		if (r == 0) {
			t->users = dd.users, t->user_count = dd.user_count;
			t->accts = dd.accts, t->acct_count = dd.acct_count;
			t->clusters = dd.clusters, t->cluster_count = dd.cluster_count;
		} else {
			assoc_dump_free(&dd);
		}
	}
	if (r < 0)
		assoc_table_free(t);
	t->last_update = time(NULL);
	return r;
}

int assoc_table_ensure_normal(struct assoc_table *t)
{
	struct qos_rec r = {.name = "normal",
			    .description = "Normal QOS default",
			    .preempt_mode = "cluster",
			    .usage_factor = 1.0,
			    .max_wall = ASSOC_NO_LIMIT,
			    .max_jobs_pu = ASSOC_NO_LIMIT,
			    .max_submit_pu = ASSOC_NO_LIMIT,
			    .grp_jobs = ASSOC_NO_LIMIT};

	if (assoc_qos_find(t, "normal"))
		return 0;
	for (int i = 0; i < ASSOC_TRES_N; i++)
		r.grp_tres[i] = r.max_tres_pj[i] = ASSOC_NO_LIMIT64;
	r.id = t->next_qos_id ? t->next_qos_id : 1;
	return load_qos(t, &r);
}
