/* sbatch.c - the sbatch command: submit a batch script to slurmctld.
 *
 * Purpose: Slurm 22.05's sbatch flow. A first pass over the command line
 * checks every option and finds the script (or --wrap); the script is read
 * and checked; a second pass applies #SBATCH directives, then SBATCH_*
 * variables, then the command line again (each overriding the last); the
 * result becomes a struct job_desc sent as REQUEST_SUBMIT_BATCH_JOB (or
 * REQUEST_JOB_WILL_RUN for --test-only), and -W polls REQUEST_JOB_INFO
 * until the job ends.
 * Errors print Slurm's texts with its exit codes (see job_opt.h). The
 * controller's user message ("invalid partition specified: X") is printed
 * as an error line before "Batch job submission failed: <strerror>".
 * Caveats: -M/--clusters and the options job_opt_table.c lists without a
 * parser are accepted and ignored; --test-only's processor count is
 * estimated here because the will-run reply does not carry one; -V prints
 * the project's shared version line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "api/job_fetch.h"
#include "cli/cli.h"
#include "cli/job_opt.h"
#include "cli/job_opt_help.h"
#include "cli/sbatch_script.h"
#include "api/wait_client.h"
#include "common/conf.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/msg_wait.h"
#include "common/pack.h"
#include "common/parse_time.h"
#include "common/sl_errno.h"

#define SUBMIT_MAX_RETRIES 15 /* Slurm's MAX_RETRIES */
#define WAIT_RETRY_SLEEP   2  /* seconds between -W's tries to reach the controller */

extern char **environ;

static const char usage_text[] =
    "Usage: sbatch [-N nnodes] [-n ntasks]\n"
    "              [-c ncpus] [-r n] [-p partition] [--hold] [--parsable] [-t minutes]\n"
    "              [-D path] [--no-kill] [--overcommit]\n"
    "              [--input file] [--output file] [--error file]\n"
    "              [--time-min=minutes] [--licenses=names] [--clusters=cluster_names]\n"
    "              [--chdir=directory] [--oversubscribe] [-m dist] [-J jobname]\n"
    "              [--verbose] [--gid=group] [--uid=user]\n"
    "              [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
    "              [--account=name] [--dependency=type:jobid[+time]] [--comment=name]\n"
    "              [--mail-type=type] [--mail-user=user] [--nice[=value]] [--wait]\n"
    "              [--requeue] [--no-requeue] [--ntasks-per-node=n] [--propagate]\n"
    "              [--nodefile=file] [--nodelist=hosts] [--exclude=hosts]\n"
    "              [--network=type] [--mem-per-cpu=MB] [--qos=qos] [--gres=list]\n"
    "              [--mem-bind=...] [--reservation=name] [--mcs-label=mcs]\n"
    "              [--cpu-freq=min[-max[:gov]]] [--power=flags] [--gres-flags=opts]\n"
    "              [--switches=max-switches{@max-time-to-wait}] [--reboot]\n"
    "              [--core-spec=cores] [--thread-spec=threads]\n"
    "              [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
    "              [--array=index_values] [--profile=...] [--ignore-pbs] [--spread-job]\n"
    "              [--export[=names]] [--export-file=file|fd] [--delay-boot=mins]\n"
    "              [--use-min-nodes]\n"
    "              [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
    "              [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]\n"
    "              [--mem-per-gpu=MB]\n"
    "              executable [args...]\n";

static const char help_usage_line[] =
    "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]";
struct sbatch {
	int error_exit;	   /* SLURM_EXIT_ERROR, default 1 */
	bool quiet;	   /* -Q from the command line (Slurm keeps the first pass's) */
	char *script_path; /* resolved, NULL for stdin and --wrap */
	char **script_args;
	int script_argc;
	char *script;
	size_t script_len;
};

static void die(const struct sbatch *s, const struct job_opt_err *e)
{
	fflush(stdout);
	fputs(e->text, stderr);
	exit(e->exit_code == JOB_OPT_EXIT_ERROR ? s->error_exit : e->exit_code);
}

/* Slurm's _set_exit_code(). */
static int exit_code_from_env(void)
{
	const char *v = getenv("SLURM_EXIT_ERROR");
	int code;

	if (!v)
		return CLI_EXIT_ERROR;
	code = atoi(v);
	if (code == 0) {
		cli_error("SLURM_EXIT_ERROR has zero value");
		return CLI_EXIT_ERROR;
	}
	return code;
}

static bool readable_file(const char *path)
{
	struct stat st;

	return access(path, R_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Slurm's search_path(): a bare name is looked for in the cwd, then in
 * PATH; a name with a '/' is kept as written. */
static char *resolve_script(const char *cwd, const char *name)
{
	const char *path = getenv("PATH");
	char *full = NULL;

	if (strchr(name, '/'))
		return strdup(name);
	if (cwd && asprintf(&full, "%s/%s", cwd, name) >= 0) {
		if (readable_file(full))
			return full;
		free(full);
	}
	for (const char *p = path; p && *p;) {
		size_t len = strcspn(p, ":");

		if (len && asprintf(&full, "%.*s/%s", (int)len, p, name) >= 0) {
			if (readable_file(full))
				return full;
			free(full);
		}
		p += len + (p[len] == ':');
	}
	return strdup(name);
}

/* First pass: every option checked once, --help/--usage/-V acted on,
 * the script and its arguments found. Exits on any error. */
static void first_pass(struct sbatch *s, struct job_opts *o, int argc, char **argv)
{
	struct job_opt_err err = {0};
	int ind = argc, r;

	r = job_opt_parse_argv(o, argc, argv, JOB_OPT_SRC_CLI, &ind, &err);
	if (r == JOB_OPT_STOP) {
		if (o->help)
			job_opt_help_print(stdout, JOB_CMD_SBATCH, help_usage_line,
					   job_opt_table_accepts, NULL);
		else if (o->usage)
			fputs(usage_text, stdout);
		else
			cli_print_version();
		exit(CLI_EXIT_OK);
	}
	if (r < 0)
		die(s, &err);
	if (ind < argc && o->wrap) {
		cli_error("Script arguments not permitted with --wrap option");
		exit(s->error_exit);
	}
	s->quiet = o->quiet > 0;
	s->script_args = argv + ind;
	s->script_argc = argc - ind;
	if (s->script_argc && !(s->script_path = resolve_script(o->cwd, argv[ind]))) {
		cli_error("Out of memory");
		exit(s->error_exit);
	}
}

static void read_script(struct sbatch *s, const struct job_opts *o)
{
	struct job_opt_err err = {0};
	int r;

	if (o->wrap) {
		s->script = sbatch_script_wrap(o->wrap);
		s->script_len = s->script ? strlen(s->script) : 0;
		r = s->script ? 0 : -ENOMEM;
	} else {
		r = sbatch_script_read(cli_prog(), s->script_path, STDIN_FILENO, &s->script,
				       &s->script_len, &err);
		if (r == 0)
			r = sbatch_script_check(cli_prog(), s->script, s->script_len, &err);
	}
	if (r == -ENOMEM)
		job_opt_fail(&err, cli_prog(), JOB_OPT_EXIT_ERROR, "Out of memory");
	if (r < 0)
		die(s, &err);
}

/* Second pass: script directives, then SBATCH_*, then the command line. */
static void second_pass(struct sbatch *s, struct job_opts *o, int argc, char **argv)
{
	struct sbatch_directives d = {0};
	struct job_opt_err err = {0};
	const char *file = "stdin";
	char info[256];
	int r;

	if (s->script_path) {
		file = strrchr(s->script_path, '/');
		file = file ? file + 1 : s->script_path;
	}
	r = sbatch_script_directives(cli_prog(), s->script, s->script_len, file, &d, &err);
	if (r == 0) {
		fputs(d.warn, stderr);
		r = sbatch_script_apply(o, &d, &err);
	}
	sbatch_directives_done(&d);
	if (r == 0)
		r = job_opt_parse_env(o, environ, &err);
	if (r == 0)
		r = job_opt_parse_argv(o, argc - s->script_argc, argv, JOB_OPT_SRC_CLI, NULL, &err);
	if (r == 0)
		r = job_opt_verify(o, info, sizeof(info), &err);
	if (r < 0)
		die(s, &err);
	if (!s->quiet)
		fputs(info, stderr);
	if (!o->job_name && (o->wrap || s->script_path)) {
		const char *base = o->wrap ? "wrap" : file;

		if (!(o->job_name = strdup(base)))
			exit(s->error_exit);
	}
}

/* Slurm's slurm_print_set_options(). */
static void print_options(const struct job_opts *o)
{
	const char *p = cli_prog();
	char buf[512];

	fprintf(stderr, "%s: defined options\n", p);
	fprintf(stderr, "%s: -------------------- --------------------\n", p);
	for (int id = 0; id < _JOPT_COUNT; id++) {
		const char *v = job_opt_show(o, (enum job_opt_id)id, buf, sizeof(buf));

		if (v)
			fprintf(stderr, "%s: %-20s: %s\n", p, job_opt_name((enum job_opt_id)id), v);
	}
	fprintf(stderr, "%s: -------------------- --------------------\n", p);
	fprintf(stderr, "%s: end of defined options\n", p);
}

static void build_desc(struct sbatch *s, const struct job_opts *o, const struct sl_conf *conf,
		       struct job_desc *d)
{
	char warn[1200];
	int r;

	r = job_opt_fill_desc(o, d);
	if (r == 0 && !d->name && !(d->name = strdup("sbatch")))
		r = -ENOMEM;
	if (r == 0 && s->script_argc) {
		d->argv = calloc((size_t)s->script_argc, sizeof(*d->argv));
		r = d->argv ? 0 : -ENOMEM;
		for (int i = 0; r == 0 && i < s->script_argc; i++) {
			d->argv[i] = strdup(i ? s->script_args[i] : s->script_path);
			r = d->argv[i] ? 0 : -ENOMEM;
			d->argc = (uint32_t)i + 1;
		}
	}
	if (r == 0)
		r = sbatch_build_env(o, environ, conf, &d->env, &d->env_count, warn, sizeof(warn));
	if (r == -EINVAL) { /* an --export-file that cannot be read: warn says why */
		fputs(warn, stderr);
		exit(s->error_exit);
	}
	if (r < 0) {
		cli_error("Out of memory");
		exit(s->error_exit);
	}
	fputs(warn, stderr);
	d->script = s->script;
	s->script = NULL;
}

/* Print a controller message one "<prog>: [error: ]line" per line. */
static void print_user_msg(const char *msg, bool is_error)
{
	for (const char *p = msg; p && *p;) {
		size_t len = strcspn(p, "\n");

		fprintf(stderr, "%s: %s%.*s\n", cli_prog(), is_error ? "error: " : "", (int)len, p);
		p += len + (p[len] == '\n');
	}
}

/* Values only the controller interprets, checked here for the obvious
 * mistakes: the code it would answer, or 0. */
static int precheck(const struct job_opts *o)
{
	if (o->array && !job_opt_array_ok(o->array))
		return -ESLURM_INVALID_ARRAY;
	if (o->dependency && !job_opt_dependency_ok(o->dependency))
		return -ESLURM_DEPENDENCY;
	return 0;
}

static void test_only(const struct sbatch *s, const struct job_opts *o, const struct sl_conf *conf,
		      const struct job_desc *d)
{
	struct submit_response *resp = NULL;
	char when[64];
	uint32_t procs;
	int r = precheck(o);

	if (r == 0)
		r = ctld_fetch(conf, REQUEST_JOB_WILL_RUN, d, RESPONSE_JOB_WILL_RUN,
			       (void **)&resp);
	if (r == 0 && resp->error_code)
		r = -(int)resp->error_code;
	if (r < 0) {
		if (resp)
			print_user_msg(resp->user_msg, true);
		cli_perror("allocation failure", r);
		exit(CLI_EXIT_ERROR);
	}
	procs = resp->proc_cnt;
	if (!s->quiet)
		fprintf(stderr,
			"%s: Job %u to start at %s using %u processors on nodes %s in partition "
			"%s\n",
			cli_prog(), resp->job_id,
			time_display(resp->start_time, when, sizeof(when)), procs,
			resp->node_list ? resp->node_list : "(null)",
			resp->partition ? resp->partition : "(null)");
	msg_free(msg_lookup(RESPONSE_JOB_WILL_RUN), resp);
	exit(CLI_EXIT_OK);
}

/* One submission attempt: 0 and *ret_id, or the negative code. */
static int submit_once(const struct sbatch *s, const struct sl_conf *conf, const struct job_desc *d,
		       uint32_t *ret_id)
{
	struct submit_response *resp = NULL;
	int r;

	r = ctld_fetch(conf, REQUEST_SUBMIT_BATCH_JOB, d, RESPONSE_SUBMIT_BATCH_JOB,
		       (void **)&resp);
	if (r < 0)
		return r;
	r = resp->error_code ? -(int)resp->error_code : 0;
	if (r < 0 || !s->quiet)
		print_user_msg(resp->user_msg, r < 0);
	*ret_id = resp->job_id;
	msg_free(msg_lookup(RESPONSE_SUBMIT_BATCH_JOB), resp);
	return r;
}

/* Slurm's retry loop around slurm_submit_batch_job(). */
static uint32_t submit(const struct sbatch *s, const struct sl_conf *conf, const struct job_desc *d)
{
	uint32_t id = 0;

	for (int retries = 0;; retries++) {
		const char *msg = NULL;
		int r = submit_once(s, conf, d, &id);

		if (r == 0)
			return id;
		if (r == -ESLURM_ERROR_ON_DESC_TO_RECORD_COPY)
			msg = "Slurm job queue full, sleeping and retrying";
		else if (r == -ESLURM_NODES_BUSY)
			msg = "Job creation temporarily disabled, retrying";
		else if (r == -EAGAIN)
			msg = "Slurm temporarily unable to accept job, sleeping and retrying";
		if (!msg || retries >= SUBMIT_MAX_RETRIES) {
			cli_error("Batch job submission failed: %s", sl_strerror(r));
			exit(s->error_exit);
		}
		if (retries == 0 && r == -ESLURM_NODES_BUSY && !s->quiet)
			fprintf(stderr, "%s: %s\n", cli_prog(), msg);
		else if (retries == 0 && r != -ESLURM_NODES_BUSY)
			cli_error("%s", msg);
		sleep((unsigned)retries + 1);
	}
}

/* -W: one REQUEST_JOB_WAIT held by the controller until every record of
 * the job (all array tasks) has ended; the highest exit code wins, a
 * signal counts as 1. A controller that cannot be reached (restarting)
 * is asked again. */
static int wait_job(const struct sl_conf *conf, uint32_t job_id)
{
	for (;;) {
		struct job_wait_resp *m = NULL;
		int r, ec;

		r = wait_client_jobs(conf, &job_id, 1, JOB_WAIT_FINISHED, 0, 0, &m);
		if (r == -ESLURM_INVALID_JOB_ID) {
			cli_error("Job %u no longer found and exit code not found", job_id);
			return 0;
		}
		if (r < 0) {
			cli_error("Currently unable to load job state information, retrying: %s",
				  sl_strerror(r));
			sleep(WAIT_RETRY_SLEEP);
			continue;
		}
		if (m->count != 1 || m->jobs[0].result == JOB_WAIT_UNKNOWN) {
			cli_error("Job %u no longer found and exit code not found", job_id);
			wait_client_free(m);
			return 0;
		}
		ec = job_wait_exit_code(m->jobs[0].exit_code);
		wait_client_free(m);
		return ec;
	}
}

int main(int argc, char **argv)
{
	struct sbatch s = {0};
	struct job_opts first, o;
	struct job_desc d;
	struct sl_conf *conf = NULL;
	struct job_opt_err err = {0};
	uint32_t job_id;
	int rc = CLI_EXIT_OK;

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOLBF, 0);
	cli_init(argv[0]);
	s.error_exit = exit_code_from_env();
	if (job_opts_init(&first, cli_prog()) < 0 || job_opts_init(&o, cli_prog()) < 0)
		return s.error_exit;
	first_pass(&s, &first, argc, argv);
	read_script(&s, &first);
	job_opts_done(&first);
	second_pass(&s, &o, argc, argv);
	if (o.verbose)
		print_options(&o);
	if (cli_conf_load(&conf) < 0)
		return s.error_exit;
	if (job_opt_check_gres(&o, conf, &err) < 0)
		die(&s, &err);
	build_desc(&s, &o, conf, &d);
	if (o.test_only)
		test_only(&s, &o, conf, &d);
	rc = precheck(&o);
	if (rc < 0) {
		cli_error("Batch job submission failed: %s", sl_strerror(rc));
		exit(s.error_exit);
	}
	job_id = submit(&s, conf, &d);
	if (!s.quiet) {
		if (o.parsable)
			printf("%u\n", job_id);
		else
			printf("Submitted batch job %u\n", job_id);
		fflush(stdout);
	}
	if (o.wait)
		rc = wait_job(conf, job_id);
	job_desc_done(&d);
	job_opts_done(&o);
	free(s.script);
	free(s.script_path);
	conf_free(conf);
	return rc;
}
