/* job_opt_help.c - the option descriptions of sbatch, salloc and srun
 * and the printer of their --help; see job_opt_help.h.
 *
 * The words are Slurm 22.05's where it has them; a row per wording where
 * the commands word an option differently. The "ignored" column is what
 * this implementation does with the option: a shared option whose
 * job_opt_table.c parser is NULL or only checks the value, and the
 * commands' own options that are parsed and dropped (srun's --bcast,
 * salloc's --bell...), are listed apart so that --help never claims they
 * work. test_job_opt_help.c checks the column against job_opt_table.c.
 */
#include "cli/job_opt_help.h"

#include <stdlib.h>
#include <string.h>

#include "cli/job_opt.h"

#define SB  JOB_CMD_SBATCH
#define SA  JOB_CMD_SALLOC
#define SR  JOB_CMD_SRUN
#define ALL (SB | SA | SR)
#define REFUSED (JOB_OPT_HELP_REFUSED | ALL)

const struct job_opt_help job_opt_help_table[] = {
    {"account", 'A', "=name", "charge job to specified account", JOB_HELP_RUN, ALL, 0},
    {"acctg-freq", 0, "=<datatype>=<interval>",
     "accounting and profiling sampling\nintervals. Supported datatypes:\ntask=<interval> "
     "energy=<interval>\nnetwork=<interval> filesystem=<interval>",
     JOB_HELP_RUN, ALL, ALL},
    {"array", 'a', "=indexes", "job array index values", JOB_HELP_RUN, SB, 0},
    {"bb", 0, "=<spec>", "burst buffer specifications", JOB_HELP_RUN, ALL, ALL},
    {"bbf", 0, "=<file_name>", "burst buffer specification file", JOB_HELP_RUN, ALL, ALL},
    {"bcast", 0, "=<dest_path>", "Copy executable file to compute nodes", JOB_HELP_RUN, SR,
     JOB_OPT_HELP_REFUSED | SR},
    {"bcast-exclude", 0, "=<paths>", "Shared object directory paths to exclude", JOB_HELP_RUN, SR,
     SR},
    {"begin", 'b', "=time", "defer job until HH:MM MM/DD/YY", JOB_HELP_RUN, ALL, 0},
    {"bell", 0, "", "ring the terminal bell when the job is allocated", JOB_HELP_RUN, SA, 0},
    {"chdir", 'D', "=directory", "set working directory for batch script", JOB_HELP_RUN, SB, 0},
    {"chdir", 'D', "=path", "change working directory", JOB_HELP_RUN, SA, 0},
    {"chdir", 'D', "=path", "change remote current working directory", JOB_HELP_RUN, SR, 0},
    {"cluster", 0, "=names", "same as --clusters", JOB_HELP_RUN, ALL, ALL},
    {"clusters", 'M', "=names",
     "Comma separated list of clusters to issue\ncommands to.  Default is current cluster.\nName "
     "of 'all' will submit to run on all clusters.\nNOTE: SlurmDBD must up.",
     JOB_HELP_RUN, ALL, ALL},
    {"comment", 0, "=name", "arbitrary comment", JOB_HELP_RUN, ALL, 0},
    {"compress", 0, "[=library]", "data compression library used with --bcast", JOB_HELP_RUN, SR,
     SR},
    {"container", 0, "", "Path to OCI container bundle", JOB_HELP_RUN, ALL, REFUSED},
    {"context", 0, "=context", "SELinux context to run the job in", JOB_HELP_RUN, SB, REFUSED},
    {"core-spec", 'S', "=cores", "count of reserved cores", JOB_HELP_RUN, ALL, REFUSED},
    {"cpu-freq", 0, "=min[-max[:gov]]", "requested cpu frequency (and governor)", JOB_HELP_RUN, ALL, REFUSED},
    {"cpus-per-task", 'c', "=ncpus", "number of cpus required per task", JOB_HELP_RUN, ALL, 0},
    {"deadline", 0, "=time",
     "remove the job if no ending possible before\nthis deadline (start > (deadline - time[-min]))",
     JOB_HELP_RUN, ALL, REFUSED},
    {"delay-boot", 0, "=mins", "delay boot for desired node features", JOB_HELP_RUN, ALL, ALL},
    {"dependency", 'd', "=type:jobid[:time]", "defer job until condition on jobid is satisfied",
     JOB_HELP_RUN, ALL, 0},
    {"disable-status", 'X', "", "Disable Ctrl-C status feature", JOB_HELP_RUN, SR, 0},
    {"distribution", 'm', "=type",
     "distribution method for processes to nodes\n(type = block|cyclic|arbitrary)", JOB_HELP_RUN,
     ALL, 0},
    {"epilog", 0, "=program", "run \"program\" after launching job step", JOB_HELP_RUN, SR, 0},
    {"error", 'e', "=err", "file for batch script's standard error", JOB_HELP_RUN, SB, 0},
    {"error", 'e', "=err", "location of stderr redirection", JOB_HELP_RUN, SR, 0},
    {"export", 0, "[=names]", "specify environment variables to export", JOB_HELP_RUN, SB, 0},
    {"export", 0, "=env_vars|NONE",
     "environment variables passed to launcher with\noptional values or NONE (pass no variables)",
     JOB_HELP_RUN, SR, 0},
    {"export-file", 0, "=file|fd",
     "specify environment variables file or file\ndescriptor to export", JOB_HELP_RUN, SB, 0},
    {"get-user-env", 0, "", "load environment from local cluster", JOB_HELP_RUN, SB, SA | SR},
    {"get-user-env", 0, "", "used by Moab.  See srun man page.", JOB_HELP_RUN, SA, ALL},
    {"gid", 0, "=group_id", "group ID to run job as (user root only)", JOB_HELP_RUN, SB | SA, 0},
    {"gres", 0, "=list", "required generic resources", JOB_HELP_RUN, ALL, 0},
    {"gres-flags", 0, "=opts", "flags related to GRES management", JOB_HELP_RUN, ALL, 0},
    {"het-group", 0, "=value", "hetjob component allocation(s) in which to launch\napplication",
     JOB_HELP_RUN, SR, JOB_OPT_HELP_REFUSED | SR},
    {"hold", 'H', "", "submit job in held state", JOB_HELP_RUN, ALL, 0},
    {"ignore-pbs", 0, "", "Ignore #PBS and #BSUB options in the batch script", JOB_HELP_RUN, SB,
     ALL},
    {"immediate", 'I', "[=secs]", "exit if resources not available in \"secs\"", JOB_HELP_RUN,
     SA | SR, 0},
    {"input", 'i', "=in", "file for batch script's standard input", JOB_HELP_RUN, SB, 0},
    {"input", 'i', "=in", "location of stdin redirection", JOB_HELP_RUN, SR, 0},
    {"job-name", 'J', "=jobname", "name of job", JOB_HELP_RUN, ALL, 0},
    {"jobid", 0, "=id", "run under already allocated job", JOB_HELP_RUN, SR, 0},
    {"kill-command", 'K', "[=signal]", "signal to send terminating job", JOB_HELP_RUN, SA, 0},
    {"kill-on-bad-exit", 'K', "", "kill the job if any task terminates with a\nnon-zero exit code",
     JOB_HELP_RUN, SR, 0},
    {"kill-on-invalid-dep", 0, "=yes|no", "kill the job if its dependency can never\nbe satisfied",
     JOB_HELP_RUN, SB, 0},
    {"label", 'l', "", "prepend task number to lines of stdout/err", JOB_HELP_RUN, SR, 0},
    {"licenses", 'L', "=names", "required license, comma separated", JOB_HELP_RUN, ALL, 0},
    {"mail-type", 0, "=type", "notify on state change: BEGIN, END, FAIL or ALL", JOB_HELP_RUN, ALL,
     0},
    {"mail-user", 0, "=user", "who to send email notification for job state\nchanges", JOB_HELP_RUN,
     ALL, 0},
    {"mcs-label", 0, "=mcs", "mcs label if mcs plugin mcs/group is used", JOB_HELP_RUN, ALL, ALL},
    {"mpi", 0, "=type", "type of MPI being used", JOB_HELP_RUN, SR, 0},
    {"mpi-combine", 0, "=yes|no", "combine the MPI ranks of all hetjob components", JOB_HELP_RUN,
     SR, SR},
    {"multi-prog", 0, "",
     "if set the program name specified is the\nconfiguration specification for multiple programs",
     JOB_HELP_RUN, SR, 0},
    {"network", 0, "=type", "specify information pertaining to the switch or network", JOB_HELP_RUN,
     ALL, ALL},
    {"nice", 0, "[=value]", "decrease scheduling priority by value", JOB_HELP_RUN, ALL, 0},
    {"no-bell", 0, "", "do NOT ring the terminal bell", JOB_HELP_RUN, SA, 0},
    {"no-kill", 'k', "", "do not kill job on node failure", JOB_HELP_RUN, ALL, 0},
    {"no-requeue", 0, "", "if set, do not permit the job to be requeued", JOB_HELP_RUN, SB, 0},
    {"no-shell", 0, "", "immediately exit after allocating resources,\nwithout running a command",
     JOB_HELP_RUN, SA, 0},
    {"nodes", 'N', "=N", "number of nodes on which to run (N = min[-max])", JOB_HELP_RUN, ALL, 0},
    {"ntasks", 'n', "=ntasks", "number of tasks to run", JOB_HELP_RUN, SB | SR, 0},
    {"ntasks", 'n', "=N", "number of processors required", JOB_HELP_RUN, SA, 0},
    {"ntasks-per-node", 0, "=n", "number of tasks to invoke on each node", JOB_HELP_RUN, ALL, 0},
    {"open-mode", 0, "=append|truncate", "mode for opening the output and error files",
     JOB_HELP_RUN, SB | SR, 0},
    {"output", 'o', "=out", "file for batch script's standard output", JOB_HELP_RUN, SB, 0},
    {"output", 'o', "=out", "location of stdout redirection", JOB_HELP_RUN, SR, 0},
    {"overcommit", 'O', "", "overcommit resources", JOB_HELP_RUN, ALL, REFUSED},
    {"overlap", 0, "", "Allow other steps to overlap this step", JOB_HELP_RUN, SR, 0},
    {"oversubscribe", 's', "", "over subscribe resources with other jobs", JOB_HELP_RUN, SB, 0},
    {"oversubscribe", 's', "", "oversubscribe resources with other jobs", JOB_HELP_RUN, SA, 0},
    {"oversubscribe", 's', "", "over-subscribe resources with other jobs", JOB_HELP_RUN, SR, 0},
    {"parsable", 0, "",
     "outputs only the jobid and cluster name (if present),\nseparated by semicolon, only on "
     "successful submission.",
     JOB_HELP_RUN, SB, 0},
    {"partition", 'p', "=partition", "partition requested", JOB_HELP_RUN, ALL, 0},
    {"power", 0, "=flags", "power management options", JOB_HELP_RUN, ALL, ALL},
    {"preserve-env", 'E', "", "env vars for node and task counts override\ncommand-line flags",
     JOB_HELP_RUN, SR, 0},
    {"priority", 0, "=value", "set the priority of the job to value", JOB_HELP_RUN, ALL, 0},
    {"profile", 0, "=value",
     "enable acct_gather_profile for detailed data\nvalue is all or none or any combination "
     "of\nenergy, lustre, network or task",
     JOB_HELP_RUN, ALL, ALL},
    {"prolog", 0, "=program", "run \"program\" before launching job step", JOB_HELP_RUN, SR, 0},
    {"propagate", 0, "[=rlimits]", "propagate all [or specific list of] rlimits", JOB_HELP_RUN,
     SB | SR, 0},
    {"pty", 0, "", "run task zero in pseudo terminal", JOB_HELP_RUN, SR, 0},
    {"qos", 'q', "=qos", "quality of service", JOB_HELP_RUN, ALL, 0},
    {"quiet", 'Q', "", "quiet mode (suppress informational messages)", JOB_HELP_RUN, ALL, 0},
    {"quit-on-interrupt", 0, "", "quit on single Ctrl-C", JOB_HELP_RUN, SR, 0},
    {"reboot", 0, "", "reboot compute nodes before starting job", JOB_HELP_RUN, SB | SA, REFUSED},
    {"reboot", 0, "", "reboot block before starting job", JOB_HELP_RUN, SR, REFUSED},
    {"relative", 'r', "=n", "run job step relative to node n of allocation", JOB_HELP_RUN, SR, 0},
    {"requeue", 0, "", "if set, permit the job to be requeued", JOB_HELP_RUN, SB, 0},
    {"send-libs", 0, "[=yes|no]", "autodetect and broadcast shared objects", JOB_HELP_RUN, SR, SR},
    {"signal", 0, "=[[R][B]:]num[@time]", "send signal when time limit within time seconds",
     JOB_HELP_RUN, SB, 0},
    {"signal", 0, "=[R:]num[@time]", "send signal when time limit within time seconds",
     JOB_HELP_RUN, SA | SR, 0},
    {"slurmd-debug", 0, "=level", "slurmd debug level", JOB_HELP_RUN, SR, SR},
    {"spread-job", 0, "", "spread job across as many nodes as possible", JOB_HELP_RUN, ALL, REFUSED},
    {"switches", 0, "=max-switches{@max-time-to-wait}",
     "\nOptimum switches and max time to wait for optimum", JOB_HELP_RUN, ALL, REFUSED},
    {"task-epilog", 0, "=program", "run \"program\" after launching task", JOB_HELP_RUN, SR, 0},
    {"task-prolog", 0, "=program", "run \"program\" before launching task", JOB_HELP_RUN, SR, 0},
    {"tasks-per-node", 0, "=n", "same as --ntasks-per-node", JOB_HELP_RUN, ALL, 0},
    {"test-only", 0, "", "validate the job and estimate when it would\nstart; do not submit it",
     JOB_HELP_RUN, SB, 0},
    {"thread-spec", 0, "=threads", "count of reserved threads", JOB_HELP_RUN, ALL, REFUSED},
    {"threads", 'T', "=threads", "set srun launch fanout", JOB_HELP_RUN, SR, SR},
    {"time", 't', "=minutes", "time limit", JOB_HELP_RUN, ALL, 0},
    {"time-min", 0, "=minutes", "minimum time limit (if distinct)", JOB_HELP_RUN, ALL, 0},
    {"uid", 0, "=user_id", "user ID to run job as (user root only)", JOB_HELP_RUN, SB | SA, 0},
    {"unbuffered", 'u', "", "do not line-buffer stdout/err", JOB_HELP_RUN, SR, 0},
    {"use-min-nodes", 0, "", "if a range of node counts is given, prefer the\nsmaller count",
     JOB_HELP_RUN, ALL, 0},
    {"verbose", 'v', "", "verbose mode (multiple -v's increase verbosity)", JOB_HELP_RUN, ALL, 0},
    {"wait", 'W', "", "wait for completion of submitted job", JOB_HELP_RUN, SB, 0},
    {"wait", 'W', "=sec", "seconds to wait after first task exits\nbefore killing job",
     JOB_HELP_RUN, SR, 0},
    {"wait-all-nodes", 0, "=0|1", "wait for all nodes to be booted before\nstarting the job",
     JOB_HELP_RUN, SB | SA, 0},
    {"wckey", 0, "=wckey", "wckey to run job under", JOB_HELP_RUN, ALL, ALL},
    {"wrap", 0, "[=command string]", "wrap command string in a sh script and submit", JOB_HELP_RUN,
     SB, 0},
    {"batch", 0, "=list", "specify a list of node features to run the batch script on",
     JOB_HELP_CONSTRAINT, SB, REFUSED},
    {"cluster-constraint", 0, "=[!]list", "specify a list of cluster constraints",
     JOB_HELP_CONSTRAINT, ALL, ALL},
    {"constraint", 'C', "=list", "specify a list of constraints", JOB_HELP_CONSTRAINT, ALL, 0},
    {"contiguous", 0, "", "demand a contiguous range of nodes", JOB_HELP_CONSTRAINT, ALL, REFUSED},
    {"exclude", 'x', "=hosts...", "exclude a specific list of hosts", JOB_HELP_CONSTRAINT, ALL, 0},
    {"mem", 0, "=MB", "minimum amount of real memory", JOB_HELP_CONSTRAINT, ALL, 0},
    {"mincpus", 0, "=n", "minimum number of logical processors (threads)\nper node",
     JOB_HELP_CONSTRAINT, ALL, 0},
    {"no-allocate", 'Z', "", "don't allocate nodes (must supply -w)", JOB_HELP_CONSTRAINT, SR,
     JOB_OPT_HELP_REFUSED | SR},
    {"nodefile", 'F', "=filename", "request a specific list of hosts", JOB_HELP_CONSTRAINT, SB | SA, 0},
    {"nodelist", 'w', "=hosts...", "request a specific list of hosts", JOB_HELP_CONSTRAINT, ALL, 0},
    {"prefer", 0, "=list", "features desired but not required by the job", JOB_HELP_CONSTRAINT, SB,
     0},
    {"reservation", 0, "=name", "allocate resources from named reservation", JOB_HELP_CONSTRAINT,
     ALL, 0},
    {"tmp", 0, "=MB", "minimum amount of temporary disk", JOB_HELP_CONSTRAINT, ALL, 0},
    {"exact", 0, "",
     "use only the resources requested for the step\n(by default, all non-gres resources on each "
     "node\nin the allocation will be used in the step)",
     JOB_HELP_CONSUMABLE, SR, 0},
    {"exclusive", 0, "[=user]",
     "allocate nodes in exclusive mode when\ncpu consumable resource is enabled",
     JOB_HELP_CONSUMABLE, SB | SA, 0},
    {"exclusive", 0, "[=mcs]",
     "allocate nodes in exclusive mode when\ncpu consumable resource is enabled\nand mcs plugin is "
     "enabled",
     JOB_HELP_CONSUMABLE, SB | SA, 0},
    {"exclusive", 0, "[=user]",
     "for job allocation, this allocates nodes in\nin exclusive mode\nfor job steps, this is "
     "equivalent to --exact",
     JOB_HELP_CONSUMABLE, SR, 0},
    {"exclusive", 0, "[=mcs]",
     "allocate nodes in exclusive mode when\ncpu consumable resource is enabled\nand mcs plugin is "
     "enabled (--exact implied)\nor don't share CPUs for job steps",
     JOB_HELP_CONSUMABLE, SR, 0},
    {"mem-per-cpu", 0, "=MB",
     "maximum amount of real memory per allocated\ncpu required by the job.\n--mem >= "
     "--mem-per-cpu if --mem is specified.",
     JOB_HELP_CONSUMABLE, ALL, 0},
    {"resv-ports", 0, "", "reserve communication ports", JOB_HELP_CONSUMABLE, SR,
     JOB_OPT_HELP_REFUSED | SR},
    {"sockets-per-node", 0, "=S", "number of sockets per node to allocate", JOB_HELP_AFFINITY, ALL, 0},
    {"cores-per-socket", 0, "=C", "number of cores per socket to allocate", JOB_HELP_AFFINITY, ALL, 0},
    {"threads-per-core", 0, "=T", "number of threads per core to allocate", JOB_HELP_AFFINITY, ALL, REFUSED},
    {"extra-node-info", 'B', "=S[:C[:T]]",
     "combine request of sockets per node,\ncores per socket and threads per core.\nSpecify an "
     "asterisk (*) as a placeholder,\na minimum value, or a min-max range.",
     JOB_HELP_AFFINITY, ALL, 0},
    {"cpu-bind", 0, "=type", "cpu binding of the tasks", JOB_HELP_AFFINITY_TASKS, SR, 0},
    {"cpu_bind", 0, "=type", "same as --cpu-bind", JOB_HELP_AFFINITY_TASKS, SR, 0},
    {"hint", 0, "=", "bind tasks according to application hints\n(see \"--hint=help\" for options)",
     JOB_HELP_AFFINITY_TASKS, ALL, 0},
    {"mem-bind", 0, "=...", "bind memory to locality domains (ldom)", JOB_HELP_AFFINITY_TASKS, ALL, 0},
    {"ntasks-per-core", 0, "=n", "number of tasks to invoke on each core", JOB_HELP_AFFINITY_TASKS,
     ALL, 0},
    {"ntasks-per-socket", 0, "=n", "number of tasks to invoke on each socket",
     JOB_HELP_AFFINITY_TASKS, ALL, 0},
    {"cpus-per-gpu", 0, "=n", "number of CPUs required per allocated GPU", JOB_HELP_GPU, ALL, 0},
    {"gpu-bind", 0, "=...", "task to gpu binding options", JOB_HELP_GPU, ALL, 0},
    {"gpu-freq", 0, "=...", "frequency and voltage of GPUs", JOB_HELP_GPU, ALL, REFUSED},
    {"gpus", 'G', "=n", "count of GPUs required for the job", JOB_HELP_GPU, ALL, 0},
    {"gpus-per-node", 0, "=n", "number of GPUs required per allocated node", JOB_HELP_GPU, ALL, 0},
    {"gpus-per-socket", 0, "=n", "number of GPUs required per allocated socket", JOB_HELP_GPU, ALL,
     0},
    {"gpus-per-task", 0, "=n", "number of GPUs required per spawned task", JOB_HELP_GPU, ALL, 0},
    {"mem-per-gpu", 0, "=n", "real memory required per allocated GPU", JOB_HELP_GPU, ALL, 0},
    {"ntasks-per-gpu", 0, "=n", "number of tasks to invoke for each GPU", JOB_HELP_GPU, ALL, 0},
    {"ntasks-per-tres", 0, "=n", "number of tasks to invoke for each GPU", JOB_HELP_GPU, SB, 0},
    {"help", 'h', "", "show this help message", JOB_HELP_HELP, ALL, 0},
    {"usage", 0, "", "display brief usage message", JOB_HELP_HELP, ALL, 0},
    {"version", 'V', "", "output version information and exit", JOB_HELP_OTHER, ALL, 0},
    {NULL, 0, NULL, NULL, 0, 0, 0},
};

#define HELP_COL	 30  /* where the words start */
#define JOB_OPT_HELP_MAX 256 /* rows in the table, at most */
_Static_assert(sizeof(job_opt_help_table) / sizeof(job_opt_help_table[0]) <= JOB_OPT_HELP_MAX,
	       "print_ignored() sorts at most JOB_OPT_HELP_MAX rows");

static const char *const section_head[_JOB_HELP_SECTION_COUNT] = {
    [JOB_HELP_RUN] = "Parallel run options:\n",
    [JOB_HELP_CONSTRAINT] = "Constraint options:\n",
    [JOB_HELP_CONSUMABLE] = "Consumable resources related options:\n",
    [JOB_HELP_AFFINITY] =
	"Affinity/Multi-core options: (when the task/affinity plugin is enabled)\n"
	"                              For the following 4 options, you are\n"
	"                              specifying the minimum resources available for\n"
	"                              the node(s) allocated to the job.\n",
    [JOB_HELP_AFFINITY_TASKS] = "",
    [JOB_HELP_GPU] = "GPU scheduling options:\n",
    [JOB_HELP_HELP] = "Help options:\n",
    [JOB_HELP_OTHER] = "Other options:\n",
};

static const char ignored_head[] =
    "Accepted for compatibility, not acted on (none changes where or how a job\n"
    "runs here: profiling, burst buffers, power, MCS, clusters, launch tuning):\n";
static const char refused_head[] =
    "Refused with an error (they would change where or how the job runs,\n"
    "and this cluster cannot honour them):\n";

static void print_row(FILE *f, const struct job_opt_help *h)
{
	const char *t = h->text;
	int n;

	if (h->short_opt)
		n = fprintf(f, "  -%c, --%s%s", h->short_opt, h->name, h->arg);
	else
		n = fprintf(f, "      --%s%s", h->name, h->arg);
	if (*t == '\n') { /* words below the option */
		fputc('\n', f);
		t++;
		n = 0;
	}
	fprintf(f, "%*s", n < HELP_COL ? HELP_COL - n : 1, "");
	for (const char *nl; (nl = strchr(t, '\n')); t = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - t), t, HELP_COL, "");
	fprintf(f, "%s\n", t);
}

enum row_kind { ROW_WORKS, ROW_IGNORED, ROW_REFUSED };

static bool row_shows(const struct job_opt_help *h, enum job_opt_cmd cmd, enum row_kind kind,
		      job_opt_accepts_fn *accepts, const void *arg)
{
	enum row_kind k = !(h->ignored & cmd)			  ? ROW_WORKS
			  : (h->ignored & JOB_OPT_HELP_REFUSED) ? ROW_REFUSED
								  : ROW_IGNORED;

	return (h->cmds & cmd) && k == kind && accepts(h->name, arg);
}

/* The rows of one section that show for cmd, the head before the first;
 * returns whether there were any. */
static bool print_section(FILE *f, int sec, enum job_opt_cmd cmd, job_opt_accepts_fn *accepts,
			  const void *arg, const char *head)
{
	bool any = false;

	for (const struct job_opt_help *h = job_opt_help_table; h->name; h++) {
		if (h->section != sec || !row_shows(h, cmd, ROW_WORKS, accepts, arg))
			continue;
		if (!any)
			fputs(head, f);
		any = true;
		print_row(f, h);
	}
	if (any)
		fputc('\n', f);
	return any;
}

static int by_name(const void *a, const void *b)
{
	const struct job_opt_help *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* The rows cmd accepts and ignores (or refuses), from every section, by
 * name, under head. */
static void print_kind(FILE *f, enum job_opt_cmd cmd, enum row_kind kind, const char *head,
		       job_opt_accepts_fn *accepts, const void *arg)
{
	const struct job_opt_help *rows[JOB_OPT_HELP_MAX];
	size_t n = 0;

	for (const struct job_opt_help *h = job_opt_help_table; h->name && n < JOB_OPT_HELP_MAX;
	     h++)
		if (h->section < JOB_HELP_HELP && row_shows(h, cmd, kind, accepts, arg))
			rows[n++] = h;
	if (!n)
		return;
	qsort(rows, n, sizeof(rows[0]), by_name);
	fputs(head, f);
	for (size_t i = 0; i < n; i++)
		print_row(f, rows[i]);
	fputc('\n', f);
}

void job_opt_help_print(FILE *f, enum job_opt_cmd cmd, const char *usage_line,
			job_opt_accepts_fn *accepts, const void *arg)
{
	bool has_affinity = false;

	fprintf(f, "%s\n\n", usage_line);
	for (int s = 0; s < JOB_HELP_HELP; s++) {
		/* the affinity tasks go under the affinity head when it had no rows */
		const char *head = s == JOB_HELP_AFFINITY_TASKS && !has_affinity
				       ? section_head[JOB_HELP_AFFINITY]
				       : section_head[s];
		bool any = print_section(f, s, cmd, accepts, arg, head);

		has_affinity |= s == JOB_HELP_AFFINITY && any;
	}
	print_kind(f, cmd, ROW_REFUSED, refused_head, accepts, arg);
	print_kind(f, cmd, ROW_IGNORED, ignored_head, accepts, arg);
	for (int s = JOB_HELP_HELP; s < _JOB_HELP_SECTION_COUNT; s++)
		print_section(f, s, cmd, accepts, arg, section_head[s]);
}

bool job_opt_table_accepts(const char *name, const void *arg)
{
	(void)arg;
	for (const struct job_opt_def *d = job_opt_table; d->name; d++)
		if (!strcmp(d->name, name))
			return true;
	return false;
}
