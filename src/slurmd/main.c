/* main.c - slurmd: options, this node's identity, and subsystems in order.
 *
 *   slurmd [-D] [-N NodeName] [-f slurm.conf] [-C] [-L logfile] [-v...] [-V] [-h]
 *
 * Several slurmd may run on one host, each with -N and its own Port,
 * SlurmdSpoolDir/%n, SlurmdLogFile/%n and SlurmdPidFile/%n.
 */
#include "slurmd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/daemon.h"
#include "common/errprintf.h"
#include "common/gres_detect.h"
#include "common/hw_detect.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "launch.h"
#include "container.h"
#include "health.h"
#include "prolog.h"

static struct daemon_args arg_common; /* -D -f -L -v */
static bool arg_print_hw;
static const char *arg_node;

static const char usage_text[] =
    "Usage: slurmd [OPTIONS]\n"
    "  -C            Print node configuration information and exit.\n"
    "  -D            Run daemon in foreground, with logging copied to stdout.\n"
    "  -f config     Read configuration from the specified file.\n"
    "  -h            Print this help message.\n"
    "  -L logfile    Log messages to the file `logfile'.\n"
    "  -N node_name  Run the daemon for specified nodename.\n"
    "  -v            Verbose mode. Multiple -v's increase verbosity.\n"
    "  -V            Print version information and exit.\n";

/* -C and -N; the shared flags are daemon_parse_args()'s. */
static void own_opt(int ch, const char *optarg_, void *arg)
{
	(void)arg;
	if (ch == 'C')
		arg_print_hw = true;
	else
		arg_node = optarg_;
}

static void parse_args(int argc, char **argv)
{
	static const struct daemon_cmdline cl = {"CN:", usage_text, own_opt, NULL};

	daemon_parse_args(&cl, argc, argv, &arg_common);
}

static char *short_hostname(void)
{
	char buf[256] = "";
	char *dot;

	gethostname(buf, sizeof(buf) - 1);
	dot = strchr(buf, '.');
	if (dot)
		*dot = '\0';
	return strdup(buf);
}

static int print_hw(void)
{
	_cleanup_free_ char *host = short_hostname(), *line = NULL;
	struct hw_info hw = { 0 };

	if (hw_detect(&hw, NULL) < 0) {
		fprintf(stderr, "slurmd: error: cannot detect hardware\n");
		return 1;
	}
	line = hw_node_line(&hw, arg_node ? arg_node : host);
	hw_info_done(&hw);
	if (!line)
		return 1;
	fputs(line, stdout);
	return 0;
}

/* Find this node in conf: -N, else the host name. */
static int slurmd_identify(struct slurmd *d)
{
	const struct conf_node *cfg = NULL;

	if (arg_node)
		cfg = conf_node_find(d->conf, arg_node);
	for (uint32_t i = 0; !arg_node && !cfg && i < d->conf->node_count; i++)
		if (streq(d->conf->nodes[i].name, d->hostname)
		    || streq(d->conf->nodes[i].node_hostname, d->hostname))
			cfg = &d->conf->nodes[i];
	if (!cfg) {
		error("Unable to determine this slurmd's NodeName (%s)",
		      arg_node ? arg_node : d->hostname);
		return -ENOENT;
	}
	d->cfg = cfg;
	free(d->node_name);
	d->node_name = strdup(cfg->name);
	return d->node_name ? 0 : -ENOMEM;
}

static int slurmd_detect_gres(struct slurmd *d)
{
	struct gres_detect g = { 0 };
	struct sl_error err = { { 0 } };
	int r;

	r = gres_detect(d->conf->gres, d->conf->gres_count, d->node_name, &g, &err);
	if (r < 0)
		return log_errno(r, "gres.conf: %s", err.text);
	for (size_t i = 0; i < g.missing_count; i++)
		error("gres.conf: %s does not exist", g.missing[i]);
	free(d->gres);
	d->gres = TAKE_PTR(g.gres);
	gres_detect_done(&g);
	return 0;
}

static int spool_init(struct slurmd *d)
{
	_cleanup_free_ char *dir = conf_expand_path(d->conf->slurmd_spool_dir, d->node_name,
						    d->hostname);

	if (!dir)
		return -ENOMEM;
	return slurmd_spool_dir_make(dir);
}

/* Unlike slurmctld, slurmd keeps its RLIMIT_NOFILE: the steps it starts
 * inherit it, and jobs must see the limit they were given (the listener's
 * connection cap is sized from it all the same). */
static int rpc_init(struct slurmd *d)
{
	struct rpc_server_opts o = {
	    .munge_socket = d->conf->munge_socket,
	    .max_frame = d->conf->max_message_size,
	    .timeout_s = d->conf->message_timeout,
	    .admin_uid = d->conf->slurm_user_id,
	};
	const char *addr = d->cfg->node_addr;
	struct in_addr a;
	int r;

	if (!addr || inet_pton(AF_INET, addr, &a) != 1)
		addr = NULL;
	r = rpc_server_new(d->base, addr, d->cfg->port, &o, slurmd_dispatch, d, &d->rpc);
	if (r < 0)
		return log_errno(r, "cannot listen on port %u", d->cfg->port);
	return 0;
}

static void rpc_fini(struct slurmd *d)
{
	d->rpc = rpc_server_free(d->rpc);
}

static void slurmd_reconfigure(struct slurmd *d)
{
	struct sl_conf *conf = NULL, *old = d->conf;
	const struct conf_node *old_cfg = d->cfg;
	struct sl_error err = { { 0 } };

	if (conf_load(d->conf_path, &conf, &err) < 0) {
		error("reconfigure: %s", err.text);
		return;
	}
	d->conf = conf;
	if (slurmd_identify(d) < 0) {
		d->conf = old; /* this node vanished from the file: keep going as we were */
		d->cfg = old_cfg;
		conf_free(conf);
		return;
	}
	conf_free(old);
	slurmd_detect_gres(d);
	log_set_level(d->conf->slurmd_debug);
	d->is_registered = false;
	info("Reconfigured; registering again");
	evtimer_add(d->reg_timer, &(struct timeval){ 0 });
}

static void sig_cb(evutil_socket_t sig, short what, void *arg)
{
	struct slurmd *d = arg;

	(void)what;
	if (sig == SIGHUP) {
		slurmd_reconfigure(d);
		return;
	}
	info("Caught signal %d, shutting down", (int)sig);
	event_base_loopexit(d->base, NULL);
}

static int signals_init(struct slurmd *d)
{
	struct event **const evs[] = {&d->sig_term, &d->sig_int, &d->sig_hup};

	return daemon_signals_init(d->base, sig_cb, d, evs);
}

static void signals_fini(struct slurmd *d)
{
	struct event **const evs[] = {&d->sig_term, &d->sig_int, &d->sig_hup};

	daemon_signals_fini(evs);
}

static const struct subsys {
	const char *name;
	int (*init)(struct slurmd *d);
	void (*fini)(struct slurmd *d);
} subsystems[] = {
    {"gres", slurmd_detect_gres, NULL},
    {"spool dir", spool_init, NULL},
    {"launch", slurmd_launch_init, slurmd_launch_fini}, /* launch.c */
    {"job container", slurmd_container_init, slurmd_container_fini}, /* container.c */
    {"prolog", slurmd_pe_init, slurmd_pe_fini},	       /* prolog.c */
    {"health", slurmd_health_init, slurmd_health_fini},       /* health.c */
    {"spool", slurmd_spool_start, slurmd_spool_stop},	/* spool.c */
    {"signals", signals_init, signals_fini},
    {"rpc", rpc_init, rpc_fini}, /* listen before registering */
    {"register", slurmd_register_start, slurmd_register_stop},
};

int main(int argc, char **argv)
{
	struct slurmd sd = { 0 }, *d = &sd;
	struct sl_error err = { { 0 } };
	_cleanup_free_ char *logfile = NULL, *pidfile = NULL;
	size_t done = 0;
	int r = 0, level;

	parse_args(argc, argv);
	if (arg_print_hw)
		return print_hw();
	log_init("slurmd", LOG_LEVEL_INFO, NULL, 1);
	d->hostname = short_hostname();
	d->conf_path = strdup(arg_common.conf ? arg_common.conf : conf_default_path());
	if (conf_load(d->conf_path, &d->conf, &err) < 0) {
		fprintf(stderr, "slurmd: fatal: %s\n", err.text);
		return 1;
	}
	if (slurmd_identify(d) < 0) {
		fprintf(stderr, "slurmd: fatal: Unable to determine this slurmd's NodeName\n");
		return 1;
	}
	level = d->conf->slurmd_debug + arg_common.verbose;
	if (level >= _LOG_LEVEL_MAX)
		level = _LOG_LEVEL_MAX - 1;
	logfile = arg_common.logfile ? strdup(arg_common.logfile)
		  : d->conf->slurmd_logfile
		      ? conf_expand_path(d->conf->slurmd_logfile, d->node_name, d->hostname)
		      : NULL;
	if (log_init("slurmd", level, logfile, 1) < 0)
		fprintf(stderr, "slurmd: error: cannot open log file %s\n", logfile);
	if (!arg_common.is_foreground && daemon_detach() < 0)
		fatal("cannot daemonize");
	pidfile = d->conf->slurmd_pidfile
			  ? conf_expand_path(d->conf->slurmd_pidfile, d->node_name, d->hostname)
			  : NULL;
	if (pidfile && daemon_write_pidfile(pidfile) < 0)
		error("cannot write pid file %s", pidfile);
	signal(SIGPIPE, SIG_IGN);
	d->start_time = time(NULL);
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		d->instance = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
	}
	d->base = event_base_new();
	if (!d->base)
		fatal("cannot create event loop");
	for (; done < ARRAY_SIZE(subsystems); done++) {
		r = subsystems[done].init(d);
		if (r < 0) {
			error("slurmd: %s failed to start", subsystems[done].name);
			break;
		}
	}
	if (done == ARRAY_SIZE(subsystems)) {
		info("slurmd version %s started for node %s", SL_VERSION, d->node_name);
		event_base_dispatch(d->base);
	}
	while (done-- > 0)
		if (subsystems[done].fini)
			subsystems[done].fini(d);
	event_base_free(d->base);
	if (pidfile)
		unlink(pidfile);
	conf_free(d->conf);
	free(d->conf_path);
	free(d->node_name);
	free(d->hostname);
	free(d->gres);
	info("slurmd exiting");
	return r < 0 ? 1 : 0;
}
