/* job_alloc.c - interactive allocations (placeholder until that work lands). */
#include "rpc.h"

#include "common/sl_errno.h"

int rpc_alloc(struct ctld *c, struct rpc_req *req)
{
	(void)c;
	(void)req;
	return -SLURM_UNEXPECTED_MSG_ERROR;
}

int rpc_alloc_complete(struct ctld *c, struct rpc_req *req)
{
	(void)c;
	(void)req;
	return -SLURM_UNEXPECTED_MSG_ERROR;
}
