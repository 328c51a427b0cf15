/* reboot.c - see reboot.h. */
#include "reboot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "slurmd.h"
#include "spawn.h"

#define REBOOT_ARGS_MAX 16

static int reboot_run(struct slurmd *d, char *words)
{
	char *argv[REBOOT_ARGS_MAX + 1] = {NULL};
	char *envp[4] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL, NULL, NULL};
	const int fds[3] = {SPAWN_FD_NULL, SPAWN_FD_NULL, SPAWN_FD_NULL};
	_cleanup_free_ char *node = NULL, *conf = NULL;
	int argc = 0, r;

	for (char *save = NULL, *w = strtok_r(words, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (argc == REBOOT_ARGS_MAX)
			return -E2BIG;
		argv[argc++] = w;
	}
	if (!argc)
		return -EINVAL;
	if (argv[0][0] != '/')
		return -EINVAL;
	r = slurmd_prog_check(argv[0]);
	if (r < 0)
		return r;
	if (asprintf(&node, "SLURMD_NODENAME=%s", d->node_name) < 0
	    || asprintf(&conf, "SLURM_CONF=%s", d->stepd_conf) < 0) {
		node = conf = NULL;
		return -ENOMEM;
	}
	envp[1] = node;
	envp[2] = conf;
	return slurmd_spawn(argv[0], argv, envp, fds, &d->reboot_pid);
}

int slurmd_req_reboot(struct slurmd *d, struct rpc_req *req)
{
	_cleanup_free_ char *words = NULL;
	int r;

	if (!d->conf->reboot_program) {
		error("RebootProgram isn't defined in config");
		return -ESLURM_NOT_SUPPORTED;
	}
	if (d->reboot_pid > 0) {
		info("Node reboot request: RebootProgram runs already (pid %d)",
		     (int)d->reboot_pid);
		rpc_reply_rc(req, 0);
		return 0;
	}
	info("Node reboot request being processed");
	words = strdup(d->conf->reboot_program);
	if (!words)
		return -ENOMEM;
	r = reboot_run(d, words);
	if (r < 0) {
		d->reboot_pid = 0;
		error("Cannot run RebootProgram [%s]: %s", d->conf->reboot_program, strerror(-r));
		return -ESLURM_NOT_SUPPORTED;
	}
	rpc_reply_rc(req, 0);
	return 0;
}

void slurmd_reboot_reap(struct slurmd *d)
{
	int status;
	pid_t r;

	if (d->reboot_pid <= 0)
		return;
	do
		r = waitpid(d->reboot_pid, &status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return;
	d->reboot_pid = 0;
	if (r > 0 && WIFSIGNALED(status))
		error("RebootProgram signaled: %s", strsignal(WTERMSIG(status)));
	else if (r > 0 && WEXITSTATUS(status))
		error("RebootProgram exit status of %d", WEXITSTATUS(status));
	else
		info("RebootProgram done");
}
