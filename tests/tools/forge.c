/* forge.c - see forge.h. */
#include "forge.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "cli/cli.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"

const char *forge_tool = "forge";

void forge_die(const char *what, int r)
{
	fprintf(stderr, "%s: %s: %s\n", forge_tool, what, sl_strerror(r));
	exit(1);
}

struct step_create_resp *forge_step_create(const struct sl_conf *conf, uint32_t job_id,
					   const char *node)
{
	struct step_create_req q = {.job_id = job_id,
				    .name = (char *)forge_tool,
				    .num_tasks = 1,
				    .min_nodes = 1,
				    .max_nodes = 1,
				    .cpus_per_task = NO_VAL16,
				    .ntasks_per_node = NO_VAL16,
				    .mem_per_node = NO_VAL64,
				    .mem_per_cpu = NO_VAL64,
				    .req_nodes = (char *)node,
				    .time_limit = NO_VAL,
				    .flags = STEP_FLAG_OVERLAP,
				    .srun_host = "127.0.0.1",
				    .command = (char *)forge_tool};
	struct step_create_resp *step = NULL;
	int r =
	    ctld_fetch(conf, REQUEST_JOB_STEP_CREATE, &q, RESPONSE_JOB_STEP_CREATE, (void **)&step);

	if (r == 0 && step->error_code)
		r = -(int)step->error_code;
	if (r < 0)
		forge_die("step create", r);
	if (step->node_count != 1)
		forge_die("step create", -ESLURM_BAD_TASK_COUNT);
	return step;
}

void forge_fill_launch(struct launch_tasks_msg *m, const struct step_create_resp *r, uint32_t *gtid,
		       char **argv, int argc, char **env, uint32_t env_count, uint16_t io_port)
{
	const struct step_node *n = &r->nodes[0];

	*gtid = 0;
	*m = (struct launch_tasks_msg){.job_id = r->job_id,
				       .step_id = r->step_id,
				       .uid = r->uid,
				       .gid = r->gid,
				       .user_name = r->user_name,
				       .cred = r->cred,
				       .node_name = n->name,
				       .argv = argv,
				       .argc = (uint32_t)argc,
				       .env = env,
				       .env_count = env_count,
				       .cwd = "/",
				       .step_nodes = r->step_nodes,
				       .num_nodes = 1,
				       .node_id = 0,
				       .num_tasks = 1,
				       .gtids = gtid,
				       .ntasks_here = 1,
				       .map = r->map,
				       .cpus_on_node = n->cpus,
				       .mem_limit = n->mem,
				       .gpus = n->gpus,
				       .io_host = "127.0.0.1",
				       .io_port = io_port,
				       .io_key = "forge",
				       .time_limit = r->time_limit};
}

int forge_send_launch(const struct sl_conf *conf, const char *node,
		      const struct launch_tasks_msg *m)
{
	const struct conf_node *cn = conf_node_find(conf, node);
	uint16_t type = 0;
	void *resp = NULL;
	int r;

	if (!cn)
		forge_die(node, -ESLURM_INVALID_NODE_NAME);
	r = rpc_call_addr(conf, cn->node_addr, cn->port, REQUEST_LAUNCH_TASKS, m, &type, &resp);
	if (r == 0 && type == RESPONSE_SLURM_RC)
		r = -(int)((struct rc_msg *)resp)->rc;
	if (resp)
		msg_free(msg_lookup(type), resp);
	return r;
}

int forge_io_listen(int *ret_fd, uint16_t *ret_port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	*ret_fd = fd;
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 8) < 0
	    || getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		return -errno;
	*ret_port = ntohs(sa.sin_port);
	return 0;
}

void forge_wait_gate(const char *gate)
{
	struct stat st;

	for (int i = 0; gate && i < 2400 && stat(gate, &st) < 0; i++)
		usleep(50000);
}
