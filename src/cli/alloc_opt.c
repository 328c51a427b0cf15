/* alloc_opt.c - option passes of srun and salloc; see alloc_opt.h.
 * Caveat: getopt_long keeps state in globals, one pass at a time.
 */
#include "cli/alloc_opt.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int apply(const struct alloc_opt_def *d, struct job_opts *o, alloc_opt_own_fn *own,
		 void *arg, const char *optarg_, enum job_opt_src src, struct job_opt_err *e)
{
	if (d->id >= ALLOC_OPT_OWN)
		return own ? own(arg, d->id, optarg_, src, e) : 0;
	return job_opt_set(o, (enum job_opt_id)d->id, optarg_, src, e);
}

/* getopt's val of a row: its letter, else 0x100 + the first row of its id. */
static int row_val(const struct alloc_opt_def *tab, const struct alloc_opt_def *d)
{
	if (d->short_opt)
		return d->short_opt;
	for (const struct alloc_opt_def *p = tab; p->name; p++)
		if (p->id == d->id)
			return 0x100 + (int)(p - tab);
	return 0;
}

static const struct alloc_opt_def *row_of_val(const struct alloc_opt_def *tab, int val)
{
	if (val >= 0x100)
		return &tab[val - 0x100];
	for (const struct alloc_opt_def *d = tab; d->name; d++)
		if (d->short_opt == val)
			return d;
	return NULL;
}

int alloc_opt_parse_argv(const struct alloc_opt_def *tab, struct job_opts *o,
			 alloc_opt_own_fn *own, void *arg, int argc, char **argv, int *ret_optind,
			 struct job_opt_err *e)
{
	char shorts[256] = "+";
	struct option *lo;
	char **av;
	size_t n = 0, sl = 1;
	int c, idx, r = 0;

	while (tab[n].name)
		n++;
	lo = calloc(n + 1, sizeof(*lo));
	av = calloc((size_t)argc + 1, sizeof(*av));
	if (!lo || !av) {
		free(lo);
		free(av);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct alloc_opt_def *d = &tab[i];

		lo[i] = (struct option){d->name, d->has_arg, NULL, row_val(tab, d)};
		if (d->short_opt && sl + 3 < sizeof(shorts) && !strchr(shorts, d->short_opt)) {
			shorts[sl++] = d->short_opt;
			if (d->has_arg != no_argument)
				shorts[sl++] = ':';
			if (d->has_arg == optional_argument)
				shorts[sl++] = ':';
		}
	}
	shorts[sl] = '\0';
	av[0] = (char *)o->prog;
	for (int i = 1; i < argc; i++)
		av[i] = argv[i];
	optind = 0;
	opterr = 1;
	while (r == 0 && (c = getopt_long(argc, av, shorts, lo, &idx)) != -1) {
		const struct alloc_opt_def *d = c == '?' || c == ':' ? NULL : row_of_val(tab, c);

		if (!d) {
			job_opt_raw(e, "Try \"%s --help\" for more information\n", o->prog);
			e->exit_code = JOB_OPT_EXIT_ARG;
			r = -EINVAL;
			break;
		}
		r = apply(d, o, own, arg, optarg, JOB_OPT_SRC_CLI, e);
	}
	if (ret_optind)
		*ret_optind = optind;
	free(lo);
	free(av);
	return r;
}

const char *alloc_env_get(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

/* Slurm's rule for a variable of an option without argument. */
static bool env_true(const char *v)
{
	return !*v || !strcasecmp(v, "yes") || atoi(v) != 0;
}

int alloc_opt_parse_env(const struct alloc_opt_def *tab, const struct alloc_env_def *envtab,
			struct job_opts *o, alloc_opt_own_fn *own, void *arg, char *const *envp,
			struct job_opt_err *e)
{
	for (const struct alloc_env_def *v = envtab; v->env; v++) {
		const char *val = alloc_env_get(envp, v->env);
		const struct alloc_opt_def *d = tab;
		int r = 0;

		while (d->name && d->id != v->id)
			d++;
		if (!val || !d->name)
			continue;
		if (d->has_arg == no_argument) {
			if (env_true(val))
				r = apply(d, o, own, arg, NULL, JOB_OPT_SRC_ENV, e);
		} else if (d->has_arg == optional_argument) {
			r = apply(d, o, own, arg, *val ? val : NULL, JOB_OPT_SRC_ENV, e);
		} else {
			r = apply(d, o, own, arg, val, JOB_OPT_SRC_ENV, e);
		}
		if (r < 0)
			return r;
	}
	return 0;
}
