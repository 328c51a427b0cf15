/* salloc.c - the salloc command: get an interactive allocation, run a
 * command (default: the user's shell) on this host inside it, give the
 * allocation back when the command ends.
 *
 * Purpose: Slurm 22.05's salloc flow: options (command line over SALLOC_*
 * variables), REQUEST_RESOURCE_ALLOCATION with our listener as the place
 * for the grant and SRUN_* notices, the wait for a pending grant, the
 * command as a child in its own process group with the allocation's
 * SLURM_* variables (reference salloc_env.txt), then "Relinquishing" and
 * REQUEST_COMPLETE_JOB_ALLOCATION with the command's wait status.
 * A revoked allocation (scancel, time limit) hangs up the command's
 * process group, then kills it after a grace time.
 * -I/--immediate[=secs] gives the job back when it is not granted within
 * secs (1 without a value); -K/--kill-command picks the signal the command
 * gets on a revocation; --bell/--no-bell as Slurm's. Caveat: the options
 * the shared model keeps without a parser are accepted and not acted on.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/alloc_client.h"
#include "cli/alloc_opt.h"
#include "cli/alloc_sig.h"
#include "cli/cli.h"
#include "cli/job_opt.h"
#include "cli/job_opt_gpu.h"
#include "cli/job_opt_help.h"
#include "common/conf.h"
#include "common/job_env.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/sig_name.h"
#include "common/msg.h"
#include "common/sl_errno.h"

#define REVOKE_GRACE_S 5 /* SIGHUP, then SIGKILL after this long */

extern char **environ;

static const char salloc_usage_text[] =
    "Usage: salloc [-N numnodes|[min nodes]-[max nodes]] [-n num-processors]\n"
    "              [-c cpus-per-node] [-r n] [-p partition] [--hold] [-t minutes]\n"
    "              [--immediate[=secs]] [--no-kill] [--overcommit] [-D path]\n"
    "              [--oversubscribe] [-J jobname]\n"
    "              [--verbose] [--gid=group] [--uid=user] [--licenses=names]\n"
    "              [--clusters=cluster_names]\n"
    "              [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
    "              [--account=name] [--dependency=type:jobid[+time]] [--comment=name]\n"
    "              [--mail-type=type] [--mail-user=user] [--nice[=value]]\n"
    "              [--bell] [--no-bell] [--kill-command[=signal]] [--spread-job]\n"
    "              [--nodefile=file] [--nodelist=hosts] [--exclude=hosts]\n"
    "              [--network=type] [--mem-per-cpu=MB] [--qos=qos]\n"
    "              [--mem-bind=...] [--reservation=name] [--mcs-label=mcs]\n"
    "              [--time-min=minutes] [--gres=list] [--gres-flags=opts]\n"
    "              [--cpu-freq=min[-max[:gov]]] [--power=flags] [--profile=...]\n"
    "              [--switches=max-switches[@max-time-to-wait]]\n"
    "              [--core-spec=cores] [--thread-spec=threads] [--reboot]\n"
    "              [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
    "              [--delay-boot=mins] [--use-min-nodes]\n"
    "              [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
    "              [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]\n"
    "              [--mem-per-gpu=MB]\n"
    "              [command [args...]]\n";

static const char salloc_help_usage[] =
    "Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)]] [command(0) [args(0)...]]";
enum salloc_own {
	SA_BELL = ALLOC_OPT_OWN,
	SA_NO_BELL,
	SA_KILL_CMD,
	SA_NO_SHELL,
	SA_IMMEDIATE,
	SA_IGNORED,
};

#define N no_argument
#define R required_argument
#define O optional_argument
static const struct alloc_opt_def salloc_opts[] = {
    {"account", 'A', R, JOPT_ACCOUNT},
    {"acctg-freq", 0, R, JOPT_ACCTG_FREQ},
    {"begin", 'b', R, JOPT_BEGIN},
    {"bell", 0, N, SA_BELL},
    {"bb", 0, R, JOPT_BB},
    {"bbf", 0, R, JOPT_BBF},
    {"cpus-per-task", 'c', R, JOPT_CPUS_PER_TASK},
    {"comment", 0, R, JOPT_COMMENT},
    {"container", 0, R, JOPT_CONTAINER},
    {"cpu-freq", 0, R, JOPT_CPU_FREQ},
    {"delay-boot", 0, R, JOPT_DELAY_BOOT},
    {"dependency", 'd', R, JOPT_DEPENDENCY},
    {"deadline", 0, R, JOPT_DEADLINE},
    {"chdir", 'D', R, JOPT_CHDIR},
    {"get-user-env", 0, O, JOPT_GET_USER_ENV},
    {"gid", 0, R, JOPT_GID},
    {"gres", 0, R, JOPT_GRES},
    {"gres-flags", 0, R, JOPT_GRES_FLAGS},
    {"hold", 'H', N, JOPT_HOLD},
    {"immediate", 'I', O, SA_IMMEDIATE},
    {"job-name", 'J', R, JOPT_JOB_NAME},
    {"no-kill", 'k', O, JOPT_NO_KILL},
    {"kill-command", 'K', O, SA_KILL_CMD},
    {"licenses", 'L', R, JOPT_LICENSES},
    {"clusters", 'M', R, JOPT_CLUSTERS},
    {"cluster", 0, R, JOPT_CLUSTERS},
    {"distribution", 'm', R, JOPT_DISTRIBUTION},
    {"mail-type", 0, R, JOPT_MAIL_TYPE},
    {"mail-user", 0, R, JOPT_MAIL_USER},
    {"mcs-label", 0, R, JOPT_MCS_LABEL},
    {"ntasks", 'n', R, JOPT_NTASKS},
    {"nice", 0, O, JOPT_NICE},
    {"no-bell", 0, N, SA_NO_BELL},
    {"no-shell", 0, N, SA_NO_SHELL},
    {"ntasks-per-node", 0, R, JOPT_NTASKS_PER_NODE},
    {"tasks-per-node", 0, R, JOPT_NTASKS_PER_NODE},
    {"nodes", 'N', R, JOPT_NODES},
    {"overcommit", 'O', N, JOPT_OVERCOMMIT},
    {"power", 0, R, JOPT_POWER},
    {"priority", 0, R, JOPT_PRIORITY},
    {"profile", 0, R, JOPT_PROFILE},
    {"partition", 'p', R, JOPT_PARTITION},
    {"qos", 'q', R, JOPT_QOS},
    {"quiet", 'Q', N, JOPT_QUIET},
    {"reboot", 0, N, JOPT_REBOOT},
    {"oversubscribe", 's', N, JOPT_OVERSUBSCRIBE},
    {"signal", 0, R, JOPT_SIGNAL},
    {"spread-job", 0, N, JOPT_SPREAD_JOB},
    {"switches", 0, R, JOPT_SWITCHES},
    {"core-spec", 'S', R, JOPT_CORE_SPEC},
    {"thread-spec", 0, R, JOPT_THREAD_SPEC},
    {"time", 't', R, JOPT_TIME},
    {"time-min", 0, R, JOPT_TIME_MIN},
    {"uid", 0, R, JOPT_UID},
    {"use-min-nodes", 0, N, JOPT_USE_MIN_NODES},
    {"verbose", 'v', N, JOPT_VERBOSE},
    {"wckey", 0, R, JOPT_WCKEY},
    {"wait-all-nodes", 0, R, JOPT_WAIT_ALL_NODES},
    {"cluster-constraint", 0, R, JOPT_CLUSTER_CONSTRAINT},
    {"contiguous", 0, N, JOPT_CONTIGUOUS},
    {"constraint", 'C', R, JOPT_CONSTRAINT},
    {"nodefile", 'F', R, JOPT_NODEFILE},
    {"mem", 0, R, JOPT_MEM},
    {"mincpus", 0, R, JOPT_MINCPUS},
    {"reservation", 0, R, JOPT_RESERVATION},
    {"tmp", 0, R, JOPT_TMP},
    {"nodelist", 'w', R, JOPT_NODELIST},
    {"exclude", 'x', R, JOPT_EXCLUDE},
    {"exclusive", 0, O, JOPT_EXCLUSIVE},
    {"mem-per-cpu", 0, R, JOPT_MEM_PER_CPU},
    {"mem-bind", 0, R, JOPT_MEM_BIND},
    {"network", 0, R, JOPT_NETWORK},
    {"hint", 0, R, JOPT_HINT},
    {"extra-node-info", 'B', R, JOPT_EXTRA_NODE_INFO},
    {"sockets-per-node", 0, R, JOPT_SOCKETS_PER_NODE},
    {"cores-per-socket", 0, R, JOPT_CORES_PER_SOCKET},
    {"threads-per-core", 0, R, JOPT_THREADS_PER_CORE},
    {"ntasks-per-core", 0, R, JOPT_NTASKS_PER_CORE},
    {"ntasks-per-socket", 0, R, JOPT_NTASKS_PER_SOCKET},
    {"ntasks-per-gpu", 0, R, JOPT_NTASKS_PER_GPU},
    {"cpus-per-gpu", 0, R, JOPT_CPUS_PER_GPU},
    {"gpus", 'G', R, JOPT_GPUS},
    {"gpu-bind", 0, R, JOPT_GPU_BIND},
    {"gpu-freq", 0, R, JOPT_GPU_FREQ},
    {"gpus-per-node", 0, R, JOPT_GPUS_PER_NODE},
    {"gpus-per-socket", 0, R, JOPT_GPUS_PER_SOCKET},
    {"gpus-per-task", 0, R, JOPT_GPUS_PER_TASK},
    {"mem-per-gpu", 0, R, JOPT_MEM_PER_GPU},
    {"help", 'h', N, JOPT_HELP},
    {"usage", 0, N, JOPT_USAGE},
    {"version", 'V', N, JOPT_VERSION},
    {NULL, 0, 0, 0},
};
#undef N
#undef R
#undef O

static const struct alloc_env_def salloc_env[] = {
    {"SALLOC_ACCOUNT", JOPT_ACCOUNT},
    {"SALLOC_ACCTG_FREQ", JOPT_ACCTG_FREQ},
    {"SALLOC_BELL", SA_BELL},
    {"SALLOC_BURST_BUFFER", JOPT_BB},
    {"SALLOC_CLUSTERS", JOPT_CLUSTERS},
    {"SALLOC_CONSTRAINT", JOPT_CONSTRAINT},
    {"SALLOC_CONTAINER", JOPT_CONTAINER},
    {"SALLOC_CORE_SPEC", JOPT_CORE_SPEC},
    {"SALLOC_CPUS_PER_GPU", JOPT_CPUS_PER_GPU},
    {"SALLOC_DEBUG", JOPT_VERBOSE},
    {"SALLOC_DELAY_BOOT", JOPT_DELAY_BOOT},
    {"SALLOC_EXCLUSIVE", JOPT_EXCLUSIVE},
    {"SALLOC_GPU_BIND", JOPT_GPU_BIND},
    {"SALLOC_GPU_FREQ", JOPT_GPU_FREQ},
    {"SALLOC_GPUS", JOPT_GPUS},
    {"SALLOC_GPUS_PER_NODE", JOPT_GPUS_PER_NODE},
    {"SALLOC_GPUS_PER_TASK", JOPT_GPUS_PER_TASK},
    {"SALLOC_GRES", JOPT_GRES},
    {"SALLOC_GRES_FLAGS", JOPT_GRES_FLAGS},
    {"SALLOC_HINT", JOPT_HINT},
    {"SALLOC_IMMEDIATE", SA_IMMEDIATE},
    {"SALLOC_KILL_CMD", SA_KILL_CMD},
    {"SALLOC_MEM_BIND", JOPT_MEM_BIND},
    {"SALLOC_MEM_PER_CPU", JOPT_MEM_PER_CPU},
    {"SALLOC_MEM_PER_GPU", JOPT_MEM_PER_GPU},
    {"SALLOC_MEM_PER_NODE", JOPT_MEM},
    {"SALLOC_NETWORK", JOPT_NETWORK},
    {"SALLOC_NO_BELL", SA_NO_BELL},
    {"SALLOC_NO_KILL", JOPT_NO_KILL},
    {"SALLOC_OVERCOMMIT", JOPT_OVERCOMMIT},
    {"SALLOC_PARTITION", JOPT_PARTITION},
    {"SALLOC_POWER", JOPT_POWER},
    {"SALLOC_PROFILE", JOPT_PROFILE},
    {"SALLOC_QOS", JOPT_QOS},
    {"SALLOC_REQ_SWITCH", JOPT_SWITCHES},
    {"SALLOC_RESERVATION", JOPT_RESERVATION},
    {"SALLOC_SIGNAL", JOPT_SIGNAL},
    {"SALLOC_SPREAD_JOB", JOPT_SPREAD_JOB},
    {"SALLOC_THREAD_SPEC", JOPT_THREAD_SPEC},
    {"SALLOC_THREADS_PER_CORE", JOPT_THREADS_PER_CORE},
    {"SALLOC_TIMELIMIT", JOPT_TIME},
    {"SALLOC_USE_MIN_NODES", JOPT_USE_MIN_NODES},
    {"SALLOC_WAIT_ALL_NODES", JOPT_WAIT_ALL_NODES},
    {"SALLOC_WCKEY", JOPT_WCKEY},
    {NULL, 0},
};

struct salloc {
	struct job_opts o;
	struct sl_conf *conf;
	struct alloc_listener l;
	bool no_shell;
	bool has_cmd; /* a command was given (else the shell) */
	char **cmd;   /* the command (argv tail) or the shell */
	char **own_cmd; /* the interactive step's command line, owned */
	uint32_t job_id;
	struct alloc_response *grant;
	pid_t child;
	bool revoked;
	int bell;	/* 1 --bell, -1 --no-bell, 0 after a wait of BELL_AFTER_S */
	int immediate;	/* -I: seconds to wait for the grant; 0 not given */
	int kill_sig;	/* -K: the signal for the command on a revocation; 0 SIGHUP */
};

#define BELL_AFTER_S 10 /* a grant after this long pending rings the bell */

static int salloc_own(void *arg, int id, const char *optarg_, enum job_opt_src src,
		      struct job_opt_err *e)
{
	struct salloc *s = arg;

	(void)src;
	switch (id) {
	case SA_NO_SHELL:
		s->no_shell = true;
		break;
	case SA_BELL:
		s->bell = 1;
		break;
	case SA_NO_BELL:
		s->bell = -1;
		break;
	case SA_IMMEDIATE:
		return job_opt_immediate(e, cli_prog(), optarg_, &s->immediate);
	case SA_KILL_CMD:
		if (!optarg_) { /* SIGHUP for a terminal session, SIGTERM otherwise */
			s->kill_sig = isatty(STDIN_FILENO) ? SIGHUP : SIGTERM;
			break;
		}
		s->kill_sig = sig_name2num(optarg_);
		if (s->kill_sig <= 0)
			return job_opt_fail(e, cli_prog(), JOB_OPT_EXIT_ARG,
					    "Invalid --kill-command specification");
		break;
	default:
		break;
	}
	return 0;
}

static void die_opt(const struct job_opt_err *e)
{
	fflush(stdout);
	fputs(e->text, stderr);
	exit(e->exit_code == JOB_OPT_EXIT_ERROR ? CLI_EXIT_ERROR : e->exit_code);
}

/* The user's shell: passwd, then $SHELL, then /bin/sh. */
static char *default_shell(void)
{
	struct passwd *pw = getpwuid(getuid());
	const char *sh = pw && pw->pw_shell && *pw->pw_shell ? pw->pw_shell : getenv("SHELL");

	return strdup(sh && *sh ? sh : "/bin/sh");
}

static void parse(struct salloc *s, int argc, char **argv)
{
	struct job_opt_err err = {0};
	char info[256];
	int ind = argc, r;

	if (job_opts_init(&s->o, cli_prog()) < 0)
		exit(CLI_EXIT_ERROR);
	r = alloc_opt_parse_env(salloc_opts, salloc_env, &s->o, salloc_own, s, environ, &err);
	if (r == 0)
		r = alloc_opt_parse_argv(salloc_opts, &s->o, salloc_own, s, argc, argv, &ind, &err);
	if (r == JOB_OPT_STOP) {
		if (s->o.help)
			job_opt_help_print(stdout, JOB_CMD_SALLOC, salloc_help_usage,
					   alloc_opt_accepts, salloc_opts);
		else if (s->o.usage)
			fputs(salloc_usage_text, stdout);
		else
			cli_print_version();
		exit(CLI_EXIT_OK);
	}
	if (r == 0)
		r = job_opt_verify(&s->o, info, sizeof(info), &err);
	if (r < 0)
		die_opt(&err);
	if (!s->o.quiet)
		fputs(info, stderr);
	if (s->o.quiet)
		log_set_level(LOG_LEVEL_ERROR);
	else if (s->o.verbose)
		log_set_level((enum log_level)(LOG_LEVEL_INFO + s->o.verbose));
	if (ind < argc) {
		s->cmd = argv + ind;
		s->has_cmd = true;
	} else {
		static char *sh[2];

		sh[0] = default_shell();
		s->cmd = sh;
	}
}

/* LaunchParameters=use_interactive_step and no command: the shell runs in
 * a step on the first node, srun (ours, beside this salloc) with
 * InteractiveStepOptions, "--interactive" being one task on one node that
 * takes none of the job's CPUs (--overlap). */
static void interactive_step(struct salloc *s)
{
	const char *lp = conf_get_raw(s->conf, "LaunchParameters");
	const char *opts = conf_get_raw(s->conf, "InteractiveStepOptions");
	char self[4096], *save = NULL, *w, *copy;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 8);
	char *slash;
	size_t k = 0, max;

	if (s->has_cmd || !lp || !strstr(lp, "use_interactive_step"))
		return;
	copy = strdup(opts && *opts ? opts : "--interactive --preserve-env --pty $SHELL");
	max = (copy ? strlen(copy) : 0) + 8;
	s->own_cmd = calloc(max, sizeof(*s->own_cmd));
	if (!copy || !s->own_cmd) {
		free(copy);
		return; /* the shell runs here, as without the parameter */
	}
	if (n > 0 && (self[n] = '\0', slash = strrchr(self, '/'))) {
		strcpy(slash + 1, "srun");
		s->own_cmd[k++] = strdup(access(self, X_OK) == 0 ? self : "srun");
	} else {
		s->own_cmd[k++] = strdup("srun");
	}
	for (w = strtok_r(copy, " \t", &save); w && k + 4 < max; w = strtok_r(NULL, " \t", &save)) {
		if (streq(w, "--interactive")) {
			s->own_cmd[k++] = strdup("--overlap");
			s->own_cmd[k++] = strdup("-N1");
			s->own_cmd[k++] = strdup("-n1");
		} else if (streq(w, "--preserve-env")) {
			continue; /* -N1 -n1 above, not the job's counts */
		} else {
			s->own_cmd[k++] = strdup(streq(w, "$SHELL") ? s->cmd[0] : w);
		}
	}
	free(copy);
	s->cmd = s->own_cmd;
}

static void allocate(struct salloc *s)
{
	struct job_opt_err err = {0};
	struct job_desc d;
	char *user_msg = NULL;
	time_t waited;
	int r;

	if (job_opt_check_gres(&s->o, s->conf, &err) < 0)
		die_opt(&err);
	if (job_opt_fill_desc(&s->o, &d) < 0 || (!d.name && !(d.name = strdup("interactive")))) {
		cli_error("Out of memory");
		exit(CLI_EXIT_ERROR);
	}
	d.alloc_host = strdup(s->l.host);
	d.alloc_port = s->l.port;
	r = alloc_request(s->conf, &d, &s->grant, &user_msg);
	job_desc_done(&d);
	if (r < 0) {
		cli_error_lines(user_msg);
		free(user_msg);
		cli_error("Job submit/allocate failed: %s", sl_strerror(r));
		exit(CLI_EXIT_ERROR);
	}
	s->job_id = s->grant->job_id;
	cli_info_lines(s->grant->user_msg); /* job_submit.lua's slurm.log_user */
	if (s->grant->node_list)
		return;
	info("Pending job allocation %u", s->job_id);
	info("job %u queued and waiting for resources", s->job_id);
	alloc_grant_free(TAKE_PTR(s->grant));
	waited = time(NULL);
	switch (alloc_wait_grant(s->conf, &s->l, s->job_id, s->immediate ? s->immediate * 1000 : -1,
				 &s->grant)) {
	case ALLOC_GRANTED:
		info("job %u has been allocated resources", s->job_id);
		if (s->bell == 0 && time(NULL) - waited > BELL_AFTER_S)
			s->bell = 1;
		return;
	case ALLOC_TIMED_OUT: /* -I: not granted in time, the job is given back */
		(void)alloc_complete(s->conf, s->job_id, 1);
		cli_error("Unable to allocate resources: %s", sl_strerror(-ESLURM_NODES_BUSY));
		exit(CLI_EXIT_ERROR);
	case ALLOC_SIGNALLED:
		(void)alloc_complete(s->conf, s->job_id, 0);
		/* fall through */
	case ALLOC_REVOKED:
		info("Job allocation %u has been revoked.", s->job_id);
		exit(CLI_EXIT_ERROR);
	}
}

/* Slurm rings the terminal's bell on a grant with --bell, or after a long
 * wait unless --no-bell; only where stdout is a terminal. */
static void ring_bell(const struct salloc *s)
{
	if (s->bell > 0 && isatty(STDOUT_FILENO)) {
		fputc('\a', stdout);
		fflush(stdout);
	}
}

/* The command's environment: ours plus the allocation's variables. */
static int build_env(const struct salloc *s, struct job_env *e)
{
	const struct alloc_response *g = s->grant;
	const struct job_opts *o = &s->o;
	char host[256], cwd[4096];
	int r = 0;

	for (char **p = environ; p && *p && r == 0; p++)
		r = job_env_put(e, *p) == -ENOMEM ? -ENOMEM : 0; /* an entry without '=' is skipped */
	alloc_short_hostname(host, sizeof(host));
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "%s", o->cwd ? o->cwd : "/");
	r |= job_env_set(e, "SLURM_CLUSTER_NAME", "%s", s->conf->cluster_name ? s->conf->cluster_name : "");
	r |= job_env_set(e, "SLURM_CONF", "%s", s->conf->path ? s->conf->path : conf_default_path());
	r |= job_env_set(e, "SLURM_JOB_ID", "%u", g->job_id);
	r |= job_env_set(e, "SLURM_JOBID", "%u", g->job_id);
	if (g->account)
		r |= job_env_set(e, "SLURM_JOB_ACCOUNT", "%s", g->account);
	r |= job_env_set(e, "SLURM_JOB_CPUS_PER_NODE", "%s", g->cpus_per_node ? g->cpus_per_node : "");
	r |= job_env_set(e, "SLURM_JOB_NAME", "%s", g->job_name ? g->job_name : (o->job_name ? o->job_name : "interactive"));
	r |= job_env_set(e, "SLURM_JOB_NODELIST", "%s", g->node_list);
	r |= job_env_set(e, "SLURM_JOB_NUM_NODES", "%u", g->num_nodes);
	if (g->partition)
		r |= job_env_set(e, "SLURM_JOB_PARTITION", "%s", g->partition);
	if (g->qos)
		r |= job_env_set(e, "SLURM_JOB_QOS", "%s", g->qos);
	r |= job_env_set(e, "SLURM_NNODES", "%u", g->num_nodes);
	r |= job_env_set(e, "SLURM_NODELIST", "%s", g->node_list);
	r |= job_env_set(e, "SLURM_NODE_ALIASES", "(null)");
	if (o->ntasks_set) {
		r |= job_env_set(e, "SLURM_NPROCS", "%d", o->ntasks);
		r |= job_env_set(e, "SLURM_NTASKS", "%d", o->ntasks);
	}
	if (o->ntasks_per_node > 0)
		r |= job_env_set(e, "SLURM_NTASKS_PER_NODE", "%d", o->ntasks_per_node);
	if (o->cpus_set)
		r |= job_env_set(e, "SLURM_CPUS_PER_TASK", "%d", o->cpus_per_task);
	r |= job_opt_gpu_env(o, e);
	if (o->raw[JOPT_DISTRIBUTION])
		r |= job_env_set(e, "SLURM_DISTRIBUTION", "%s", o->raw[JOPT_DISTRIBUTION]);
	r |= job_opt_step_env(o, e);
	if (o->mem != NO_VAL64)
		r |= job_env_set(e, "SLURM_MEM_PER_NODE", "%llu", (unsigned long long)o->mem);
	if (o->mem_per_cpu != NO_VAL64)
		r |= job_env_set(e, "SLURM_MEM_PER_CPU", "%llu", (unsigned long long)o->mem_per_cpu);
	r |= job_env_set(e, "SLURM_SUBMIT_DIR", "%s", cwd);
	r |= job_env_set(e, "SLURM_SUBMIT_HOST", "%s", host);
	if (g->tasks_per_node)
		r |= job_env_set(e, "SLURM_TASKS_PER_NODE", "%s", g->tasks_per_node);
	return r ? -ENOMEM : 0;
}

static void run_command(struct salloc *s)
{
	struct job_env env = {0};

	if (build_env(s, &env) < 0) {
		cli_error("Out of memory");
		return;
	}
	s->child = fork();
	if (s->child == 0) {
		alloc_sig_child();
		setpgid(0, 0);
		if (s->o.chdir && chdir(s->o.chdir) < 0)
			fprintf(stderr, "%s: error: chdir(%s): %m\n", cli_prog(), s->o.chdir);
		execvpe(s->cmd[0], s->cmd, env.v);
		fprintf(stderr, "%s: error: %s: %m\n", cli_prog(), s->cmd[0]);
		_exit(127);
	}
	job_env_done(&env);
	if (s->child < 0) {
		cli_error("fork: %m");
		return;
	}
	setpgid(s->child, s->child);
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp()) {
		signal(SIGTTOU, SIG_IGN);
		(void)tcsetpgrp(STDIN_FILENO, s->child);
	}
}

/* A notice on the listener while the command runs. */
static void on_notice(struct salloc *s, uint16_t type, void *m)
{
	const struct srun_notice_msg *n = m;

	if (type == SRUN_JOB_COMPLETE && n->job_id == s->job_id && !s->revoked) {
		if (n->reason == SRUN_END_TIME_LIMIT)
			info("Job %u has exceeded its time limit and its allocation has been "
			     "revoked.",
			     s->job_id);
		else
			info("Job allocation %u has been revoked.", s->job_id);
		s->revoked = true;
		if (s->child > 0)
			killpg(s->child, s->kill_sig ? s->kill_sig : SIGHUP);
	} else if (type == SRUN_NODE_FAIL && n->job_id == s->job_id && n->node_name) {
		cli_error("Node failure on %s", n->node_name); /* --no-kill: the job goes on */
	} else if (type == SRUN_TIMEOUT && n->job_id == s->job_id) {
		verbose("Job %u will be killed by its time limit", s->job_id);
	}
	msg_free(msg_lookup(type), m);
}

/* Wait for the command, serving the listener. Returns its wait status. */
static int wait_command(struct salloc *s)
{
	time_t kill_at = 0;
	int status = 0;

	for (;;) {
		struct pollfd p = {.fd = s->l.fd, .events = POLLIN};
		pid_t w = waitpid(s->child, &status, WNOHANG);
		uint16_t type;
		void *m;
		int n;

		if (w == s->child || (w < 0 && errno == ECHILD))
			return w == s->child ? status : 0;
		if (s->revoked && !kill_at)
			kill_at = time(NULL) + REVOKE_GRACE_S;
		if (kill_at && time(NULL) >= kill_at)
			killpg(s->child, SIGKILL);
		n = alloc_sig_poll(&p, 1, kill_at ? 500 : -1);
		alloc_sig_take(SIGCHLD);
		alloc_sig_take(SIGINT); /* the command gets it from the terminal */
		alloc_sig_take(SIGQUIT);
		if (alloc_sig_take(SIGTERM) + alloc_sig_take(SIGHUP))
			killpg(s->child, SIGHUP);
		if (n > 0 && alloc_listener_recv(s->conf, &s->l, &type, &m) == 0)
			on_notice(s, type, m);
	}
}

/* Slurm's salloc: the command's exit code; a signal the user most likely
 * sent counts as success, any other as 1. */
static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		verbose("Command was terminated by signal %d", sig);
		return sig == SIGHUP || sig == SIGINT || sig == SIGQUIT || sig == SIGKILL ? 0 : 1;
	}
	return 1;
}

int main(int argc, char **argv)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, 0};
	struct salloc s = {.l = {.fd = -1}};
	int status, r;

	cli_init(argv[0]);
	parse(&s, argc, argv);
	if (cli_conf_load(&s.conf) < 0)
		return CLI_EXIT_ERROR;
	if (alloc_sig_init(sigs) < 0 || (r = alloc_listener_open(s.conf, &s.l)) < 0) {
		cli_error("Unable to open a listening socket: %m");
		return CLI_EXIT_ERROR;
	}
	interactive_step(&s);
	allocate(&s);
	info("Granted job allocation %u", s.job_id);
	ring_bell(&s);
	if (s.no_shell)
		return CLI_EXIT_OK;
	run_command(&s);
	status = s.child > 0 ? wait_command(&s) : (1 << 8);
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) != getpgrp())
		(void)tcsetpgrp(STDIN_FILENO, getpgrp());
	if (!s.revoked) {
		info("Relinquishing job allocation %u", s.job_id);
		r = alloc_complete(s.conf, s.job_id, (uint32_t)status);
		if (r < 0 && r != -ESLURM_ALREADY_DONE && r != -ESLURM_INVALID_JOB_ID)
			cli_error("Unable to complete job allocation %u: %s", s.job_id,
				  sl_strerror(r));
	}
	alloc_listener_close(&s.l);
	alloc_grant_free(s.grant);
	for (size_t i = 0; s.own_cmd && s.own_cmd[i]; i++)
		free(s.own_cmd[i]);
	free(s.own_cmd);
	job_opts_done(&s.o);
	conf_free(s.conf);
	return exit_code(status);
}
