/* sacctmgr_list.c - sacctmgr list/show (sacctmgr_list.h).
 *
 * Every entity is printed as rows of one kind (struct row) through one
 * field table: Slurm's header and width, and a getter. Columns are right
 * justified in their width and followed by a space, as sacctmgr prints
 * them; -p/-P print the whole value between '|'.
 */
#include "cli/sacctmgr_list.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/msg_assoc.h"
#include "common/parse_time.h"

struct row {
	const struct assoc_dump *d;
	const struct assoc_rec *a;
	const struct user_rec *u;
	const struct account_rec *acc;
	const struct qos_rec *q;
	const char *cluster;
};

typedef void getter(const struct row *r, char *buf, size_t n);

struct field {
	const char *name; /* format= name and header */
	int width;
	getter *get;
};

static const char *qos_name(const struct assoc_dump *d, uint32_t id)
{
	for (uint32_t i = 0; i < d->qos_count; i++)
		if (d->qos[i].id == id)
			return d->qos[i].name;
	return NULL;
}

static const struct assoc_rec *assoc_by_id(const struct assoc_dump *d, uint32_t id)
{
	for (uint32_t i = 0; i < d->assoc_count; i++)
		if (d->assocs[i].id == id)
			return &d->assocs[i];
	return NULL;
}

static void u32_str(uint32_t v, char *buf, size_t n)
{
	if (v == ASSOC_NO_LIMIT)
		buf[0] = '\0';
	else
		snprintf(buf, n, "%u", v);
}

static void tres_str(const uint64_t *t, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < ASSOC_TRES_N && len < n; i++) {
		if (t[i] == ASSOC_NO_LIMIT64)
			continue;
		if (i == ASSOC_TRES_MEM && t[i] && t[i] % 1024 == 0)
			len += (size_t)snprintf(buf + len, n - len, "%s%s=%" PRIu64 "G",
						len ? "," : "", assoc_tres_names[i], t[i] / 1024);
		else
			len += (size_t)snprintf(buf + len, n - len, "%s%s=%" PRIu64 "%s",
						len ? "," : "", assoc_tres_names[i], t[i],
						i == ASSOC_TRES_MEM ? "M" : "");
	}
}

static void wall_str(uint32_t mins, char *buf, size_t n)
{
	if (mins == ASSOC_NO_LIMIT)
		buf[0] = '\0';
	else
		mins2time_str(mins, buf, n);
}

/* The association's QOS names (its own list, else the nearest parent's), sorted. */
static void assoc_qos_str(const struct row *r, char *buf, size_t n)
{
	const struct assoc_rec *a = r->a;
	const char *names[64];
	uint32_t k = 0;
	size_t len = 0;

	while (a && (!a->qos_ids || !a->qos_ids[0]))
		a = a->parent_id ? assoc_by_id(r->d, a->parent_id) : NULL;
	buf[0] = '\0';
	for (const char *p = a ? a->qos_ids : NULL; p && *p && k < 64;) {
		const char *nm = qos_name(r->d, (uint32_t)strtoul(p, NULL, 10));

		if (nm)
			names[k++] = nm;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	for (uint32_t i = 1; i < k; i++) /* few: insertion sort */
		for (uint32_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (uint32_t i = 0; i < k && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "", names[i]);
}

#define GET(fn, expr)                                                                              \
	static void fn(const struct row *r, char *buf, size_t n)                                   \
	{                                                                                          \
		expr;                                                                              \
	}
#define EMPTY(fn)  GET(fn, (void)r; (void)n; buf[0] = '\0')
#define STR(fn, s) GET(fn, snprintf(buf, n, "%s", (s) ? (s) : ""))

EMPTY(g_empty)
STR(g_cluster, r->cluster)
STR(g_acct, r->a ? r->a->acct : r->acc ? r->acc->name : "")
STR(g_user, r->a ? r->a->user : r->u ? r->u->name : "")
STR(g_part, r->a ? r->a->partition : "")
GET(g_share, if (r->a && r->a->shares == ASSOC_NO_LIMIT) snprintf(buf, n, "parent");
    else if (r->a) snprintf(buf, n, "%u", r->a->shares); else buf[0] = '\0')
GET(g_grpjobs, u32_str(r->a ? r->a->lim.grp_jobs : ASSOC_NO_LIMIT, buf, n))
GET(g_grpsubmit, u32_str(r->a ? r->a->lim.grp_submit : ASSOC_NO_LIMIT, buf, n))
GET(g_maxjobs, u32_str(r->a ? r->a->lim.max_jobs : ASSOC_NO_LIMIT, buf, n))
GET(g_maxsubmit, u32_str(r->a ? r->a->lim.max_submit : ASSOC_NO_LIMIT, buf, n))
GET(g_maxwall, wall_str(r->a ? r->a->lim.max_wall : ASSOC_NO_LIMIT, buf, n))
GET(g_grptres, if (r->a) tres_str(r->a->lim.grp_tres, buf, n); else buf[0] = '\0')
GET(g_maxtres, if (r->a) tres_str(r->a->lim.max_tres_pj, buf, n); else buf[0] = '\0')
GET(g_qos, if (r->a) assoc_qos_str(r, buf, n); else buf[0] = '\0')
GET(g_defqos, const struct assoc_rec *a = r->a;
    while (a && !a->def_qos_id) a = a->parent_id ? assoc_by_id(r->d, a->parent_id) : NULL;
    snprintf(buf, n, "%s", a &&qos_name(r->d, a->def_qos_id) ? qos_name(r->d, a->def_qos_id) : ""))
GET(g_parent,
    const struct assoc_rec *p = r->a && !r->a->user ? assoc_by_id(r->d, r->a->parent_id) : NULL;
    snprintf(buf, n, "%s", p ? p->acct : ""))
STR(g_defacct, r->u ? r->u->default_acct : "")
STR(g_admin, !r->u		      ? ""
	     : r->u->admin_level == 3 ? "Administrator"
	     : r->u->admin_level == 2 ? "Operator"
				      : "None")
STR(g_descr, r->acc ? r->acc->description : "")
STR(g_org, r->acc ? r->acc->organization : "")
GET(g_id, snprintf(buf, n, "%u", r->q ? r->q->id : r->a ? r->a->id : 0))
STR(g_qname, r->q->name)
STR(g_qdesc, r->q->description)
GET(g_qprio, snprintf(buf, n, "%u", r->q->priority))
GET(g_qgrace, secs2time_str(r->q->grace_time, buf, n))
STR(g_qpreempt, r->q->preempt)
STR(g_qpmode, r->q->preempt_mode)
GET(g_qfactor, snprintf(buf, n, "%f", r->q->usage_factor))
GET(g_qgrptres, tres_str(r->q->grp_tres, buf, n))
GET(g_qgrpjobs, u32_str(r->q->grp_jobs, buf, n))
GET(g_qmaxtres, tres_str(r->q->max_tres_pj, buf, n))
GET(g_qmaxwall, wall_str(r->q->max_wall, buf, n))
GET(g_qmaxjobspu, u32_str(r->q->max_jobs_pu, buf, n))
GET(g_qmaxsubmitpu, u32_str(r->q->max_submit_pu, buf, n))

static const struct field assoc_fields[] = {
    {"Cluster", 10, g_cluster},
    {"Account", 10, g_acct},
    {"User", 10, g_user},
    {"Partition", 10, g_part},
    {"Share", 9, g_share},
    {"Priority", 10, g_empty},
    {"GrpJobs", 7, g_grpjobs},
    {"GrpTRES", 13, g_grptres},
    {"GrpSubmit", 9, g_grpsubmit},
    {"GrpWall", 11, g_empty},
    {"GrpTRESMins", 13, g_empty},
    {"MaxJobs", 7, g_maxjobs},
    {"MaxTRES", 13, g_maxtres},
    {"MaxTRESPerNode", 14, g_empty},
    {"MaxSubmit", 9, g_maxsubmit},
    {"MaxWall", 11, g_maxwall},
    {"MaxTRESMins", 13, g_empty},
    {"QOS", 20, g_qos},
    {"Def QOS", 9, g_defqos},
    {"GrpTRESRunMins", 13, g_empty},
    {"ParentName", 10, g_parent},
    {"ID", 6, g_id},
    {"Fairshare", 9, g_share},
    {"DefaultQOS", 9, g_defqos},
    {"GrpSubmitJobs", 9, g_grpsubmit},
    {"MaxSubmitJobs", 9, g_maxsubmit},
    {"MaxTRESPerJob", 13, g_maxtres},
    {"Def Acct", 10, g_defacct},
    {"DefaultAccount", 10, g_defacct},
    {"Admin", 9, g_admin},
    {"Descr", 20, g_descr},
    {"Description", 20, g_descr},
    {"Org", 20, g_org},
    {"Organization", 20, g_org},
    {"MaxNodes", 8, g_empty},
    {"MaxCPUs", 8, g_empty},
    {"MaxCPUMins", 11, g_empty},
    {"GrpNodes", 8, g_empty},
    {"GrpCPUs", 8, g_empty},
    {"GrpMem", 7, g_empty},
    {"GrpCPUMins", 11, g_empty},
    {"ControlHost", 15, g_empty},
    {"ControlPort", 12, g_empty},
    {"RPC", 5, g_empty},
};
#define ASSOC_DEFAULT                                                                              \
	"Cluster,Account,User,Partition,Share,Priority,GrpJobs,GrpTRES,GrpSubmit,GrpWall,"         \
	"GrpTRESMins,MaxJobs,MaxTRES,MaxTRESPerNode,MaxSubmit,MaxWall,MaxTRESMins,QOS,Def "        \
	"QOS,GrpTRESRunMins"

static const struct field qos_fields[] = {
    {"Name", 10, g_qname},
    {"Priority", 10, g_qprio},
    {"GraceTime", 10, g_qgrace},
    {"Preempt", 10, g_qpreempt},
    {"PreemptExemptTime", 19, g_empty},
    {"PreemptMode", 11, g_qpmode},
    {"Flags", 10, g_empty},
    {"UsageThres", 10, g_empty},
    {"UsageFactor", 11, g_qfactor},
    {"GrpTRES", 13, g_qgrptres},
    {"GrpTRESMins", 13, g_empty},
    {"GrpTRESRunMins", 13, g_empty},
    {"GrpJobs", 7, g_qgrpjobs},
    {"GrpSubmit", 9, g_empty},
    {"GrpWall", 11, g_empty},
    {"MaxTRES", 13, g_qmaxtres},
    {"MaxTRESPerNode", 14, g_empty},
    {"MaxTRESMins", 13, g_empty},
    {"MaxWall", 11, g_qmaxwall},
    {"MaxTRESPU", 13, g_empty},
    {"MaxJobsPU", 9, g_qmaxjobspu},
    {"MaxSubmitPU", 11, g_qmaxsubmitpu},
    {"MaxTRESPA", 13, g_empty},
    {"MaxJobsPA", 9, g_empty},
    {"MaxSubmitPA", 11, g_empty},
    {"MinTRES", 13, g_empty},
    {"Description", 11, g_qdesc},
    {"ID", 6, g_id},
    {"MaxWallDurationPerJob", 11, g_qmaxwall},
    {"MaxJobsPerUser", 9, g_qmaxjobspu},
    {"MaxSubmitJobsPerUser", 11, g_qmaxsubmitpu},
    {"MaxTRESPerJob", 13, g_qmaxtres},
};
#define QOS_DEFAULT                                                                                \
	"Name,Priority,GraceTime,Preempt,PreemptExemptTime,PreemptMode,Flags,UsageThres,"          \
	"UsageFactor,GrpTRES,GrpTRESMins,GrpTRESRunMins,GrpJobs,GrpSubmit,GrpWall,MaxTRES,"        \
	"MaxTRESPerNode,MaxTRESMins,MaxWall,MaxTRESPU,MaxJobsPU,MaxSubmitPU,MaxTRESPA,MaxJobsPA,"  \
	"MaxSubmitPA,MinTRES"

#define COLS_MAX 64
struct cols {
	const struct field *f[COLS_MAX];
	int width[COLS_MAX];
	int n;
};

/* format= "a,b%20" -> columns; -1 on an unknown name. */
static int cols_parse(const char *fmt, const struct field *tab, size_t ntab, struct cols *c)
{
	char *copy = strdup(fmt), *save = NULL, *tok;

	c->n = 0;
	for (tok = strtok_r(copy, ",", &save); tok && c->n < COLS_MAX;
	     tok = strtok_r(NULL, ",", &save)) {
		char *pct = strchr(tok, '%');
		size_t i;

		if (pct)
			*pct = '\0';
		for (i = 0; i < ntab && strcasecmp(tab[i].name, tok) != 0; i++)
			;
		if (i == ntab) {
			fprintf(stderr, " Unknown field '%s'\n", tok);
			free(copy);
			return -1;
		}
		c->f[c->n] = &tab[i];
		c->width[c->n++] = pct ? atoi(pct + 1) : tab[i].width;
	}
	free(copy);
	return 0;
}

static void print_cell(const struct list_opts *o, int w, const char *s, bool is_last)
{
	if (o->is_parsable || o->is_parsable2)
		printf("%s%s", s, is_last && o->is_parsable2 ? "" : "|");
	else if (w < 0)
		printf("%-*.*s ", -w, -w, s);
	else
		printf("%*.*s ", w, w, s);
}

static void print_header(const struct list_opts *o, const struct cols *c)
{
	if (o->no_header)
		return;
	for (int i = 0; i < c->n; i++)
		print_cell(o, c->width[i], c->f[i]->name, i == c->n - 1);
	printf("\n");
	if (o->is_parsable || o->is_parsable2)
		return;
	for (int i = 0; i < c->n; i++) {
		int w = abs(c->width[i]);

		for (int k = 0; k < w; k++)
			putchar('-');
		putchar(' ');
	}
	printf("\n");
}

static void print_row(const struct list_opts *o, const struct cols *c, const struct row *r)
{
	char buf[1024];

	for (int i = 0; i < c->n; i++) {
		c->f[i]->get(r, buf, sizeof(buf));
		print_cell(o, c->width[i], buf, i == c->n - 1);
	}
	printf("\n");
}

/* No list: anything. */
static bool in_list(const char *list, const char *name)
{
	return !list || assoc_name_in_list(list, name);
}

/* Association rows in tree order (parents before children, by name). */
static void walk(const struct assoc_dump *d, uint32_t parent, const struct list_opts *o,
		 const struct cols *c, int kind, int depth)
{
	for (int users = 1; users >= 0; users--) /* a parent's users first, as Slurm */
		for (uint32_t i = 0; i < d->assoc_count; i++) {
			const struct assoc_rec *a = &d->assocs[i];
			struct row r = {.d = d, .a = a, .cluster = d->cluster};
			bool ok;

			if (a->parent_id != parent || (a->user != NULL) != (users == 1))
				continue;
			ok = in_list(o->accounts, a->acct) && in_list(o->partitions, a->partition)
			     && (!o->users || (a->user && in_list(o->users, a->user)));
			if (kind == 'u')
				ok = ok && a->user && in_list(o->names, a->user);
			else if (kind == 'a')
				ok = ok && in_list(o->names, a->acct);
			if (ok) {
				r.u = NULL;
				for (uint32_t k = 0; a->user && k < d->user_count; k++)
					if (strcmp(d->users[k].name, a->user) == 0)
						r.u = &d->users[k];
				for (uint32_t k = 0; k < d->acct_count; k++)
					if (strcmp(d->accts[k].name, a->acct) == 0)
						r.acc = &d->accts[k];
				print_row(o, c, &r);
			}
			if (!a->user && depth < 64)
				walk(d, a->id, o, c, kind, depth + 1);
		}
}

static int list_qos(const struct assoc_dump *d, const struct list_opts *o)
{
	struct cols c;

	if (cols_parse(o->format ? o->format : QOS_DEFAULT, qos_fields,
		       sizeof(qos_fields) / sizeof(qos_fields[0]), &c)
	    < 0)
		return -1;
	print_header(o, &c);
	for (uint32_t i = 0; i < d->qos_count; i++) {
		struct row r = {.d = d, .q = &d->qos[i]};

		if (in_list(o->names, d->qos[i].name))
			print_row(o, &c, &r);
	}
	return 0;
}

int sacctmgr_list(const struct assoc_dump *d, const char *entity, const struct list_opts *o)
{
	const size_t nf = sizeof(assoc_fields) / sizeof(assoc_fields[0]);
	const char *fmt = o->format;
	struct cols c;
	int kind = 0;

	if (strcmp(entity, "qos") == 0)
		return list_qos(d, o);
	if (strcmp(entity, "user") == 0) {
		kind = 'u';
		if (!fmt)
			fmt = o->with_assoc ? "User,Def Acct,Admin,Cluster,Account,Partition,Share,"
					      "Priority,MaxJobs,MaxNodes,MaxCPUs,MaxSubmit,MaxWall,"
					      "MaxCPUMins,QOS,Def QOS"
					    : "User,Def Acct,Admin";
	} else if (strcmp(entity, "account") == 0) {
		kind = 'a';
		if (!fmt)
			fmt = o->with_assoc
				  ? "Account,Descr,Org,Cluster,ParentName,User,Share,"
				    "Priority,GrpJobs,GrpNodes,GrpCPUs,GrpMem,GrpSubmit,"
				    "GrpWall,GrpCPUMins,MaxJobs,MaxNodes,MaxCPUs,MaxSubmit,"
				    "MaxWall,MaxCPUMins,QOS,Def QOS"
				  : "Account,Descr,Org";
	} else if (strcmp(entity, "cluster") == 0) {
		fmt = fmt ? fmt
			  : "Cluster,ControlHost,ControlPort,RPC,Share,GrpJobs,GrpTRES,"
			    "GrpSubmit,MaxJobs,MaxTRES,MaxSubmit,MaxWall,QOS,Def QOS";
	} else {
		fmt = fmt ? fmt : ASSOC_DEFAULT;
	}
	if (cols_parse(fmt, assoc_fields, nf, &c) < 0)
		return -1;
	print_header(o, &c);
	if (strcmp(entity, "cluster") == 0) {
		const struct assoc_rec *root = NULL;

		for (uint32_t i = 0; i < d->assoc_count && !root; i++)
			if (!d->assocs[i].parent_id)
				root = &d->assocs[i];
		for (uint32_t i = 0; i < d->cluster_count; i++) {
			struct row r = {.d = d, .a = root, .cluster = d->clusters[i]};

			if (in_list(o->names, d->clusters[i]))
				print_row(o, &c, &r);
		}
		return 0;
	}
	if (kind == 'u' && !o->with_assoc) {
		for (uint32_t i = 0; i < d->user_count; i++) {
			struct row r = {.d = d, .u = &d->users[i]};

			if (in_list(o->names, d->users[i].name))
				print_row(o, &c, &r);
		}
		return 0;
	}
	if (kind == 'a' && !o->with_assoc) {
		for (uint32_t i = 0; i < d->acct_count; i++) {
			struct row r = {.d = d, .acc = &d->accts[i]};

			if (in_list(o->names, d->accts[i].name))
				print_row(o, &c, &r);
		}
		return 0;
	}
	walk(d, 0, o, &c, kind, 0);
	return 0;
}
