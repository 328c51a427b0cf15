/* alloc_opt.h - command-line and input-variable passes for srun and
 * salloc over their own option tables, on top of the shared job option
 * model (job_opt.h).
 *
 * A row names an option as the command spells it; its id is either a
 * shared enum job_opt_id (applied with job_opt_set(), so values, errors
 * and exit codes are sbatch's) or a command-specific id >= ALLOC_OPT_OWN
 * handed to the command's own callback. Input variables live in a second
 * table, several names may feed one option.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "cli/job_opt.h"

#define ALLOC_OPT_OWN 1000

struct alloc_opt_def {
	const char *name; /* long name; NULL ends the table */
	char short_opt;	  /* 0: none */
	uint8_t has_arg;  /* getopt's no_argument/required_argument/optional_argument */
	int id;		  /* enum job_opt_id, or >= ALLOC_OPT_OWN */
};

struct alloc_env_def {
	const char *env; /* NULL ends the table */
	int id;		 /* as alloc_opt_def.id; the option row gives has_arg */
};

/* The command's own options: 0, JOB_OPT_STOP or < 0 with err filled. */
typedef int alloc_opt_own_fn(void *arg, int id, const char *optarg, enum job_opt_src src,
			     struct job_opt_err *err);

/* getopt_long over argv (stops at the first non-option), in order.
 * Unknown options: glibc's complaint, then "Try \"<prog> --help\" for
 * more information" (exit 255). Returns 0, JOB_OPT_STOP or < 0. */
int alloc_opt_parse_argv(const struct alloc_opt_def *tab, struct job_opts *o,
			 alloc_opt_own_fn *own, void *arg, int argc, char **argv, int *ret_optind,
			 struct job_opt_err *err);

/* Apply the input variables of envtab found in envp, in table order. */
int alloc_opt_parse_env(const struct alloc_opt_def *tab, const struct alloc_env_def *envtab,
			struct job_opts *o, alloc_opt_own_fn *own, void *arg, char *const *envp,
			struct job_opt_err *err);

/* job_opt_help_print()'s accepts() over a table of these (arg is the
 * table): is name one of its long options? */
bool alloc_opt_accepts(const char *name, const void *tab);
