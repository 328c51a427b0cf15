/* assoc_edit.c - sacctmgr's changes to the association table
 * (assoc_edit.h).
 *
 * Purpose: add/modify/delete of clusters, accounts, users and QOS with
 * Slurm's messages. A request's options arrive as "Key=Value" lines
 * (struct opts); every value is checked (struct vals) before anything is
 * changed, and assoc_edit_checked runs the whole change on a copy of the
 * table first, so a refusal changes nothing.
 * Owns: nothing beyond the call.
 * Caveats: one cluster (ClusterName): associations carry no cluster.
 * Deleted associations stay in memory (is_deleted) while jobs may refer
 * to them; they are not saved, so a restart forgets them.
 */
#include "assoc_edit.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc.h"
#include "assoc_edit_int.h"
#include "common/macros.h"
#include "common/parse_mem.h"
#include "common/parse_time.h"
#include "common/pack.h"
#include "common/sl_errno.h"

#define LIST_MAX 4096 /* a comma list of names */

/* ---- applying values ---- */

static void set_ids(struct assoc *a, const uint32_t *ids, uint32_t n)
{
	uint32_t *v = n ? malloc(n * sizeof(*v)) : NULL;

	if (n && !v)
		return; /* out of memory: the list stays */
	if (n)
		memcpy(v, ids, n * sizeof(*v));
	free(a->qos_ids);
	a->qos_ids = v;
	a->qos_id_count = n;
}

static void apply_qos_list(struct edit *e, struct assoc *a)
{
	uint32_t cur_n, ids[128], n = 0;
	const uint32_t *cur = assoc_qos_allowed(a, &cur_n);

	if (e->set.op[K_QOS] == '=') {
		set_ids(a, e->v.qos_ids, e->v.qos_count);
		return;
	}
	for (uint32_t i = 0; i < cur_n && n < ARRAY_SIZE(ids); i++) {
		bool is_removed = false;

		for (uint32_t j = 0; e->set.op[K_QOS] == '-' && j < e->v.qos_count; j++)
			is_removed |= e->v.qos_ids[j] == cur[i];
		if (!is_removed)
			ids[n++] = cur[i];
	}
	for (uint32_t j = 0; e->set.op[K_QOS] == '+' && j < e->v.qos_count; j++) {
		bool is_there = false;

		for (uint32_t i = 0; i < n; i++)
			is_there |= ids[i] == e->v.qos_ids[j];
		if (!is_there && n < ARRAY_SIZE(ids))
			ids[n++] = e->v.qos_ids[j];
	}
	set_ids(a, ids, n);
}

static void apply_assoc(struct edit *e, struct assoc *a)
{
	const struct vals *v = &e->v;
	struct assoc_limits *l = &a->lim;

	if (v->has[K_SHARES])
		a->shares_raw = v->u[K_SHARES];
	if (v->has[K_GRPJOBS])
		l->grp_jobs = v->u[K_GRPJOBS];
	if (v->has[K_GRPSUBMIT])
		l->grp_submit = v->u[K_GRPSUBMIT];
	if (v->has[K_MAXJOBS])
		l->max_jobs = v->u[K_MAXJOBS];
	if (v->has[K_MAXSUBMIT])
		l->max_submit = v->u[K_MAXSUBMIT];
	if (v->has[K_MAXWALL])
		l->max_wall = v->u[K_MAXWALL];
	for (int i = 0; i < ASSOC_TRES_N; i++) {
		if (v->has_tres[0][i])
			l->grp_tres[i] = v->tres[0][i];
		if (v->has_tres[1][i])
			l->max_tres_pj[i] = v->tres[1][i];
	}
	if (v->has[K_DEFQOS])
		a->def_qos_id = v->u[K_DEFQOS];
	if (v->has[K_QOS])
		apply_qos_list(e, a);
	e->t->last_update = time(NULL);
}

static int set_str(char **dst, const char *s)
{
	char *n = s ? strdup(s) : NULL;

	if (s && !n)
		return -ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

static int new_assoc(struct edit *e, struct assoc *parent, const char *acct, const char *user,
		     const char *part, struct assoc **ret)
{
	struct assoc *a = calloc(1, sizeof(*a));

	if (!a || set_str(&a->acct, acct) || set_str(&a->user, user)
	    || set_str(&a->partition, part)) {
		assoc_free(a);
		return -ENOMEM;
	}
	a->id = e->t->next_assoc_id ? e->t->next_assoc_id : 1;
	a->parent = parent;
	a->shares_raw = 1;
	assoc_limits_none(&a->lim);
	if (ret)
		*ret = a;
	return assoc_table_add_assoc(e->t, a);
}

/* The association line of Slurm's reports. */
static void assoc_line(struct edit *e, const struct assoc *a)
{
	if (a->user)
		fprintf(e->out, "  C = %-10.10s A = %-10.10s U = %-9.9s%s%s\n", e->cluster, a->acct,
			a->user, a->partition ? " P = " : "", a->partition ? a->partition : "");
	else
		fprintf(e->out, "  C = %-10.10s A = %-10.10s\n", e->cluster, a->acct);
}

static void print_settings(struct edit *e, const char *title)
{
	bool is_first = true;

	for (int k = K_SHARES; k < K_N; k++) {
		if (!e->set.v[k] || k == K_ADMIN)
			continue;
		if (is_first)
			fprintf(e->out, " %s\n", title);
		is_first = false;
		fprintf(e->out, "  %-15s %s %s\n", key_names[k],
			e->set.op[k] == '='   ? "="
			: e->set.op[k] == '+' ? "+="
					      : "-=",
			e->set.v[k]);
	}
}

#define BIT(k) (1ull << (k))
#define ASSOC_KEYS                                                                                 \
	(BIT(K_SHARES) | BIT(K_GRPJOBS) | BIT(K_GRPSUBMIT) | BIT(K_MAXJOBS) | BIT(K_MAXSUBMIT)     \
	 | BIT(K_MAXWALL) | BIT(K_GRPTRES) | BIT(K_MAXTRESPJ) | BIT(K_QOS) | BIT(K_DEFQOS))
#define QOS_KEYS                                                                                   \
	(BIT(K_NAME) | BIT(K_DESC) | BIT(K_PRIORITY) | BIT(K_USAGEFACTOR) | BIT(K_MAXWALL)         \
	 | BIT(K_MAXTRESPJ) | BIT(K_MAXJOBSPU) | BIT(K_MAXSUBMITPU) | BIT(K_GRPTRES)               \
	 | BIT(K_GRPJOBS) | BIT(K_PREEMPT) | BIT(K_PREEMPTMODE) | BIT(K_GRACE))

static uint64_t allowed_keys(uint32_t entity)
{
	switch (entity) {
	case ASSOC_E_ACCOUNT:
		return ASSOC_KEYS | BIT(K_NAME) | BIT(K_DESC) | BIT(K_ORG) | BIT(K_PARENT)
		       | BIT(K_CLUSTER);
	case ASSOC_E_USER:
		return ASSOC_KEYS | BIT(K_NAME) | BIT(K_ACCOUNT) | BIT(K_DEFACCT) | BIT(K_PARTITION)
		       | BIT(K_ADMIN) | BIT(K_CLUSTER);
	case ASSOC_E_QOS:
		return QOS_KEYS;
	default:
		return BIT(K_NAME);
	}
}

/* ---- users, accounts ---- */

static int user_remove(struct assoc_table *t, const char *name)
{
	for (uint32_t i = 0; i < t->user_count; i++)
		if (strcmp(t->users[i].name, name) == 0) {
			user_rec_done(&t->users[i]);
			memmove(&t->users[i], &t->users[i + 1],
				(t->user_count - i - 1) * sizeof(*t->users));
			t->user_count--;
			return 1;
		}
	return 0;
}

static int user_add(struct assoc_table *t, const char *name, const char *def_acct, uint32_t admin)
{
	struct user_rec *v = realloc(t->users, (t->user_count + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->users = v;
	v = &t->users[t->user_count];
	*v = (struct user_rec){.admin_level = admin ? admin : 1};
	if (set_str(&v->name, name) || set_str(&v->default_acct, def_acct)) {
		user_rec_done(v);
		return -ENOMEM;
	}
	t->user_count++;
	return 0;
}

static int acct_add(struct assoc_table *t, const char *name, const char *desc, const char *org)
{
	struct account_rec *v = realloc(t->accts, (t->acct_count + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->accts = v;
	v = &t->accts[t->acct_count];
	*v = (struct account_rec){0};
	if (set_str(&v->name, name) || set_str(&v->description, desc)
	    || set_str(&v->organization, org)) {
		account_rec_done(v);
		return -ENOMEM;
	}
	t->acct_count++;
	return 0;
}

/* A user whose associations are all gone leaves; one whose default
 * account is gone gets another of its accounts. */
static void users_fix(struct assoc_table *t)
{
	for (uint32_t i = 0; i < t->user_count;) {
		struct user_rec *u = &t->users[i];
		struct assoc *any = NULL;

		for (uint32_t j = 0; j < t->assoc_count && !any; j++)
			if (!t->assocs[j]->is_deleted && t->assocs[j]->user
			    && strcmp(t->assocs[j]->user, u->name) == 0)
				any = t->assocs[j];
		if (!any) {
			user_remove(t, u->name);
			continue;
		}
		if (!u->default_acct || !assoc_find(t, u->default_acct, u->name, NULL))
			set_str(&u->default_acct, any->acct);
		i++;
	}
}

/* ---- add ---- */

struct names {
	char *v[256];
	uint32_t n;
};

static int collect(struct edit *e, const char *name, void *arg)
{
	struct names *ns = arg;

	(void)e;
	for (uint32_t i = 0; i < ns->n; i++)
		if (strcmp(ns->v[i], name) == 0)
			return 0;
	if (ns->n >= ARRAY_SIZE(ns->v)) {
		fprintf(e->err, " Too many names given\n");
		return -EINVAL;
	}
	return (ns->v[ns->n] = strdup(name)) ? (int)++ns->n * 0 : -ENOMEM;
}

static void names_free(struct names *ns)
{
	for (uint32_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	ns->n = 0;
}

static int add_cluster(struct edit *e, struct names *ns)
{
	struct assoc_table *t = e->t;
	struct assoc *root = NULL;
	struct qos *normal;
	int r = 0, added = 0;

	for (uint32_t i = 0; i < ns->n && r == 0; i++) {
		bool is_there = false;

		for (uint32_t j = 0; j < t->cluster_count; j++)
			is_there |= strcmp(t->clusters[j], ns->v[i]) == 0;
		if (is_there) {
			fprintf(e->out, " This cluster %s already exists.  Not adding.\n",
				ns->v[i]);
			continue;
		}
		char **v = realloc(t->clusters, (t->cluster_count + 1) * sizeof(*v));

		if (!v || !(v[t->cluster_count] = strdup(ns->v[i])))
			return -ENOMEM;
		t->clusters = v;
		t->cluster_count++;
		if (!added++)
			fprintf(e->out, " Adding Cluster(s)\n");
		fprintf(e->out, "  Name           = %s\n", ns->v[i]);
	}
	if (!added)
		return 0;
	if (assoc_find(t, "root", NULL, NULL))
		return 1;
	if ((r = assoc_table_ensure_normal(t)) < 0
	    || (r = new_assoc(e, NULL, "root", NULL, NULL, &root)) < 0
	    || (r = new_assoc(e, root, "root", "root", NULL, NULL)) < 0
	    || (r = acct_add(t, "root", "default root account", "root")) < 0
	    || (r = user_add(t, "root", "root", 3)) < 0)
		return r;
	normal = assoc_qos_find(t, "normal");
	if (normal)
		set_ids(root, &normal->id, 1);
	return 1;
}

static struct assoc *root_of(struct edit *e)
{
	struct assoc *root = assoc_find(e->t, "root", NULL, NULL);

	if (!root)
		fprintf(e->err, " No cluster defined: add one first (sacctmgr add cluster %s)\n",
			e->cluster);
	return root;
}

static int add_account(struct edit *e, struct names *ns)
{
	struct assoc *parent = e->v.parent ? e->v.parent : root_of(e);
	struct names nw = {0};
	int r = 0;

	if (!parent)
		return -ESLURM_INVALID_ACCOUNT;
	for (uint32_t i = 0; i < ns->n && r == 0; i++)
		if (!assoc_acct_find(e->t, ns->v[i]) && !assoc_find(e->t, ns->v[i], NULL, NULL))
			r = collect(e, ns->v[i], &nw);
	if (r < 0 || nw.n == 0) {
		names_free(&nw);
		if (r == 0)
			fprintf(e->out, " Nothing new added.\n");
		return r;
	}
	fprintf(e->out, " Adding Account(s)\n");
	for (uint32_t i = 0; i < nw.n; i++)
		fprintf(e->out, "  %s\n", nw.v[i]);
	fprintf(e->out, " Settings\n  Description     = %s\n  Organization    = %s\n",
		e->set.v[K_DESC] ? e->set.v[K_DESC] : "Account Name",
		e->set.v[K_ORG] ? e->set.v[K_ORG] : "Parent/Account Name");
	fprintf(e->out, " Associations\n");
	for (uint32_t i = 0; i < nw.n && r == 0; i++) {
		struct assoc *a = NULL;
		const char *org = e->set.v[K_ORG]		 ? e->set.v[K_ORG]
				  : strcmp(parent->acct, "root") ? parent->acct
								 : nw.v[i];

		fprintf(e->out, "  A = %-10.10s C = %-10.10s\n", nw.v[i], e->cluster);
		r = acct_add(e->t, nw.v[i], e->set.v[K_DESC] ? e->set.v[K_DESC] : nw.v[i], org);
		if (r == 0)
			r = new_assoc(e, parent, nw.v[i], NULL, NULL, &a);
		if (r == 0)
			apply_assoc(e, a);
	}
	fprintf(e->out, " Settings\n  Parent        = %s\n", parent->acct);
	print_settings(e, "Non Default Settings");
	names_free(&nw);
	return r < 0 ? r : 1;
}

static int check_acct(struct edit *e, const char *name, void *arg)
{
	struct names *ns = arg;

	if (!assoc_find(e->t, name, NULL, NULL)) {
		fprintf(e->err,
			" This account '%s' doesn't exist.\n"
			"        Contact your admin to add this account.\n",
			name);
		return -ESLURM_INVALID_ACCOUNT;
	}
	return collect(e, name, ns);
}

static int add_user(struct edit *e, struct names *ns)
{
	const char *accts = e->set.v[K_ACCOUNT] ? e->set.v[K_ACCOUNT] : e->set.v[K_DEFACCT];
	const char *part = e->set.v[K_PARTITION];
	struct names an = {0};
	int r, added = 0;

	if (!accts) {
		fprintf(e->err, " Need name of account to add user to.\n");
		return -EINVAL;
	}
	r = each_name(e, accts, true, check_acct, &an);
	if (r == 0 && e->set.v[K_DEFACCT] && !in_list(accts, e->set.v[K_DEFACCT])) {
		r = check_acct(e, e->set.v[K_DEFACCT], &an);
	}
	for (uint32_t i = 0; r == 0 && i < ns->n; i++) {
		struct user_rec *u = assoc_user_find(e->t, ns->v[i]);

		for (uint32_t j = 0; r == 0 && j < an.n; j++) {
			struct assoc *a = assoc_find(e->t, an.v[j], ns->v[i], part);

			if (a && ((!a->partition && !part) || (a->partition && part)))
				continue;
			if (!added++)
				fprintf(e->out, " Adding User(s)\n");
			if (!u) {
				r = user_add(e->t, ns->v[i],
					     e->set.v[K_DEFACCT] ? e->set.v[K_DEFACCT] : an.v[0],
					     e->v.u[K_ADMIN]);
				u = assoc_user_find(e->t, ns->v[i]);
				fprintf(e->out, "  %s\n", ns->v[i]);
			}
			if (r == 0)
				r = new_assoc(e, assoc_find(e->t, an.v[j], NULL, NULL), an.v[j],
					      ns->v[i], part, &a);
			if (r == 0) {
				apply_assoc(e, a);
				fprintf(e->out, "  U = %-9.9s A = %-10.10s C = %-10.10s\n",
					ns->v[i], an.v[j], e->cluster);
			}
		}
	}
	names_free(&an);
	if (r < 0)
		return r;
	if (!added) {
		fprintf(e->out, " Nothing new added.\n");
		return 0;
	}
	print_settings(e, "Non Default Settings");
	return 1;
}

static void apply_qos(struct edit *e, struct qos *q)
{
	const struct vals *v = &e->v;
	struct qos_rec *r = &q->rec;

	if (v->has[K_DESC])
		set_str(&r->description, e->set.v[K_DESC]);
	if (v->has[K_PREEMPT])
		set_str(&r->preempt, e->set.v[K_PREEMPT]);
	if (v->has[K_PREEMPTMODE])
		set_str(&r->preempt_mode, e->set.v[K_PREEMPTMODE]);
	if (v->has[K_PRIORITY])
		q->priority = r->priority =
		    v->u[K_PRIORITY] == ASSOC_NO_LIMIT ? 0 : v->u[K_PRIORITY];
	if (v->has[K_USAGEFACTOR])
		q->usage_factor = r->usage_factor = v->usage_factor;
	if (v->has[K_GRACE])
		r->grace_time = v->u[K_GRACE];
	if (v->has[K_MAXWALL])
		r->max_wall = v->u[K_MAXWALL];
	if (v->has[K_MAXJOBSPU])
		r->max_jobs_pu = v->u[K_MAXJOBSPU];
	if (v->has[K_MAXSUBMITPU])
		r->max_submit_pu = v->u[K_MAXSUBMITPU];
	if (v->has[K_GRPJOBS])
		r->grp_jobs = v->u[K_GRPJOBS];
	for (int i = 0; i < ASSOC_TRES_N; i++) {
		if (v->has_tres[0][i])
			r->grp_tres[i] = v->tres[0][i];
		if (v->has_tres[1][i])
			r->max_tres_pj[i] = v->tres[1][i];
	}
	e->t->last_update = time(NULL);
}

static int add_qos(struct edit *e, struct names *ns)
{
	int r = 0, added = 0;

	for (uint32_t i = 0; i < ns->n && r == 0; i++) {
		struct qos *q;

		if (assoc_qos_find(e->t, ns->v[i]))
			continue;
		r = assoc_table_ensure_normal(e->t); /* the first QOS is always "normal" */
		if (r < 0 || assoc_qos_find(e->t, ns->v[i]))
			continue;
		q = calloc(1, sizeof(*q));
		if (!q || set_str(&q->rec.name, ns->v[i])
		    || set_str(&q->rec.preempt_mode, "cluster")
		    || set_str(&q->rec.description, ns->v[i])) {
			qos_free(q);
			return -ENOMEM;
		}
		q->name = q->rec.name;
		q->id = q->rec.id = e->t->next_qos_id ? e->t->next_qos_id : 1;
		q->usage_factor = q->rec.usage_factor = 1.0;
		q->rec.max_wall = q->rec.max_jobs_pu = q->rec.max_submit_pu = ASSOC_NO_LIMIT;
		q->rec.grp_jobs = ASSOC_NO_LIMIT;
		for (int k = 0; k < ASSOC_TRES_N; k++)
			q->rec.grp_tres[k] = q->rec.max_tres_pj[k] = ASSOC_NO_LIMIT64;
		apply_qos(e, q);
		if ((r = assoc_table_add_qos(e->t, q)) < 0)
			return r;
		if (!added++)
			fprintf(e->out, " Adding QOS(s)\n");
		fprintf(e->out, "  %s\n", ns->v[i]);
	}
	if (r < 0)
		return r;
	if (!added) {
		fprintf(e->out, " Nothing new added.\n");
		return 0;
	}
	fprintf(e->out, " Settings\n  Description    = %s\n",
		e->set.v[K_DESC] ? e->set.v[K_DESC] : "QOS Name");
	print_settings(e, "Non Default Settings");
	return 1;
}

/* ---- modify, delete ---- */

static bool has_assoc_keys(const struct edit *e)
{
	for (int k = 0; k < K_N; k++)
		if (e->set.v[k] && (ASSOC_KEYS & BIT(k)))
			return true;
	return e->set.v[K_PARENT] != NULL;
}

/* The association a matches the where clause (its account and user are
 * in the names/filters). */
static bool assoc_matches(const struct edit *e, const struct assoc *a, const struct names *ns)
{
	const char *accts = e->where.v[K_ACCOUNT], *part = e->where.v[K_PARTITION];
	bool is_user = e->req->entity == ASSOC_E_USER;
	const char *name = is_user ? a->user : a->acct;
	bool is_named = false;

	if (a->is_deleted || (is_user != (a->user != NULL)))
		return false;
	for (uint32_t i = 0; i < ns->n && !is_named; i++)
		is_named = strcmp(ns->v[i], name) == 0;
	if (!is_named)
		return false;
	if (is_user && accts && !in_list(accts, a->acct))
		return false;
	return !part || (a->partition && in_list(part, a->partition));
}

static bool is_below(const struct assoc *a, const struct assoc *top)
{
	for (; a; a = a->parent)
		if (a == top)
			return true;
	return false;
}

static int modify_assocs(struct edit *e, const struct names *ns)
{
	bool is_user = e->req->entity == ASSOC_E_USER;
	int n = 0;

	for (uint32_t i = 0; i < e->t->assoc_count; i++) {
		struct assoc *a = e->t->assocs[i];

		if (!assoc_matches(e, a, ns))
			continue;
		if (e->v.parent && is_below(e->v.parent, a)) {
			fprintf(e->err, " Can't move account %s below itself\n", a->acct);
			return -EINVAL;
		}
		if (!n++)
			fprintf(e->out, " Modified %s associations...\n",
				is_user ? "user" : "account");
		if (e->v.parent)
			a->parent = e->v.parent;
		apply_assoc(e, a);
		assoc_line(e, a);
	}
	return n;
}

static int modify_users(struct edit *e, const struct names *ns)
{
	const char *def = e->set.v[K_DEFACCT];
	int n = 0;

	if (!def && !e->set.v[K_ADMIN])
		return 0;
	for (uint32_t i = 0; i < ns->n; i++) {
		struct user_rec *u = assoc_user_find(e->t, ns->v[i]);

		if (!u)
			continue;
		if (def && !assoc_find(e->t, def, u->name, NULL)) {
			fprintf(e->err,
				" Can't modify because these users aren't associated with "
				"new default account '%s'...\n  U = %s\n",
				def, u->name);
			return -ESLURM_INVALID_ACCOUNT;
		}
		if (!n++)
			fprintf(e->out, " Modified users...\n");
		if (def)
			set_str(&u->default_acct, def);
		if (e->set.v[K_ADMIN])
			u->admin_level = e->v.u[K_ADMIN];
		fprintf(e->out, "  %s\n", u->name);
	}
	return n;
}

static int modify_accts(struct edit *e, const struct names *ns)
{
	int n = 0;

	if (!e->set.v[K_DESC] && !e->set.v[K_ORG])
		return 0;
	for (uint32_t i = 0; i < ns->n; i++) {
		struct account_rec *a = assoc_acct_find(e->t, ns->v[i]);

		if (!a)
			continue;
		if (!n++)
			fprintf(e->out, " Modified accounts...\n");
		if (e->set.v[K_DESC])
			set_str(&a->description, e->set.v[K_DESC]);
		if (e->set.v[K_ORG])
			set_str(&a->organization, e->set.v[K_ORG]);
		fprintf(e->out, "  %s\n", a->name);
	}
	return n;
}

static int modify_qos(struct edit *e, const struct names *ns)
{
	int n = 0;

	for (uint32_t i = 0; i < ns->n; i++) {
		struct qos *q = assoc_qos_find(e->t, ns->v[i]);

		if (!q)
			continue;
		if (!n++)
			fprintf(e->out, " Modified qos...\n");
		apply_qos(e, q);
		fprintf(e->out, "  %s\n", q->name);
	}
	return n;
}

static int do_modify(struct edit *e, struct names *ns)
{
	int n = 0, r = 0;

	if (e->req->entity == ASSOC_E_QOS)
		n = modify_qos(e, ns);
	else if (e->req->entity == ASSOC_E_USER)
		r = n = modify_users(e, ns);
	else if (e->req->entity == ASSOC_E_ACCOUNT)
		r = n = modify_accts(e, ns);
	if (r >= 0 && has_assoc_keys(e)) {
		r = modify_assocs(e, ns);
		n += r > 0 ? r : 0;
	}
	if (r < 0)
		return r;
	if (!n)
		fprintf(e->out, " Nothing modified\n");
	return n > 0;
}

static void delete_qos_refs(struct assoc_table *t, uint32_t id)
{
	for (uint32_t i = 0; i < t->assoc_count; i++) {
		struct assoc *a = t->assocs[i];
		uint32_t n = 0;

		for (uint32_t j = 0; j < a->qos_id_count; j++)
			if (a->qos_ids[j] != id)
				a->qos_ids[n++] = a->qos_ids[j];
		a->qos_id_count = n;
		if (a->def_qos_id == id)
			a->def_qos_id = 0;
	}
}

static int delete_qos(struct edit *e, const struct names *ns)
{
	struct assoc_table *t = e->t;
	int n = 0;

	for (uint32_t i = 0; i < t->qos_count;) {
		struct qos *q = t->qos[i];
		bool is_named = false;

		for (uint32_t j = 0; j < ns->n; j++)
			is_named |= strcasecmp(ns->v[j], q->name) == 0;
		if (!is_named) {
			i++;
			continue;
		}
		if (!n++)
			fprintf(e->out, " Deleting QOS(s)...\n");
		fprintf(e->out, "  %s\n", q->name);
		delete_qos_refs(t, q->id);
		qos_free(q);
		memmove(&t->qos[i], &t->qos[i + 1], (t->qos_count - i - 1) * sizeof(*t->qos));
		t->qos_count--;
	}
	return n;
}

static int delete_accts(struct edit *e, const struct names *ns)
{
	struct assoc_table *t = e->t;
	int n = 0;

	for (uint32_t i = 0; i < ns->n; i++) {
		struct assoc *top = assoc_find(t, ns->v[i], NULL, NULL);

		if (strcmp(ns->v[i], "root") == 0) {
			fprintf(e->err, " You can't delete the root account\n");
			return -EINVAL;
		}
		if (!top)
			continue;
		if (!n++)
			fprintf(e->out, " Deleting accounts...\n");
		fprintf(e->out, "  %s\n", ns->v[i]);
		for (uint32_t j = 0; j < t->assoc_count; j++)
			if (is_below(t->assocs[j], top)) {
				struct account_rec *ar = assoc_acct_find(t, t->assocs[j]->acct);

				t->assocs[j]->is_deleted = true;
				if (ar && !t->assocs[j]->user) {
					account_rec_done(ar);
					*ar = t->accts[--t->acct_count];
				}
			}
	}
	return n;
}

static int delete_users(struct edit *e, const struct names *ns)
{
	bool is_filtered = e->where.v[K_ACCOUNT] || e->where.v[K_PARTITION];
	int n = 0;

	for (uint32_t i = 0; i < e->t->assoc_count; i++) {
		struct assoc *a = e->t->assocs[i];

		if (!assoc_matches(e, a, ns))
			continue;
		if (!n++ && is_filtered)
			fprintf(e->out, " Deleting user associations...\n");
		if (is_filtered)
			assoc_line(e, a);
		a->is_deleted = true;
	}
	if (n && !is_filtered) {
		fprintf(e->out, " Deleting users...\n");
		for (uint32_t i = 0; i < ns->n; i++)
			if (assoc_user_find(e->t, ns->v[i]))
				fprintf(e->out, "  %s\n", ns->v[i]);
	}
	return n;
}

static int delete_clusters(struct edit *e, const struct names *ns)
{
	struct assoc_table *t = e->t;
	int n = 0;

	for (uint32_t i = 0; i < t->cluster_count;) {
		bool is_named = false;

		for (uint32_t j = 0; j < ns->n; j++)
			is_named |= strcmp(ns->v[j], t->clusters[i]) == 0;
		if (!is_named) {
			i++;
			continue;
		}
		if (!n++)
			fprintf(e->out, " Deleting clusters...\n");
		fprintf(e->out, "  %s\n", t->clusters[i]);
		free(t->clusters[i]);
		t->clusters[i] = t->clusters[--t->cluster_count];
	}
	return n;
}

static int do_delete(struct edit *e, struct names *ns)
{
	int n;

	switch (e->req->entity) {
	case ASSOC_E_QOS:
		n = delete_qos(e, ns);
		break;
	case ASSOC_E_ACCOUNT:
		n = delete_accts(e, ns);
		break;
	case ASSOC_E_USER:
		n = delete_users(e, ns);
		break;
	default:
		n = delete_clusters(e, ns);
	}
	if (n < 0)
		return n;
	if (n)
		users_fix(e->t);
	else
		fprintf(e->out, " Nothing deleted\n");
	e->t->last_update = time(NULL);
	return n > 0;
}

/* ---- the request ---- */

static int check_keys(struct edit *e)
{
	uint64_t ok = allowed_keys(e->req->entity);

	for (int k = 0; k < K_N; k++) {
		if (e->set.v[k] && !(ok & BIT(k))) {
			fprintf(e->err, " Unknown option: %s=%s\n", key_names[k], e->set.v[k]);
			return -EINVAL;
		}
		if (e->where.v[k]
		    && !(BIT(k)
			 & (BIT(K_NAME) | BIT(K_ACCOUNT) | BIT(K_USER) | BIT(K_CLUSTER)
			    | BIT(K_PARTITION)))) {
			fprintf(e->err, " Unknown condition: %s=%s\n", key_names[k], e->where.v[k]);
			return -EINVAL;
		}
	}
	return 0;
}

/* The entities named: names, where Name= and where User=/Account= for
 * users/accounts. */
static int gather_names(struct edit *e, struct names *ns)
{
	uint32_t ent = e->req->entity;
	bool lower = ent != ASSOC_E_USER && ent != ASSOC_E_CLUSTER;
	int r = each_name(e, e->req->names, lower, collect, ns);

	if (r == 0)
		r = each_name(e, e->where.v[K_NAME], lower, collect, ns);
	if (r == 0 && ent == ASSOC_E_USER)
		r = each_name(e, e->where.v[K_USER], false, collect, ns);
	if (r == 0 && ent == ASSOC_E_ACCOUNT)
		r = each_name(e, e->where.v[K_ACCOUNT], true, collect, ns);
	if (r == 0 && e->req->op == ASSOC_OP_ADD)
		r = each_name(e, e->set.v[K_NAME], lower, collect, ns);
	if (r == 0 && ns->n == 0) {
		fprintf(e->err, " No %s name given\n",
			ent == ASSOC_E_USER	 ? "user"
			: ent == ASSOC_E_QOS	 ? "qos"
			: ent == ASSOC_E_ACCOUNT ? "account"
						 : "cluster");
		r = -EINVAL;
	}
	return r;
}

int assoc_edit(struct assoc_table *t, const char *cluster, const struct assoc_mgr_req *req,
	       FILE *out, FILE *err)
{
	struct edit e = {
	    .t = t, .cluster = cluster ? cluster : "cluster", .req = req, .out = out, .err = err};
	struct names ns = {0};
	int r = parse_lines(req->where, &e.where, err);

	if (r == 0)
		r = parse_lines(req->set, &e.set, err);
	if (r == 0)
		r = check_keys(&e);
	if (r == 0)
		r = check_set(&e);
	if (r == 0)
		r = gather_names(&e, &ns);
	if (r == 0) {
		if (req->op == ASSOC_OP_MODIFY)
			r = do_modify(&e, &ns);
		else if (req->op == ASSOC_OP_DELETE)
			r = do_delete(&e, &ns);
		else if (req->entity == ASSOC_E_CLUSTER)
			r = add_cluster(&e, &ns);
		else if (req->entity == ASSOC_E_ACCOUNT)
			r = add_account(&e, &ns);
		else if (req->entity == ASSOC_E_USER)
			r = add_user(&e, &ns);
		else
			r = add_qos(&e, &ns);
	}
	names_free(&ns);
	free(e.where.buf);
	free(e.set.buf);
	return r;
}

int assoc_edit_checked(struct assoc_table *t, const char *cluster, const struct assoc_mgr_req *req,
		       bool is_commit, FILE *out, FILE *err)
{
	struct assoc_table copy = {0};
	struct assoc_dump d;
	FILE *null_out;
	int r;

	if (req->op < ASSOC_OP_ADD || req->op > ASSOC_OP_DELETE || req->entity < ASSOC_E_CLUSTER
	    || req->entity > ASSOC_E_QOS)
		return -EINVAL;
	r = assoc_table_dump(t, &d);
	if (r == 0)
		r = assoc_table_load(&copy, &d);
	assoc_dump_free(&d);
	if (r == 0)
		r = assoc_edit(&copy, cluster, req, out, err);
	assoc_table_free(&copy);
	if (r <= 0 || !is_commit)
		return r;
	null_out = fopen("/dev/null", "w");
	if (!null_out)
		return -errno;
	r = assoc_edit(t, cluster, req, null_out, null_out); /* the same messages again */
	fclose(null_out);
	return r;
}
