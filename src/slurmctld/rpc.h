/* rpc.h - the controller's RPC handlers (one file per area) and the
 * dispatcher that checks privilege before any handler runs (R17).
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "common/rpc_server.h"
#include "ctld.h"

/* A handler returns <0 to have the dispatcher reply RESPONSE_SLURM_RC
 * with that code, or 0 when it replied (or deferred the reply) itself
 * (rpc_server.h: the rows are struct rpc_handler, served by
 * rpc_table_dispatch). */
typedef int ctld_handler_fn(struct ctld *c, struct rpc_req *req);

/* The controller's table served (main.c calls it behind durable_admit). */
void rpc_dispatch(void *arg, struct rpc_req *req);
/* The table (exposed for the unit test that keeps docs/architecture.md's
 * "follow a request" table current). */
const struct rpc_handler *rpc_handlers(size_t *ret_count);

/* rpc_node.c */
int rpc_node_register(struct ctld *c, struct rpc_req *req);
int rpc_node_info(struct ctld *c, struct rpc_req *req);
int rpc_node_update(struct ctld *c, struct rpc_req *req);
int rpc_node_reboot(struct ctld *c, struct rpc_req *req);
/* rpc_part.c */
int rpc_part_info(struct ctld *c, struct rpc_req *req);
int rpc_license_info(struct ctld *c, struct rpc_req *req);
int rpc_part_edit(struct ctld *c, struct rpc_req *req);
int rpc_resv_create(struct ctld *c, struct rpc_req *req);
int rpc_resv_update(struct ctld *c, struct rpc_req *req);
int rpc_resv_delete(struct ctld *c, struct rpc_req *req);
int rpc_resv_info(struct ctld *c, struct rpc_req *req);
/* rpc_wait.c */
int rpc_job_wait(struct ctld *c, struct rpc_req *req);
/* rpc_stats.c */
int rpc_stats_info(struct ctld *c, struct rpc_req *req);
/* rpc_admin.c */
int rpc_ping(struct ctld *c, struct rpc_req *req);
int rpc_build_info(struct ctld *c, struct rpc_req *req);
int rpc_reconfigure(struct ctld *c, struct rpc_req *req);
int rpc_shutdown(struct ctld *c, struct rpc_req *req);
/* rpc_job.c */
int rpc_job_submit(struct ctld *c, struct rpc_req *req);
int rpc_job_will_run(struct ctld *c, struct rpc_req *req);
int rpc_job_info(struct ctld *c, struct rpc_req *req);
int rpc_job_kill(struct ctld *c, struct rpc_req *req);
int rpc_job_update(struct ctld *c, struct rpc_req *req);
int rpc_job_complete(struct ctld *c, struct rpc_req *req);
int rpc_job_requeue(struct ctld *c, struct rpc_req *req);
int rpc_epilog_complete(struct ctld *c, struct rpc_req *req);
int rpc_prolog_complete(struct ctld *c, struct rpc_req *req);
/* rpc_step.c: job steps */
int rpc_step_create(struct ctld *c, struct rpc_req *req);   /* REQUEST_JOB_STEP_CREATE */
int rpc_step_complete(struct ctld *c, struct rpc_req *req); /* REQUEST_STEP_COMPLETE */
int rpc_step_cancel(struct ctld *c, struct rpc_req *req);   /* REQUEST_CANCEL_JOB_STEP */
int rpc_step_info(struct ctld *c, struct rpc_req *req);     /* REQUEST_JOB_STEP_INFO */
/* rpc_prio.c */
int rpc_prio_factors(struct ctld *c, struct rpc_req *req); /* REQUEST_PRIORITY_FACTORS */
/* rpc_acct.c */
int rpc_acct_query(struct ctld *c, struct rpc_req *req); /* REQUEST_ACCT_QUERY */
/* rpc_assoc.c */
int rpc_assoc_mgr(struct ctld *c, struct rpc_req *req);	 /* REQUEST_ASSOC_MGR */
int rpc_assoc_list(struct ctld *c, struct rpc_req *req); /* ASSOC_LIST, SHARE_INFO */
/* rpc_alloc.c: interactive allocations (salloc, srun without one) */
int rpc_alloc(struct ctld *c, struct rpc_req *req);          /* REQUEST_RESOURCE_ALLOCATION */
int rpc_alloc_complete(struct ctld *c, struct rpc_req *req); /* REQUEST_COMPLETE_JOB_ALLOCATION */
/* Where the controller later connects back to a client (salloc's and
 * srun's alloc_host, srun's srun_host): the IPv4 address of peer
 * ("10.0.0.5:41234", the request's socket), whatever the client claimed,
 * so that no name is ever resolved on the event loop and a client cannot
 * point the controller at another host. A peer that is not an IPv4
 * socket keeps a claimed IPv4 literal. -EINVAL: no usable address. */
int rpc_client_addr(const char *peer, const char *claimed, char **ret);
