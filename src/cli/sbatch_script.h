/* sbatch_script.h - the batch script and what sbatch sends besides its
 * options: reading and checking the script, --wrap, the #SBATCH directives
 * it carries, and the environment the job gets.
 *
 * Errors fill struct job_opt_err with Slurm's exact stderr text and exit
 * code (job_opt.h); file names in directive errors are the script's base
 * name, or "stdin".
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

struct job_opts;
struct job_opt_err;
struct sl_conf;

/* Read the whole script from path, or from fd when path is NULL. Caps it
 * at SL_SCRIPT_MAX ("Script file %s is too large", fatal). *ret is
 * malloc'd and NUL-terminated; *ret_len excludes the NUL. */
int sbatch_script_read(const char *prog, const char *path, int fd, char **ret, size_t *ret_len,
		       struct job_opt_err *err);

/* Slurm's sanity tests, in its order: empty, only whitespace, no "#!",
 * a NUL byte, a "\r\n". Returns 0 or -EINVAL (exit error_exit). */
int sbatch_script_check(const char *prog, const char *buf, size_t len, struct job_opt_err *err);

/* The --wrap script: "#!/bin/sh\n# This script was created by sbatch
 * --wrap.\n\n<cmd>\n". malloc'd, NULL on ENOMEM. */
char *sbatch_script_wrap(const char *cmd);

/* The #SBATCH (and #SLURM) directives before the first command line, as
 * an argv for job_opt_parse_argv(): argv[0] is prog, argv[argc] NULL. */
struct sbatch_directives {
	char **argv;
	int argc;
	int cap;	/* slots allocated in argv */
	char warn[256]; /* a note to print as is ("Change from #SLURM ..."), or "" */
};

/* Tokenize like Slurm: blanks separate, '...' and "..." group (quotes
 * removed), a backslash keeps the next non-blank character, an unquoted
 * '#' ends the line, an empty token ends the line. "Unmatched `\"`" and
 * "Unexpected `:`" are fatal (exit 1). Lines that are blank or comments
 * before the first command are skipped. file names the script in errors. */
int sbatch_script_directives(const char *prog, const char *buf, size_t len, const char *file,
			     struct sbatch_directives *ret, struct job_opt_err *err);
void sbatch_directives_done(struct sbatch_directives *d);

/* Apply directives to o as the script source; a word that is not an
 * option stops them: "Invalid directive found in batch script: %s" (255). */
int sbatch_script_apply(struct job_opts *o, const struct sbatch_directives *d,
			struct job_opt_err *err);

/* Build the job's environment from proc_env as sbatch does: first sbatch's
 * own SLURM_* additions to its environment (job name, open mode,
 * dependency, export list, rlimits per PropagateResourceLimits, priority,
 * submit dir and host, umask), then --export (unset or ALL: everything;
 * NONE: SLURM_* only; a list: the named or assigned variables in order,
 * "ALL" merging everything where it stands, then every SLURM_*), then
 * --export-file's definitions (NUL-separated, or by lines), any --export
 * value but ALL adding SLURM_GET_USER_ENV=1, then the option echoes srun
 * reads in the job (SLURM_GPUS, SLURM_CPUS_PER_TASK, SLURM_NTASKS...).
 * conf may be NULL. A quote left open in --export puts Slurm's
 * "Improperly formed environment variable (...)" line in warn (size n)
 * and drops the rest of the list. Sets *ret_env and *ret_count (owned, free
 * with strv_free). Returns 0, -ENOMEM, or -EINVAL with warn saying why
 * (an --export-file that cannot be opened). */
int sbatch_build_env(const struct job_opts *o, char *const *proc_env, const struct sl_conf *conf,
		     char ***ret_env, uint32_t *ret_count, char *warn, size_t n);
