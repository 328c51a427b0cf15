/* srun_opt.c - srun's option table, input variables and checks; see
 * srun_opt.h. Options srun accepts but does not act on (--bcast,
 * --prolog, --multi-prog, -I, -r, -T, ...) are parsed and dropped;
 * --pty and --mpi are acted on in srun.c and the stepd.
 */
#include "cli/srun_opt.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/alloc_opt.h"
#include "cli/cli.h"
#include "cli/job_opt_help.h"
#include "cli/srun_dist.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/multi_prog.h"

static const char srun_usage_text[] =
    "Usage: srun [-N nnodes] [-n ntasks] [-i in] [-o out] [-e err]\n"
    "            [-c ncpus] [-r n] [-p partition] [--hold] [-t minutes]\n"
    "            [-D path] [--immediate[=secs]] [--overcommit] [--overlap] [--no-kill]\n"
    "            [--oversubscribe] [--label] [--unbuffered] [-m dist] [-J jobname]\n"
    "            [--jobid=id] [--verbose] [--slurmd_debug=#] [--gres=list]\n"
    "            [-T threads] [-W sec] [--gres-flags=opts]\n"
    "            [--licenses=names] [--clusters=cluster_names]\n"
    "            [--qos=qos] [--time-min=minutes]\n"
    "            [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
    "            [--mpi=type] [--account=name] [--dependency=type:jobid[+time]]\n"
    "            [--kill-on-bad-exit] [--propagate[=rlimits] [--comment=name]\n"
    "            [--cpu-bind=...] [--mem-bind=...] [--network=type]\n"
    "            [--ntasks-per-node=n] [--ntasks-per-socket=n] [reservation=name]\n"
    "            [--ntasks-per-core=n] [--mem-per-cpu=MB] [--preserve-env]\n"
    "            [--profile=...] [--exact]\n"
    "            [--mail-type=type] [--mail-user=user] [--nice[=value]]\n"
    "            [--prolog=fname] [--epilog=fname]\n"
    "            [--task-prolog=fname] [--task-epilog=fname]\n"
    "            [--ctrl-comm-ifhn=addr] [--multi-prog] [--mcs-label=mcs]\n"
    "            [--cpu-freq=min[-max[:gov]]] [--power=flags] [--spread-job]\n"
    "            [--switches=max-switches{@max-time-to-wait}] [--reboot]\n"
    "            [--core-spec=cores] [--thread-spec=threads]\n"
    "            [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
    "            [--bcast=<dest_path>] [--bcast-exclude=<NONE|path1,...,pathN>]\n"
    "            [--send-libs[=y|n]] [--compress[=library]]\n"
    "            [--acctg-freq=<datatype>=<interval>] [--delay-boot=mins]\n"
    "            [-w hosts...] [-x hosts...] [--use-min-nodes]\n"
    "            [--mpi-combine=yes|no] [--het-group=value]\n"
    "            [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
    "            [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]\n"
    "            [--mem-per-gpu=MB]\n"
    "            executable [args...]\n";

static const char srun_help_usage[] =
    "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] "
    "executable(N) [args(N)...]";
enum srun_own {
	SR_LABEL = ALLOC_OPT_OWN,
	SR_UNBUFFERED,
	SR_KILL_BAD_EXIT,
	SR_WAIT,
	SR_DISABLE_STATUS,
	SR_QUIT_ON_INT,
	SR_JOBID,
	SR_MPI,
	SR_CPU_BIND,
	SR_DIST,
	SR_OVERLAP,
	SR_EXACT,
	SR_PTY,
	SR_OUTPUT,
	SR_ERROR,
	SR_INPUT,
	SR_PRESERVE_ENV,
	SR_IMMEDIATE,
	SR_RELATIVE,
	SR_MULTI_PROG,
	SR_BCAST, /* refused: the ids up to SR_RESV_PORTS, named in refused_name[] */
	SR_HET_GROUP,
	SR_NO_ALLOCATE,
	SR_RESV_PORTS,
	SR_HINT,
	SR_NTASKS_PER_SOCKET,
	SR_TASK_PROLOG,
	SR_TASK_EPILOG,
	SR_PROLOG,
	SR_EPILOG,
	SR_IGNORED,
};

#define N no_argument
#define R required_argument
#define O optional_argument
static const struct alloc_opt_def srun_opts_tab[] = {
    {"account", 'A', R, JOPT_ACCOUNT},
    {"acctg-freq", 0, R, JOPT_ACCTG_FREQ},
    {"bb", 0, R, JOPT_BB},
    {"bbf", 0, R, JOPT_BBF},
    {"bcast", 0, O, SR_BCAST},
    {"bcast-exclude", 0, R, SR_IGNORED},
    {"begin", 'b', R, JOPT_BEGIN},
    {"cpus-per-task", 'c', R, JOPT_CPUS_PER_TASK},
    {"comment", 0, R, JOPT_COMMENT},
    {"compress", 0, O, SR_IGNORED},
    {"container", 0, R, JOPT_CONTAINER},
    {"cpu-freq", 0, R, JOPT_CPU_FREQ},
    {"cpu-bind", 0, R, SR_CPU_BIND},
    {"cpu_bind", 0, R, SR_CPU_BIND},
    {"dependency", 'd', R, JOPT_DEPENDENCY},
    {"deadline", 0, R, JOPT_DEADLINE},
    {"delay-boot", 0, R, JOPT_DELAY_BOOT},
    {"chdir", 'D', R, JOPT_CHDIR},
    {"export", 0, R, JOPT_EXPORT},
    {"error", 'e', R, SR_ERROR},
    {"epilog", 0, R, SR_EPILOG},
    {"preserve-env", 'E', N, SR_PRESERVE_ENV},
    {"gres", 0, R, JOPT_GRES},
    {"gres-flags", 0, R, JOPT_GRES_FLAGS},
    {"hold", 'H', N, JOPT_HOLD},
    {"input", 'i', R, SR_INPUT},
    {"immediate", 'I', O, SR_IMMEDIATE},
    {"jobid", 0, R, SR_JOBID},
    {"job-name", 'J', R, JOPT_JOB_NAME},
    {"no-kill", 'k', O, JOPT_NO_KILL},
    {"kill-on-bad-exit", 'K', O, SR_KILL_BAD_EXIT},
    {"label", 'l', N, SR_LABEL},
    {"licenses", 'L', R, JOPT_LICENSES},
    {"clusters", 'M', R, JOPT_CLUSTERS},
    {"cluster", 0, R, JOPT_CLUSTERS},
    {"distribution", 'm', R, SR_DIST},
    {"mail-type", 0, R, JOPT_MAIL_TYPE},
    {"mail-user", 0, R, JOPT_MAIL_USER},
    {"mcs-label", 0, R, JOPT_MCS_LABEL},
    {"mpi", 0, R, SR_MPI},
    {"mpi-combine", 0, R, SR_IGNORED},
    {"multi-prog", 0, N, SR_MULTI_PROG},
    {"ntasks", 'n', R, JOPT_NTASKS},
    {"nice", 0, O, JOPT_NICE},
    {"ntasks-per-node", 0, R, JOPT_NTASKS_PER_NODE},
    {"tasks-per-node", 0, R, JOPT_NTASKS_PER_NODE},
    {"nodes", 'N', R, JOPT_NODES},
    {"output", 'o', R, SR_OUTPUT},
    {"open-mode", 0, R, JOPT_OPEN_MODE},
    {"overcommit", 'O', N, JOPT_OVERCOMMIT},
    {"overlap", 0, N, SR_OVERLAP},
    {"het-group", 0, R, SR_HET_GROUP},
    {"partition", 'p', R, JOPT_PARTITION},
    {"power", 0, R, JOPT_POWER},
    {"priority", 0, R, JOPT_PRIORITY},
    {"prolog", 0, R, SR_PROLOG},
    {"profile", 0, R, JOPT_PROFILE},
    {"propagate", 0, O, JOPT_PROPAGATE},
    {"pty", 0, N, SR_PTY},
    {"quit-on-interrupt", 0, N, SR_QUIT_ON_INT},
    {"qos", 'q', R, JOPT_QOS},
    {"quiet", 'Q', N, JOPT_QUIET},
    {"reboot", 0, N, JOPT_REBOOT},
    {"relative", 'r', R, SR_RELATIVE},
    {"oversubscribe", 's', N, JOPT_OVERSUBSCRIBE},
    {"core-spec", 'S', R, JOPT_CORE_SPEC},
    {"send-libs", 0, O, SR_IGNORED},
    {"signal", 0, R, JOPT_SIGNAL},
    {"slurmd-debug", 0, R, SR_IGNORED},
    {"spread-job", 0, N, JOPT_SPREAD_JOB},
    {"switches", 0, R, JOPT_SWITCHES},
    {"task-epilog", 0, R, SR_TASK_EPILOG},
    {"task-prolog", 0, R, SR_TASK_PROLOG},
    {"thread-spec", 0, R, JOPT_THREAD_SPEC},
    {"threads", 'T', R, SR_IGNORED},
    {"time", 't', R, JOPT_TIME},
    {"time-min", 0, R, JOPT_TIME_MIN},
    {"unbuffered", 'u', N, SR_UNBUFFERED},
    {"use-min-nodes", 0, N, JOPT_USE_MIN_NODES},
    {"verbose", 'v', N, JOPT_VERBOSE},
    {"wait", 'W', R, SR_WAIT},
    {"wckey", 0, R, JOPT_WCKEY},
    {"disable-status", 'X', N, SR_DISABLE_STATUS},
    {"cluster-constraint", 0, R, JOPT_CLUSTER_CONSTRAINT},
    {"contiguous", 0, N, JOPT_CONTIGUOUS},
    {"constraint", 'C', R, JOPT_CONSTRAINT},
    {"mem", 0, R, JOPT_MEM},
    {"mincpus", 0, R, JOPT_MINCPUS},
    {"reservation", 0, R, JOPT_RESERVATION},
    {"tmp", 0, R, JOPT_TMP},
    {"nodelist", 'w', R, JOPT_NODELIST},
    {"exclude", 'x', R, JOPT_EXCLUDE},
    {"no-allocate", 'Z', N, SR_NO_ALLOCATE},
    {"exact", 0, N, SR_EXACT},
    {"exclusive", 0, O, JOPT_EXCLUSIVE},
    {"mem-per-cpu", 0, R, JOPT_MEM_PER_CPU},
    {"mem-bind", 0, R, JOPT_MEM_BIND},
    {"network", 0, R, JOPT_NETWORK},
    {"hint", 0, R, SR_HINT},
    {"resv-ports", 0, O, SR_RESV_PORTS},
    {"extra-node-info", 'B', R, JOPT_EXTRA_NODE_INFO},
    {"sockets-per-node", 0, R, JOPT_SOCKETS_PER_NODE},
    {"cores-per-socket", 0, R, JOPT_CORES_PER_SOCKET},
    {"threads-per-core", 0, R, JOPT_THREADS_PER_CORE},
    {"ntasks-per-core", 0, R, JOPT_NTASKS_PER_CORE},
    {"ntasks-per-socket", 0, R, SR_NTASKS_PER_SOCKET},
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

/* srun(1) INPUT ENVIRONMENT VARIABLES, in the man page's order. */
static const struct alloc_env_def srun_env_tab[] = {
    {"SLURM_ACCOUNT", JOPT_ACCOUNT},
    {"SLURM_ACCTG_FREQ", JOPT_ACCTG_FREQ},
    {"SLURM_CONSTRAINT", JOPT_CONSTRAINT},
    {"SLURM_CORE_SPEC", JOPT_CORE_SPEC},
    {"SLURM_CPU_BIND", SR_CPU_BIND},
    {"SLURM_CPU_FREQ_REQ", JOPT_CPU_FREQ},
    {"SLURM_CPUS_PER_GPU", JOPT_CPUS_PER_GPU},
    {"SRUN_CPUS_PER_TASK", JOPT_CPUS_PER_TASK},
    {"SLURM_DELAY_BOOT", JOPT_DELAY_BOOT},
    {"SLURM_DEPENDENCY", JOPT_DEPENDENCY},
    {"SLURM_DISABLE_STATUS", SR_DISABLE_STATUS},
    {"SLURM_DISTRIBUTION", SR_DIST},
    {"SLURM_EPILOG", SR_EPILOG},
    {"SLURM_EXACT", SR_EXACT},
    {"SLURM_EXCLUSIVE", JOPT_EXCLUSIVE},
    {"SLURM_EXPORT_ENV", JOPT_EXPORT},
    {"SLURM_GPU_BIND", JOPT_GPU_BIND},
    {"SLURM_GPU_FREQ", JOPT_GPU_FREQ},
    {"SLURM_GPUS", JOPT_GPUS},
    {"SLURM_GPUS_PER_NODE", JOPT_GPUS_PER_NODE},
    {"SLURM_GPUS_PER_TASK", JOPT_GPUS_PER_TASK},
    {"SLURM_GRES", JOPT_GRES},
    {"SLURM_GRES_FLAGS", JOPT_GRES_FLAGS},
    {"SLURM_HINT", SR_HINT},
    {"SLURM_JOB_NUM_NODES", JOPT_NODES},
    {"SLURM_KILL_BAD_EXIT", SR_KILL_BAD_EXIT},
    {"SLURM_LABELIO", SR_LABEL},
    {"SLURM_MEM_BIND", JOPT_MEM_BIND},
    {"SLURM_MEM_PER_CPU", JOPT_MEM_PER_CPU},
    {"SLURM_MEM_PER_GPU", JOPT_MEM_PER_GPU},
    {"SLURM_MEM_PER_NODE", JOPT_MEM},
    {"SLURM_MPI_TYPE", SR_MPI},
    {"SLURM_NETWORK", JOPT_NETWORK},
    {"SLURM_NNODES", JOPT_NODES},
    {"SLURM_NO_KILL", JOPT_NO_KILL},
    {"SLURM_NPROCS", JOPT_NTASKS},
    {"SLURM_NTASKS", JOPT_NTASKS},
    {"SLURM_NTASKS_PER_CORE", JOPT_NTASKS_PER_CORE},
    {"SLURM_NTASKS_PER_GPU", JOPT_NTASKS_PER_GPU},
    {"SLURM_NTASKS_PER_NODE", JOPT_NTASKS_PER_NODE},
    {"SLURM_NTASKS_PER_SOCKET", SR_NTASKS_PER_SOCKET},
    {"SLURM_OPEN_MODE", JOPT_OPEN_MODE},
    {"SLURM_OVERCOMMIT", JOPT_OVERCOMMIT},
    {"SLURM_OVERLAP", SR_OVERLAP},
    {"SLURM_PARTITION", JOPT_PARTITION},
    {"SLURM_POWER", JOPT_POWER},
    {"SLURM_PROFILE", JOPT_PROFILE},
    {"SLURM_QOS", JOPT_QOS},
    {"SLURM_REMOTE_CWD", JOPT_CHDIR},
    {"SLURM_REQ_SWITCH", JOPT_SWITCHES},
    {"SLURM_RESERVATION", JOPT_RESERVATION},
    {"SLURM_SIGNAL", JOPT_SIGNAL},
    {"SLURM_PROLOG", SR_PROLOG},
    {"SLURM_SPREAD_JOB", JOPT_SPREAD_JOB},
    {"SLURM_TASK_EPILOG", SR_TASK_EPILOG},
    {"SLURM_TASK_PROLOG", SR_TASK_PROLOG},
    {"SLURM_STDERRMODE", SR_ERROR},
    {"SLURM_STDINMODE", SR_INPUT},
    {"SLURM_STDOUTMODE", SR_OUTPUT},
    {"SLURM_STEP_GRES", JOPT_GRES},
    {"SLURM_THREAD_SPEC", JOPT_THREAD_SPEC},
    {"SLURM_THREADS_PER_CORE", JOPT_THREADS_PER_CORE},
    {"SLURM_TIMELIMIT", JOPT_TIME},
    {"SLURM_UNBUFFEREDIO", SR_UNBUFFERED},
    {"SLURM_USE_MIN_NODES", JOPT_USE_MIN_NODES},
    {"SLURM_WAIT", SR_WAIT},
    {"SLURM_WCKEY", JOPT_WCKEY},
    {"SRUN_EXPORT_ENV", JOPT_EXPORT},
    {NULL, 0},
};

static int set_str(char **dst, const char *v)
{
	char *s = strdup(v ? v : "");

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* Slurm's parse_int(): digits only; exit 1 on error. */
static int int_arg(const char *prog, const char *name, const char *arg, int *ret,
		   struct job_opt_err *e)
{
	char *end = NULL;
	long v = strtol(arg ? arg : "", &end, 10);

	if (!arg || end == arg || *end || v < 0 || v > 0x7fffffff)
		return job_opt_fail(e, prog, JOB_OPT_EXIT_FATAL, "Invalid numeric value \"%s\" for %s.",
				    arg ? arg : "", name);
	*ret = (int)v;
	return 0;
}

/* --cpu-bind: [verbose|quiet,]none|threads|cores|sockets|map_cpu:<list>|
 * mask_cpu:<list> (the list: decimal or 0x ids, or hex masks). */
static int cpu_bind_arg(struct srun_opts *s, const char *prog, const char *v,
			struct job_opt_err *e)
{
	static const char *const words[] = {"verbose", "v",	  "quiet", "q",	     "none",
					    "no",      "threads", "cores", "sockets"};
	const char *p = v;

	while (*p) {
		size_t len = strcspn(p, ","), i = 0;

		if ((strncasecmp(p, "map_cpu:", 8) == 0 && p[8])
		    || (strncasecmp(p, "mask_cpu:", 9) == 0 && p[9])) {
			const char *l = strchr(p, ':') + 1;

			if (strspn(l, "0123456789abcdefABCDEFxX,") == strlen(l))
				return set_str(&s->cpu_bind, v);
			break;
		}
		while (i < ARRAY_SIZE(words)
		       && !(len == strlen(words[i]) && strncasecmp(p, words[i], len) == 0))
			i++;
		if (i == ARRAY_SIZE(words))
			break;
		p += len + (p[len] == ',');
	}
	if (*p) {
		job_opt_fail(e, prog, JOB_OPT_EXIT_FATAL, "unrecognized --cpu-bind argument \"%.*s\"",
			     (int)strcspn(p, ","), p);
		return job_opt_fatal(e, prog, "Failed to parse --cpu-bind= values.");
	}
	return set_str(&s->cpu_bind, v);
}

/* -m: <node>[:<socket>[:<core>]][,Pack|NoPack] (task_dist_parse). */
static int dist_arg(struct srun_opts *s, const char *prog, const char *v, struct job_opt_err *e)
{
	if (task_dist_parse(v, &s->task_dist, &s->plane_size) < 0)
		return job_opt_fail(e, prog, JOB_OPT_EXIT_FATAL, "Invalid --distribution specification");
	return set_str(&s->distribution, v);
}

/* --hint: compute_bound, memory_bound, [no]multithread. */
static int hint_arg(struct srun_opts *s, const char *prog, const char *v, struct job_opt_err *e)
{
	static const char *const words[] = {"compute_bound", "memory_bound", "multithread",
					    "nomultithread"};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strcasecmp(v, words[i]) == 0)
			return set_str(&s->hint, v);
	return job_opt_fail(e, prog, JOB_OPT_EXIT_FATAL,
			    "unrecognized --hint argument \"%s\", see --hint=help", v);
}

static const char *const refused_name[] = {"--bcast", "--het-group (heterogeneous jobs)",
					   "-Z/--no-allocate", "--resv-ports"};

/* -r N: the step starts at node N of the allocation: the nodes before it
 * are excluded; a node count beyond what is left is cut to it (with
 * Slurm's warning when -N was given on the command line). */
static int relative(struct srun_opts *s, char *const *envp, struct job_opt_err *e)
{
	const char *list = job_opt_env_get(envp, "SLURM_JOB_NODELIST");
	struct job_opts *j = &s->job;
	struct hostlist *all = NULL, *skip = NULL;
	size_t total, left;
	int r;

	if (!s->jobid || !list || !*list)
		return job_opt_fatal(e, j->prog, "--relative option invalid outside of a job "
						  "allocation");
	if (j->nodelist || j->exclude)
		return job_opt_fatal(e, j->prog, "-r/--relative not allowed with -w/--nodelist "
						  "or -x/--exclude");
	r = hostlist_new(list, &all);
	if (r == 0)
		r = hostlist_new(NULL, &skip);
	total = r == 0 ? hostlist_count(all) : 0;
	if (r == 0 && (size_t)s->relative >= total) {
		hostlist_free(all);
		hostlist_free(skip);
		return job_opt_fatal(e, j->prog, "Invalid --relative value %d: the allocation has "
						  "%zu nodes", s->relative, total);
	}
	for (size_t i = 0; r == 0 && i < (size_t)s->relative; i++)
		r = hostlist_push_host(skip, hostlist_nth(all, i));
	if (r == 0 && s->relative > 0 && !(j->exclude = hostlist_ranged_string(skip)))
		r = -ENOMEM;
	hostlist_free(all);
	hostlist_free(skip);
	if (r < 0)
		return job_opt_fatal(e, j->prog, "Out of memory");
	left = total - (size_t)s->relative;
	if (j->nodes_set && (size_t)j->min_nodes > left) {
		if (j->src[JOPT_NODES] == JOB_OPT_SRC_CLI)
			fprintf(stderr, "%s: warning: --relative and --nodes option incompatible, "
					"count reset to %zu\n", j->prog, left);
		j->min_nodes = (int)left;
		if (j->max_nodes > (int)left)
			j->max_nodes = (int)left;
	}
	return 0;
}

/* --multi-prog: the file (argv[0]) is read and checked here, as the user;
 * without -n its ranks give the task count. argv[0] becomes its absolute
 * path: each node's stepd reads it again for its tasks. */
static int multi_prog(struct srun_opts *s, struct job_opt_err *e)
{
	const char *path = s->argv[0];
	_cleanup_free_ char *text = NULL;
	char cwd[4096];
	uint32_t n = 0;
	unsigned line = 0;
	int r = multi_prog_read(path, &text), any = 0;

	if (r < 0)
		return job_opt_fail(e, s->job.prog, JOB_OPT_EXIT_FATAL,
				    "Unable to open configuration file %s: %s", path, strerror(-r));
	if (multi_prog_check(text, &n, &any, &line) < 0)
		return job_opt_fail(e, s->job.prog, JOB_OPT_EXIT_FATAL,
				    "Invalid line %u of configuration file %s", line, path);
	if (!n && !any)
		return job_opt_fail(e, s->job.prog, JOB_OPT_EXIT_FATAL,
				    "Configuration file %s names no task", path);
	if (!s->job.ntasks_set && n) {
		s->job.ntasks = (int)n;
		s->job.ntasks_set = true;
	}
	if (path[0] != '/' && getcwd(cwd, sizeof(cwd))
	    && asprintf(&s->multi_prog_path, "%s/%s", cwd, path) < 0)
		s->multi_prog_path = NULL;
	if (s->multi_prog_path)
		s->argv[0] = s->multi_prog_path;
	return 0;
}

/* -E: inside an allocation the node and task counts of the environment
 * (SLURM_NNODES, SLURM_NTASKS) win over -N and -n. */
static int preserve_env(struct srun_opts *s, char *const *envp, struct job_opt_err *e)
{
	const char *nn = job_opt_env_get(envp, "SLURM_NNODES");
	const char *nt = job_opt_env_get(envp, "SLURM_NTASKS");
	int r = 0;

	if (!nn)
		nn = job_opt_env_get(envp, "SLURM_JOB_NUM_NODES");
	if (!nt)
		nt = job_opt_env_get(envp, "SLURM_NPROCS");
	if (nn && *nn)
		r = job_opt_set(&s->job, JOPT_NODES, nn, JOB_OPT_SRC_ENV, e);
	if (r == 0 && nt && *nt)
		r = job_opt_set(&s->job, JOPT_NTASKS, nt, JOB_OPT_SRC_ENV, e);
	return r;
}

static int jobid_arg(struct srun_opts *s, const char *arg, struct job_opt_err *e)
{
	char *end = NULL;
	unsigned long v = strtoul(arg ? arg : "", &end, 10);

	/* "12.3" or "12_4" forms: the job part */
	if (!arg || end == arg || (*end && *end != '.' && *end != '_') || v == 0 || v >= NO_VAL)
		return job_opt_fail(e, s->job.prog, JOB_OPT_EXIT_FATAL,
				    "Invalid numeric value \"%s\" for --jobid.", arg ? arg : "");
	s->jobid = (uint32_t)v;
	return 0;
}

static int srun_own(void *arg, int id, const char *v, enum job_opt_src src, struct job_opt_err *e)
{
	struct srun_opts *s = arg;
	const char *prog = s->job.prog;

	(void)src;
	switch (id) {
	case SR_LABEL: s->label = true; return 0;
	case SR_UNBUFFERED: s->unbuffered = true; return 0;
	case SR_KILL_BAD_EXIT: s->kill_bad_exit = !v || strcmp(v, "0") != 0; return 0;
	case SR_WAIT: return int_arg(prog, "--wait", v, &s->max_wait, e);
	case SR_DISABLE_STATUS: s->disable_status = true; return 0;
	case SR_QUIT_ON_INT: s->quit_on_interrupt = true; return 0;
	case SR_JOBID: return jobid_arg(s, v, e);
	case SR_MPI: return set_str(&s->mpi, v);
	case SR_TASK_PROLOG: return set_str(&s->task_prolog, v);
	case SR_TASK_EPILOG: return set_str(&s->task_epilog, v);
	case SR_PROLOG: return set_str(&s->prolog, v);
	case SR_EPILOG: return set_str(&s->epilog, v);
	case SR_CPU_BIND: return cpu_bind_arg(s, prog, v, e);
	case SR_DIST: return dist_arg(s, prog, v, e);
	case SR_HINT: return hint_arg(s, prog, v, e);
	case SR_NTASKS_PER_SOCKET: return int_arg(prog, "--ntasks-per-socket", v, &s->ntasks_per_socket, e);
	case SR_OVERLAP: s->overlap = true; return 0;
	case SR_EXACT: s->exact = true; return 0;
	case SR_PTY: s->pty = true; return 0;
	case SR_OUTPUT: return set_str(&s->ofname, v);
	case SR_ERROR: return set_str(&s->efname, v);
	case SR_INPUT: return set_str(&s->ifname, v);
	case SR_PRESERVE_ENV: s->preserve_env = true; return 0;
	case SR_IMMEDIATE: return job_opt_immediate(e, prog, v, &s->immediate);
	case SR_RELATIVE: return int_arg(prog, "--relative", v, &s->relative, e);
	case SR_MULTI_PROG: s->multi_prog = true; return 0;
	case SR_BCAST:
	case SR_HET_GROUP:
	case SR_NO_ALLOCATE:
	case SR_RESV_PORTS:
		return job_opt_refuse(e, prog, refused_name[id - SR_BCAST]);
	default: return 0;
	}
}

void srun_opt_print_stop(const struct srun_opts *s)
{
	if (s->job.help)
		job_opt_help_print(stdout, JOB_CMD_SRUN, srun_help_usage, alloc_opt_accepts,
				   srun_opts_tab);
	else if (s->job.usage)
		fputs(srun_usage_text, stdout);
	else
		cli_print_version();
}

/* --jobid or SLURM_JOB_ID (SLURM_JOBID): the allocation to run in. */
static int find_job(struct srun_opts *s, char *const *envp, struct job_opt_err *e)
{
	const char *v = job_opt_env_get(envp, "SLURM_JOB_ID");

	if (!v)
		v = job_opt_env_get(envp, "SLURM_JOBID");
	if (!v || !*v)
		return 0;
	return jobid_arg(s, v, e);
}

int srun_opt_parse(struct srun_opts *s, int argc, char **argv, char *const *envp, char *info,
		   size_t n, struct job_opt_err *e)
{
	int ind = argc, r;

	r = job_opts_init(&s->job, cli_prog());
	if (r < 0)
		return r;
	s->relative = -1;
	r = find_job(s, envp, e);
	if (r == 0 && !s->jobid && job_opt_env_get(envp, "SLURM_JOB_NAME"))
		r = job_opt_set(&s->job, JOPT_JOB_NAME, job_opt_env_get(envp, "SLURM_JOB_NAME"),
				JOB_OPT_SRC_ENV, e);
	if (r == 0)
		r = alloc_opt_parse_env(srun_opts_tab, srun_env_tab, &s->job, srun_own, s, envp, e);
	if (r == 0)
		r = alloc_opt_parse_argv(srun_opts_tab, &s->job, srun_own, s, argc, argv, &ind, e);
	if (r == 0 && s->preserve_env)
		r = preserve_env(s, envp, e);
	if (r == 0 && s->relative >= 0)
		r = relative(s, envp, e);
	if (r == 0 && s->multi_prog && ind < argc) { /* before verify: it may set -n */
		s->argv = argv + ind;
		r = multi_prog(s, e);
		argv[ind] = s->argv[0];
	}
	if (r == 0)
		r = srun_dist_hostfile(s, envp);
	if (r != 0)
		return r;
	r = job_opt_verify(&s->job, info, n, e);
	if (r == 0)
		r = srun_dist_arbitrary(s, e);
	if (r < 0)
		return r;
	if (s->job.exclusive && s->jobid)
		s->exact = true; /* for a step --exclusive is --exact */
	s->argv = argv + ind;
	s->argc = argc - ind;
	if (s->argc == 0 && !(s->mpi && strcasecmp(s->mpi, "list") == 0)) /* --mpi=list alone */
		return job_opt_fatal(e, s->job.prog, "No command given to execute.");
	return 0;
}

void srun_opts_done(struct srun_opts *s)
{
	job_opts_done(&s->job);
	free(s->ofname);
	free(s->efname);
	free(s->ifname);
	free(s->mpi);
	free(s->cpu_bind);
	free(s->distribution);
	free(s->task_nodes);
	free(s->hint);
	free(s->task_prolog);
	free(s->task_epilog);
	free(s->prolog);
	free(s->epilog);
	free(s->multi_prog_path);
	*s = (struct srun_opts){0};
}
