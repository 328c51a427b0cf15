/* license.c - see license.h.
 *
 * Purpose: the license table and the per-job checks. A job's list is
 * parsed again where it is needed (a few names, microseconds): only a job
 * that asked for licenses pays for it.
 */
#include "license.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/license_spec.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"

static const char *job_licenses(const struct job *job)
{
	return job->desc && job->desc->licenses && *job->desc->licenses ? job->desc->licenses
									: NULL;
}

static void table_free(struct license *t, uint32_t n)
{
	for (uint32_t i = 0; t && i < n; i++)
		free(t[i].name);
	free(t);
}

void license_table_free(struct ctld *c)
{
	table_free(c->licenses, c->license_count);
	c->licenses = NULL;
	c->license_count = 0;
}

struct license *license_find(const struct ctld *c, const char *name)
{
	for (uint32_t i = 0; i < c->license_count; i++)
		if (!strcmp(c->licenses[i].name, name))
			return &c->licenses[i];
	return NULL;
}

int license_table_build(struct ctld *c)
{
	_cleanup_free_ struct license_item *items = NULL;
	struct license *t = NULL;
	uint32_t n = 0;

	if (c->conf->licenses && license_spec_parse(c->conf->licenses, 1, &items, &n) < 0)
		n = 0; /* the conf parser checked it: cannot happen */
	if (n && !(t = calloc(n, sizeof(*t))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		t[i].total = items[i].count;
		if (!(t[i].name = strdup(items[i].name))) {
			table_free(t, n);
			return -ENOMEM;
		}
	}
	license_table_free(c);
	c->licenses = t;
	c->license_count = n;
	return 0;
}

int license_job_check(const struct ctld *c, const char *spec)
{
	_cleanup_free_ struct license_item *items = NULL;
	uint32_t n;

	if (!spec || !*spec)
		return 0;
	if (license_spec_parse(spec, 0, &items, &n) < 0)
		return -ESLURM_INVALID_LICENSES;
	for (uint32_t i = 0; i < n; i++) {
		const struct license *l = license_find(c, items[i].name);

		if (!l) {
			info("License %s not found", items[i].name);
			return -ESLURM_INVALID_LICENSES;
		}
		if (items[i].count > l->total) {
			info("Licenses count for %s exceeds the configured %u", l->name, l->total);
			return -ESLURM_INVALID_LICENSES;
		}
	}
	return 0;
}

bool license_job_fits(const struct ctld *c, const struct job *job)
{
	_cleanup_free_ struct license_item *items = NULL;
	const char *spec = job_licenses(job);
	uint32_t n;

	if (!spec || license_spec_parse(spec, 0, &items, &n) < 0)
		return true;
	for (uint32_t i = 0; i < n; i++) {
		const struct license *l = license_find(c, items[i].name);

		/* a license gone from slurm.conf: the job waits for it */
		if (!l || l->used > l->total || items[i].count > l->total - l->used)
			return false;
	}
	return true;
}

void license_job_apply(struct ctld *c, const struct job *job, bool is_release)
{
	_cleanup_free_ struct license_item *items = NULL;
	const char *spec = job_licenses(job);
	uint32_t n;

	if (!spec || license_spec_parse(spec, 0, &items, &n) < 0)
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct license *l = license_find(c, items[i].name);

		if (!l)
			continue;
		if (is_release)
			l->used -= items[i].count < l->used ? items[i].count : l->used;
		else
			l->used += items[i].count;
	}
}
