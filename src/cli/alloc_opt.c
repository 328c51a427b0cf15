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

struct argv_pass {
	const struct alloc_opt_def *tab;
	struct job_opts *o;
	alloc_opt_own_fn *own;
	void *arg;
};

static int argv_on(void *arg, int val, const char *optarg_, struct job_opt_err *e)
{
	struct argv_pass *p = arg;

	/* every val comes from the table, so the row is always there */
	return apply(row_of_val(p->tab, val), p->o, p->own, p->arg, optarg_, JOB_OPT_SRC_CLI, e);
}

int alloc_opt_parse_argv(const struct alloc_opt_def *tab, struct job_opts *o,
			 alloc_opt_own_fn *own, void *arg, int argc, char **argv, int *ret_optind,
			 struct job_opt_err *e)
{
	struct argv_pass p = {tab, o, own, arg};
	struct option *lo;
	size_t n = 0;
	int r;

	while (tab[n].name)
		n++;
	lo = calloc(n + 1, sizeof(*lo));
	if (!lo)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		lo[i] = (struct option){tab[i].name, tab[i].has_arg, NULL, row_val(tab, &tab[i])};
	r = job_opt_getopt(o->prog, lo, argv_on, &p, argc, argv, ret_optind, e);
	free(lo);
	return r;
}

int alloc_opt_parse_env(const struct alloc_opt_def *tab, const struct alloc_env_def *envtab,
			struct job_opts *o, alloc_opt_own_fn *own, void *arg, char *const *envp,
			struct job_opt_err *e)
{
	for (const struct alloc_env_def *v = envtab; v->env; v++) {
		const char *val = job_opt_env_get(envp, v->env), *a;
		const struct alloc_opt_def *d = tab;
		int r = 0;

		while (d->name && d->id != v->id)
			d++;
		if (!val || !d->name)
			continue;
		if (job_opt_env_arg(d->has_arg, val, &a))
			r = apply(d, o, own, arg, a, JOB_OPT_SRC_ENV, e);
		if (r < 0)
			return r;
	}
	return 0;
}

bool alloc_opt_accepts(const char *name, const void *tab)
{
	for (const struct alloc_opt_def *d = tab; d->name; d++)
		if (!strcmp(d->name, name))
			return true;
	return false;
}
