/* srun_opt.c - srun's option table, input variables and checks; see
 * srun_opt.h. Options srun accepts but does not act on (--bcast,
 * --prolog, --multi-prog, -I, -r, -T, ...) are parsed and dropped; --pty
 * and --mpi other than none are accepted with a verbose note at launch.
 */
#include "cli/srun_opt.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/alloc_opt.h"
#include "cli/cli.h"

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

static const char srun_help_text[] =
    "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] executable(N) [args(N)...]\n"
    "\n"
    "Parallel run options:\n"
    "  -A, --account=name          charge job to specified account\n"
    "      --acctg-freq=<datatype>=<interval> accounting and profiling sampling\n"
    "                              intervals. Supported datatypes:\n"
    "                              task=<interval> energy=<interval>\n"
    "                              network=<interval> filesystem=<interval>\n"
    "      --bb=<spec>             burst buffer specifications\n"
    "      --bbf=<file_name>       burst buffer specification file\n"
    "      --bcast=<dest_path>     Copy executable file to compute nodes\n"
    "      --bcast-exclude=<paths> Shared object directory paths to exclude\n"
    "  -b, --begin=time            defer job until HH:MM MM/DD/YY\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "      --comment=name          arbitrary comment\n"
    "      --compress[=library]    data compression library used with --bcast\n"
    "      --container             Path to OCI container bundle\n"
    "      --cpu-freq=min[-max[:gov]] requested cpu frequency (and governor)\n"
    "  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied\n"
    "      --deadline=time         remove the job if no ending possible before\n"
    "                              this deadline (start > (deadline - time[-min]))\n"
    "      --delay-boot=mins       delay boot for desired node features\n"
    "  -D, --chdir=path            change remote current working directory\n"
    "      --export=env_vars|NONE  environment variables passed to launcher with\n"
    "                              optional values or NONE (pass no variables)\n"
    "  -e, --error=err             location of stderr redirection\n"
    "      --epilog=program        run \"program\" after launching job step\n"
    "  -E, --preserve-env          env vars for node and task counts override\n"
    "                              command-line flags\n"
    "      --gres=list             required generic resources\n"
    "      --gres-flags=opts       flags related to GRES management\n"
    "  -H, --hold                  submit job in held state\n"
    "  -i, --input=in              location of stdin redirection\n"
    "  -I, --immediate[=secs]      exit if resources not available in \"secs\"\n"
    "      --jobid=id              run under already allocated job\n"
    "  -J, --job-name=jobname      name of job\n"
    "  -k, --no-kill               do not kill job on node failure\n"
    "  -K, --kill-on-bad-exit      kill the job if any task terminates with a\n"
    "                              non-zero exit code\n"
    "  -l, --label                 prepend task number to lines of stdout/err\n"
    "  -L, --licenses=names        required license, comma separated\n"
    "  -M, --clusters=names        Comma separated list of clusters to issue\n"
    "                              commands to.  Default is current cluster.\n"
    "                              Name of 'all' will submit to run on all clusters.\n"
    "                              NOTE: SlurmDBD must up.\n"
    "  -m, --distribution=type     distribution method for processes to nodes\n"
    "                              (type = block|cyclic|arbitrary)\n"
    "      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL\n"
    "      --mail-user=user        who to send email notification for job state\n"
    "                              changes\n"
    "      --mcs-label=mcs         mcs label if mcs plugin mcs/group is used\n"
    "      --mpi=type              type of MPI being used\n"
    "      --multi-prog            if set the program name specified is the\n"
    "                              configuration specification for multiple programs\n"
    "  -n, --ntasks=ntasks         number of tasks to run\n"
    "      --nice[=value]          decrease scheduling priority by value\n"
    "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -o, --output=out            location of stdout redirection\n"
    "  -O, --overcommit            overcommit resources\n"
    "      --overlap               Allow other steps to overlap this step\n"
    "      --het-group=value       hetjob component allocation(s) in which to launch\n"
    "                              application\n"
    "  -p, --partition=partition   partition requested\n"
    "      --power=flags           power management options\n"
    "      --priority=value        set the priority of the job to value\n"
    "      --prolog=program        run \"program\" before launching job step\n"
    "      --profile=value         enable acct_gather_profile for detailed data\n"
    "                              value is all or none or any combination of\n"
    "                              energy, lustre, network or task\n"
    "      --propagate[=rlimits]   propagate all [or specific list of] rlimits\n"
    "      --pty                   run task zero in pseudo terminal\n"
    "      --quit-on-interrupt     quit on single Ctrl-C\n"
    "  -q, --qos=qos               quality of service\n"
    "  -Q, --quiet                 quiet mode (suppress informational messages)\n"
    "      --reboot                reboot block before starting job\n"
    "  -r, --relative=n            run job step relative to node n of allocation\n"
    "  -s, --oversubscribe         over-subscribe resources with other jobs\n"
    "  -S, --core-spec=cores       count of reserved cores\n"
    "      --send-libs[=yes|no]    autodetect and broadcast shared objects\n"
    "      --signal=[R:]num[@time] send signal when time limit within time seconds\n"
    "      --slurmd-debug=level    slurmd debug level\n"
    "      --spread-job            spread job across as many nodes as possible\n"
    "      --switches=max-switches{@max-time-to-wait}\n"
    "                              Optimum switches and max time to wait for optimum\n"
    "      --task-epilog=program   run \"program\" after launching task\n"
    "      --task-prolog=program   run \"program\" before launching task\n"
    "      --thread-spec=threads   count of reserved threads\n"
    "  -T, --threads=threads       set srun launch fanout\n"
    "  -t, --time=minutes          time limit\n"
    "      --time-min=minutes      minimum time limit (if distinct)\n"
    "  -u, --unbuffered            do not line-buffer stdout/err\n"
    "      --use-min-nodes         if a range of node counts is given, prefer the\n"
    "                              smaller count\n"
    "  -v, --verbose               verbose mode (multiple -v's increase verbosity)\n"
    "  -W, --wait=sec              seconds to wait after first task exits\n"
    "                              before killing job\n"
    "      --wckey=wckey           wckey to run job under\n"
    "  -X, --disable-status        Disable Ctrl-C status feature\n"
    "\n"
    "Constraint options:\n"
    "      --cluster-constraint=list specify a list of cluster-constraints\n"
    "      --contiguous            demand a contiguous range of nodes\n"
    "  -C, --constraint=list       specify a list of constraints\n"
    "      --mem=MB                minimum amount of real memory\n"
    "      --mincpus=n             minimum number of logical processors (threads)\n"
    "                              per node\n"
    "      --reservation=name      allocate resources from named reservation\n"
    "      --tmp=MB                minimum amount of temporary disk\n"
    "  -w, --nodelist=hosts...     request a specific list of hosts\n"
    "  -x, --exclude=hosts...      exclude a specific list of hosts\n"
    "  -Z, --no-allocate           don't allocate nodes (must supply -w)\n"
    "\n"
    "Consumable resources related options:\n"
    "      --exact                 use only the resources requested for the step\n"
    "                              (by default, all non-gres resources on each node\n"
    "                              in the allocation will be used in the step)\n"
    "      --exclusive[=user]      for job allocation, this allocates nodes in\n"
    "                              in exclusive mode\n"
    "                              for job steps, this is equivalent to --exact\n"
    "      --exclusive[=mcs]       allocate nodes in exclusive mode when\n"
    "                              cpu consumable resource is enabled\n"
    "                              and mcs plugin is enabled (--exact implied)\n"
    "                              or don't share CPUs for job steps\n"
    "      --mem-per-cpu=MB        maximum amount of real memory per allocated\n"
    "                              cpu required by the job.\n"
    "                              --mem >= --mem-per-cpu if --mem is specified.\n"
    "      --resv-ports            reserve communication ports\n"
    "\n"
    "Affinity/Multi-core options: (when the task/affinity plugin is enabled)\n"
    "                              For the following 4 options, you are\n"
    "                              specifying the minimum resources available for\n"
    "                              the node(s) allocated to the job.\n"
    "      --sockets-per-node=S    number of sockets per node to allocate\n"
    "      --cores-per-socket=C    number of cores per socket to allocate\n"
    "      --threads-per-core=T    number of threads per core to allocate\n"
    "  -B  --extra-node-info=S[:C[:T]]  combine request of sockets per node,\n"
    "                              cores per socket and threads per core.\n"
    "                              Specify an asterisk (*) as a placeholder,\n"
    "                              a minimum value, or a min-max range.\n"
    "\n"
    "      --ntasks-per-core=n     number of tasks to invoke on each core\n"
    "      --ntasks-per-socket=n   number of tasks to invoke on each socket\n"
    "\n"
    "GPU scheduling options:\n"
    "      --cpus-per-gpu=n        number of CPUs required per allocated GPU\n"
    "  -G, --gpus=n                count of GPUs required for the job\n"
    "      --gpu-bind=...          task to gpu binding options\n"
    "      --gpu-freq=...          frequency and voltage of GPUs\n"
    "      --gpus-per-node=n       number of GPUs required per allocated node\n"
    "      --gpus-per-socket=n     number of GPUs required per allocated socket\n"
    "      --gpus-per-task=n       number of GPUs required per spawned task\n"
    "      --mem-per-gpu=n         real memory required per allocated GPU\n"
    "\n"
    "Help options:\n"
    "  -h, --help                  show this help message\n"
    "      --usage                 display brief usage message\n"
    "\n"
    "Other options:\n"
    "  -V, --version               output version information and exit\n"
    "\n";

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
    {"bcast", 0, O, SR_IGNORED},
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
    {"epilog", 0, R, SR_IGNORED},
    {"preserve-env", 'E', N, SR_PRESERVE_ENV},
    {"gres", 0, R, JOPT_GRES},
    {"gres-flags", 0, R, JOPT_GRES_FLAGS},
    {"hold", 'H', N, JOPT_HOLD},
    {"input", 'i', R, SR_INPUT},
    {"immediate", 'I', O, SR_IGNORED},
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
    {"multi-prog", 0, N, SR_IGNORED},
    {"ntasks", 'n', R, JOPT_NTASKS},
    {"nice", 0, O, JOPT_NICE},
    {"ntasks-per-node", 0, R, JOPT_NTASKS_PER_NODE},
    {"tasks-per-node", 0, R, JOPT_NTASKS_PER_NODE},
    {"nodes", 'N', R, JOPT_NODES},
    {"output", 'o', R, SR_OUTPUT},
    {"open-mode", 0, R, JOPT_OPEN_MODE},
    {"overcommit", 'O', N, JOPT_OVERCOMMIT},
    {"overlap", 0, N, SR_OVERLAP},
    {"het-group", 0, R, SR_IGNORED},
    {"partition", 'p', R, JOPT_PARTITION},
    {"power", 0, R, JOPT_POWER},
    {"priority", 0, R, JOPT_PRIORITY},
    {"prolog", 0, R, SR_IGNORED},
    {"profile", 0, R, JOPT_PROFILE},
    {"propagate", 0, O, JOPT_PROPAGATE},
    {"pty", 0, N, SR_PTY},
    {"quit-on-interrupt", 0, N, SR_QUIT_ON_INT},
    {"qos", 'q', R, JOPT_QOS},
    {"quiet", 'Q', N, JOPT_QUIET},
    {"reboot", 0, N, JOPT_REBOOT},
    {"relative", 'r', R, SR_IGNORED},
    {"oversubscribe", 's', N, JOPT_OVERSUBSCRIBE},
    {"core-spec", 'S', R, JOPT_CORE_SPEC},
    {"send-libs", 0, O, SR_IGNORED},
    {"signal", 0, R, JOPT_SIGNAL},
    {"slurmd-debug", 0, R, SR_IGNORED},
    {"spread-job", 0, N, JOPT_SPREAD_JOB},
    {"switches", 0, R, JOPT_SWITCHES},
    {"task-epilog", 0, R, SR_IGNORED},
    {"task-prolog", 0, R, SR_IGNORED},
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
    {"no-allocate", 'Z', N, SR_IGNORED},
    {"exact", 0, N, SR_EXACT},
    {"exclusive", 0, O, JOPT_EXCLUSIVE},
    {"mem-per-cpu", 0, R, JOPT_MEM_PER_CPU},
    {"mem-bind", 0, R, JOPT_MEM_BIND},
    {"network", 0, R, JOPT_NETWORK},
    {"hint", 0, R, JOPT_HINT},
    {"resv-ports", 0, O, SR_IGNORED},
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
    {"SLURM_HINT", JOPT_HINT},
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
    {"SLURM_NTASKS_PER_SOCKET", JOPT_NTASKS_PER_SOCKET},
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
    {"SLURM_SPREAD_JOB", JOPT_SPREAD_JOB},
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
	case SR_CPU_BIND: return set_str(&s->cpu_bind, v);
	case SR_DIST: return set_str(&s->distribution, v);
	case SR_OVERLAP: s->overlap = true; return 0;
	case SR_EXACT: s->exact = true; return 0;
	case SR_PTY: s->pty = true; return 0;
	case SR_OUTPUT: return set_str(&s->ofname, v);
	case SR_ERROR: return set_str(&s->efname, v);
	case SR_INPUT: return set_str(&s->ifname, v);
	case SR_PRESERVE_ENV: s->preserve_env = true; return 0;
	default: return 0;
	}
}

void srun_opt_print_stop(const struct srun_opts *s)
{
	if (s->job.help)
		fputs(srun_help_text, stdout);
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
	r = find_job(s, envp, e);
	if (r == 0 && !s->jobid && job_opt_env_get(envp, "SLURM_JOB_NAME"))
		r = job_opt_set(&s->job, JOPT_JOB_NAME, job_opt_env_get(envp, "SLURM_JOB_NAME"),
				JOB_OPT_SRC_ENV, e);
	if (r == 0)
		r = alloc_opt_parse_env(srun_opts_tab, srun_env_tab, &s->job, srun_own, s, envp, e);
	if (r == 0)
		r = alloc_opt_parse_argv(srun_opts_tab, &s->job, srun_own, s, argc, argv, &ind, e);
	if (r != 0)
		return r;
	r = job_opt_verify(&s->job, info, n, e);
	if (r < 0)
		return r;
	if (s->job.exclusive && s->jobid)
		s->exact = true; /* for a step --exclusive is --exact */
	s->argv = argv + ind;
	s->argc = argc - ind;
	if (s->argc == 0)
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
	*s = (struct srun_opts){0};
}
