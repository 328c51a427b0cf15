/* endpoints.h - the handlers route.c calls, one file per area. Each runs
 * on a worker with r authenticated (r->uid, r->gid, r->user) and r->arg
 * the path's {id} or {name}; it sets r->status and r->out. */
#pragma once

struct rest_req;

typedef void endpoint_fn(struct rest_req *r);

/* ep_job.c: submit, cancel, update */
endpoint_fn ep_job_submit, ep_job_cancel, ep_job_update;
/* ep_info.c: ping; the listings (jobs, nodes, partitions, diag, slurmdb)
 * and the OpenAPI spec */
endpoint_fn ep_ping, ep_diag, ep_jobs, ep_job, ep_nodes, ep_node, ep_parts, ep_part;
endpoint_fn ep_db_jobs, ep_db_job, ep_openapi;
