/* route.c - path and method -> endpoint (one table). A path that matches
 * no row is 404; one that matches only under other methods is 405. "*"
 * stands for one path segment, which the handler gets in r->arg. */
#include <stdbool.h>
#include <string.h>

#include "common/macros.h"
#include "common/sl_errno.h"
#include "endpoints.h"
#include "reply.h"
#include "restd.h"

struct route {
	unsigned methods;
	const char *path;
	endpoint_fn *fn;
};

static const struct route routes[] = {
    {RM_GET, "/slurm/v0.0.38/ping", ep_ping},
    {RM_GET, "/slurm/v0.0.38/diag", ep_diag},
    {RM_GET, "/slurm/v0.0.38/jobs", ep_jobs},
    {RM_POST, "/slurm/v0.0.38/job/submit", ep_job_submit},
    {RM_GET, "/slurm/v0.0.38/job/*", ep_job},
    {RM_POST, "/slurm/v0.0.38/job/*", ep_job_update},
    {RM_DELETE, "/slurm/v0.0.38/job/*", ep_job_cancel},
    {RM_GET, "/slurm/v0.0.38/nodes", ep_nodes},
    {RM_GET, "/slurm/v0.0.38/node/*", ep_node},
    {RM_GET, "/slurm/v0.0.38/partitions", ep_parts},
    {RM_GET, "/slurm/v0.0.38/partition/*", ep_part},
    {RM_GET, "/slurmdb/v0.0.38/jobs", ep_db_jobs},
    {RM_GET, "/slurmdb/v0.0.38/job/*", ep_db_job},
    {RM_GET, "/openapi/v3", ep_openapi},
    {RM_GET, "/openapi", ep_openapi},
    {RM_GET, "/openapi.json", ep_openapi},
};

/* Whether path matches pat; the segment under "*" goes to arg. A trailing
 * '/' on path is allowed. */
static bool path_match(const char *pat, const char *path, char *arg, size_t argsz)
{
	while (*pat) {
		if (*pat == '*') {
			size_t n = strcspn(path, "/");

			if (n == 0 || n >= argsz)
				return false;
			memcpy(arg, path, n);
			arg[n] = '\0';
			path += n;
			pat++;
			continue;
		}
		if (*pat++ != *path++)
			return false;
	}
	return !*path || (path[0] == '/' && !path[1]);
}

void rest_route(struct rest_req *r)
{
	bool path_known = false;

	for (size_t i = 0; i < ARRAY_SIZE(routes); i++) {
		if (!path_match(routes[i].path, r->path, r->arg, sizeof(r->arg)))
			continue;
		path_known = true;
		if (routes[i].methods & r->method) {
			routes[i].fn(r);
			return;
		}
	}
	if (path_known)
		rest_reply_error(r, 405, ESLURM_REST_INVALID_QUERY, "Method not allowed");
	else
		rest_reply_error(r, 404, ESLURM_REST_INVALID_QUERY, "Unable to find path");
}
