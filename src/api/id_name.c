/* id_name.c - user and group names of ids, and ids of names; see
 * id_name.h.
 *
 * Owns: the per-thread caches of the last lookups (slurmrestd's workers
 * and the commands share this code, so no lock is needed).
 * Caveat: an error of the database is not kept; an unknown id is.
 */
#include "api/id_name.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* The last names looked up, by id: slot id % ID_CACHE. */
#define ID_CACHE 16
struct id_name {
	uint32_t id;
	bool used, found;
	char name[64];
};
static __thread struct id_name uid_cache[ID_CACHE], gid_cache[ID_CACHE];

static bool cached_name(struct id_name *cache, bool is_group, uint32_t id, char *buf, size_t n)
{
	struct id_name *e = &cache[id % ID_CACHE];
	struct passwd pw, *pres = NULL;
	struct group gr, *gres = NULL;
	const char *name = NULL;
	char tmp[1024];

	if (!(e->used && e->id == id)) {
		if (is_group ? getgrgid_r((gid_t)id, &gr, tmp, sizeof(tmp), &gres) != 0
			     : getpwuid_r((uid_t)id, &pw, tmp, sizeof(tmp), &pres) != 0)
			return false;
		name = is_group ? (gres ? gres->gr_name : NULL) : (pres ? pres->pw_name : NULL);
		if (name && strlen(name) >= sizeof(e->name)) { /* too long to keep */
			snprintf(buf, n, "%s", name);
			return true;
		}
		*e = (struct id_name){.id = id, .used = true, .found = name != NULL};
		if (name)
			snprintf(e->name, sizeof(e->name), "%s", name);
	}
	if (e->found)
		snprintf(buf, n, "%s", e->name);
	return e->found;
}

bool id_name_uid(uint32_t uid, char *buf, size_t n)
{
	return cached_name(uid_cache, false, uid, buf, n);
}

bool id_name_gid(uint32_t gid, char *buf, size_t n)
{
	return cached_name(gid_cache, true, gid, buf, n);
}

bool id_name_uid_of(const char *name, uint32_t *ret)
{
	struct passwd pw, *res = NULL;
	char buf[1024], *end;
	unsigned long n;

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 && res) {
		*ret = res->pw_uid;
		return true;
	}
	n = strtoul(name, &end, 10);
	if (!*name || *end || getpwuid_r((uid_t)n, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return false;
	*ret = (uint32_t)n;
	return true;
}

bool id_name_gid_of(const char *name, uint32_t *ret)
{
	struct group gr, *res = NULL;
	char buf[4096], *end;
	unsigned long n;

	if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) == 0 && res) {
		*ret = res->gr_gid;
		return true;
	}
	n = strtoul(name, &end, 10);
	if (!*name || *end || getgrgid_r((gid_t)n, &gr, buf, sizeof(buf), &res) != 0 || !res)
		return false;
	*ret = (uint32_t)n;
	return true;
}
