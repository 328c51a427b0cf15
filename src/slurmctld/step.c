/* step.c - job steps (placeholder until the step work lands). */
#include "rpc.h"

#include "common/sl_errno.h"

int rpc_step_create(struct ctld *c, struct rpc_req *req)
{
	(void)c;
	(void)req;
	return -SLURM_UNEXPECTED_MSG_ERROR;
}

int rpc_step_complete(struct ctld *c, struct rpc_req *req)
{
	(void)c;
	(void)req;
	return -SLURM_UNEXPECTED_MSG_ERROR;
}

int rpc_step_cancel(struct ctld *c, struct rpc_req *req)
{
	(void)c;
	(void)req;
	return -SLURM_UNEXPECTED_MSG_ERROR;
}

int rpc_step_info(struct ctld *c, struct rpc_req *req)
{
	(void)c;
	(void)req;
	return -SLURM_UNEXPECTED_MSG_ERROR;
}
