/* health.c - see health.h. */
#include "health.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/rpc_server.h"
#include "slurmd.h"
#include "spawn.h"

struct health {
	pid_t pid;	      /* the run, 0: none */
	int out_fd;	      /* its output, -1: closed */
	struct event *out_ev; /* reads it */
	struct event *timer;  /* HEALTH_TIMEOUT_S */
	char out[HEALTH_OUTPUT_KEEP + 1];
	size_t out_len; /* kept; the rest is read and dropped */
	size_t out_total;
};

static void health_out_close(struct health *h)
{
	if (h->out_ev)
		event_free(h->out_ev);
	h->out_ev = NULL;
	if (h->out_fd >= 0)
		close(h->out_fd);
	h->out_fd = -1;
}

static void health_out_cb(evutil_socket_t fd, short what, void *arg)
{
	struct health *h = arg;
	char buf[4096];
	ssize_t n;

	(void)what;
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0)
			break;
		if (h->out_len < HEALTH_OUTPUT_KEEP) {
			size_t room = HEALTH_OUTPUT_KEEP - h->out_len;
			size_t take = (size_t)n < room ? (size_t)n : room;

			memcpy(h->out + h->out_len, buf, take);
			h->out_len += take;
		}
		h->out_total += (size_t)n;
	}
	health_out_close(h); /* EOF: every writer is gone */
}

static void health_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct health *h = arg;

	(void)fd;
	(void)what;
	if (h->pid <= 0)
		return;
	error("HealthCheckProgram still runs after %d s: killed", HEALTH_TIMEOUT_S);
	kill(-h->pid, SIGKILL);
}

static void health_start(struct slurmd *d)
{
	struct health *h = d->health;
	const char *path = d->conf->health_check_program;
	char *argv[] = {(char *)path, NULL};
	_cleanup_free_ char *node = NULL, *conf = NULL;
	char *envp[4] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL, NULL, NULL};
	struct timeval tv = {.tv_sec = HEALTH_TIMEOUT_S};
	int pfd[2], fds[3], r;

	if (!path || h->pid > 0)
		return;
	if (asprintf(&node, "SLURMD_NODENAME=%s", d->node_name) < 0
	    || asprintf(&conf, "SLURM_CONF=%s", d->stepd_conf) < 0) {
		node = conf = NULL;
		return;
	}
	envp[1] = node;
	envp[2] = conf;
	if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK) < 0) {
		error("HealthCheckProgram: pipe: %s", strerror(errno));
		return;
	}
	fcntl(pfd[1], F_SETFL, 0); /* the program's end blocks as usual */
	fds[0] = SPAWN_FD_NULL;
	fds[1] = fds[2] = pfd[1];
	r = slurmd_spawn(path, argv, envp, fds, &h->pid);
	close(pfd[1]);
	if (r < 0) {
		h->pid = 0;
		close(pfd[0]);
		error("HealthCheckProgram %s cannot run: %s", path, strerror(-r));
		return;
	}
	h->out_fd = pfd[0];
	h->out_len = h->out_total = 0;
	h->out_ev = event_new(d->base, h->out_fd, EV_READ | EV_PERSIST, health_out_cb, h);
	if (!h->out_ev || event_add(h->out_ev, NULL) < 0)
		health_out_close(h); /* the program then gets EPIPE; it still runs */
	evtimer_add(h->timer, &tv);
	debug("HealthCheckProgram %s started (pid %d)", path, (int)h->pid);
}

void slurmd_health_reap(struct slurmd *d)
{
	struct health *h = d->health;
	int status;
	pid_t r;

	if (!h || h->pid <= 0)
		return;
	do
		r = waitpid(h->pid, &status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return;
	h->pid = 0;
	evtimer_del(h->timer);
	if (h->out_fd >= 0)
		health_out_cb(h->out_fd, EV_READ, h); /* what is left in the pipe */
	health_out_close(h); /* a child of the program may hold it: not waited for */
	h->out[h->out_len] = '\0';
	if (r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		debug("HealthCheckProgram done (%zu bytes of output)", h->out_total);
		return;
	}
	error("HealthCheckProgram %s failed: %s %d; output (%zu bytes): %s",
	      d->conf->health_check_program, r > 0 && WIFSIGNALED(status) ? "signal" : "exit code",
	      r < 0		    ? -1
	      : WIFSIGNALED(status) ? WTERMSIG(status)
				    : WEXITSTATUS(status),
	      h->out_total, h->out);
}

int slurmd_req_health_check(struct slurmd *d, struct rpc_req *req)
{
	rpc_reply_rc(req, 0);
	health_start(d);
	return 0;
}

int slurmd_health_init(struct slurmd *d)
{
	struct health *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->out_fd = -1;
	d->health = h;
	h->timer = evtimer_new(d->base, health_timeout_cb, h);
	if (!h->timer)
		return -ENOMEM;
	health_start(d);
	return 0;
}

void slurmd_health_fini(struct slurmd *d)
{
	struct health *h = d->health;

	if (!h)
		return;
	if (h->pid > 0)
		kill(-h->pid, SIGKILL);
	health_out_close(h);
	if (h->timer)
		event_free(h->timer);
	free(h);
	d->health = NULL;
}
