/* launch_forge.c - a test client that attacks slurmd's step launch as the
 * user who runs it (tests/integration/test_security_cred.py).
 *
 *   launch_forge -j JOB -w NODE -m MODE [-t TARGET] [-g GATE] -- CMD...
 *
 * Creates a one-task step of JOB on NODE (REQUEST_JOB_STEP_CREATE, as
 * srun), builds the launch srun would send NODE, then, by MODE:
 *   cross   sends it to TARGET's slurmd (a node the step does not have):
 *           once as is but for node_name, once also claiming the step's
 *           nodes are TARGET alone;
 *   mem0    sends it to NODE with mem_limit 0 (no limit), then with more
 *           cpus and with a GPU the step was not given;
 *   replay  launches it for real (accepting the step's I/O connection and
 *           reading it to its end), waits for GATE to exist when given,
 *           then sends the same launch again;
 *   batch   sends NODE a REQUEST_BATCH_JOB_LAUNCH of the job whose
 *           script is CMD's last word, without a memory limit (only the
 *           controller may send that);
 *   late    creates GATE.ready, waits for GATE (the test ends the job
 *           meanwhile), then sends the launch for the first time.
 * Each send prints "launch <what> rc=<code> <text>"; the step is
 * cancelled at the end. Exit status: 0 when every step ran as described
 * (whatever slurmd answered), 1 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/conf.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"
#include "forge.h"

struct forge {
	const struct sl_conf *conf;
	struct step_create_resp *step;
	struct launch_tasks_msg msg;
	uint32_t gtid;
	int io_fd;
	uint16_t io_port;
};

static int send_launch(const struct forge *f, const char *node, const struct launch_tasks_msg *m,
		       const char *what)
{
	int r = forge_send_launch(f->conf, node, m);

	printf("launch %s rc=%d %s\n", what, -r, r ? sl_strerror(r) : "ok");
	fflush(stdout);
	return r;
}

/* The stepd's I/O connection, read until it closes it (the tasks ended). */
static int io_drain(struct forge *f)
{
	struct pollfd p = {.fd = f->io_fd, .events = POLLIN};
	char buf[4096];
	int fd;

	if (poll(&p, 1, 60000) != 1)
		return -ETIMEDOUT;
	fd = accept(f->io_fd, NULL, NULL);
	if (fd < 0)
		return -errno;
	p.fd = fd;
	while (poll(&p, 1, 60000) == 1 && read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

static int send_batch(const struct forge *f, const char *node)
{
	const struct launch_tasks_msg *l = &f->msg;
	struct batch_launch_msg b = {.job_id = l->job_id,
				     .array_job_id = NO_VAL,
				     .array_task_id = NO_VAL,
				     .uid = l->uid,
				     .gid = l->gid,
				     .user_name = l->user_name,
				     .argv = l->argv,
				     .argc = 1,
				     .env = l->env,
				     .env_count = l->env_count,
				     .work_dir = "/",
				     .std_out = "/dev/null",
				     .std_err = "/dev/null",
				     .nodes = (char *)node,
				     .num_nodes = 1,
				     .num_tasks = 1,
				     .cpus_per_task = NO_VAL16,
				     .ntasks_per_node = NO_VAL16,
				     .cpus_on_node = 4};
	const struct conf_node *cn = conf_node_find(f->conf, node);
	char *script = NULL;
	uint16_t type = 0;
	void *resp = NULL;
	int r;

	if (!cn || asprintf(&script, "#!/bin/sh\n%s\n", l->argv[l->argc - 1]) < 0)
		return 1;
	b.script = script;
	r = rpc_call_addr(f->conf, cn->node_addr, cn->port, REQUEST_BATCH_JOB_LAUNCH, &b, &type,
			  &resp);
	if (r == 0 && type == RESPONSE_SLURM_RC)
		r = -(int)((struct rc_msg *)resp)->rc;
	if (resp)
		msg_free(msg_lookup(type), resp);
	printf("launch batch rc=%d %s\n", -r, r ? sl_strerror(r) : "ok");
	free(script);
	return 0;
}

static int run_mode(struct forge *f, const char *mode, const char *target, const char *gate)
{
	struct launch_tasks_msg m = f->msg;
	const char *node = f->msg.node_name;

	if (!strcmp(mode, "cross")) {
		if (!target)
			return 1;
		m.node_name = (char *)target;
		send_launch(f, target, &m, "cross-node");
		m.step_nodes = (char *)target;
		send_launch(f, target, &m, "cross-node-claimed");
		return 0;
	}
	if (!strcmp(mode, "mem0")) {
		m.mem_limit = 0;
		send_launch(f, node, &m, "mem-limit-0");
		m = f->msg;
		m.cpus_on_node = f->msg.cpus_on_node + 64;
		send_launch(f, node, &m, "more-cpus");
		m = f->msg;
		m.gpus = "0";
		send_launch(f, node, &m, "gpu");
		return 0;
	}
	if (!strcmp(mode, "batch"))
		return send_batch(f, node);
	if (!strcmp(mode, "late")) {
		char ready[4096];
		FILE *fp;

		if (!gate || snprintf(ready, sizeof(ready), "%s.ready", gate) >= (int)sizeof(ready)
		    || !(fp = fopen(ready, "w")))
			return 1;
		fclose(fp);
		forge_wait_gate(gate);
		send_launch(f, node, &m, "late");
		return 0;
	}
	if (!strcmp(mode, "replay")) {
		if (send_launch(f, node, &m, "first") < 0 || io_drain(f) < 0)
			return 1;
		printf("first done\n");
		fflush(stdout);
		forge_wait_gate(gate);
		send_launch(f, node, &m, "replay");
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *node = NULL, *target = NULL, *gate = NULL;
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	struct sl_conf *conf = NULL;
	struct forge f = {.io_fd = -1};
	struct step_signal_msg cancel;
	uint32_t job_id = 0;
	int opt, rc;

	cli_init(argv[0]);
	forge_tool = "launch_forge";
	while ((opt = getopt(argc, argv, "j:w:m:t:g:")) != -1) {
		if (opt == 'j')
			job_id = (uint32_t)strtoul(optarg, NULL, 10);
		else if (opt == 'w')
			node = optarg;
		else if (opt == 'm')
			mode = optarg;
		else if (opt == 't')
			target = optarg;
		else if (opt == 'g')
			gate = optarg;
		else
			return 2;
	}
	if (!job_id || !node || !mode || optind >= argc)
		return 2;
	if (cli_conf_load_nodes(&conf) < 0)
		return 1;
	f.conf = conf;
	if (forge_io_listen(&f.io_fd, &f.io_port) < 0)
		forge_die("listen", -errno);
	f.step = forge_step_create(f.conf, job_id, node);
	printf("step %u.%u nodes=%s mem=%llu cpus=%u\n", f.step->job_id, f.step->step_id,
	       f.step->step_nodes, (unsigned long long)f.step->nodes[0].mem, f.step->nodes[0].cpus);
	forge_fill_launch(&f.msg, f.step, &f.gtid, argv + optind, argc - optind, env, 1, f.io_port);
	rc = run_mode(&f, mode, target, gate);
	cancel =
	    (struct step_signal_msg){.job_id = job_id, .step_id = f.step->step_id, .signal = 9};
	rpc_call_ctld_rc(conf, REQUEST_CANCEL_JOB_STEP, &cancel);
	msg_free(msg_lookup(RESPONSE_JOB_STEP_CREATE), f.step);
	conf_free(conf);
	close(f.io_fd);
	return rc;
}
