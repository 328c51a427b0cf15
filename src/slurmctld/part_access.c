/* part_access.c - see part_access.h.
 *
 * Group names in AllowGroups are resolved when a job is checked (as Slurm
 * does with its group cache), so a group made after the controller started
 * counts. An account or QOS is a free word here (there are no
 * associations): AllowAccounts/DenyAccounts act on the word the job
 * carries, as in Slurm without AccountingStorageEnforce.
 */
#include "part_access.h"

#include <grp.h>
#include <string.h>
#include <strings.h>

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

/* Does one of the job user's groups appear in list (group names)? */
static bool in_groups(const char *list, const struct part_access *a)
{
	char name[256], buf[4096];
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		struct group gr, *res = NULL;

		if (n > 0 && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) == 0 && res
			    && has_gid(a, res->gr_gid))
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
