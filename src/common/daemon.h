/* daemon.h - what every daemon does at start: the command-line flags they
 * share, the signals they handle in their event loop, detaching and the
 * pid file.
 *
 * The shared flags are -D (foreground), -f file (slurm.conf), -h (help on
 * stdout, exit 0), -L logfile, -v (more verbose, repeatable) and -V
 * ("slurm <version>" on stdout, exit 0); an unknown flag prints the usage
 * on stderr and exits 1. Each daemon adds its own letters through a hook.
 */
#pragma once
#include <stdbool.h>

struct event;
struct event_base;

/* The shared flags as given; strings are borrowed from argv. */
struct daemon_args {
	bool is_foreground;  /* -D */
	const char *conf;    /* -f, NULL: not given */
	const char *logfile; /* -L, NULL: not given */
	int verbose;	     /* number of -v */
};

/* One of the daemon's own flags: its letter and argument (NULL: none). */
typedef void daemon_opt_fn(int ch, const char *optarg, void *arg);

struct daemon_cmdline {
	const char *own_opts; /* getopt letters of the daemon's own flags ("ci", "CN:") */
	const char *usage;    /* the whole text -h prints */
	daemon_opt_fn *on_opt;
	void *arg;
};

/* getopt over argv with the shared flags plus cl->own_opts. -h, -V and
 * unknown flags exit as described above; the rest fill *ret (which starts
 * zeroed) or go to cl->on_opt in the order given. */
void daemon_parse_args(const struct daemon_cmdline *cl, int argc, char **argv,
		       struct daemon_args *ret);

/* libevent's signal callback (evutil_socket_t is an int here): sig is the
 * signal number. */
typedef void daemon_signal_fn(int sig, short what, void *arg);

/* The signals a daemon handles in its loop, in this order. */
enum daemon_signal {
	DAEMON_SIG_TERM, /* SIGTERM */
	DAEMON_SIG_INT,	 /* SIGINT */
	DAEMON_SIG_HUP,	 /* SIGHUP */
	_DAEMON_SIG_COUNT,
};

/* Add SIGTERM, SIGINT and SIGHUP to base, each calling cb(sig, .., arg);
 * *ret[i] receives the event of enum daemon_signal i. Returns 0 or -ENOMEM
 * (events made so far are in *ret[], for daemon_signals_fini()). */
int daemon_signals_init(struct event_base *base, daemon_signal_fn *cb, void *arg,
			struct event **const ret[_DAEMON_SIG_COUNT]);
/* Free the events daemon_signals_init() made and set them to NULL;
 * NULL entries are skipped. */
void daemon_signals_fini(struct event **const evs[_DAEMON_SIG_COUNT]);

/* Raise the soft RLIMIT_NOFILE to the hard one, so that a flood of
 * connections meets the listener's own cap (rpc_server.c) before the
 * process's; *ret_soft (may be NULL) is the limit now. -errno when it
 * could not be read or set (the old limit then stays). */
int daemon_raise_nofile(unsigned long *ret_soft);

/* fork, setsid, stdio to /dev/null; the parent exits 0. */
int daemon_detach(void);
/* Write our pid to path (0644). */
int daemon_write_pidfile(const char *path);
