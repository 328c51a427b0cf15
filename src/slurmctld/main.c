/* main.c - slurmctld: options, daemon setup, and the subsystem table that
 * builds the controller in order and tears it down in reverse (R3).
 *
 *   slurmctld [-D] [-c] [-i] [-f slurm.conf] [-L logfile] [-v...] [-V] [-h]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "acct.h"
#include "admin.h"
#include "auth_token.h"
#include "assoc_limits.h"
#include "common/conf.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "ctld.h"
#include "durable.h"
#include "job.h"
#include "license.h"
#include "job_script.h"
#include "ctld_timer.h"
#include "job_end.h"
#include "job_gpu.h"
#include "job_prio.h"
#include "job_sched.h"
#include "job_submit_lua.h"
#include "job_wait.h"
#include "mail.h"
#include "node.h"
#include "node_health.h"
#include "node_reboot.h"
#include "node_ping.h"
#include "sched_bf.h"
#include "node_state.h"
#include "part_admin.h"
#include "resv.h"
#include "part.h"
#include "rpc.h"
#include "sched_stats.h"
#include "user_db.h"

static bool arg_foreground;
static bool arg_clean;
static bool arg_ignore_errors;
static const char *arg_conf;
static const char *arg_logfile;
static int arg_verbose;

/* The controller, and what only main.c holds: its subsystems get the
 * ctld, and main.c's own (the listener, the signals) find the rest
 * around it. */
struct ctld_main {
	struct ctld c;
	struct rpc_server *rpc;
	struct event *sig_term, *sig_int, *sig_hup;
};

static struct ctld_main *main_of(struct ctld *c)
{
	return (struct ctld_main *)((char *)c - offsetof(struct ctld_main, c));
}

static const char usage_text[] =
    "Usage: slurmctld [OPTIONS]\n"
    "  -c            Do not recover state from last checkpoint.\n"
    "  -D            Run daemon in foreground, with logging copied to stdout.\n"
    "  -f file       Use specified file for slurmctld configuration.\n"
    "  -h            Print this help message.\n"
    "  -i            Ignore errors found while reading in state files on startup.\n"
    "  -L logfile    Log messages to the specified file.\n"
    "  -v            Verbose mode. Multiple -v's increase verbosity.\n"
    "  -V            Print version information and exit.\n";

/* -c and -i; the shared flags are daemon_parse_args()'s. */
static void own_opt(int ch, const char *optarg_, void *arg)
{
	(void)optarg_;
	(void)arg;
	if (ch == 'c')
		arg_clean = true;
	else
		arg_ignore_errors = true;
}

static void parse_args(int argc, char **argv)
{
	static const struct daemon_cmdline cl = {"ci", usage_text, own_opt, NULL};
	struct daemon_args a;

	daemon_parse_args(&cl, argc, argv, &a);
	arg_foreground = a.is_foreground;
	arg_conf = a.conf;
	arg_logfile = a.logfile;
	arg_verbose = a.verbose;
}

/* A node_state file that cannot be read stops the start, unless -i: then
 * it is kept aside and the nodes start from slurm.conf. */
static int node_state_refused(struct ctld *c, int r)
{
	const char *dir = c->conf->state_save_location;
	char name[64];

	if (!c->ignore_state_errors) {
		log_msg(
		    LOG_LEVEL_FATAL,
		    "%s/%s cannot be read: %s%s; slurmctld will not start. Start it with -i to "
		    "ignore it (it is kept as %s.bad.<time>; admin-set node states such as "
		    "DRAIN are lost) or with -c to start without any saved state (discarding it)",
		    dir, NODE_STATE_FILE, strerror(-r),
		    r == -EBADMSG ? " (corrupt: bad SHA-256 or format)" : "", NODE_STATE_FILE);
		return r;
	}
	r = node_state_set_aside(c, name, sizeof(name));
	if (r < 0)
		return log_errno(r, "-i: cannot set %s/%s aside", dir, NODE_STATE_FILE);
	error("%s/%s unreadable, ignored (-i): kept as %s/%s; node states come from slurm.conf",
	      dir, NODE_STATE_FILE, dir, name);
	return 0;
}

static int state_init(struct ctld *c)
{
	int r;

	if (mkdir(c->conf->state_save_location, 0700) < 0 && errno != EEXIST)
		return log_errno(-errno, "StateSaveLocation %s", c->conf->state_save_location);
	if (c->is_clean_start) {
		info("Clean start (-c): not recovering saved state");
		return 0;
	}
	r = node_state_load(c);
	if (r < 0) {
		part_admin_forget(c); /* what was read of them before the fault */
		resv_table_free(c);
		return node_state_refused(c, r);
	}
	part_admin_replay(c); /* scontrol's partition edits, onto slurm.conf's */
	if (resv_table_resolve(c) < 0)
		return -ENOMEM;
	if (c->resv_count)
		info("Recovered state of %u reservations", c->resv_count);
	/* the nodes' RESERVED/MAINT flags; what ended meanwhile ends at the
	 * first tick, once the jobs it lets go are back */
	resv_nodes_mark(c, time(NULL));
	return 0;
}

static void state_fini(struct ctld *c)
{
	node_state_save(c);
	part_admin_forget(c);
	resv_table_free(c);
}

static int nodes_init(struct ctld *c)
{
	int r = node_table_build(c);

	if (r == 0)
		job_gpu_types_build(c); /* the nodes' GPU types, from their Gres= */
	return r;
}

static int parts_init(struct ctld *c)
{
	int r = part_table_build(c);

	return r < 0 ? r : license_table_build(c); /* before the journal charges jobs */
}

static void parts_fini(struct ctld *c)
{
	license_table_free(c);
	part_table_free(c);
}

/* The dispatcher behind durable.c's gate: while StateSaveLocation cannot
 * be written, what would change saved state is refused before any
 * handler runs; reads go through. */
static void ctld_dispatch(void *arg, struct rpc_req *req)
{
	struct ctld *c = arg;
	int r = durable_admit(c, req->type);

	if (r < 0) {
		debug("%s: %s refused: StateSaveLocation not writable", req->peer,
		      msg_type_name(req->type));
		rpc_reply_rc(req, r);
		return;
	}
	rpc_dispatch(c, req);
}

static int users_init(struct ctld *c)
{
	return user_db_new(c->base, user_db_ttl(c->conf), &c->users);
}

static void users_fini(struct ctld *c)
{
	user_db_free(c->users);
	c->users = NULL;
}

static int rpc_init(struct ctld *c)
{
	struct rpc_server_opts o = {
	    .munge_socket = c->conf->munge_socket,
	    .max_frame = c->conf->max_message_size,
	    .timeout_s = c->conf->message_timeout,
	    .admin_uid = c->conf->slurm_user_id,
	};
	struct in_addr a;
	const char *addr = c->conf->control_addr;
	unsigned long nofile = 0;
	int r;

	/* before the listener, which sizes its connection cap from it */
	r = daemon_raise_nofile(&nofile);
	if (r < 0)
		error("cannot raise the open files limit (RLIMIT_NOFILE): %s", strerror(-r));
	debug("open files limit: %lu", nofile);

	r = sched_stats_start(c, time(NULL)); /* sdiag: after the replay, before requests */
	if (r < 0)
		return log_errno(r, "cannot count jobs for sdiag");
	/* listen on the configured address when it is a literal one */
	if (!addr || inet_pton(AF_INET, addr, &a) != 1)
		addr = NULL;
	r = rpc_server_new(c->base, addr, c->conf->slurmctld_port, &o, ctld_dispatch, c,
			   &main_of(c)->rpc);
	if (r < 0)
		return log_errno(r, "cannot listen on port %u", c->conf->slurmctld_port);
	return 0;
}

static void rpc_fini(struct ctld *c)
{
	main_of(c)->rpc = rpc_server_free(main_of(c)->rpc);
}

static void sig_cb(evutil_socket_t sig, short what, void *arg)
{
	struct ctld *c = arg;

	(void)what;
	if (sig == SIGHUP)
		admin_reconfigure(c);
	else
		admin_shutdown(c, false);
}

static int signals_init(struct ctld *c)
{
	struct ctld_main *m = main_of(c);
	struct event **const evs[] = {&m->sig_term, &m->sig_int, &m->sig_hup};

	return daemon_signals_init(c->base, sig_cb, c, evs);
}

static void signals_fini(struct ctld *c)
{
	struct ctld_main *m = main_of(c);
	struct event **const evs[] = {&m->sig_term, &m->sig_int, &m->sig_hup};

	daemon_signals_fini(evs);
}

static int jobs_init(struct ctld *c)
{
	c->next_job_id = c->conf->first_job_id;
	return job_sched_init(c);
}

static void jobs_fini(struct ctld *c)
{
	job_sched_fini(c);
	job_table_free(c);
	job_hooks_clear(c); /* registered by the subsystems after "jobs", gone by now */
}

static int ping_init(struct ctld *c)
{
	return node_ping_start(c);
}

static const struct subsys {
	const char *name;
	int (*init)(struct ctld *c);
	void (*fini)(struct ctld *c);
} subsystems[] = {
    {"nodes", nodes_init, node_table_free},
    {"partitions", parts_init, parts_fini}, /* needs the node table */
    {"state", state_init, state_fini},		 /* applies saved node states */
    {"jobs", jobs_init, jobs_fini},
    {"journal", durable_init, durable_fini},	 /* replays jobs: after nodes, parts */
    {"accounting", acct_init, acct_fini},	 /* queues every replayed job's row */
    {"limits", assoc_limits_init, NULL},	 /* charges running jobs: after both */
    {"priority", job_prio_start, job_prio_stop}, /* saved usage; saved again at stop */
    {"admin", admin_init, admin_fini},		 /* what a shutdown waits with */
    {"signals", signals_init, signals_fini},	 /* SIGTERM shuts down: after admin */
    {"mail", mail_init, mail_fini},
    {"scripts", job_script_init, job_script_fini}, /* after mail: it reaps them */
    {"jwt", auth_token_init, auth_token_fini}, /* scontrol token's key */
    {"wait", job_wait_init, job_wait_fini}, /* before rpc: answered after it closed */
    {"users", users_init, users_fini},	     /* before rpc: holds requests */
    {"job_submit", job_submit_lua_init, job_submit_lua_fini}, /* JobSubmitPlugins=lua */
    {"rpc", rpc_init, rpc_fini},	       /* accept once state is ready */
    {"ping", ping_init, node_ping_stop},       /* asks nodes to register */
    {"health", node_health_start, node_health_stop}, /* HealthCheckInterval */
    {"reboot", node_reboot_start, node_reboot_stop}, /* scontrol reboot */
    {"timer", ctld_timer_start, ctld_timer_stop},
    {"backfill", sched_bf_init, sched_bf_fini},
};

int main(int argc, char **argv)
{
	struct ctld_main ctld = {0};
	struct ctld *c = &ctld.c;
	struct sl_error err = { { 0 } };
	_cleanup_free_ char *pidfile = NULL;
	size_t done = 0;
	int r, level;

	parse_args(argc, argv);
	/* Big accounting replies (tens of MB of rows) are built and freed on
	 * every sacct: keep that memory instead of handing it back to the
	 * kernel and faulting it in again (bench/sacct_query.py: -40% CPU). */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	log_init("slurmctld", LOG_LEVEL_INFO, NULL, 1);
	c->is_job_info_checked = getenv("SL_CHECK_JOB_INFO_CACHE") != NULL; /* tests */
	c->conf_path = strdup(arg_conf ? arg_conf : conf_default_path());
	r = conf_load(c->conf_path, &c->conf, &err);
	if (r < 0) {
		error("%s", err.text);
		fprintf(stderr, "slurmctld: fatal: %s\n", err.text);
		return 1;
	}
	level = c->conf->slurmctld_debug + arg_verbose;
	if (level >= _LOG_LEVEL_MAX)
		level = _LOG_LEVEL_MAX - 1;
	if (log_init("slurmctld", level, arg_logfile ? arg_logfile : c->conf->slurmctld_logfile,
		     1) < 0)
		fprintf(stderr, "slurmctld: error: cannot open log file\n");
	if (!arg_foreground && daemon_detach() < 0)
		fatal("cannot daemonize");
	pidfile = sdup(c->conf->slurmctld_pidfile);
	if (pidfile && daemon_write_pidfile(pidfile) < 0)
		error("cannot write pid file %s", pidfile);
	signal(SIGPIPE, SIG_IGN);
	c->is_clean_start = arg_clean;
	c->ignore_state_errors = arg_ignore_errors;
	c->boot_time = time(NULL);
	c->base = event_base_new();
	if (!c->base || event_base_priority_init(c->base, 3) < 0)
		fatal("cannot create event loop");
	for (; done < ARRAY_SIZE(subsystems); done++) {
		r = subsystems[done].init(c);
		if (r < 0) {
			error("slurmctld: %s failed to start", subsystems[done].name);
			break;
		}
	}
	if (done == ARRAY_SIZE(subsystems)) {
		info("slurmctld version %s started on cluster %s", SL_VERSION,
		     c->conf->cluster_name ? c->conf->cluster_name : "(null)");
		event_base_dispatch(c->base);
	}
	while (done-- > 0)
		if (subsystems[done].fini)
			subsystems[done].fini(c);
	event_base_free(c->base);
	conf_free(c->conf);
	free(c->conf_path);
	if (pidfile)
		unlink(pidfile);
	info("slurmctld exiting");
	return r < 0 ? 1 : 0;
}
