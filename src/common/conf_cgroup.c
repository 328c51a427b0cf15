/* conf_cgroup.c - cgroup.conf into struct cgroup_conf.
 *
 * Purpose: the keys slurmstepd acts on (stepd cgroup.c): CgroupPlugin=
 * (cgroup/v1, cgroup/v2, autodetect), CgroupMountpoint=, Constrain{Cores,
 * RAMSpace,SwapSpace,Devices}=, AllowedRAMSpace= and AllowedSwapSpace=
 * (percent of the allocation, decimals allowed), MaxRAMPercent=,
 * MaxSwapPercent= (of the node's RealMemory), MinRAMSpace= (MB) and
 * MemorySwappiness=. Accepted and not acted on, as Slurm 22.05 still
 * reads them: CgroupAutomount, CgroupReleaseAgentDir, the Kmem keys,
 * AllowedDevicesFile, TaskAffinity, IgnoreSystemd(OnFailure),
 * EnableControllers. Any other key, or a bad value, is an error
 * "file:line: ..." as in slurm.conf.
 */
#include "conf_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "macros.h"
#include "msg.h"

static int cg_plugin_set(void *base, const struct conf_key *k, const char *val,
			 const struct conf_where *at, struct sl_error *err);
static int cg_percent_set(void *base, const struct conf_key *k, const char *val,
			  const struct conf_where *at, struct sl_error *err);

#define CK(n, t, f, lo, hi, d) CONF_KEY(n, t, cgroup_conf, f, lo, hi, d)
/* a percent: the field's offset travels in off, parsed by cg_percent_set */
#define CP(n, f, d)                                                                                \
	{                                                                                          \
		n, CONF_FN, offsetof(struct cgroup_conf, f), 0, 0, d, cg_percent_set               \
	}

/* clang-format off */
static const struct conf_key cgroup_keys[] = {
	CP("AllowedRAMSpace", allowed_ram, "100"),
	CP("AllowedSwapSpace", allowed_swap, "0"),
	CONF_KEY_RAW("AllowedDevicesFile"),
	CONF_KEY_RAW("AllowedKmemSpace"),
	CONF_KEY_RAW("CgroupAutomount"),
	CK("CgroupMountpoint", CONF_STR, mountpoint, 0, 0, "/sys/fs/cgroup"),
	{"CgroupPlugin", CONF_FN, 0, 0, 0, "autodetect", cg_plugin_set},
	CONF_KEY_RAW("CgroupReleaseAgentDir"),
	CK("ConstrainCores", CONF_BOOL, constrain_cores, 0, 0, "no"),
	CK("ConstrainDevices", CONF_BOOL, constrain_devices, 0, 0, "no"),
	CONF_KEY_RAW("ConstrainKmemSpace"),
	CK("ConstrainRAMSpace", CONF_BOOL, constrain_ram, 0, 0, "no"),
	CK("ConstrainSwapSpace", CONF_BOOL, constrain_swap, 0, 0, "no"),
	CONF_KEY_RAW("EnableControllers"),
	CONF_KEY_RAW("IgnoreSystemd"),
	CONF_KEY_RAW("IgnoreSystemdOnFailure"),
	CONF_KEY_RAW("MaxKmemPercent"),
	CP("MaxRAMPercent", max_ram_percent, "100"),
	CP("MaxSwapPercent", max_swap_percent, "100"),
	CK("MemorySwappiness", CONF_U32, swappiness, 0, 100, NULL),
	CONF_KEY_RAW("MinKmemSpace"),
	CK("MinRAMSpace", CONF_U64, min_ram, 0, UINT64_MAX, "30"),
	CONF_KEY_RAW("TaskAffinity"),
};
/* clang-format on */

static int cg_plugin_set(void *base, const struct conf_key *k, const char *val,
			 const struct conf_where *at, struct sl_error *err)
{
	struct cgroup_conf *g = base;

	if (strcaseeq(val, "autodetect"))
		g->plugin = CGROUP_PLUGIN_AUTO;
	else if (strcaseeq(val, "cgroup/v1"))
		g->plugin = CGROUP_PLUGIN_V1;
	else if (strcaseeq(val, "cgroup/v2"))
		g->plugin = CGROUP_PLUGIN_V2;
	else
		return errprintf(err, -EINVAL,
				 "%s:%u: %s=%s: expected autodetect, cgroup/v1 or cgroup/v2",
				 at->file, at->line, k->name, val);
	return 0;
}

/* "100", "95.5": a percent from 0 to 100 (Allowed*Space may be more). */
static int cg_percent_set(void *base, const struct conf_key *k, const char *val,
			  const struct conf_where *at, struct sl_error *err)
{
	double *field = (double *)((char *)base + k->off);
	bool is_allowed = strncasecmp(k->name, "Allowed", 7) == 0;
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (errno || end == val || *end || !isfinite(v) || v < 0 || (!is_allowed && v > 100)
	    || v > 1e6)
		return errprintf(err, -EINVAL, "%s:%u: %s=%s: expected a percent%s", at->file,
				 at->line, k->name, val, is_allowed ? "" : " from 0 to 100");
	*field = v;
	return 0;
}

void conf_cgroup_done(struct cgroup_conf *g)
{
	free(g->mountpoint);
	*g = (struct cgroup_conf){0};
}

int conf_cgroup_defaults(struct cgroup_conf *g)
{
	static const struct conf_where at = {"<default>", 0};
	struct sl_error err;

	conf_cgroup_done(g);
	g->swappiness = NO_VAL;
	for (size_t i = 0; i < ARRAY_SIZE(cgroup_keys); i++) {
		const struct conf_key *k = &cgroup_keys[i];

		if (k->def && k->type != CONF_RAW && conf_value_set(g, k, k->def, &at, &err) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int cgroup_line(void *arg, const struct conf_where *at, struct conf_tok *t, size_t n,
		       struct sl_error *err)
{
	struct cgroup_conf *g = arg;

	for (size_t i = 0; i < n; i++) {
		const struct conf_key *k =
		    conf_key_find(cgroup_keys, ARRAY_SIZE(cgroup_keys), t[i].key);
		int r;

		if (!k)
			return errprintf(err, -EINVAL, "%s:%u: unknown cgroup.conf key '%s'",
					 at->file, at->line, t[i].key);
		if (k->type == CONF_RAW) {
			debug("%s:%u: %s=%s accepted, not acted on", at->file, at->line, k->name,
			      t[i].val);
			continue;
		}
		r = conf_value_set(g, k, t[i].val, at, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int conf_cgroup_load(const char *path, struct sl_conf *c, struct sl_error *err)
{
	struct cgroup_conf g = {0};
	int r = conf_cgroup_defaults(&g);

	if (r < 0)
		return errprintf(err, r, "%s: out of memory", path);
	r = conf_read_file(path, cgroup_line, &g, err);
	if (r < 0) { /* all of the file or none of it */
		conf_cgroup_done(&g);
		return r;
	}
	if (!g.mountpoint || g.mountpoint[0] != '/') {
		r = errprintf(err, -EINVAL, "%s: CgroupMountpoint=%s: not an absolute path", path,
			      g.mountpoint ? g.mountpoint : "");
		conf_cgroup_done(&g);
		return r;
	}
	conf_cgroup_done(&c->cgroup);
	c->cgroup = g;
	return 0;
}
