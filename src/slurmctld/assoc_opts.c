/* assoc_opts.c - sacctmgr's options as the controller reads them
 * (assoc_edit_int.h): "Key=Value" lines, names, and each value checked
 * (limits, TRES, times, QOS lists) before a change is made.
 */
#include "assoc_edit_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc.h"
#include "common/macros.h"
#include "common/parse_mem.h"
#include "common/parse_time.h"
#include "common/sl_errno.h"

#define LIST_MAX 4096 /* a comma list of names */

static const struct {
	const char *name;
	enum key k;
} keys[] = {
    {"name", K_NAME},
    {"names", K_NAME},
    {"account", K_ACCOUNT},
    {"accounts", K_ACCOUNT},
    {"acct", K_ACCOUNT},
    {"user", K_USER},
    {"users", K_USER},
    {"cluster", K_CLUSTER},
    {"clusters", K_CLUSTER},
    {"partition", K_PARTITION},
    {"partitions", K_PARTITION},
    {"parent", K_PARENT},
    {"description", K_DESC},
    {"organization", K_ORG},
    {"defaultaccount", K_DEFACCT},
    {"defaultqos", K_DEFQOS},
    {"fairshare", K_SHARES},
    {"shares", K_SHARES},
    {"grpjobs", K_GRPJOBS},
    {"grpsubmitjobs", K_GRPSUBMIT},
    {"grpsubmit", K_GRPSUBMIT},
    {"maxjobs", K_MAXJOBS},
    {"maxsubmitjobs", K_MAXSUBMIT},
    {"maxsubmit", K_MAXSUBMIT},
    {"maxwall", K_MAXWALL},
    {"maxwalldurationperjob", K_MAXWALL},
    {"grptres", K_GRPTRES},
    {"maxtresperjob", K_MAXTRESPJ},
    {"maxtres", K_MAXTRESPJ},
    {"qos", K_QOS},
    {"priority", K_PRIORITY},
    {"usagefactor", K_USAGEFACTOR},
    {"preempt", K_PREEMPT},
    {"preemptmode", K_PREEMPTMODE},
    {"gracetime", K_GRACE},
    {"maxjobsperuser", K_MAXJOBSPU},
    {"maxjobspu", K_MAXJOBSPU},
    {"maxsubmitjobsperuser", K_MAXSUBMITPU},
    {"maxsubmitpu", K_MAXSUBMITPU},
    {"adminlevel", K_ADMIN},
};

const char *const key_names[K_N] = {
    "Name",
    "Account",
    "User",
    "Cluster",
    "Partition",
    "Parent",
    "Description",
    "Organization",
    "DefaultAccount",
    "DefaultQOS",
    "Fairshare",
    "GrpJobs",
    "GrpSubmitJobs",
    "MaxJobs",
    "MaxSubmitJobs",
    "MaxWall",
    "GrpTRES",
    "MaxTRESPerJob",
    "QOS",
    "Priority",
    "UsageFactor",
    "Preempt",
    "PreemptMode",
    "GraceTime",
    "MaxJobsPerUser",
    "MaxSubmitJobsPerUser",
    "AdminLevel",
};

int parse_lines(const char *text, struct opts *o, FILE *err)
{
	char *save = NULL, *line;

	memset(o, 0, sizeof(*o));
	if (!text)
		return 0;
	if (!(o->buf = strdup(text)))
		return -ENOMEM;
	for (line = strtok_r(o->buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		char op = '=';
		size_t i;

		if (!eq || eq == line) {
			fprintf(err, " Unknown option: %s\n", line);
			return -EINVAL;
		}
		*eq = '\0';
		if (eq[-1] == '+' || eq[-1] == '-') {
			op = eq[-1];
			eq[-1] = '\0';
		}
		for (i = 0; i < ARRAY_SIZE(keys) && strcasecmp(keys[i].name, line) != 0; i++)
			;
		if (i == ARRAY_SIZE(keys) || (op != '=' && keys[i].k != K_QOS)) {
			fprintf(err, " Unknown option: %s%s=%s\n", line, op == '=' ? "" : "+",
				eq + 1);
			return -EINVAL;
		}
		o->v[keys[i].k] = eq + 1;
		o->op[keys[i].k] = op;
	}
	return 0;
}

/* Account, user and QOS names: letters, digits, '_', '-', '.'; at most
 * ASSOC_NAME_MAX. */
bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > ASSOC_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			return false;
	return true;
}

/* Calls fn for each name of a comma list (lowercased when lower). */
int each_name(struct edit *e, const char *list, bool lower, name_fn *fn, void *arg)
{
	char *copy, *save = NULL, *n;
	int r = 0;

	if (!list)
		return 0;
	if (!(copy = strdup(list)))
		return -ENOMEM;
	for (n = strtok_r(copy, ",", &save); n && r >= 0; n = strtok_r(NULL, ",", &save)) {
		if (lower)
			for (char *p = n; *p; p++)
				*p = (char)tolower((unsigned char)*p);
		if (!name_ok(n)) {
			fprintf(e->err, " Invalid name: %s\n", n);
			r = -EINVAL;
		} else {
			r = fn(e, n, arg);
		}
	}
	free(copy);
	return r;
}

bool in_list(const char *list, const char *name)
{
	return assoc_name_in_list(list, name);
}

/* ---- values ---- */

static int parse_u32(struct edit *e, enum key k, const char *s, uint32_t *ret)
{
	char *end;
	unsigned long long v;

	if (strcmp(s, "-1") == 0) {
		*ret = ASSOC_NO_LIMIT;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end || errno || v >= ASSOC_NO_LIMIT - 1) {
		fprintf(e->err, " Bad %s value: %s\n", key_names[k], s);
		return -EINVAL;
	}
	*ret = (uint32_t)v;
	return 0;
}

static int parse_tres(struct edit *e, enum key k, const char *s, int which)
{
	char *copy = strdup(s), *save = NULL, *item;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item && r == 0; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		int i;
		uint32_t u;
		uint64_t v = 0;

		if (eq)
			*eq = '\0';
		for (i = 0; i < ASSOC_TRES_N && strcasecmp(assoc_tres_names[i], item) != 0; i++)
			;
		if (i == ASSOC_TRES_N && strcasecmp(item, "gpu") == 0)
			i = ASSOC_TRES_GPU;
		if (!eq || i == ASSOC_TRES_N) {
			fprintf(e->err, " Invalid TRES in %s: %s\n", key_names[k], item);
			r = -EINVAL;
		} else if (strcmp(eq + 1, "-1") == 0) {
			v = ASSOC_NO_LIMIT64;
		} else if (i == ASSOC_TRES_MEM) {
			if (!isdigit((unsigned char)eq[1]) || mem_str2mb(eq + 1, &v) < 0) {
				fprintf(e->err, " Bad %s value: %s\n", key_names[k], eq + 1);
				r = -EINVAL;
			}
		} else if ((r = parse_u32(e, k, eq + 1, &u)) == 0) {
			v = u;
		}
		if (r == 0 && i < ASSOC_TRES_N) { /* a bad item stores nothing */
			e->v.tres[which][i] = v;
			e->v.has_tres[which][i] = true;
		}
	}
	free(copy);
	return r;
}

static int add_qos_id(struct edit *e, const char *name, void *arg)
{
	struct qos *q = assoc_qos_find(e->t, name);

	(void)arg;
	if (!q) {
		fprintf(e->err, " Unknown QOS name: %s\n", name);
		return -ESLURM_INVALID_QOS;
	}
	if (e->v.qos_count >= ARRAY_SIZE(e->v.qos_ids)) {
		fprintf(e->err, " Too many QOS given\n");
		return -EINVAL;
	}
	e->v.qos_ids[e->v.qos_count++] = q->id;
	return 0;
}

static int parse_misc(struct edit *e, enum key k, const char *s)
{
	struct vals *v = &e->v;
	char *end;

	switch (k) {
	case K_USAGEFACTOR:
		errno = 0;
		v->usage_factor = strtod(s, &end);
		if (*end || errno || end == s || v->usage_factor < 0 || v->usage_factor > 1e6) {
			fprintf(e->err, " Bad UsageFactor value: %s\n", s);
			return -EINVAL;
		}
		return 0;
	case K_MAXWALL:
		if (strcmp(s, "-1") == 0) {
			v->u[k] = ASSOC_NO_LIMIT;
			return 0;
		}
		if (time_str2mins(s, &v->u[k]) < 0 || v->u[k] == INFINITE || v->u[k] == NO_VAL) {
			fprintf(e->err, " Bad MaxWall time format: %s\n", s);
			return -EINVAL;
		}
		return 0;
	case K_GRACE: /* seconds, as Slurm's sacctmgr; "H:M:S" forms too */
		if (strcmp(s, "-1") == 0 || !strpbrk(s, ":-")) {
			if (parse_u32(e, k, s, &v->u[k]) < 0)
				return -EINVAL;
			if (v->u[k] == ASSOC_NO_LIMIT)
				v->u[k] = 0; /* -1: none */
			return 0;
		}
		if (time_str2secs(s, &v->u[k]) < 0 || v->u[k] >= NO_VAL) {
			fprintf(e->err, " Bad GraceTime value: %s\n", s);
			return -EINVAL;
		}
		return 0;
	case K_SHARES:
		if (strcasecmp(s, "parent") == 0) {
			v->u[k] = INFINITE;
			return 0;
		}
		if (parse_u32(e, k, s, &v->u[k]) < 0)
			return -EINVAL;
		if (v->u[k] == ASSOC_NO_LIMIT)
			v->u[k] = 1; /* -1: back to the default */
		return 0;
	case K_PREEMPTMODE:
		if (!in_list("off,cancel,requeue,suspend,gang,cluster", s) || strchr(s, ',')) {
			fprintf(e->err, " Invalid PreemptMode: %s\n", s);
			return -EINVAL;
		}
		return 0;
	case K_ADMIN:
		v->u[k] = in_list("none", s)		      ? 1
			  : in_list("operator", s)	      ? 2
			  : in_list("administrator,admin", s) ? 3
							      : 0;
		if (!v->u[k]) {
			fprintf(e->err, " Invalid AdminLevel: %s\n", s);
			return -EINVAL;
		}
		return 0;
	default:
		return parse_u32(e, k, s, &v->u[k]);
	}
}

int check_set(struct edit *e)
{
	const struct opts *o = &e->set;
	int r = 0;

	e->v.usage_factor = 1.0;
	for (int k = 0; k < K_N && r == 0; k++) {
		const char *s = o->v[k];

		if (!s)
			continue;
		e->v.has[k] = true;
		switch (k) {
		case K_NAME:
		case K_ACCOUNT:
		case K_USER:
		case K_CLUSTER:
		case K_PARTITION:
		case K_PREEMPT:
		case K_DEFACCT:
			if (strlen(s) > LIST_MAX) {
				fprintf(e->err, " Invalid name: %s\n", s);
				r = -EINVAL;
			}
			break;
		case K_DESC:
		case K_ORG:
			if (strlen(s) > ASSOC_TEXT_MAX || strchr(s, '\'')) {
				fprintf(e->err, " Invalid %s: %s\n", key_names[k], s);
				r = -EINVAL;
			}
			break;
		case K_PARENT:
			e->v.parent = assoc_find(e->t, s, NULL, NULL);
			if (!e->v.parent) {
				fprintf(e->err, " The parent account '%s' doesn't exist\n", s);
				r = -ESLURM_INVALID_ACCOUNT;
			}
			break;
		case K_DEFQOS: {
			struct qos *q = assoc_qos_find(e->t, s);

			if (!q && strcmp(s, "-1") != 0) {
				fprintf(e->err, " Unknown QOS name: %s\n", s);
				r = -ESLURM_INVALID_QOS;
			}
			e->v.u[k] = q ? q->id : 0;
			break;
		}
		case K_QOS:
			r = each_name(e, s, true, add_qos_id, NULL);
			break;
		case K_GRPTRES:
		case K_MAXTRESPJ:
			r = parse_tres(e, (enum key)k, s, k == K_GRPTRES ? 0 : 1);
			break;
		default:
			r = parse_misc(e, (enum key)k, s);
		}
	}
	return r;
}
