/* job_opt.c - the passes over the option table and what follows from them.
 *
 * Purpose: run getopt over a command line or an #SBATCH argv, apply the
 * SBATCH_* variables, then Slurm's post-processing (_opt_verify), and turn
 * the result into a struct job_desc and the job's environment.
 * Owns: nothing global; each struct job_opts owns its strings.
 * Caveats: getopt_long keeps state in globals (optind), so passes must not
 * run concurrently; glibc prints getopt's own errors to stderr itself.
 * Error texts are built by job_opt_err.c, --begin by job_opt_begin.c.
 */
#include "cli/job_opt.h"
#include "cli/job_opt_gpu.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/job_env.h"
#include "common/macros.h"
#include "common/msg_job.h"
#include "common/pack.h"
#include "common/parse_mem.h"
#include "common/parse_time.h"

int job_opts_init(struct job_opts *o, const char *prog)
{
	char buf[4096];

	*o = (struct job_opts){
	    .prog = prog,
	    .min_nodes = 1, /* Slurm's default; only sent when nodes_set */
	    .time_limit = NO_VAL,
	    .time_min = NO_VAL,
	    .mem = NO_VAL64,
	    .mem_per_cpu = NO_VAL64,
	    .mem_per_gpu = NO_VAL64,
	    .requeue = NO_VAL16,
	    .uid = NO_VAL,
	    .gid = NO_VAL,
	};
	if (getcwd(buf, sizeof(buf)) && !(o->cwd = strdup(buf)))
		return -ENOMEM;
	return 0;
}

void job_opts_done(struct job_opts *o)
{
	char **strs[] = {&o->cwd,      &o->job_name, &o->partition,  &o->account,
			 &o->qos,      &o->comment,  &o->dependency, &o->array,
			 &o->std_out,  &o->std_err,  &o->std_in,     &o->chdir,
			 &o->nodelist, &o->exclude,  &o->mail_user,  &o->export_env,
			 &o->wrap,     &o->gres,     &o->gpus,	     &o->gpus_per_node,
			 &o->constraint, &o->prefer, &o->licenses,   &o->reservation,
			 &o->nodefile_list, &o->gpus_per_task, &o->gpus_per_socket,
			 &o->gpu_bind, &o->propagate};

	for (size_t i = 0; i < ARRAY_SIZE(strs); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
	for (size_t i = 0; i < _JOPT_COUNT; i++) {
		free(o->raw[i]);
		o->raw[i] = NULL;
	}
}

const char *job_opt_name(enum job_opt_id id)
{
	for (const struct job_opt_def *d = job_opt_table; d->name; d++)
		if (d->id == id)
			return d->name;
	return "?";
}

/* getopt's val for a row: its letter, else 0x100 + the first row of its
 * id, so aliases share a value (and are not "ambiguous" to glibc). */
static int def_val(const struct job_opt_def *d)
{
	if (d->short_opt)
		return d->short_opt;
	for (const struct job_opt_def *p = job_opt_table; p->name; p++)
		if (p->id == d->id)
			return 0x100 + (int)(p - job_opt_table);
	return 0;
}

static const struct job_opt_def *def_of_val(int val)
{
	if (val >= 0x100)
		return &job_opt_table[val - 0x100];
	for (const struct job_opt_def *d = job_opt_table; d->name; d++)
		if (d->short_opt == val)
			return d;
	return NULL;
}

/* Run one option's parser and record who set it. */
static int apply(struct job_opts *o, const struct job_opt_def *d, const char *arg,
		 enum job_opt_src src, struct job_opt_err *e)
{
	char *copy;
	int r = 0;

	if (src != JOB_OPT_SRC_CLI
	    && (d->id == JOPT_HELP || d->id == JOPT_USAGE || d->id == JOPT_VERSION))
		return 0;
	/* Slurm's early-pass options are only read from the command line
	 * (SBATCH_DEBUG still counts for -v) */
	if (src == JOB_OPT_SRC_SCRIPT
	    && (d->id == JOPT_VERBOSE || d->id == JOPT_QUIET || d->id == JOPT_WRAP))
		return 0;
	if (d->parse) {
		r = d->parse(o, arg, e);
		if (r < 0)
			return r;
	}
	copy = strdup(arg ? arg : "");
	if (!copy)
		return -ENOMEM;
	free(o->raw[d->id]);
	o->raw[d->id] = copy;
	o->src[d->id] = (uint8_t)src;
	return r;
}

int job_opt_getopt(const char *prog, const struct option *lo, job_opt_getopt_fn *on, void *arg,
		   int argc, char **argv, int *ret_optind, struct job_opt_err *e)
{
	char **av, shorts[256] = "+";
	size_t sl = 1;
	int c, idx, r = 0;

	av = calloc((size_t)argc + 1, sizeof(*av));
	if (!av)
		return -ENOMEM;
	for (const struct option *p = lo; p->name; p++) {
		if (p->val <= 0 || p->val >= 0x100 || sl + 3 >= sizeof(shorts)
		    || strchr(shorts, p->val))
			continue;
		shorts[sl++] = (char)p->val;
		if (p->has_arg != no_argument)
			shorts[sl++] = ':';
		if (p->has_arg == optional_argument)
			shorts[sl++] = ':';
	}
	shorts[sl] = '\0';
	av[0] = (char *)prog; /* getopt prints its errors under argv[0] */
	for (int i = 1; i < argc; i++)
		av[i] = argv[i];
	optind = 0; /* full re-initialisation of glibc's getopt */
	opterr = 1;
	while (r == 0 && (c = getopt_long(argc, av, shorts, lo, &idx)) != -1) {
		if (c == '?' || c == ':') {
			job_opt_raw(e, "Try \"%s --help\" for more information\n", prog);
			e->exit_code = JOB_OPT_EXIT_ARG;
			r = -EINVAL;
			break;
		}
		r = on(arg, c, optarg, e);
	}
	if (ret_optind)
		*ret_optind = optind;
	free(av);
	return r;
}

struct argv_pass {
	struct job_opts *o;
	enum job_opt_src src;
};

static int argv_on(void *arg, int val, const char *optarg_, struct job_opt_err *e)
{
	struct argv_pass *p = arg;

	/* every val comes from the table, so the row is always there */
	return apply(p->o, def_of_val(val), optarg_, p->src, e);
}

int job_opt_parse_argv(struct job_opts *o, int argc, char **argv, enum job_opt_src src,
		       int *ret_optind, struct job_opt_err *e)
{
	struct argv_pass p = {o, src};
	struct option *lo;
	size_t n = 0;
	int r;

	while (job_opt_table[n].name)
		n++;
	lo = calloc(n + 1, sizeof(*lo));
	if (!lo)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct job_opt_def *d = &job_opt_table[i];

		lo[i] = (struct option){d->name, d->has_arg, NULL, def_val(d)};
	}
	r = job_opt_getopt(o->prog, lo, argv_on, &p, argc, argv, ret_optind, e);
	free(lo);
	return r;
}

int job_opt_set(struct job_opts *o, enum job_opt_id id, const char *arg, enum job_opt_src src,
		struct job_opt_err *e)
{
	for (const struct job_opt_def *d = job_opt_table; d->name; d++)
		if (d->id == id)
			return apply(o, d, arg, src, e);
	return -EINVAL;
}

bool job_opt_env_arg(int has_arg, const char *v, const char **ret_arg)
{
	if (has_arg == no_argument) {
		*ret_arg = NULL;
		/* Slurm's rule for a variable of an option without argument */
		return !*v || !strcasecmp(v, "yes") || atoi(v) != 0;
	}
	*ret_arg = has_arg == optional_argument && !*v ? NULL : v;
	return true;
}

const char *job_opt_env_get(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

int job_opt_parse_env(struct job_opts *o, char *const *envp, struct job_opt_err *e)
{
	for (const struct job_opt_def *d = job_opt_table; d->name; d++) {
		const char *v = d->sbatch_env ? job_opt_env_get(envp, d->sbatch_env) : NULL;
		const char *a;
		int r = 0;

		if (!v)
			continue;
		if (d->id == JOPT_VERBOSE) { /* SBATCH_DEBUG is a level, not a flag */
			o->verbose = atoi(v);
			r = apply(o, d, NULL, JOB_OPT_SRC_ENV, e);
			o->verbose = atoi(v);
		} else if (job_opt_env_arg(d->has_arg, v, &a)) {
			r = apply(o, d, a, JOB_OPT_SRC_ENV, e);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static void unset_opt(struct job_opts *o, enum job_opt_id id, uint64_t *field)
{
	*field = NO_VAL64;
	o->src[id] = JOB_OPT_SRC_UNSET;
	free(o->raw[id]);
	o->raw[id] = NULL;
}

/* Slurm's validate_memory_options(): one of the group per class of
 * source; a command-line/script value clears an environment one. */
static int verify_mem(struct job_opts *o, struct job_opt_err *e)
{
	static const enum job_opt_id ids[] = {JOPT_MEM, JOPT_MEM_PER_CPU, JOPT_MEM_PER_GPU};
	uint64_t *fields[] = {&o->mem, &o->mem_per_cpu, &o->mem_per_gpu};
	int cli = 0, env = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		cli += o->src[ids[i]] == JOB_OPT_SRC_CLI || o->src[ids[i]] == JOB_OPT_SRC_SCRIPT;
		env += o->src[ids[i]] == JOB_OPT_SRC_ENV;
	}
	if (cli > 1)
		return job_opt_fatal(
		    e, o->prog, "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
	if (env > 1 && !cli)
		return job_opt_fatal(e, o->prog,
				     "SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE "
				     "are mutually exclusive.");
	for (size_t i = 0; cli && i < ARRAY_SIZE(ids); i++)
		if (o->src[ids[i]] == JOB_OPT_SRC_ENV)
			unset_opt(o, ids[i], fields[i]);
	return 0;
}

/* Relative -o/-e/-i are taken from --chdir (or the cwd) at submit time. */
static int full_path(char **path, const char *base)
{
	char *s;

	if (!*path || (*path)[0] == '/' || !base)
		return 0;
	if (asprintf(&s, "%s/%s", base, *path) < 0)
		return -ENOMEM;
	free(*path);
	*path = s;
	return 0;
}

/* -w/-x naming a file (anything with a '/'): its hosts, one list. */
static int node_file(struct job_opts *o, char **list, struct job_opt_err *e)
{
	char buf[65536];
	size_t len;
	FILE *f;

	if (!*list || !strchr(*list, '/'))
		return 0;
	f = fopen(*list, "r");
	if (!f)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ERROR,
				    "slurm_allocate_resources error opening file %s, %s", *list,
				    strerror(errno));
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	while (len && isspace((unsigned char)buf[len - 1]))
		buf[--len] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ',';
	free(*list);
	*list = strdup(buf);
	return *list ? 0 : -ENOMEM;
}

int job_opt_verify(struct job_opts *o, char *info, size_t n, struct job_opt_err *e)
{
	const char *base = o->chdir ? o->chdir : o->cwd;
	struct hostlist *hl = NULL;
	bool ok = true;
	int r;

	if (info && n)
		info[0] = '\0';
	r = verify_mem(o, e);
	if (r == 0)
		r = job_opt_verify_gpu(o, e);
	if (r < 0)
		return r;
	if (o->quiet && o->verbose) {
		job_opt_fail(e, o->prog, JOB_OPT_EXIT_ERROR,
			     "don't specify both --verbose (-v) and --quiet (-Q)");
		ok = false;
	}
	if (full_path(&o->std_out, base) < 0 || full_path(&o->std_err, base) < 0
	    || full_path(&o->std_in, base) < 0)
		return -ENOMEM;
	r = node_file(o, &o->exclude, e);
	if (r == 0)
		r = node_file(o, &o->nodelist, e);
	if (r < 0)
		return r;
	if (o->nodelist && hostlist_new(o->nodelist, &hl) == 0) {
		int cnt;

		hostlist_sort(hl);
		hostlist_uniq(hl);
		cnt = (int)hostlist_count(hl);
		o->min_nodes = o->nodes_set && o->min_nodes > cnt ? o->min_nodes : cnt;
		o->nodes_set = true;
		hostlist_free(hl);
	}
	if (o->ntasks_per_node > 0 && !o->ntasks_set
	    && (o->max_nodes == 0 || o->min_nodes == o->max_nodes)) {
		o->ntasks = o->min_nodes * o->ntasks_per_node;
		o->ntasks_set = true;
	}
	if (o->ntasks_set && o->ntasks < 0) {
		job_opt_fail(e, o->prog, JOB_OPT_EXIT_ERROR, "invalid number of tasks (-n %d)",
			     o->ntasks);
		ok = false;
	}
	if (o->cpus_set && o->cpus_per_task <= 0) {
		job_opt_fail(e, o->prog, JOB_OPT_EXIT_ERROR,
			     "invalid number of cpus per task (-c %d)", o->cpus_per_task);
		ok = false;
	}
	if (o->min_nodes < 0 || o->max_nodes < 0 || (o->max_nodes && o->min_nodes > o->max_nodes)) {
		job_opt_fail(e, o->prog, JOB_OPT_EXIT_ERROR, "invalid number of nodes (-N %d-%d)",
			     o->min_nodes, o->max_nodes);
		ok = false;
	}
	if (!ok) {
		e->exit_code = JOB_OPT_EXIT_ERROR;
		return -EINVAL;
	}
	if (o->nodes_set && o->ntasks_set) {
		if (o->ntasks < o->max_nodes)
			o->max_nodes = o->ntasks;
		if (o->ntasks < o->min_nodes) {
			if (info && n)
				snprintf(info, n,
					 "%s: Warning: can't run %d processes on %d nodes, setting "
					 "nnodes to %d\n",
					 o->prog, o->ntasks, o->min_nodes, o->ntasks);
			o->min_nodes = o->max_nodes = o->ntasks;
		}
	}
	return 0;
}

static int dup_to(char **dst, const char *src)
{
	*dst = NULL;
	if (src && !(*dst = strdup(src)))
		return -ENOMEM;
	return 0;
}

static int gpu_tres(char **dst, const char *gpus, const char *more)
{
	int r;

	if (!gpus)
		return dup_to(dst, more);
	r = asprintf(dst, "gres/gpu:%s%s%s", gpus, more ? "," : "", more ? more : "");
	if (r < 0)
		*dst = NULL;
	return r < 0 ? -ENOMEM : 0;
}

/* --uid without --gid: the user's primary group, as Slurm. */
static uint32_t user_gid(uint32_t uid, uint32_t fallback)
{
	char buf[4096];
	struct passwd pw, *res = NULL;

	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) == 0 && res)
		return (uint32_t)res->pw_gid;
	return fallback;
}

int job_opt_step_env(const struct job_opts *o, struct job_env *e)
{
	int r = 0;

	if (o->raw[JOPT_HINT] && *o->raw[JOPT_HINT])
		r |= job_env_set(e, "SLURM_HINT", "%s", o->raw[JOPT_HINT]);
	if (o->ntasks_per_socket)
		r |= job_env_set(e, "SLURM_NTASKS_PER_SOCKET", "%d", o->ntasks_per_socket);
	return r ? -ENOMEM : 0;
}

int job_opt_fill_desc(const struct job_opts *o, struct job_desc *d)
{
	char host[256] = "";
	int r = 0;

	*d = (struct job_desc){
	    .min_nodes = o->nodes_set ? (uint32_t)o->min_nodes : NO_VAL,
	    .max_nodes = o->nodes_set && o->max_nodes ? (uint32_t)o->max_nodes : NO_VAL,
	    .num_tasks = o->ntasks_set ? (uint32_t)o->ntasks : NO_VAL,
	    .ntasks_per_node = o->ntasks_per_node > 0 ? (uint16_t)o->ntasks_per_node : NO_VAL16,
	    .cpus_per_task = o->cpus_set ? (uint16_t)o->cpus_per_task : NO_VAL16,
	    .time_limit = o->time_limit,
	    .time_min = o->time_min,
	    .mem_per_node = o->mem,
	    .mem_per_cpu = o->mem_per_cpu,
	    .mail_type = o->mail_type,
	    .open_mode = o->open_mode,
	    .requeue = o->requeue,
	    .warn_signal = o->warn_signal,
	    .warn_time = o->warn_signal ? o->warn_time : 0,
	    .nice = o->nice_set ? NICE_OFFSET + (uint32_t)o->nice : NO_VAL,
	    .begin_time = o->begin,
	    .user_id = (uint32_t)getuid(),
	    .group_id = (uint32_t)getgid(),
	};
	d->flags =
	    (uint16_t)((o->hold ? JOB_DESC_HOLD : 0) | (o->exclusive == JOB_OPT_EXCL_NODE ? JOB_DESC_EXCLUSIVE : 0)
		       | (o->exclusive == JOB_OPT_EXCL_USER ? JOB_DESC_EXCLUSIVE_USER : 0)
		       | (o->oversubscribe ? JOB_DESC_OVERSUBSCRIBE : 0)
		       | (o->test_only ? JOB_DESC_TEST_ONLY : 0)
		       | (o->kill_inv_dep ? JOB_DESC_KILL_INV_DEP : 0)
		       | (o->no_kill ? JOB_DESC_NO_KILL : 0));
	if (gethostname(host, sizeof(host) - 1) == 0)
		host[strcspn(host, ".")] = '\0'; /* short name */
	r |= dup_to(&d->name, o->job_name);
	r |= dup_to(&d->partition, o->partition);
	r |= dup_to(&d->account, o->account);
	r |= dup_to(&d->qos, o->qos);
	r |= dup_to(&d->comment, o->comment);
	r |= dup_to(&d->dependency, o->dependency);
	r |= dup_to(&d->array_spec, o->array);
	r |= dup_to(&d->req_nodes, o->nodelist);
	r |= dup_to(&d->exc_nodes, o->exclude);
	r |= dup_to(&d->mail_user, o->mail_user);
	r |= dup_to(&d->std_in, o->std_in ? o->std_in : "/dev/null");
	r |= dup_to(&d->std_out, o->std_out);
	r |= dup_to(&d->std_err, o->std_err);
	r |= dup_to(&d->work_dir, o->chdir ? o->chdir : o->cwd);
	r |= dup_to(&d->submit_host, host[0] ? host : NULL);
	r |= gpu_tres(&d->tres_per_node, o->gpus_per_node, o->gres);
	r |= gpu_tres(&d->tres_per_job, o->gpus, NULL);
	/* the controller checks these: it knows the nodes' features, the
	 * licenses and the reservations */
	d->priority = o->priority;
	d->ntasks_per_socket = (uint16_t)(o->ntasks_per_socket > UINT16_MAX ? UINT16_MAX
									: o->ntasks_per_socket);
	d->tmp_mb = o->tmp_mb;
	d->min_cpus = o->mincpus;
	d->sockets_per_node = o->sockets_per_node;
	d->cores_per_socket = o->cores_per_socket;
	if (o->uid != NO_VAL) { /* root only (the parser checked): submitted as them */
		d->user_id = o->uid;
		d->group_id = o->gid != NO_VAL ? o->gid : user_gid(o->uid, d->group_id);
	} else if (o->gid != NO_VAL) {
		d->group_id = o->gid;
	}
	if (!o->nodelist)
		r |= dup_to(&d->req_nodes, o->nodefile_list);
	r |= dup_to(&d->features, o->constraint);
	r |= dup_to(&d->prefer, o->prefer);
	r |= dup_to(&d->licenses, o->licenses);
	r |= dup_to(&d->reservation, o->reservation);
	r |= job_opt_fill_gpu(o, d);
	return r ? -ENOMEM : 0;
}

int job_opt_check_gres(const struct job_opts *o, const struct sl_conf *conf, struct job_opt_err *e)
{
	const char *types = conf ? conf->gres_types : NULL;

	if (!o->gres || !conf)
		return 0;
	for (const char *p = o->gres; *p;) {
		size_t len = strcspn(p, ","), nl;
		const char *name = p + 5; /* every entry starts "gres/" */
		bool found = false;

		nl = strcspn(name, ":,");
		for (const char *t = types; t && *t && !found;) {
			size_t tl = strcspn(t, ",");

			found = tl == nl && !strncmp(t, name, nl);
			t += tl + (t[tl] == ',');
		}
		if (!found)
			return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ERROR,
					    "Invalid generic resource (gres) specification");
		p += len + (p[len] == ',');
	}
	return 0;
}

/* ---- basic syntax of what only the controller interprets ---- */

static const char *digits(const char *p)
{
	const char *q = p;

	while (*q >= '0' && *q <= '9')
		q++;
	return q == p ? NULL : q;
}

bool job_opt_array_ok(const char *spec)
{
	const char *p = spec, *q;
	bool any = false;

	if (!p)
		return false;
	while (*p && *p != '%') {
		long lo, hi;

		if (*p == ',') { /* empty items are skipped, as the controller does */
			p++;
			continue;
		}
		if (!(q = digits(p)))
			return false;
		lo = hi = strtol(p, NULL, 10);
		if (*q == '-') {
			if (!(p = digits(q + 1)))
				return false;
			hi = strtol(q + 1, NULL, 10);
			q = p;
		}
		if (*q == ':') {
			if (!(p = digits(q + 1)) || strtol(q + 1, NULL, 10) <= 0)
				return false;
			q = p;
		}
		if (hi < lo || (*q && *q != ',' && *q != '%'))
			return false;
		any = true;
		p = q;
	}
	if (*p == '%' && (!(q = digits(p + 1)) || *q))
		return false;
	return any;
}

/* "jid", "jid_task", "jid_*", optional "+minutes". */
static const char *dep_id(const char *p)
{
	if (!(p = digits(p)))
		return NULL;
	if (*p == '_')
		p = p[1] == '*' ? p + 2 : digits(p + 1);
	if (p && *p == '+')
		p = digits(p + 1);
	return p;
}

bool job_opt_dependency_ok(const char *spec)
{
	static const char *const types[] = {"after",   "afterany",  "afternotok",
					    "afterok", "aftercorr", "afterburstbuffer",
					    "expand"};
	const char *p = spec;

	if (!p || !*p || (strchr(p, ',') && strchr(p, '?')))
		return false;
	for (;;) {
		size_t len = strcspn(p, ",?"), tl = strcspn(p, ":,?");
		const char *end = p + len, *q = p;
		bool typed = false;

		if (len == 0) /* empty item: a separator leads, trails or doubles */
			return false;
		for (size_t i = 0; i < ARRAY_SIZE(types); i++)
			typed |= tl == strlen(types[i]) && !strncasecmp(p, types[i], tl);
		if (typed && p[tl] != ':')
			return false;
		if (typed)
			q = p + tl + 1;
		while (!(len == 9 && !strncasecmp(p, "singleton", 9))) { /* ids, ':' apart */
			q = dep_id(q);
			if (!q || q > end || (q < end && *q != ':'))
				return false;
			if (q == end)
				break;
			q++;
		}
		if (!*end)
			return true;
		p = end + 1;
	}
}
