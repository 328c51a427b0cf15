/* sbatch_script.c - the batch script: read, check, wrap, its #SBATCH
 * directives, and the environment the job is submitted with.
 *
 * Purpose: everything sbatch sends that is not an option value.
 * Input: the script bytes (untrusted: any size up to SL_SCRIPT_MAX, any
 * bytes) and sbatch's own environment.
 * Caveats: directive parsing copies each line (so a NUL ends it, as in
 * Slurm); heterogeneous-job separators ("#SBATCH hetjob") are refused.
 */
#include "cli/sbatch_script.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/job_opt.h"
#include "cli/job_opt_gpu.h"
#include "common/job_env.h"
#include "common/conf.h"
#include "common/limits.h"
#include "common/macros.h"
#include "common/msg_job.h"
#include "common/pack.h"
#include "common/read_bounded.h"

int sbatch_script_read(const char *prog, const char *path, int fd, char **ret, size_t *ret_len,
		       struct job_opt_err *err)
{
	size_t cap = 8192, len = 0;
	char *buf;
	ssize_t n;

	if (path) {
		struct stat st;

		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR, "Unable to open file %s",
					    path);
		if (fstat(fd, &st) == 0 && st.st_size > (off_t)SL_SCRIPT_MAX) {
			close(fd);
			return job_opt_fatal(err, prog, "Script file %s is too large", path);
		}
	}
	buf = malloc(cap + 1);
	while (buf && (n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len > SL_SCRIPT_MAX) {
			free(buf);
			if (!path)
				return job_opt_fatal(
				    err, prog, "Script from STDIN is too big, read %zu > %u bytes.",
				    len, SL_SCRIPT_MAX);
			close(fd);
			return job_opt_fatal(err, prog,
					     "Script %s is too big, read %zu > %u bytes.", path,
					     len, SL_SCRIPT_MAX);
		}
		if (len == cap) {
			char *bigger = realloc(buf, cap * 2 + 1);

			if (!bigger) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (path)
		close(fd);
	if (!buf)
		return -ENOMEM;
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

int sbatch_script_check(const char *prog, const char *buf, size_t len, struct job_opt_err *err)
{
	const char *p = buf;

	while (*p && isspace((unsigned char)*p)) /* Slurm looks at the C string */
		p++;
	if (len == 0)
		return job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR, "Batch script is empty!");
	if (!*p)
		return job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR,
				    "Batch script contains only whitespace!");
	if (len < 2 || buf[0] != '#' || buf[1] != '!') {
		job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR,
			     "This does not look like a batch script.  The first");
		job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR,
			     "line must start with #! followed by the path to an interpreter.");
		return job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR, "For instance: #!/bin/sh");
	}
	if (memchr(buf, '\0', len)) {
		job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR,
			     "The Slurm controller does not allow scripts that");
		return job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR,
				    "contain a NULL character '\\0'.");
	}
	for (size_t i = 1; i < len; i++) {
		if (buf[i - 1] == '\r' && buf[i] == '\n') {
			job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR,
				     "Batch script contains DOS line breaks (\\r\\n)");
			return job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR,
					    "instead of expected UNIX line breaks (\\n).");
		}
	}
	return 0;
}

char *sbatch_script_wrap(const char *cmd)
{
	char *s = NULL;

	if (asprintf(&s, "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n", cmd) < 0)
		return NULL;
	return s;
}

void sbatch_directives_done(struct sbatch_directives *d)
{
	for (int i = 1; d->argv && i < d->argc; i++) /* argv[0] is borrowed */
		free(d->argv[i]);
	free(d->argv);
	d->argv = NULL;
	d->argc = 0;
}

static int push_arg(struct sbatch_directives *d, char *arg)
{
	if (d->argc + 2 > d->cap) {
		int cap = d->cap ? d->cap * 2 : 16;
		char **v = realloc(d->argv, (size_t)cap * sizeof(*v));

		if (!v) {
			free(arg);
			return -ENOMEM;
		}
		d->argv = v;
		d->cap = cap;
	}
	d->argv[d->argc++] = arg;
	d->argv[d->argc] = NULL;
	return 0;
}

/* One word at *pp into word (room for the rest of the line): its length,
 * 0 when the line ends, < 0 on a fatal error. */
static int next_word(const char *prog, const char *file, int lineno, const char **pp, char *word,
		     struct job_opt_err *err)
{
	const char *p = *pp, *start = p;
	bool escape = false;
	char quote = 0;
	int n = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == ':')
		return job_opt_fatal(err, prog, "%s: line %d: Unexpected `:` in [%s]", file, lineno,
				     start);
	/* blanks end a word before an escape is looked at, as in Slurm */
	for (; *p && (quote || !isspace((unsigned char)*p)); p++) {
		if (escape) {
			escape = false;
		} else if (*p == '\\') {
			escape = true;
			continue;
		} else if (quote) {
			if (*p == quote) {
				quote = 0;
				continue;
			}
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
			continue;
		} else if (*p == '#') {
			break;
		}
		word[n++] = *p;
	}
	word[n] = '\0';
	if (quote)
		return job_opt_fatal(err, prog, "%s: line %d: Unmatched `%c` in [%s]", file, lineno,
				     quote, start);
	*pp = p;
	return n; /* 0: "#..." or an empty "" ends the line, as in Slurm */
}

/* One directive line's words (Slurm's get_argument loop). p starts after
 * the magic word. */
static int line_words(const char *prog, const char *file, int lineno, const char *p,
		      struct sbatch_directives *d, struct job_opt_err *err)
{
	char *word = malloc(strlen(p) + 1);
	int n = 0, r = 0;

	if (!word)
		return -ENOMEM;
	while (isspace((unsigned char)*p))
		p++;
	while (r == 0 && (n = next_word(prog, file, lineno, &p, word, err)) > 0) {
		char *copy = strndup(word, (size_t)n);

		r = copy ? push_arg(d, copy) : -ENOMEM;
	}
	free(word);
	return r < 0 ? r : n < 0 ? n : 0;
}

/* Is this non-directive line blank or a comment? */
static bool is_comment(const char *line)
{
	while (isspace((unsigned char)*line))
		line++;
	return !*line || *line == '#';
}

int sbatch_script_directives(const char *prog, const char *buf, size_t len, const char *file,
			     struct sbatch_directives *ret, struct job_opt_err *err)
{
	struct sbatch_directives d = {0};
	const char *end = buf + len;
	int lineno = 0, r;

	r = push_arg(&d, (char *)prog);
	for (const char *p = buf; r == 0 && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = strndup(p, ll);
		const char *rest = NULL;

		p += ll + (nl != NULL);
		lineno++;
		if (!line) {
			r = -ENOMEM;
			break;
		}
		if (!strncmp(line, "#SBATCH", 7)) {
			rest = line + 7;
		} else if (!strncmp(line, "#SLURM", 6)) {
			rest = line + 6;
			if (!d.warn[0])
				snprintf(d.warn, sizeof(d.warn),
					 "%s: error: Change from #SLURM to #SBATCH in your script "
					 "and verify the options are valid in sbatch\n",
					 prog);
		} else if (!is_comment(line)) {
			free(line);
			break;
		}
		if (rest && (strcasestr(rest, "hetjob") || strcasestr(rest, "packjob")))
			r = job_opt_fail(err, prog, JOB_OPT_EXIT_ERROR,
					 "%s: line %d: heterogeneous jobs (#SBATCH hetjob) are not "
					 "supported",
					 file, lineno);
		else if (rest)
			r = line_words(prog, file, lineno, rest, &d, err);
		free(line);
	}
	if (r < 0) {
		sbatch_directives_done(&d);
		return r;
	}
	*ret = d;
	return 0;
}

int sbatch_script_apply(struct job_opts *o, const struct sbatch_directives *d,
			struct job_opt_err *err)
{
	int ind = d->argc, r;

	if (d->argc < 2)
		return 0;
	r = job_opt_parse_argv(o, d->argc, d->argv, JOB_OPT_SRC_SCRIPT, &ind, err);
	if (r < 0)
		return r;
	if (ind < d->argc)
		return job_opt_fail(err, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid directive found in batch script: %s", d->argv[ind]);
	return 0;
}
/* ---- the job's environment (sbatch.c's _fill_job_desc_from_opts) ---- */

/* Add "NAME=value" (copied), replacing NAME; an entry without '=' is never
 * exported, as execve would drop it. */
static int env_put(struct job_env *e, const char *entry)
{
	int r = job_env_put(e, entry);

	return r == -EINVAL ? 0 : r;
}

/* Set NAME only when it is not set yet (sbatch keeps what the user set). */
#define env_set_default(e, name, ...)                                                              \
	(job_env_get((e), (name)) ? 0 : job_env_set((e), (name), __VA_ARGS__))

/* SLURM_RLIMIT_* per PropagateResourceLimits[Except] (default: all);
 * those --propagate names (forced) as "U<n>", whatever the configuration. */
static int put_rlimits(struct job_env *e, const struct sl_conf *conf, const char *forced)
{
	const char *inc = conf ? conf_get_raw(conf, "PropagateResourceLimits") : NULL;
	const char *exc = conf ? conf_get_raw(conf, "PropagateResourceLimitsExcept") : NULL;
	char name[32];
	int r = 0;

	for (size_t i = 0; i < job_env_rlimits_count && r == 0; i++) {
		const struct job_env_rlimit *l = &job_env_rlimits[i];
		bool is_forced = forced && job_env_rlimit_is_propagated(l->name, forced, NULL);
		struct rlimit rl;

		if ((!is_forced && !job_env_rlimit_is_propagated(l->name, inc, exc))
		    || getrlimit(l->resource, &rl) < 0)
			continue;
		snprintf(name, sizeof(name), "SLURM_RLIMIT_%s", l->name);
		r = job_env_set(e, name, "%s%llu", is_forced ? "U" : "",
				(unsigned long long)rl.rlim_cur);
	}
	return r;
}

/* What sbatch itself adds to its environment before filtering. */
static int put_sbatch_vars(const struct job_opts *o, struct job_env *e, const struct sl_conf *conf)
{
	char host[256] = "", cwd[4096];
	mode_t mask;
	int r = 0;

	if (o->job_name)
		r |= job_env_set(e, "SLURM_JOB_NAME", "%s", o->job_name);
	if (o->open_mode)
		r |= job_env_set(e, "SLURM_OPEN_MODE", "%s",
			       o->open_mode == OPEN_MODE_APPEND ? "a" : "t");
	if (o->dependency)
		r |= job_env_set(e, "SLURM_JOB_DEPENDENCY", "%s", o->dependency);
	if (o->export_env && strcasecmp(o->export_env, "ALL"))
		r |= env_set_default(e, "SLURM_EXPORT_ENV", "%s", o->export_env);
	r |= put_rlimits(e, conf, o->propagate);
	errno = 0;
	r |= job_env_set(e, "SLURM_PRIO_PROCESS", "%d", getpriority(PRIO_PROCESS, 0));
	if (getcwd(cwd, sizeof(cwd)))
		r |= job_env_set(e, "SLURM_SUBMIT_DIR", "%s", cwd);
	if (gethostname(host, sizeof(host) - 1) == 0)
		r |= job_env_set(e, "SLURM_SUBMIT_HOST", "%s", host);
	mask = umask(0);
	umask(mask);
	r |= env_set_default(e, "SLURM_UMASK", "0%o%o%o", (mask >> 6) & 7, (mask >> 3) & 7,
		       mask & 7);
	return r ? -ENOMEM : 0;
}

/* Slurm's find_quote_token(): split at ',' outside quotes; a token wholly
 * in one kind of quotes loses them. Returns the next token (in place) or
 * NULL; *bad is set on an unbalanced quote. */
static char *quote_token(char **cursor, bool *bad)
{
	char *start = *cursor, *p;
	bool sq = false, dq = false;
	size_t len;

	if (!start || !*start)
		return NULL;
	for (p = start; *p && (sq || dq || *p != ','); p++) {
		if (*p == '\'' && !dq)
			sq = !sq;
		else if (*p == '"' && !sq)
			dq = !dq;
	}
	if (sq || dq) {
		*bad = true;
		return NULL;
	}
	*cursor = *p ? p + 1 : p;
	*p = '\0';
	len = strlen(start);
	if (len >= 2 && (start[0] == '\'' || start[0] == '"') && start[len - 1] == start[0]) {
		start[len - 1] = '\0';
		start++;
	}
	return start;
}

static int put_export_list(const struct job_opts *o, const struct job_env *proc, struct job_env *job,
			   char *warn, size_t n)
{
	char *list = strdup(o->export_env), *cur = list, *tok;
	bool bad = false;
	int r = 0;

	if (!list)
		return -ENOMEM;
	while (r == 0 && (tok = quote_token(&cur, &bad))) {
		const char *v;

		if (!strcasecmp(tok, "ALL")) {
			for (uint32_t i = 0; i < proc->n && r == 0; i++)
				r = env_put(job, proc->v[i]);
		} else if (strchr(tok, '=')) {
			r = env_put(job, tok);
		} else if ((v = job_env_get(proc, tok))) {
			r = job_env_set(job, tok, "%s", v);
		}
	}
	if (bad && warn && n)
		snprintf(warn, n, "%s: error: Improperly formed environment variable (%s)\n",
			 o->prog, cur);
	free(list);
	return r;
}

#define EXPORT_FILE_MAX (1u << 20) /* --export-file: at most 1 MiB of definitions */

/* --export-file=FILE|FD: NAME=value definitions separated by NUL bytes
 * (a file without any: by lines), added to the job's environment over
 * what --export gave. A number from 3 up is a descriptor sbatch inherited.
 * 0, -ENOMEM, or -EINVAL with warn filled. */
static int put_export_file(const struct job_opts *o, struct job_env *job, char *warn, size_t n)
{
	const char *arg = o->raw[JOPT_EXPORT_FILE];
	char *end = NULL, *buf = NULL;
	long fdn = strtol(arg, &end, 10);
	bool is_fd = *arg && !*end && fdn >= 3 && fdn < INT32_MAX;
	int fd = is_fd ? (int)fdn : open(arg, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	char sep;
	int r = fd < 0 ? -errno : read_bounded(fd, EXPORT_FILE_MAX, &buf, &len);

	if (fd >= 0 && !is_fd)
		close(fd);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (warn && n)
			snprintf(warn, n, "%s: error: --export-file: %s: %s\n", o->prog, arg,
				 strerror(-r));
		return -EINVAL;
	}
	sep = memchr(buf, '\0', len) ? '\0' : '\n';
	for (size_t i = 0; i < len && r == 0;) {
		char *e = buf + i, *stop = memchr(e, sep, len - i);
		size_t el = stop ? (size_t)(stop - e) : len - i;

		e[el] = '\0';
		if (el && strchr(e, '='))
			r = env_put(job, e);
		i += el + 1;
	}
	free(buf);
	return r;
}

int sbatch_build_env(const struct job_opts *o, char *const *proc_env, const struct sl_conf *conf,
		     char ***ret_env, uint32_t *ret_count, char *warn, size_t n)
{
	struct job_env proc = {0}, job = {0};
	const char *x = o->export_env;
	int r = 0;

	if (warn && n)
		warn[0] = '\0';
	for (char *const *p = proc_env; p && *p && r == 0; p++)
		r = env_put(&proc, *p);
	if (r == 0)
		r = put_sbatch_vars(o, &proc, conf);
	if (r == 0 && x && strcasecmp(x, "ALL") && strcasecmp(x, "NONE"))
		r = put_export_list(o, &proc, &job, warn, n);
	for (uint32_t i = 0; i < proc.n && r == 0; i++)
		if (!x || !strcasecmp(x, "ALL") || !strncmp(proc.v[i], "SLURM_", 6))
			r = env_put(&job, proc.v[i]);
	if (r == 0 && o->raw[JOPT_EXPORT_FILE])
		r = put_export_file(o, &job, warn, n);
	if (r == 0 && ((x && strcasecmp(x, "ALL")) || o->raw[JOPT_GET_USER_ENV]))
		r = job_env_set(&job, "SLURM_GET_USER_ENV", "1");
	/* the option echoes srun reads inside the job (set_env_from_opts) */
	if (r == 0 && o->gpus)
		r = job_env_set(&job, "SLURM_GPUS", "%s", o->gpus);
	if (r == 0 && o->gpus_per_node)
		r = job_env_set(&job, "SLURM_GPUS_PER_NODE", "%s", o->gpus_per_node);
	if (r == 0 && o->cpus_set)
		r = job_env_set(&job, "SLURM_CPUS_PER_TASK", "%d", o->cpus_per_task);
	if (r == 0)
		r = job_opt_gpu_env(o, &job);
	if (r == 0 && o->ntasks_set) {
		r = job_env_set(&job, "SLURM_NPROCS", "%d", o->ntasks);
		r |= job_env_set(&job, "SLURM_NTASKS", "%d", o->ntasks);
	}
	if (r == 0 && o->ntasks_per_node > 0)
		r = job_env_set(&job, "SLURM_NTASKS_PER_NODE", "%d", o->ntasks_per_node);
	if (r == 0 && o->raw[JOPT_DISTRIBUTION])
		r = job_env_set(&job, "SLURM_DISTRIBUTION", "%s", o->raw[JOPT_DISTRIBUTION]);
	if (r == 0)
		r = job_opt_step_env(o, &job);
	job_env_done(&proc);
	if (r < 0) {
		job_env_done(&job);
		return r == -EINVAL ? -EINVAL : -ENOMEM;
	}
	*ret_count = (uint32_t)job.n;
	*ret_env = job_env_take_v(&job, NULL);
	return 0;
}
