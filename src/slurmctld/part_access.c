/* part_access.c - see part_access.h.
 *
 * Group names in AllowGroups are resolved through a small cache kept for
 * GROUP_CACHE_S (Slurm's GroupUpdateTime default), so a submission does
 * not wait on the user database (NSS: files, LDAP) on the controller's
 * loop each time, and a group made after the controller started counts
 * within that time. Caveat: the cache is this file's one piece of state
 * (the event loop is its only caller). An account or QOS is a free word here (there are no
 * associations): AllowAccounts/DenyAccounts act on the word the job
 * carries, as in Slurm without AccountingStorageEnforce.
 */
#include "part_access.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/conf.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"

static bool is_all(const char *list)
{
	return !list || !*list || strcasecmp(list, "ALL") == 0;
}

bool part_list_has(const char *list, const char *name)
{
	const char *p = list;
	size_t len;

	if (is_all(list))
		return true;
	if (!name || !*name)
		return false;
	len = strlen(name);
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && strncmp(p, name, n) == 0)
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

static bool has_gid(const struct part_access *a, gid_t gid)
{
	for (uint32_t i = 0; i < a->ngids; i++)
		if (a->gids[i] == gid)
			return true;
	return false;
}

#define GROUP_CACHE_S	  600 /* GroupUpdateTime's default */
#define GROUP_CACHE_SLOTS 64
#define GROUP_BUF_MAX	  (1u << 20) /* a group of many members needs a big buffer */

static struct group_slot {
	char name[256];
	gid_t gid;
	bool is_found;
	time_t at;
} group_cache[GROUP_CACHE_SLOTS];

/* name's gid: false when there is no such group (or it cannot be read). */
static bool group_lookup(const char *name, gid_t *ret)
{
	struct group_slot *slot = &group_cache[0];
	time_t now = time(NULL);
	size_t cap = 4096;
	char *buf = NULL;
	int r;

	for (int i = 0; i < GROUP_CACHE_SLOTS; i++) {
		struct group_slot *g = &group_cache[i];

		if (g->at && strcmp(g->name, name) == 0) {
			if (now - g->at < GROUP_CACHE_S) {
				*ret = g->gid;
				return g->is_found;
			}
			slot = g;
			break;
		}
		if (g->at < slot->at)
			slot = g; /* the oldest (or an empty one) is replaced */
	}
	*slot = (struct group_slot){.at = now};
	snprintf(slot->name, sizeof(slot->name), "%s", name);
	do {
		struct group gr, *res = NULL;
		char *b = realloc(buf, cap);

		if (!b)
			break;
		buf = b;
		r = getgrnam_r(name, &gr, buf, cap, &res);
		if (r == 0 && res) {
			slot->gid = res->gr_gid;
			slot->is_found = true;
		}
		cap *= 2;
	} while (r == ERANGE && cap <= GROUP_BUF_MAX);
	free(buf);
	*ret = slot->gid;
	return slot->is_found;
}

/* Does one of the job user's groups appear in list (group names)? */
static bool in_groups(const char *list, const struct part_access *a)
{
	char name[256];
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		gid_t gid;

		if (n > 0 && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			if (group_lookup(name, &gid) && has_gid(a, gid))
				return true;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

/* An allow list, or when it is unset a deny list (Slurm ignores the deny
 * list when the allow list is set). */
static bool allowed(const char *allow, const char *deny, const char *name)
{
	if (!is_all(allow))
		return part_list_has(allow, name);
	return !deny || !*deny || !name || !part_list_has(deny, name);
}

int part_access_check(const struct conf_part *p, const struct part_access *a)
{
	bool is_root_job = a->uid == 0 || a->uid == a->slurm_user_id;

	if (p->root_only && a->submit_uid != 0 && a->submit_uid != a->slurm_user_id)
		return -ESLURM_ACCESS_DENIED;
	if (p->disable_root_jobs && a->uid == 0)
		return -ESLURM_USER_ID_MISSING;
	if (!is_root_job && !is_all(p->allow_groups) && !in_groups(p->allow_groups, a))
		return -ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP;
	if (!allowed(p->allow_accounts, p->deny_accounts, a->account))
		return -ESLURM_INVALID_ACCOUNT;
	if (a->uid != 0 && !allowed(p->allow_qos, p->deny_qos, a->qos))
		return -ESLURM_INVALID_QOS;
	return 0;
}

int part_limits_check(const struct conf_part *p, uint32_t node_count, const struct part_request *r)
{
	uint32_t max_nodes =
	    p->max_nodes != INFINITE && p->max_nodes < node_count ? p->max_nodes : node_count;

	if (r->min_nodes > max_nodes || (r->max_nodes && r->min_nodes > r->max_nodes))
		return -ESLURM_INVALID_NODE_COUNT;
	if (p->max_time != INFINITE && r->time_limit > p->max_time)
		return -ESLURM_INVALID_TIME_LIMIT;
	if (p->max_cpus_per_node != INFINITE && r->cpus_per_node > p->max_cpus_per_node)
		return -ESLURM_TOO_MANY_REQUESTED_CPUS;
	if (p->max_mem_per_node && r->mem_per_node > p->max_mem_per_node)
		return -ESLURM_INVALID_TASK_MEMORY;
	if (p->max_mem_per_cpu && r->mem_per_cpu > p->max_mem_per_cpu)
		return -ESLURM_INVALID_TASK_MEMORY;
	return 0;
}
