/* daemon.c - see daemon.h. */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <event2/event.h>

#define DAEMON_COMMON_OPTS "Df:hL:vV"

void daemon_parse_args(const struct daemon_cmdline *cl, int argc, char **argv,
		       struct daemon_args *ret)
{
	char optstring[64];
	int ch;

	snprintf(optstring, sizeof(optstring), "%s%s", cl->own_opts, DAEMON_COMMON_OPTS);
	*ret = (struct daemon_args){0};
	while ((ch = getopt(argc, argv, optstring)) != -1) {
		switch (ch) {
		case 'D':
			ret->is_foreground = true;
			break;
		case 'f':
			ret->conf = optarg;
			break;
		case 'h':
			fputs(cl->usage, stdout);
			exit(0);
		case 'L':
			ret->logfile = optarg;
			break;
		case 'v':
			ret->verbose++;
			break;
		case 'V':
			printf("slurm %s\n", SL_VERSION);
			exit(0);
		case '?':
		case ':':
			fputs(cl->usage, stderr);
			exit(1);
		default: /* one of own_opts */
			cl->on_opt(ch, optarg, cl->arg);
			break;
		}
	}
}

int daemon_signals_init(struct event_base *base, daemon_signal_fn *cb, void *arg,
			struct event **const ret[_DAEMON_SIG_COUNT])
{
	static const int sigs[_DAEMON_SIG_COUNT] = {SIGTERM, SIGINT, SIGHUP};

	for (size_t i = 0; i < _DAEMON_SIG_COUNT; i++) {
		*ret[i] = evsignal_new(base, sigs[i], cb, arg);
		if (!*ret[i])
			return -ENOMEM;
	}
	for (size_t i = 0; i < _DAEMON_SIG_COUNT; i++)
		evsignal_add(*ret[i], NULL);
	return 0;
}

void daemon_signals_fini(struct event **const evs[_DAEMON_SIG_COUNT])
{
	for (size_t i = 0; i < _DAEMON_SIG_COUNT; i++) {
		if (*evs[i])
			event_free(*evs[i]);
		*evs[i] = NULL;
	}
}

int daemon_raise_nofile(unsigned long *ret_soft)
{
	struct rlimit rl;
	int r = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t old = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			r = -errno;
			rl.rlim_cur = old;
		}
	}
	if (ret_soft)
		*ret_soft = (unsigned long)rl.rlim_cur;
	return r;
}

int daemon_detach(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		return -errno;
	if (pid > 0)
		_exit(0);
	if (setsid() < 0)
		return -errno;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

int daemon_write_pidfile(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "%ld\n", (long)getpid());
	return fclose(f) == 0 ? 0 : -errno;
}
