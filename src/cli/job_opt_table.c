/* job_opt_table.c - the option table and one parser per option.
 *
 * Purpose: every long/short option Slurm 22.05's sbatch accepts, in its
 * table order (getopt lists ambiguous matches in this order), with the
 * SBATCH_* variable that sets it and the function that checks and stores
 * its value. Error texts and exit codes are Slurm's (see job_opt.h).
 * Options with a NULL parser (--contiguous, --power, --wckey...) are
 * accepted and recorded in raw[] but not acted on: the job description
 * has no field for them. Some of those still get Slurm's value check so a
 * script that real Slurm rejects is rejected here too.
 * Caveat: --nodefile, --export-file, --uid/--gid, --bb* are accepted and
 * ignored without reading anything.
 */
#include "cli/job_opt.h"
#include "cli/job_opt_gpu.h"
#include "cli/job_opt_place.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/job_env.h"
#include "common/macros.h"
#include "common/msg_job.h"
#include "common/parse_mem.h"
#include "common/parse_time.h"
#include "common/task_map.h"

static int set_str(char **dst, const char *arg)
{
	char *s = strdup(arg ? arg : "");

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* Slurm's parse_int(): digits only, > 0 when positive; exit 1 on error. */
static int opt_int(struct job_opts *o, const char *name, const char *arg, bool positive, int *ret,
		   struct job_opt_err *e)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || v < 0 || (positive && v <= 0))
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL,
				    "Invalid numeric value \"%s\" for %s.", arg, name);
	if (v == LONG_MAX)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL,
				    "Numeric argument (%ld) to big for %s.", v, name);
	*ret = (int)(uint32_t)v; /* Slurm keeps an int: big values wrap */
	return 0;
}

#define STR_OPT(fn, field)                                                                         \
	static int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)                  \
	{                                                                                          \
		(void)e;                                                                           \
		return set_str(&o->field, arg);                                                    \
	}
STR_OPT(p_account, account)
STR_OPT(p_array, array)
STR_OPT(p_comment, comment)
STR_OPT(p_dependency, dependency)
STR_OPT(p_exclude, exclude)
STR_OPT(p_export, export_env)
STR_OPT(p_job_name, job_name)
STR_OPT(p_mail_user, mail_user)
STR_OPT(p_nodelist, nodelist)
STR_OPT(p_partition, partition)
STR_OPT(p_qos, qos)
STR_OPT(p_wrap, wrap)
STR_OPT(p_gpus, gpus)
STR_OPT(p_gpus_per_node, gpus_per_node)
STR_OPT(p_constraint, constraint)
STR_OPT(p_prefer, prefer)
STR_OPT(p_licenses, licenses)
STR_OPT(p_reservation, reservation)

/* -o/-e/-i: "none" is /dev/null; relative paths are resolved in verify. */
#define PATH_OPT(fn, field)                                                                        \
	static int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)                  \
	{                                                                                          \
		(void)e;                                                                           \
		return set_str(&o->field, strcasecmp(arg, "none") ? arg : "/dev/null");            \
	}
PATH_OPT(p_output, std_out)
PATH_OPT(p_error, std_err)
PATH_OPT(p_input, std_in)

/* Options we do not act on but whose value Slurm checks as an integer. */
#define INT_OPT(fn, name, positive)                                                                \
	static int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)                  \
	{                                                                                          \
		int v;                                                                             \
		return opt_int(o, name, arg, positive, &v, e);                                     \
	}
/* --ntasks-per-socket: the job's steps bind with it (SLURM_NTASKS_PER_SOCKET,
 * job_opt_step_env) and the controller places at most N tasks per socket
 * of each node. */
static int p_ntasks_per_socket(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	int v;
	int r = opt_int(o, "--ntasks-per-socket", arg, false, &v, e);

	if (r == 0)
		o->ntasks_per_socket = v > 0 ? v : 0;
	return r;
}

/* --export-file=FILE|FD: read by sbatch_build_env (as the user). */
static int p_export_file(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	if (!*arg)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG, "Invalid --export-file specification");
	return 0;
}

/* --get-user-env[=timeout][S|L]: the batch script also gets the user's
 * login environment (SLURM_GET_USER_ENV=1; slurmstepd's task_script.c). */
static int p_get_user_env(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	const char *p = arg ? arg : "";

	while (*p >= '0' && *p <= '9')
		p++;
	if ((*p == 'S' || *p == 'L' || *p == 's' || *p == 'l') && !p[1])
		return 0;
	if (*p)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid --get-user-env specification");
	return 0;
}

/* --hint: the words srun takes; the job's steps bind with it (SLURM_HINT). */
static int p_hint(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	static const char *const words[] = {"compute_bound", "memory_bound", "multithread",
					    "nomultithread"};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strcasecmp(arg, words[i]) == 0)
			return 0;
	return job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL,
			    "unrecognized --hint argument \"%s\", see --hint=help", arg);
}
/* --wait-all-nodes=1 is what every job gets: a node is allocated only
 * once its slurmd registered and no reboot is pending (job_place.c), so
 * both values are met; the value is checked as Slurm does. */
INT_OPT(p_wait_all_nodes, "--wait-all-nodes", false)

#define FLAG_OPT(fn, stmt)                                                                         \
	static int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)                  \
	{                                                                                          \
		(void)arg;                                                                         \
		(void)e;                                                                           \
		stmt;                                                                              \
		return 0;                                                                          \
	}
FLAG_OPT(p_hold, o->hold = true)
FLAG_OPT(p_parsable, o->parsable = true)
FLAG_OPT(p_test_only, o->test_only = true)
FLAG_OPT(p_wait, o->wait = true)
FLAG_OPT(p_quiet, o->quiet++)
/* after SBATCH_DEBUG, the command line's -v no longer counts (Slurm
 * reads -v in its first pass only) */
FLAG_OPT(p_verbose, o->verbose += o->src[JOPT_VERBOSE] != JOB_OPT_SRC_ENV)
FLAG_OPT(p_requeue, o->requeue = 1)
FLAG_OPT(p_no_requeue, o->requeue = 0)

/* --help, --usage, -V act the moment they are met. */
#define STOP_OPT(fn, field)                                                                        \
	static int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)                  \
	{                                                                                          \
		(void)arg;                                                                         \
		(void)e;                                                                           \
		o->field = true;                                                                   \
		return JOB_OPT_STOP;                                                               \
	}
STOP_OPT(p_help, help)
STOP_OPT(p_usage, usage)
STOP_OPT(p_version, version)

static int p_chdir(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	char *s = NULL;

	(void)e;
	if (arg[0] == '/' || !o->cwd)
		return set_str(&o->chdir, arg);
	if (asprintf(&s, "%s/%s", o->cwd, arg) < 0)
		return -ENOMEM;
	free(o->chdir);
	o->chdir = s;
	return 0;
}

static int p_cpus_per_task(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	int r = opt_int(o, "--cpus-per-task", arg, true, &o->cpus_per_task, e);

	if (r == 0)
		o->cpus_set = true;
	return r;
}

static int p_ntasks(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	int r = opt_int(o, "--ntasks", arg, true, &o->ntasks, e);

	if (r == 0)
		o->ntasks_set = true;
	return r;
}

static int p_ntasks_per_node(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	return opt_int(o, "--ntasks-per-node", arg, true, &o->ntasks_per_node, e);
}

/* -m: checked here, passed to the job's steps as SLURM_DISTRIBUTION. */
static int p_distribution(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	if (task_dist_parse(arg, NULL, NULL) < 0)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ERROR,
				    "Invalid --distribution specification");
	return 0;
}

/* Slurm's _str_to_nodes(): digits with an optional k/K or m/M multiplier;
 * -1 when there are no digits. *end points past what was used. */
static long nodes_num(const char *s, const char **end)
{
	char *p;
	long v = strtol(s, &p, 10);

	if (p == s) {
		*end = s;
		return -1;
	}
	if (*p == 'k' || *p == 'K') {
		v *= 1024;
		p++;
	} else if (*p == 'm' || *p == 'M') {
		v *= 1024 * 1024;
		p++;
	}
	*end = p;
	return v;
}

static bool all_space(const char *s)
{
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	return *s == '\0';
}

/* -N min[-max] (Slurm's verify_node_count). */
static int p_nodes(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	const char *dash = strchr(arg, '-'), *end;
	char part[64];
	long lo, hi;

	if (!dash) {
		lo = hi = nodes_num(arg, &end);
		if (!all_space(end) || lo < 0 || lo > INT_MAX)
			return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
					    "\"%s\" is not a valid node count", arg);
	} else {
		snprintf(part, sizeof(part), "%.*s",
			 (int)(dash - arg) < 63 ? (int)(dash - arg) : 63, arg);
		lo = nodes_num(part, &end);
		if (!all_space(end) || lo > INT_MAX)
			return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
					    "\"%s\" is not a valid node count", part);
		if (lo < 0)
			lo = 1;
		hi = nodes_num(dash + 1, &end);
		if (!all_space(end) || hi > INT_MAX)
			return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
					    "\"%s\" is not a valid node count", dash + 1);
	}
	if (hi != 0 && hi < lo)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Maximum node count %ld is less than minimum node count %ld",
				    hi, lo);
	o->min_nodes = (int)lo;
	o->max_nodes = (int)hi;
	o->nodes_set = true;
	return 0;
}

static int mem_opt(struct job_opts *o, const char *arg, const char *name, uint64_t *ret,
		   struct job_opt_err *e)
{
	if (mem_str2mb(arg, ret) < 0)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG, "Invalid %s specification", name);
	return 0;
}

#define MEM_OPT(fn, field, name)                                                                   \
	static int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)                  \
	{                                                                                          \
		return mem_opt(o, arg, name, &o->field, e);                                        \
	}
MEM_OPT(p_mem, mem, "--mem")
MEM_OPT(p_mem_per_cpu, mem_per_cpu, "--mem-per-cpu")
MEM_OPT(p_mem_per_gpu, mem_per_gpu, "--mem-per-gpu")

/* -t / --time-min: 0 means no limit. */
#define TIME_OPT(fn, field, name)                                                                  \
	static int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)                  \
	{                                                                                          \
		uint32_t m;                                                                        \
		if (time_str2mins(arg, &m) < 0)                                                    \
			return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,                          \
					    "Invalid " name " specification");                     \
		o->field = m == 0 ? INFINITE : m;                                                  \
		return 0;                                                                          \
	}
TIME_OPT(p_time, time_limit, "--time")
TIME_OPT(p_time_min, time_min, "--time-min")

static int p_delay_boot(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	uint32_t m;

	if (time_str2mins(arg, &m) < 0)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid --delay-boot specification");
	return 0;
}

/* --begin / --deadline: parse_time() prints its own bare line first. */
static int timestamp(struct job_opts *o, const char *arg, const char *name, time_t *ret,
		     struct job_opt_err *e)
{
	int pos = 0;
	time_t t = job_opt_parse_begin(arg, time(NULL), &pos);

	if (t == (time_t)-1)
		job_opt_raw(e, "Invalid time specification (pos=%d): %s\n", pos, arg);
	if (t == (time_t)-1 || t == 0)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG, "Invalid %s specification", name);
	*ret = t;
	return 0;
}

static int p_begin(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	return timestamp(o, arg, "--begin", &o->begin, e);
}

/* --propagate[=ALL|NONE|AS,CORE,...]: the limits forced through to the
 * tasks (job_env_set_rlimits); Slurm's words, in capitals. */
static int p_propagate(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	size_t bad;

	if (arg && !job_env_rlimit_list_ok(arg, &bad)) {
		job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL, "Bad rlimit name: %.*s",
			     (int)strcspn(arg + bad, ","), arg + bad);
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL, "--propagate=%s is not valid.",
				    arg);
	}
	return set_str(&o->propagate, arg ? arg : "ALL");
}

static int p_oversubscribe(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	(void)arg;
	(void)e;
	o->oversubscribe = true;
	o->exclusive = 0;
	return 0;
}

static int p_exclusive(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	o->oversubscribe = false;
	if (!arg)
		o->exclusive = JOB_OPT_EXCL_NODE;
	else if (!strcasecmp(arg, "user"))
		o->exclusive = JOB_OPT_EXCL_USER;
	else if (!strcasecmp(arg, "mcs")) /* no MCS plugin: nothing to share a node by */
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "--exclusive=mcs is not supported by this cluster (no MCSPlugin): "
				    "refused rather than ignored");
	else
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid --exclusive specification");
	return 0;
}

static int p_kill_inv_dep(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	if (!strcasecmp(arg, "yes"))
		o->kill_inv_dep = true;
	else if (!strcasecmp(arg, "no"))
		o->kill_inv_dep = false;
	else
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid --kill-on-invalid-dep specification");
	o->kill_inv_dep_set = true;
	return 0;
}

static int p_no_kill(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	static const char *const ok[] = {"on", "off", "yes", "no", "set", "unset"};

	for (size_t i = 0; arg && i < ARRAY_SIZE(ok); i++)
		if (!strcasecmp(arg, ok[i])) {
			o->no_kill = i % 2 == 0; /* on, yes, set */
			return 0;
		}
	if (!arg || !*arg) {
		o->no_kill = true;
		return 0;
	}
	return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG, "Invalid --no-kill specification");
}

static int p_open_mode(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	if (arg[0] == 'a' || arg[0] == 'A')
		o->open_mode = OPEN_MODE_APPEND;
	else if (arg[0] == 't' || arg[0] == 'T')
		o->open_mode = OPEN_MODE_TRUNCATE;
	else
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid --open-mode specification");
	return 0;
}

/* --nice[=N]: default 100; strtol without an end check, as Slurm. */
static int p_nice(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	long v = arg ? strtol(arg, NULL, 10) : 100;

	if (labs(v) > (long)(NICE_OFFSET - 3))
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid --nice value, out of range (+/- %u)", NICE_OFFSET - 3);
	o->nice = (int)v;
	o->nice_set = true;
	return 0;
}

static const struct {
	const char *name;
	uint16_t bits;
} mail_names[] = {
    /* in the order Slurm's -v dump lists them */
    {"ARRAY_TASKS", MAIL_ARRAY_TASKS},
    {"INVALID_DEPEND", MAIL_INVALID_DEPEND},
    {"BEGIN", MAIL_JOB_BEGIN},
    {"END", MAIL_JOB_END},
    {"FAIL", MAIL_JOB_FAIL},
    {"REQUEUE", MAIL_JOB_REQUEUE},
    {"STAGE_OUT", MAIL_JOB_STAGE_OUT},
    {"TIME_LIMIT_50", MAIL_JOB_TIME50},
    {"TIME_LIMIT_80", MAIL_JOB_TIME80},
    {"TIME_LIMIT_90", MAIL_JOB_TIME90},
    {"TIME_LIMIT", MAIL_JOB_TIME100},
    {"ALL", MAIL_JOB_BEGIN | MAIL_JOB_END | MAIL_JOB_FAIL | MAIL_JOB_REQUEUE | MAIL_JOB_STAGE_OUT
		| MAIL_INVALID_DEPEND},
};

/* --mail-type: comma list; unknown words are skipped, NONE ends the list
 * with nothing, and a list with nothing known is an error. Values from
 * several options add up (Slurm's |=). */
static int p_mail_type(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	const char *p = arg;
	uint16_t bits = 0;
	bool none = false;

	while (*p && !none) {
		size_t len = strcspn(p, ",");

		if (len == 4 && !strncasecmp(p, "NONE", 4)) {
			bits = 0;
			none = true;
		}
		for (size_t i = 0; !none && i < ARRAY_SIZE(mail_names); i++)
			if (strlen(mail_names[i].name) == len
			    && !strncasecmp(p, mail_names[i].name, len))
				bits |= mail_names[i].bits;
		p += len + (p[len] == ',');
	}
	if (!bits && !none)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid --mail-type specification");
	o->mail_type |= bits;
	return 0;
}

/* Signal names Slurm's sig_name2num() knows. */
static const struct {
	const char *name;
	uint16_t num;
} sig_names[] = {
    {"HUP", 1},	  {"INT", 2},	{"QUIT", 3},  {"ABRT", 6},  {"KILL", 9},  {"USR1", 10},
    {"USR2", 12}, {"ALRM", 14}, {"TERM", 15}, {"CONT", 18}, {"STOP", 19}, {"TSTP", 20},
    {"TTIN", 21}, {"TTOU", 22}, {"URG", 23},  {"XCPU", 24},
};

static uint16_t sig_num(const char *s, size_t len)
{
	char buf[16];
	char *end;
	long v;

	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtol(buf, &end, 10);
	if (end != buf)
		return *end ? 0 : (uint16_t)v; /* Slurm keeps a u16: -1 is 65535 */
	if (!strncasecmp(buf, "SIG", 3))
		memmove(buf, buf + 3, len - 2);
	for (size_t i = 0; i < ARRAY_SIZE(sig_names); i++)
		if (!strcasecmp(buf, sig_names[i].name))
			return sig_names[i].num;
	return 0;
}

/* --signal=[[R][B]:]sig[@time]; time defaults to 60 seconds. */
static int p_signal(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	const char *p = arg, *colon = strchr(arg, ':'), *at;
	uint16_t flags = 0, sig, t = 60;
	char *end;

	if (colon) {
		for (; p < colon; p++) {
			if (*p == 'B' || *p == 'b')
				flags |= JOB_OPT_SIG_BATCH;
			else if (*p == 'R' || *p == 'r')
				flags |= JOB_OPT_SIG_RESV;
			else
				goto bad;
		}
		p = colon + 1;
	}
	at = strchr(p, '@');
	sig = sig_num(p, at ? (size_t)(at - p) : strlen(p));
	if (!sig)
		goto bad;
	if (at) {
		long v = strtol(at + 1, &end, 10);

		if (*end || v < 0 || v > 0xffff)
			goto bad;
		t = (uint16_t)v;
	}
	o->warn_signal = sig;
	o->warn_time = t;
	o->warn_flags = flags;
	return 0;
bad:
	return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG, "Invalid --signal specification");
}

/* One "name[:type][:count]" -> "gres/name[:type][:count]", a count's
 * K/M/G/T/P suffix multiplied out (the controller reads plain numbers). */
static int gres_one(char **out, const char *tok, size_t len)
{
	const char *c;
	char num[32] = "";
	size_t keep;
	char *s;

	if (len > 5 && (!strncmp(tok, "gres:", 5) || !strncmp(tok, "gres/", 5))) {
		tok += 5;
		len -= 5;
	}
	keep = len;
	for (c = tok + len; c > tok && c[-1] != ':'; c--)
		;
	if (c > tok) { /* the field after the last ':' may be a count */
		char *end;
		unsigned long long v = strtoull(c, &end, 10);
		const char *unit = *end ? strchr("kmgtp", *end | 0x20) : NULL;

		if (end != c && unit && end == tok + len - 1 && v < (1ull << 13)) {
			snprintf(num, sizeof(num), "%llu", v << (10 * (unit - "kmgtp" + 1)));
			keep = (size_t)(c - tok);
		}
	}
	if (asprintf(&s, "%s%sgres/%.*s%s", *out ? *out : "", *out ? "," : "", (int)keep, tok, num)
	    < 0)
		return -ENOMEM;
	free(*out);
	*out = s;
	return 0;
}

static int p_gres(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	char *out = NULL;
	int r = 0;

	(void)e;
	if (!strcasecmp(arg, "none")) {
		free(o->gres);
		o->gres = NULL;
		return 0;
	}
	for (const char *p = arg; *p && r == 0;) {
		size_t len = strcspn(p, ",");

		if (len)
			r = gres_one(&out, p, len);
		p += len + (p[len] == ',');
	}
	if (r < 0) {
		free(out);
		return r;
	}
	free(o->gres);
	o->gres = out;
	return 0;
}

#define N no_argument
#define R required_argument
#define O optional_argument
const struct job_opt_def job_opt_table[] = {
    {"account", 'A', R, JOPT_ACCOUNT, "SBATCH_ACCOUNT", p_account},
    {"acctg-freq", 0, R, JOPT_ACCTG_FREQ, "SBATCH_ACCTG_FREQ", NULL},
    {"array", 'a', R, JOPT_ARRAY, "SBATCH_ARRAY_INX", p_array},
    {"batch", 0, R, JOPT_BATCH, "SBATCH_BATCH", job_opt_p_batch},
    {"begin", 'b', R, JOPT_BEGIN, NULL, p_begin},
    {"bb", 0, R, JOPT_BB, NULL, NULL},
    {"bbf", 0, R, JOPT_BBF, NULL, NULL},
    {"cluster-constraint", 0, R, JOPT_CLUSTER_CONSTRAINT, NULL, NULL},
    {"chdir", 'D', R, JOPT_CHDIR, NULL, p_chdir},
    {"cluster", 0, R, JOPT_CLUSTERS, NULL, NULL},
    {"clusters", 'M', R, JOPT_CLUSTERS, "SBATCH_CLUSTERS", NULL},
    {"comment", 0, R, JOPT_COMMENT, NULL, p_comment},
    {"container", 0, R, JOPT_CONTAINER, "SBATCH_CONTAINER", job_opt_p_container},
    {"context", 0, R, JOPT_CONTEXT, NULL, job_opt_p_context},
    {"contiguous", 0, N, JOPT_CONTIGUOUS, NULL, job_opt_p_contiguous},
    {"constraint", 'C', R, JOPT_CONSTRAINT, "SBATCH_CONSTRAINT", p_constraint},
    {"core-spec", 'S', R, JOPT_CORE_SPEC, "SBATCH_CORE_SPEC", job_opt_p_core_spec},
    {"cores-per-socket", 0, R, JOPT_CORES_PER_SOCKET, NULL, job_opt_p_cores_per_socket},
    {"cpu-freq", 0, R, JOPT_CPU_FREQ, "SBATCH_CPU_FREQ_REQ", job_opt_p_cpu_freq},
    {"cpus-per-gpu", 0, R, JOPT_CPUS_PER_GPU, "SBATCH_CPUS_PER_GPU", job_opt_p_cpus_per_gpu},
    {"cpus-per-task", 'c', R, JOPT_CPUS_PER_TASK, NULL, p_cpus_per_task},
    {"deadline", 0, R, JOPT_DEADLINE, NULL, job_opt_p_deadline},
    {"delay-boot", 0, R, JOPT_DELAY_BOOT, "SBATCH_DELAY_BOOT", p_delay_boot},
    {"dependency", 'd', R, JOPT_DEPENDENCY, NULL, p_dependency},
    {"distribution", 'm', R, JOPT_DISTRIBUTION, "SBATCH_DISTRIBUTION", p_distribution},
    {"error", 'e', R, JOPT_ERROR, "SBATCH_ERROR", p_error},
    {"exclude", 'x', R, JOPT_EXCLUDE, NULL, p_exclude},
    {"exclusive", 0, O, JOPT_EXCLUSIVE, "SBATCH_EXCLUSIVE", p_exclusive},
    {"export", 0, R, JOPT_EXPORT, "SBATCH_EXPORT", p_export},
    {"export-file", 0, R, JOPT_EXPORT_FILE, NULL, p_export_file},
    {"extra-node-info", 'B', R, JOPT_EXTRA_NODE_INFO, NULL, job_opt_p_extra_node_info},
    {"get-user-env", 0, O, JOPT_GET_USER_ENV, "SBATCH_GET_USER_ENV", p_get_user_env},
    {"gid", 0, R, JOPT_GID, NULL, job_opt_p_gid},
    {"gpu-bind", 0, R, JOPT_GPU_BIND, "SBATCH_GPU_BIND", job_opt_p_gpu_bind},
    {"gpu-freq", 0, R, JOPT_GPU_FREQ, "SBATCH_GPU_FREQ", job_opt_p_gpu_freq},
    {"gpus", 'G', R, JOPT_GPUS, "SBATCH_GPUS", p_gpus},
    {"gpus-per-node", 0, R, JOPT_GPUS_PER_NODE, "SBATCH_GPUS_PER_NODE", p_gpus_per_node},
    {"gpus-per-socket", 0, R, JOPT_GPUS_PER_SOCKET, NULL, job_opt_p_gpus_per_socket},
    {"gpus-per-task", 0, R, JOPT_GPUS_PER_TASK, "SBATCH_GPUS_PER_TASK", job_opt_p_gpus_per_task},
    {"gres", 0, R, JOPT_GRES, "SBATCH_GRES", p_gres},
    {"gres-flags", 0, R, JOPT_GRES_FLAGS, "SBATCH_GRES_FLAGS", job_opt_p_gres_flags},
    {"help", 'h', N, JOPT_HELP, NULL, p_help},
    {"hint", 0, R, JOPT_HINT, "SBATCH_HINT", p_hint},
    {"hold", 'H', N, JOPT_HOLD, NULL, p_hold},
    {"ignore-pbs", 0, N, JOPT_IGNORE_PBS, "SBATCH_IGNORE_PBS", NULL},
    {"input", 'i', R, JOPT_INPUT, "SBATCH_INPUT", p_input},
    {"job-name", 'J', R, JOPT_JOB_NAME, "SBATCH_JOB_NAME", p_job_name},
    {"kill-on-invalid-dep", 0, R, JOPT_KILL_INV_DEP, NULL, p_kill_inv_dep},
    {"licenses", 'L', R, JOPT_LICENSES, NULL, p_licenses},
    {"mail-type", 0, R, JOPT_MAIL_TYPE, NULL, p_mail_type},
    {"mail-user", 0, R, JOPT_MAIL_USER, NULL, p_mail_user},
    {"mcs-label", 0, R, JOPT_MCS_LABEL, NULL, NULL},
    {"mem", 0, R, JOPT_MEM, "SBATCH_MEM_PER_NODE", p_mem},
    {"mem-bind", 0, R, JOPT_MEM_BIND, "SBATCH_MEM_BIND", job_opt_p_mem_bind},
    {"mem-per-cpu", 0, R, JOPT_MEM_PER_CPU, "SBATCH_MEM_PER_CPU", p_mem_per_cpu},
    {"mem-per-gpu", 0, R, JOPT_MEM_PER_GPU, "SBATCH_MEM_PER_GPU", p_mem_per_gpu},
    {"mincpus", 0, R, JOPT_MINCPUS, NULL, job_opt_p_mincpus},
    {"network", 0, R, JOPT_NETWORK, "SBATCH_NETWORK", NULL},
    {"nice", 0, O, JOPT_NICE, NULL, p_nice},
    {"no-kill", 'k', O, JOPT_NO_KILL, "SBATCH_NO_KILL", p_no_kill},
    {"no-requeue", 0, N, JOPT_NO_REQUEUE, "SBATCH_NO_REQUEUE", p_no_requeue},
    {"nodefile", 'F', R, JOPT_NODEFILE, NULL, job_opt_p_nodefile},
    {"nodelist", 'w', R, JOPT_NODELIST, NULL, p_nodelist},
    {"nodes", 'N', R, JOPT_NODES, NULL, p_nodes},
    {"ntasks", 'n', R, JOPT_NTASKS, NULL, p_ntasks},
    {"ntasks-per-core", 0, R, JOPT_NTASKS_PER_CORE, NULL, job_opt_p_ntasks_per_core},
    {"ntasks-per-gpu", 0, R, JOPT_NTASKS_PER_GPU, NULL, job_opt_p_ntasks_per_gpu},
    {"ntasks-per-node", 0, R, JOPT_NTASKS_PER_NODE, NULL, p_ntasks_per_node},
    {"ntasks-per-socket", 0, R, JOPT_NTASKS_PER_SOCKET, NULL, p_ntasks_per_socket},
    {"ntasks-per-tres", 0, R, JOPT_NTASKS_PER_TRES, NULL, job_opt_p_ntasks_per_tres},
    {"open-mode", 0, R, JOPT_OPEN_MODE, "SBATCH_OPEN_MODE", p_open_mode},
    {"output", 'o', R, JOPT_OUTPUT, "SBATCH_OUTPUT", p_output},
    {"overcommit", 'O', N, JOPT_OVERCOMMIT, "SBATCH_OVERCOMMIT", job_opt_p_overcommit},
    {"oversubscribe", 's', N, JOPT_OVERSUBSCRIBE, NULL, p_oversubscribe},
    {"parsable", 0, N, JOPT_PARSABLE, NULL, p_parsable},
    {"partition", 'p', R, JOPT_PARTITION, "SBATCH_PARTITION", p_partition},
    {"power", 0, R, JOPT_POWER, "SBATCH_POWER", NULL},
    {"prefer", 0, R, JOPT_PREFER, NULL, p_prefer},
    {"priority", 0, R, JOPT_PRIORITY, NULL, job_opt_p_priority},
    {"profile", 0, R, JOPT_PROFILE, "SBATCH_PROFILE", NULL},
    {"propagate", 0, O, JOPT_PROPAGATE, NULL, p_propagate},
    {"qos", 'q', R, JOPT_QOS, "SBATCH_QOS", p_qos},
    {"quiet", 'Q', N, JOPT_QUIET, NULL, p_quiet},
    {"reboot", 0, N, JOPT_REBOOT, NULL, job_opt_p_reboot},
    {"requeue", 0, N, JOPT_REQUEUE, "SBATCH_REQUEUE", p_requeue},
    {"reservation", 0, R, JOPT_RESERVATION, "SBATCH_RESERVATION", p_reservation},
    {"signal", 0, R, JOPT_SIGNAL, "SBATCH_SIGNAL", p_signal},
    {"sockets-per-node", 0, R, JOPT_SOCKETS_PER_NODE, NULL, job_opt_p_sockets_per_node},
    {"spread-job", 0, N, JOPT_SPREAD_JOB, "SBATCH_SPREAD_JOB", job_opt_p_spread_job},
    {"switches", 0, R, JOPT_SWITCHES, "SBATCH_REQ_SWITCH", job_opt_p_switches},
    {"tasks-per-node", 0, R, JOPT_NTASKS_PER_NODE, NULL, p_ntasks_per_node},
    {"test-only", 0, N, JOPT_TEST_ONLY, NULL, p_test_only},
    {"thread-spec", 0, R, JOPT_THREAD_SPEC, "SBATCH_THREAD_SPEC", job_opt_p_thread_spec},
    {"threads-per-core", 0, R, JOPT_THREADS_PER_CORE, "SBATCH_THREADS_PER_CORE",
     job_opt_p_threads_per_core},
    {"time", 't', R, JOPT_TIME, "SBATCH_TIMELIMIT", p_time},
    {"time-min", 0, R, JOPT_TIME_MIN, NULL, p_time_min},
    {"tmp", 0, R, JOPT_TMP, NULL, job_opt_p_tmp},
    {"uid", 0, R, JOPT_UID, NULL, job_opt_p_uid},
    {"use-min-nodes", 0, N, JOPT_USE_MIN_NODES, "SBATCH_USE_MIN_NODES", job_opt_p_use_min_nodes},
    {"usage", 0, N, JOPT_USAGE, NULL, p_usage},
    {"verbose", 'v', N, JOPT_VERBOSE, "SBATCH_DEBUG", p_verbose},
    {"version", 'V', N, JOPT_VERSION, NULL, p_version},
    {"wait", 'W', N, JOPT_WAIT, "SBATCH_WAIT", p_wait},
    {"wait-all-nodes", 0, R, JOPT_WAIT_ALL_NODES, "SBATCH_WAIT_ALL_NODES", p_wait_all_nodes},
    {"wckey", 0, R, JOPT_WCKEY, "SBATCH_WCKEY", NULL},
    {"wrap", 0, R, JOPT_WRAP, NULL, p_wrap},
    {NULL, 0, 0, 0, NULL, NULL},
};
#undef N
#undef R
#undef O

/* Memory as Slurm's -v dump shows it: the largest exact unit above MB. */
static char *mb_str(uint64_t mb, char *buf, size_t n)
{
	static const char *const units[] = {"", "G", "T", "P"};
	size_t u = 0;

	while (mb && mb % 1024 == 0 && u + 1 < ARRAY_SIZE(units)) {
		mb /= 1024;
		u++;
	}
	snprintf(buf, n, "%llu%s", (unsigned long long)mb, units[u]);
	return buf;
}

static char *mail_str(uint16_t bits, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i + 1 < ARRAY_SIZE(mail_names); i++) /* not "ALL" */
		if ((bits & mail_names[i].bits) && len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "," : "",
						mail_names[i].name);
	if (!bits)
		snprintf(buf, n, "NONE");
	return buf;
}

static char *signal_str(const struct job_opts *o, char *buf, size_t n)
{
	const char *name = NULL;
	char num[8];

	for (size_t i = 0; i < ARRAY_SIZE(sig_names); i++)
		if (sig_names[i].num == o->warn_signal)
			name = sig_names[i].name;
	snprintf(num, sizeof(num), "%u", o->warn_signal);
	snprintf(buf, n, "%s%s%s%s", (o->warn_flags & JOB_OPT_SIG_RESV) ? "R" : "",
		 (o->warn_flags & JOB_OPT_SIG_BATCH) ? "B" : "", o->warn_flags ? ":" : "",
		 name ? name : num);
	if (strchr(o->raw[JOPT_SIGNAL], '@')) {
		size_t len = strlen(buf);

		snprintf(buf + len, n - len, "@%u", o->warn_time);
	}
	return buf;
}

const char *job_opt_show(const struct job_opts *o, enum job_opt_id id, char *buf, size_t n)
{
	static const char *const excl[] = {"", "exclusive", "user", "mcs"};
	const char *s = NULL;

	if (id >= _JOPT_COUNT || !o->src[id] || !o->raw[id])
		return NULL;
	switch (id) {
	case JOPT_TIME:
		return mins2time_str(o->time_limit, buf, n);
	case JOPT_TIME_MIN:
		return mins2time_str(o->time_min, buf, n);
	case JOPT_MEM:
		return mb_str(o->mem, buf, n);
	case JOPT_MEM_PER_CPU:
		return mb_str(o->mem_per_cpu, buf, n);
	case JOPT_MEM_PER_GPU:
		return mb_str(o->mem_per_gpu, buf, n);
	case JOPT_NODES:
		if (o->max_nodes != o->min_nodes)
			snprintf(buf, n, "%d-%d", o->min_nodes, o->max_nodes);
		else
			snprintf(buf, n, "%d", o->min_nodes);
		return buf;
	case JOPT_NTASKS:
	case JOPT_CPUS_PER_TASK:
	case JOPT_NTASKS_PER_NODE:
	case JOPT_NICE:
	case JOPT_VERBOSE:
		snprintf(buf, n, "%d",
			 id == JOPT_NTASKS	    ? o->ntasks
			 : id == JOPT_CPUS_PER_TASK ? o->cpus_per_task
			 : id == JOPT_NICE	    ? o->nice
			 : id == JOPT_VERBOSE	    ? o->verbose
						    : o->ntasks_per_node);
		return buf;
	case JOPT_OPEN_MODE:
		s = o->open_mode == OPEN_MODE_APPEND ? "a" : "t";
		break;
	case JOPT_MAIL_TYPE:
		return mail_str(o->mail_type, buf, n);
	case JOPT_SIGNAL:
		return signal_str(o, buf, n);
	case JOPT_BEGIN:
		return time_display(o->begin, buf, n);
	case JOPT_OUTPUT:
	case JOPT_ERROR:
	case JOPT_INPUT:
	case JOPT_CHDIR:
		s = id == JOPT_OUTPUT  ? o->std_out
		    : id == JOPT_ERROR ? o->std_err
		    : id == JOPT_INPUT ? o->std_in
				       : o->chdir;
		break;
	case JOPT_EXCLUSIVE:
		s = excl[o->exclusive < ARRAY_SIZE(excl) ? o->exclusive : 0];
		break;
	case JOPT_REQUEUE:
		s = "requeue";
		break;
	case JOPT_NO_REQUEUE:
		s = "no-requeue";
		break;
	case JOPT_GRES: /* Slurm 22.05 shows "gres:" where we send "gres/" */
		if (!o->gres) {
			s = "none";
			break;
		}
		snprintf(buf, n, "%s", o->gres);
		for (char *g = strstr(buf, "gres/"); g; g = strstr(g + 5, "gres/"))
			g[4] = ':';
		return buf;
	case JOPT_NO_KILL:
		s = o->raw[id];
		s = !*s || !strcasecmp(s, "on") || !strcasecmp(s, "yes") || !strcasecmp(s, "set")
			? "set"
			: "unset";
		break;
	case JOPT_OVERSUBSCRIBE:
		s = "oversubscribe";
		break;
	default:
		for (const struct job_opt_def *d = job_opt_table; d->name; d++)
			if (d->id == id && d->has_arg == no_argument)
				s = "set";
		if (!s)
			s = o->raw[id];
		break;
	}
	snprintf(buf, n, "%s", s ? s : "");
	return buf;
}
