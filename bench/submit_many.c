/* submit_many.c - fill a controller with held jobs fast: what `sbatch -H
 * --wrap true` sends, built once as sbatch builds it (options, script,
 * environment), then submitted N times from P processes over the client
 * library, without a process start per job. For the benchmarks at
 * 100,000 jobs, which sbatch alone would take minutes to fill.
 *
 *   build/bench_submit_many [jobs [procs [distinct]]]
 *
 * distinct=1 gives each job an environment of its own (a variable
 * SL_BENCH_JOB=<n> added), as jobs submitted from different shells have;
 * 0 (the default) sends the same environment every time. Prints one line:
 * jobs, seconds, jobs/s. Exit status 1 when a submission failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "cli/cli.h"
#include "cli/job_opt.h"
#include "cli/sbatch_script.h"
#include "common/conf.h"
#include "common/msg.h"
#include "common/sl_errno.h"

extern char **environ;

static int build(const struct sl_conf *conf, struct job_desc *d)
{
	struct job_opts o;
	struct job_opt_err err = {0};
	char *argv[] = {"sbatch", "-H", "--wrap", "true", NULL};
	char warn[1200];
	int r;

	memset(d, 0, sizeof(*d));
	if (job_opts_init(&o, "sbatch") < 0)
		return -ENOMEM;
	r = job_opt_parse_argv(&o, 4, argv, JOB_OPT_SRC_CLI, NULL, &err);
	if (r == 0)
		r = job_opt_verify(&o, NULL, 0, &err);
	if (r == 0)
		r = job_opt_fill_desc(&o, d);
	if (r == 0 && !(d->name = strdup("wrap")))
		r = -ENOMEM;
	if (r == 0)
		r = sbatch_build_env(&o, environ, conf, &d->env, &d->env_count, warn,
				     sizeof(warn));
	if (r == 0 && !(d->script = sbatch_script_wrap("true")))
		r = -ENOMEM;
	job_opts_done(&o);
	return r;
}

/* Submit jobs [first, first + n); 0 or the first error. */
static int submit_range(const struct sl_conf *conf, struct job_desc *d, uint32_t first,
			uint32_t n, bool is_distinct)
{
	char var[64];
	char *last = NULL;

	if (is_distinct) { /* one more variable, rewritten in place each job */
		char **env = realloc(d->env, (d->env_count + 2) * sizeof(*env));

		if (!env)
			return -ENOMEM;
		d->env = env;
		d->env[d->env_count] = var;
		d->env[d->env_count + 1] = NULL;
		d->env_count++;
		last = var;
	}
	for (uint32_t i = first; i < first + n; i++) {
		struct submit_response *resp = NULL;
		int r;

		if (last)
			snprintf(var, sizeof(var), "SL_BENCH_JOB=%u", i);
		r = ctld_fetch(conf, REQUEST_SUBMIT_BATCH_JOB, d, RESPONSE_SUBMIT_BATCH_JOB,
			       (void **)&resp);
		if (r == 0 && resp->error_code)
			r = -(int)resp->error_code;
		msg_free(msg_lookup(RESPONSE_SUBMIT_BATCH_JOB), resp);
		if (r == -EAGAIN) { /* MaxJobCount or a busy controller: as sbatch, again */
			usleep(100000);
			i--;
			continue;
		}
		if (r < 0) {
			fprintf(stderr, "submit_many: job %u: %s\n", i, sl_strerror(r));
			return r;
		}
	}
	if (last)
		d->env[--d->env_count] = NULL; /* var is on the stack */
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t jobs = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000;
	uint32_t procs = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 4;
	bool is_distinct = argc > 3 && atoi(argv[3]) != 0;
	struct sl_conf *conf = NULL;
	struct job_desc d;
	struct timespec t0, t1;
	int status = 0;

	if (!jobs || !procs || procs > 64)
		return 2;
	cli_init("sbatch");
	if (cli_conf_load(&conf) < 0)
		return 1;
	if (build(conf, &d) < 0) {
		fprintf(stderr, "submit_many: cannot build the job\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t p = 0; p < procs; p++) {
		uint32_t first = jobs / procs * p, n = p + 1 < procs ? jobs / procs : jobs - first;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(submit_range(conf, &d, first, n, is_distinct) < 0);
	}
	for (uint32_t p = 0; p < procs; p++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			status = 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("jobs %u, seconds %.2f, jobs/s %.0f\n", jobs, s, (double)jobs / s);
	job_desc_done(&d);
	conf_free(conf);
	return status;
}
