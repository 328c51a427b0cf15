/* conf_part.c - PartitionName= lines of slurm.conf into struct conf_part.
 *
 * Purpose: PartitionName=DEFAULT updates the defaults later lines start
 * from; any other name adds one partition. Nodes= is checked only after
 * the whole file is read (conf_part_finish), because slurm.conf may name a
 * node before its NodeName= line; errors then still point at the
 * partition's own file:line, which is kept for that reason.
 * Defaults follow slurm.conf(5): State=UP, MaxTime/MaxNodes/MaxCPUsPerNode
 * UNLIMITED, DefaultTime NONE, PriorityJobFactor/PriorityTier 1,
 * OverTimeLimit NONE; AllowGroups/AllowAccounts/AllowQos/AllocNodes=ALL
 * are stored as NULL.
 * Caveats: keys listed RAW below are accepted and ignored; NodeSet names
 * are not understood in Nodes=.
 */
#include "conf_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostlist.h"
#include "limits.h"
#include "log.h"
#include "macros.h"
#include "msg.h"
#include "sl_errno.h"

DEFINE_FREEP(struct hostlist, hostlist_free)

static int part_oversubscribe_set(void *base, const struct conf_key *k, const char *val,
				  const struct conf_where *at, struct sl_error *err);
static void part_all_to_null(char **s);

#define PK(n, t, f, lo, hi) CONF_KEY(n, t, conf_part, f, lo, hi, NULL)

/* clang-format off */
static const struct conf_key part_keys[] = {
	PK("AllocNodes", CONF_STR, alloc_nodes, 0, 0),
	PK("AllowAccounts", CONF_STR, allow_accounts, 0, 0),
	PK("AllowGroups", CONF_STR, allow_groups, 0, 0),
	PK("AllowQos", CONF_STR, allow_qos, 0, 0),
	CONF_KEY_RAW("Alternate"),
	CONF_KEY_RAW("CpuBind"),
	PK("Default", CONF_BOOL, is_default, 0, 0),
	PK("DefCpuPerGPU", CONF_U16, def_cpu_per_gpu, 0, 65535),
	PK("DefaultTime", CONF_TIME, default_time, 0, 0),
	PK("DefMemPerCPU", CONF_MEM, def_mem_per_cpu, 0, UINT64_MAX),
	PK("DefMemPerGPU", CONF_MEM, def_mem_per_gpu, 0, UINT64_MAX),
	PK("DefMemPerNode", CONF_MEM, def_mem_per_node, 0, UINT64_MAX),
	PK("DenyAccounts", CONF_STR, deny_accounts, 0, 0),
	PK("DenyQos", CONF_STR, deny_qos, 0, 0),
	PK("DisableRootJobs", CONF_BOOL, disable_root_jobs, 0, 0),
	PK("ExclusiveUser", CONF_BOOL, exclusive_user, 0, 0),
	PK("GraceTime", CONF_U32, grace_time, 0, UINT32_MAX - 1),
	PK("Hidden", CONF_BOOL, hidden, 0, 0),
	PK("LLN", CONF_BOOL, lln, 0, 0),
	PK("MaxCPUsPerNode", CONF_U32_INF, max_cpus_per_node, 1, UINT32_MAX - 2),
	PK("MaxMemPerCPU", CONF_MEM, max_mem_per_cpu, 0, UINT64_MAX),
	PK("MaxMemPerNode", CONF_MEM, max_mem_per_node, 0, UINT64_MAX),
	PK("MaxNodes", CONF_U32_INF, max_nodes, 0, UINT32_MAX - 2),
	PK("MaxTime", CONF_TIME, max_time, 0, 0),
	PK("MinNodes", CONF_U32, min_nodes, 0, UINT32_MAX - 2),
	PK("Nodes", CONF_STR, nodes, 0, 0),
	CONF_KEY_FN("OverSubscribe", part_oversubscribe_set),
	PK("OverTimeLimit", CONF_U16_INF, over_time_limit, 0, 65533),
	CONF_KEY_RAW("PowerDownOnIdle"),
	CONF_KEY_RAW("PreemptMode"),
	PK("PriorityJobFactor", CONF_U16, priority_job_factor, 0, 65533),
	PK("PriorityTier", CONF_U16, priority_tier, 0, 65533),
	PK("QOS", CONF_STR, qos, 0, 0),
	PK("ReqResv", CONF_BOOL, req_resv, 0, 0),
	CONF_KEY_RAW("ResumeTimeout"),
	PK("RootOnly", CONF_BOOL, root_only, 0, 0),
	CONF_KEY_RAW("SelectTypeParameters"),
	CONF_KEY_FN("Shared", part_oversubscribe_set), /* old name of OverSubscribe */
	PK("State", CONF_PSTATE, state_up, 0, 0),
	CONF_KEY_RAW("SuspendTime"),
	CONF_KEY_RAW("SuspendTimeout"),
	CONF_KEY_RAW("TRESBillingWeights"),
};
/* clang-format on */

/* NO, YES[:n], EXCLUSIVE, FORCE[:n]; stored as written. */
static int part_oversubscribe_set(void *base, const struct conf_key *k, const char *val,
				  const struct conf_where *at, struct sl_error *err)
{
	static const char *const modes[] = {"NO", "YES", "EXCLUSIVE", "FORCE"};
	struct conf_part *p = base;
	const char *colon = strchr(val, ':');
	size_t len = colon ? (size_t)(colon - val) : strlen(val);

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		if (strlen(modes[i]) != len || strncasecmp(val, modes[i], len) != 0)
			continue;
		if (colon
		    && (i == 0 || i == 2 || strspn(colon + 1, "0123456789") == 0
			|| colon[1 + strspn(colon + 1, "0123456789")]))
			break;
		if (conf_strset(&p->over_subscribe, val) < 0)
			return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
		return 0;
	}
	return errprintf(err, -EINVAL, "%s:%u: %s=%s: expected NO, YES[:n], EXCLUSIVE or FORCE[:n]",
			 at->file, at->line, k->name, val);
}

void conf_part_done(struct conf_part *p)
{
	free(p->name);
	free(p->nodes);
	free(p->allow_groups);
	free(p->allow_accounts);
	free(p->allow_qos);
	free(p->deny_accounts);
	free(p->deny_qos);
	free(p->alloc_nodes);
	free(p->qos);
	free(p->over_subscribe);
	*p = (struct conf_part){0};
}

int conf_part_copy(struct conf_part *dst, const struct conf_part *src)
{
	*dst = *src;
	dst->name = dst->nodes = dst->allow_groups = dst->allow_accounts = NULL;
	dst->allow_qos = dst->alloc_nodes = dst->qos = dst->over_subscribe = NULL;
	dst->deny_accounts = dst->deny_qos = NULL;
	if (conf_strset(&dst->name, src->name) < 0 || conf_strset(&dst->nodes, src->nodes) < 0
	    || conf_strset(&dst->allow_groups, src->allow_groups) < 0
	    || conf_strset(&dst->allow_accounts, src->allow_accounts) < 0
	    || conf_strset(&dst->allow_qos, src->allow_qos) < 0
	    || conf_strset(&dst->deny_accounts, src->deny_accounts) < 0
	    || conf_strset(&dst->deny_qos, src->deny_qos) < 0
	    || conf_strset(&dst->alloc_nodes, src->alloc_nodes) < 0
	    || conf_strset(&dst->qos, src->qos) < 0
	    || conf_strset(&dst->over_subscribe, src->over_subscribe) < 0)
		return -ENOMEM;
	return 0;
}

static const struct conf_part part_defaults = {
    .state_up = PART_STATE_UP,
    .max_time = INFINITE,
    .default_time = NO_VAL,
    .max_nodes = INFINITE,
    .max_cpus_per_node = INFINITE,
    .priority_job_factor = 1,
    .priority_tier = 1,
    .over_time_limit = NO_VAL16,
};

int conf_part_build_init(struct conf_build *b)
{
	b->part_def = part_defaults;
	return 0;
}

int conf_part_defaults(struct conf_part *p, const char *name)
{
	*p = part_defaults;
	return conf_strset(&p->name, name);
}

void conf_part_free(struct conf_part *p)
{
	conf_part_done(p);
}

int conf_part_edit(struct conf_part *p, const char *word, struct sl_error *err)
{
	static const struct conf_where at = {"scontrol", 0};
	const char *eq = strchr(word, '=');
	char key[64];
	const struct conf_key *k;
	int r;

	if (!eq || eq == word || (size_t)(eq - word) >= sizeof(key))
		return errprintf(err, -EINVAL, "Invalid input: %s", word);
	memcpy(key, word, (size_t)(eq - word));
	key[eq - word] = '\0';
	k = conf_key_find(part_keys, ARRAY_SIZE(part_keys), key);
	if (!k || k->type == CONF_RAW)
		return errprintf(err, -EINVAL, "Update of this parameter is not supported: %s", word);
	r = conf_value_set(p, k, eq + 1, &at, err);
	if (r < 0)
		return r == -ENOMEM ? r : errprintf(err, -EINVAL, "Invalid input: %s", word);
	part_all_to_null(&p->allow_groups);
	part_all_to_null(&p->allow_accounts);
	part_all_to_null(&p->allow_qos);
	part_all_to_null(&p->alloc_nodes);
	return 0;
}

void conf_part_build_done(struct conf_build *b)
{
	conf_part_done(&b->part_def);
	for (uint32_t i = 0; b->part_at && i < b->c->part_count; i++)
		free((char *)b->part_at[i].file);
	free(b->part_at);
	b->part_at = NULL;
}

static int part_add(struct conf_build *b, struct conf_part *p, const struct conf_where *at,
		    struct sl_error *err)
{
	struct sl_conf *c = b->c;
	struct conf_part *parts;
	struct conf_where *where;
	char *file;

	for (uint32_t i = 0; i < c->part_count; i++)
		if (streq(c->parts[i].name, p->name))
			return errprintf(err, -EEXIST, "%s:%u: duplicate partition '%s'", at->file,
					 at->line, p->name);
	parts = conf_grow(c->parts, &b->part_cap, c->part_count + 1, sizeof(*parts));
	if (parts)
		c->parts = parts;
	where = conf_grow(b->part_at, &b->part_at_cap, c->part_count + 1, sizeof(*where));
	if (where)
		b->part_at = where;
	file = parts && where ? strdup(at->file) : NULL;
	if (!file)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	b->part_at[c->part_count] = (struct conf_where){file, at->line};
	c->parts[c->part_count++] = *p;
	*p = (struct conf_part){0};
	return 0;
}

int conf_part_line(struct conf_build *b, const struct conf_where *at, const struct conf_tok *t,
		   size_t n, struct sl_error *err)
{
	_cleanup_(conf_part_done) struct conf_part p = {0};
	const char *name = t[0].val;
	int r;

	if (!*name)
		return errprintf(err, -EINVAL, "%s:%u: PartitionName= needs a name", at->file,
				 at->line);
	if (strlen(name) >= SL_NAME_MAX)
		return errprintf(err, -ENAMETOOLONG, "%s:%u: partition name too long", at->file,
				 at->line);
	if (conf_part_copy(&p, &b->part_def) < 0)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	for (size_t i = 1; i < n; i++) {
		const struct conf_key *k =
		    conf_key_find(part_keys, ARRAY_SIZE(part_keys), t[i].key);

		if (!k)
			return errprintf(err, -EINVAL, "%s:%u: unknown partition key '%s'",
					 at->file, at->line, t[i].key);
		if (k->type == CONF_RAW)
			debug("%s:%u: %s=%s accepted, not acted on", at->file, at->line, k->name,
			      t[i].val);
		r = conf_value_set(&p, k, t[i].val, at, err);
		if (r < 0)
			return r;
	}
	if (strcaseeq(name, "DEFAULT")) {
		conf_part_done(&b->part_def);
		b->part_def = p;
		p = (struct conf_part){0};
		return 0;
	}
	if (conf_strset(&p.name, name) < 0)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	return part_add(b, &p, at, err);
}

/* Nodes=ALL: every node in config order, compressed. */
static int part_nodes_all(struct conf_build *b, struct conf_part *p)
{
	_cleanup_(hostlist_freep) struct hostlist *hl = NULL;
	char *s = NULL;

	if (hostlist_new(NULL, &hl) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < b->c->node_count; i++)
		if (hostlist_push_host(hl, b->c->nodes[i].name) < 0)
			return -ENOMEM;
	if (b->c->node_count) {
		s = hostlist_ranged_string(hl);
		if (!s)
			return -ENOMEM;
	}
	free(p->nodes);
	p->nodes = s;
	return 0;
}

static int part_nodes_check(struct conf_build *b, const struct conf_part *p,
			    const struct conf_where *at, struct sl_error *err)
{
	_cleanup_(hostlist_freep) struct hostlist *hl = NULL;

	if (hostlist_new(p->nodes, &hl) < 0)
		return errprintf(err, -EINVAL, "%s:%u: PartitionName=%s: Nodes=%s: bad host list",
				 at->file, at->line, p->name, p->nodes);
	for (size_t i = 0; i < hostlist_count(hl); i++)
		if (conf_node_index(b, hostlist_nth(hl, i)) < 0)
			return errprintf(err, -ESLURM_INVALID_NODE_NAME,
					 "%s:%u: PartitionName=%s: Nodes=%s: unknown node '%s'",
					 at->file, at->line, p->name, p->nodes,
					 hostlist_nth(hl, i));
	return 0;
}

/* "ALL" in an allow list means no restriction, stored as NULL. */
static void part_all_to_null(char **s)
{
	if (*s && strcaseeq(*s, "ALL")) {
		free(*s);
		*s = NULL;
	}
}

int conf_part_finish(struct conf_build *b, struct sl_error *err)
{
	for (uint32_t i = 0; i < b->c->part_count; i++) {
		struct conf_part *p = &b->c->parts[i];
		const struct conf_where *at = &b->part_at[i];
		int r;

		if (p->nodes && strcaseeq(p->nodes, "ALL"))
			r = part_nodes_all(b, p);
		else
			r = p->nodes ? part_nodes_check(b, p, at, err) : 0;
		if (r == -ENOMEM)
			return errprintf(err, r, "%s:%u: out of memory", at->file, at->line);
		if (r < 0)
			return r;
		part_all_to_null(&p->allow_groups);
		part_all_to_null(&p->allow_accounts);
		part_all_to_null(&p->allow_qos);
		part_all_to_null(&p->alloc_nodes);
	}
	return 0;
}
