/* job_opt.h - the job option model shared by sbatch (and later salloc and
 * srun): one table of options, the values they set, and the passes that
 * fill them from the command line, #SBATCH lines and SBATCH_* variables.
 *
 * Precedence is Slurm's, by order of application: script directives
 * first, then the input environment, then the command line, each later
 * source overwriting the earlier one (sbatch(1) "INPUT ENVIRONMENT
 * VARIABLES"). The --mem group is the one exception Slurm makes: there a
 * command-line or script value beats an environment value.
 *
 * Errors carry the exact stderr text and exit code Slurm 22.05 uses:
 * 255 for a bad option value (Slurm's exit(-1)), 1 for parse_int() and
 * fatal() errors, and the command's error_exit (SLURM_EXIT_ERROR) for the
 * rest. getopt's own complaints ("unrecognized option", "option requires
 * an argument") are printed by glibc itself, under the program's name.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct job_desc;
struct sl_conf;

/* Who set an option last. Script and command line count as one class for
 * the --mem group (Slurm's "set by cli"). */
enum job_opt_src {
	JOB_OPT_SRC_UNSET = 0,
	JOB_OPT_SRC_SCRIPT,
	JOB_OPT_SRC_ENV,
	JOB_OPT_SRC_CLI,
};

/* One row per option Slurm 22.05's sbatch knows, in its table order
 * (which is the order getopt lists ambiguous matches in). */
enum job_opt_id {
	JOPT_ACCOUNT,
	JOPT_ACCTG_FREQ,
	JOPT_ARRAY,
	JOPT_BATCH,
	JOPT_BEGIN,
	JOPT_BB,
	JOPT_BBF,
	JOPT_CLUSTER_CONSTRAINT,
	JOPT_CHDIR,
	JOPT_CLUSTERS,
	JOPT_COMMENT,
	JOPT_CONTAINER,
	JOPT_CONTEXT,
	JOPT_CONTIGUOUS,
	JOPT_CONSTRAINT,
	JOPT_CORE_SPEC,
	JOPT_CORES_PER_SOCKET,
	JOPT_CPU_FREQ,
	JOPT_CPUS_PER_GPU,
	JOPT_CPUS_PER_TASK,
	JOPT_DEADLINE,
	JOPT_DELAY_BOOT,
	JOPT_DEPENDENCY,
	JOPT_DISTRIBUTION,
	JOPT_ERROR,
	JOPT_EXCLUDE,
	JOPT_EXCLUSIVE,
	JOPT_EXPORT,
	JOPT_EXPORT_FILE,
	JOPT_EXTRA_NODE_INFO,
	JOPT_GET_USER_ENV,
	JOPT_GID,
	JOPT_GPU_BIND,
	JOPT_GPU_FREQ,
	JOPT_GPUS,
	JOPT_GPUS_PER_NODE,
	JOPT_GPUS_PER_SOCKET,
	JOPT_GPUS_PER_TASK,
	JOPT_GRES,
	JOPT_GRES_FLAGS,
	JOPT_HELP,
	JOPT_HINT,
	JOPT_HOLD,
	JOPT_IGNORE_PBS,
	JOPT_INPUT,
	JOPT_JOB_NAME,
	JOPT_KILL_INV_DEP,
	JOPT_LICENSES,
	JOPT_MAIL_TYPE,
	JOPT_MAIL_USER,
	JOPT_MCS_LABEL,
	JOPT_MEM,
	JOPT_MEM_BIND,
	JOPT_MEM_PER_CPU,
	JOPT_MEM_PER_GPU,
	JOPT_MINCPUS,
	JOPT_NETWORK,
	JOPT_NICE,
	JOPT_NO_KILL,
	JOPT_NO_REQUEUE,
	JOPT_NODEFILE,
	JOPT_NODELIST,
	JOPT_NODES,
	JOPT_NTASKS,
	JOPT_NTASKS_PER_CORE,
	JOPT_NTASKS_PER_GPU,
	JOPT_NTASKS_PER_NODE,
	JOPT_NTASKS_PER_SOCKET,
	JOPT_NTASKS_PER_TRES,
	JOPT_OPEN_MODE,
	JOPT_OUTPUT,
	JOPT_OVERCOMMIT,
	JOPT_OVERSUBSCRIBE,
	JOPT_PARSABLE,
	JOPT_PARTITION,
	JOPT_POWER,
	JOPT_PREFER,
	JOPT_PRIORITY,
	JOPT_PROFILE,
	JOPT_PROPAGATE,
	JOPT_QOS,
	JOPT_QUIET,
	JOPT_REBOOT,
	JOPT_REQUEUE,
	JOPT_RESERVATION,
	JOPT_SIGNAL,
	JOPT_SOCKETS_PER_NODE,
	JOPT_SPREAD_JOB,
	JOPT_SWITCHES,
	JOPT_TEST_ONLY,
	JOPT_THREAD_SPEC,
	JOPT_THREADS_PER_CORE,
	JOPT_TIME,
	JOPT_TIME_MIN,
	JOPT_TMP,
	JOPT_UID,
	JOPT_USE_MIN_NODES,
	JOPT_USAGE,
	JOPT_VERBOSE,
	JOPT_VERSION,
	JOPT_WAIT,
	JOPT_WAIT_ALL_NODES,
	JOPT_WCKEY,
	JOPT_WRAP,
	_JOPT_COUNT,
};

/* Exit codes an error asks for. */
#define JOB_OPT_EXIT_ARG   255 /* bad option value: Slurm's exit(-1) */
#define JOB_OPT_EXIT_FATAL 1   /* fatal() and parse_int(): always 1 */
#define JOB_OPT_EXIT_ERROR -1  /* the command's error_exit (SLURM_EXIT_ERROR, 1) */

/* Returned by the passes when --help, --usage or -V was met: the caller
 * prints it and exits 0, as Slurm does the moment it sees one. */
#define JOB_OPT_STOP 1

struct job_opt_err {
	int exit_code;	 /* one of JOB_OPT_EXIT_* (or a plain code) */
	char text[1024]; /* exactly what goes to stderr, each line ends '\n' */
};

/* --exclusive values */
#define JOB_OPT_EXCL_NODE 1
#define JOB_OPT_EXCL_USER 2
#define JOB_OPT_EXCL_MCS  3

/* --signal flags (Slurm's KILL_JOB_BATCH / KILL_JOB_RESV) */
#define JOB_OPT_SIG_BATCH 0x1
#define JOB_OPT_SIG_RESV  0x2

/* Everything the options set. Strings are owned; NULL, NO_VAL, NO_VAL16,
 * NO_VAL64 or 0 mean "not given" as each comment says. */
struct job_opts {
	const char *prog; /* "sbatch": message prefix and getopt's argv[0] */
	char *cwd;	  /* where relative paths start */

	char *job_name, *partition, *account, *qos, *comment, *dependency, *array;
	char *std_out, *std_err, *std_in; /* as given ("none" -> /dev/null) */
	char *chdir;			  /* absolute */
	char *nodelist, *exclude, *mail_user, *export_env, *wrap;
	char *constraint, *prefer, *licenses, *reservation; /* as given: the controller checks */
	char *nodefile_list;	  /* --nodefile's hosts, comma joined (nodelist wins) */
	uint32_t priority;	  /* --priority, 0 none */
	uint32_t tmp_mb;	  /* --tmp, 0 none */
	uint16_t mincpus, sockets_per_node, cores_per_socket; /* 0 none */
	uint32_t uid, gid;	  /* --uid / --gid (root only), NO_VAL none */
	char *gres;		  /* "gres/gpu:2,gres/mps:10", NULL */
	char *gpus;		  /* "[type:]N" as given */
	char *gpus_per_node;	  /* "[type:]N" as given */
	char *gpus_per_task, *gpus_per_socket; /* "[type:]N" as given */
	char *gpu_bind;		  /* --gpu-bind as given (checked) */
	char *propagate;	  /* --propagate's limits ("ALL" when bare), NULL not given */
	int cpus_per_gpu, ntasks_per_gpu; /* 0 none */
	uint16_t gres_flags;	  /* GRES_FLAG_* */
	int min_nodes, max_nodes; /* max 0: no maximum */
	bool nodes_set;
	int ntasks;
	bool ntasks_set;
	int ntasks_per_node; /* 0: not given */
	int cpus_per_task;
	bool cpus_set;
	uint32_t time_limit, time_min;		     /* minutes, NO_VAL; 0 -> INFINITE */
	uint64_t mem, mem_per_cpu, mem_per_gpu;	     /* MB, NO_VAL64 */
	uint16_t mail_type;			     /* MAIL_* bits */
	uint16_t open_mode;			     /* OPEN_MODE_* */
	uint16_t requeue;			     /* 0, 1, NO_VAL16 */
	uint16_t exclusive;			     /* JOB_OPT_EXCL_*, 0 */
	bool oversubscribe;			     /* -s (the last of it and --exclusive wins) */
	uint16_t warn_signal, warn_time, warn_flags; /* --signal, 0 */
	bool kill_inv_dep_set, kill_inv_dep;
	bool no_kill; /* -k: a failed node leaves the job, which goes on */
	int ntasks_per_socket; /* 0: not given */
	bool nice_set;
	int nice;
	time_t begin; /* 0 */
	bool hold, parsable, test_only, wait;
	int verbose, quiet;
	bool help, usage, version; /* the STOP options that were met */

	uint8_t src[_JOPT_COUNT]; /* enum job_opt_src of the last setter */
	char *raw[_JOPT_COUNT];	  /* last argument as given ("" when none) */
};

/* Fill with "nothing given"; prog is borrowed, cwd is getcwd() (NULL when
 * unknown). Returns 0 or -ENOMEM. */
int job_opts_init(struct job_opts *o, const char *prog);
void job_opts_done(struct job_opts *o);

/* Parse argv[1..argc-1] (argv[0] is ignored; getopt sees o->prog there)
 * with Slurm's rules: options stop at the first non-option ("+"), which
 * is the script. On success returns 0 (or JOB_OPT_STOP) and, when
 * ret_optind is given, the index of the first non-option. Options are
 * recorded as coming from src. On error fills err and returns < 0; o may
 * be partly updated then (the caller exits). */
int job_opt_parse_argv(struct job_opts *o, int argc, char **argv, enum job_opt_src src,
		       int *ret_optind, struct job_opt_err *err);

/* The getopt_long pass of every option table (sbatch's here, srun's and
 * salloc's in alloc_opt.c): argv[0] is replaced by prog, options stop at
 * the first non-option. lo ends with a row whose name is NULL; a val
 * below 0x100 is also the row's short letter. Each option met calls
 * on(arg, val, optarg, err) until one returns non-zero. Unknown options:
 * glibc's complaint, then "Try \"<prog> --help\" for more information"
 * (exit 255) and -EINVAL. ret_optind (optional) as job_opt_parse_argv(). */
struct option;
typedef int job_opt_getopt_fn(void *arg, int val, const char *optarg, struct job_opt_err *err);
int job_opt_getopt(const char *prog, const struct option *lo, job_opt_getopt_fn *on, void *arg,
		   int argc, char **argv, int *ret_optind, struct job_opt_err *err);

/* Apply one option by id (the first table row with that id), as
 * job_opt_parse_argv() would for the option met with arg (NULL: none),
 * recording it as coming from src. For the other commands (srun,
 * salloc) whose own getopt tables map onto the shared model. Returns as
 * the option's parser: 0, JOB_OPT_STOP or < 0 with err. */
int job_opt_set(struct job_opts *o, enum job_opt_id id, const char *arg, enum job_opt_src src,
		struct job_opt_err *err);

/* Apply the SBATCH_* input variables found in envp (NULL-terminated,
 * "NAME=value"), in table order. No-argument options take "", "yes" or a
 * non-zero number as true, anything else as unset. */
int job_opt_parse_env(struct job_opts *o, char *const *envp, struct job_opt_err *err);

/* The job's variables its steps (srun) read back as options: SLURM_HINT
 * and SLURM_NTASKS_PER_SOCKET (sbatch's and salloc's --hint and
 * --ntasks-per-socket). 0 or -ENOMEM. */
struct job_env;
int job_opt_step_env(const struct job_opts *o, struct job_env *e);

/* NAME's value in envp (borrowed), NULL when unset. */
const char *job_opt_env_get(char *const *envp, const char *name);
/* What an input variable with value v means for an option taking has_arg
 * (getopt's no_argument...): false when it leaves the option unset (a
 * no-argument option takes "", "yes" or a non-zero number as true); else
 * true with *ret_arg the argument (NULL: none; "" counts as none for an
 * optional argument). */
bool job_opt_env_arg(int has_arg, const char *v, const char **ret_arg);

/* Slurm's post-processing once all sources are in (_opt_verify): the
 * --mem group, -v with -Q, node and task counts from each other and from
 * -w, relative -o/-e/-i made absolute against --chdir or the cwd. Lines
 * for stderr that are not errors (the "Warning: can't run" note) are
 * appended to info (size n, may be NULL). Returns 0 or < 0 with err. */
int job_opt_verify(struct job_opts *o, char *info, size_t n, struct job_opt_err *err);

/* The text an option shows in Slurm's -v dump ("00:05:00", "B:USR1@30",
 * "set"); writes buf and returns it, or NULL when the option is not set. */
const char *job_opt_show(const struct job_opts *o, enum job_opt_id id, char *buf, size_t n);
/* Long name of an option ("cpus-per-task"). */
const char *job_opt_name(enum job_opt_id id);

/* Fill a job description from verified options: every field that was not
 * given stays NO_VAL/NO_VAL16/NO_VAL64/NULL; work_dir is --chdir or the
 * cwd; user/group are the caller's. Script, argv and env are left to the
 * caller. Returns 0 or -ENOMEM (d then holds what was set; free it with
 * job_desc_done()). */
int job_opt_fill_desc(const struct job_opts *o, struct job_desc *d);

/* Check --gres names against GresTypes (Slurm's client-side check).
 * Returns 0 or -EINVAL with "Invalid generic resource (gres)
 * specification" in err (exit error_exit). */
int job_opt_check_gres(const struct job_opts *o, const struct sl_conf *conf,
		       struct job_opt_err *err);

/* Basic syntax checks of what the controller interprets, so that an
 * obviously malformed value fails before a round trip with the same words
 * the controller would use (ESLURM_INVALID_ARRAY, ESLURM_DEPENDENCY).
 * Both are looser than the controller, never stricter.
 * Array: items "N", "N-M", "N:S" or "N-M:S" (S > 0) separated by commas
 * (empty items skipped), at least one, then an optional "%T".
 * Dependency: items joined by ',' or by '?' (not both); an item is
 * "singleton", "type:id[:id...]" with type after, afterany, afterok,
 * afternotok, aftercorr, afterburstbuffer or expand, or bare ids
 * ("12:13"); an id is "jid", "jid_task" or "jid_*", optionally
 * "+minutes". Bounds (MaxArraySize, existing jobs) are the controller's. */
bool job_opt_array_ok(const char *spec);
bool job_opt_dependency_ok(const char *spec);

/* --begin grammar (Slurm's parse_time with past=0) relative to now:
 * HH:MM[:SS][AM|PM], MMDD[YY], MM/DD[/YY], MM.DD[.YY], YYYY-MM-DD[THH:MM[:SS]],
 * now[{+|-}N[seconds|minutes|hours|days|weeks]], today, tomorrow,
 * midnight, noon, fika, teatime, uts<epoch>. Returns the time, 0 when
 * nothing was given, or -1 on a syntax error with *ret_pos set to where
 * Slurm reports it ("Invalid time specification (pos=N)"). Exposed for
 * tests. */
time_t job_opt_parse_begin(const char *s, time_t now, int *ret_pos);

/* Append "<prog>: error: <fmt>\n" (kind "error") or "<prog>: fatal: ..."
 * to err->text, set err->exit_code and return -EINVAL. */
int job_opt_fail(struct job_opt_err *err, const char *prog, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int job_opt_fatal(struct job_opt_err *err, const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An option that would change where or how the job runs and that this
 * cluster cannot honour: job_opt_fail() with the text naming it (exit 255). */
int job_opt_refuse(struct job_opt_err *err, const char *prog, const char *name);
/* salloc's and srun's -I[=secs] (Slurm's parse_int): *ret the seconds, 1
 * without a value or with 0. 0, or -EINVAL with err filled (exit 1). */
int job_opt_immediate(struct job_opt_err *err, const char *prog, const char *arg, int *ret);
/* Append text as it is (Slurm's bare fprintf lines). */
void job_opt_raw(struct job_opt_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One row of the option table (job_opt_table.c). */
typedef int job_opt_parse_fn(struct job_opts *o, const char *arg, struct job_opt_err *err);
struct job_opt_def {
	const char *name;	 /* long name; NULL ends the table */
	char short_opt;		 /* 0: none */
	uint8_t has_arg;	 /* getopt's no_argument/required_argument/optional_argument */
	enum job_opt_id id;	 /* aliases share an id */
	const char *sbatch_env;	 /* SBATCH_* input variable, NULL */
	job_opt_parse_fn *parse; /* NULL: accepted, kept in raw[], not acted on */
};
extern const struct job_opt_def job_opt_table[];
