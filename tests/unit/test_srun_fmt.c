/* test_srun_fmt.c - srun's pure pieces: compressed counts and ranges,
 * labels, task end texts and exit codes, line buffering of task output,
 * --export filtering, and the option passes (srun's own options, its
 * input variables, Slurm's texts and exit codes). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "cli/srun_env.h"
#include "cli/srun_fmt.h"
#include "cli/srun_opt.h"
#include "cli/srun_out.h"
#include "common/job_env.h"
#include "common/msg.h"

static void test_counts(void **state)
{
	uint32_t a[] = {4, 4, 2}, b[] = {1, 3}, c[] = {2, 2, 2, 2};
	char *s;

	(void)state;
	s = srun_counts_str(a, 3);
	assert_string_equal(s, "4(x2),2");
	free(s);
	s = srun_counts_str(b, 2);
	assert_string_equal(s, "1,3");
	free(s);
	s = srun_counts_str(c, 4);
	assert_string_equal(s, "2(x4)");
	free(s);
	s = srun_counts_str(c, 0);
	assert_string_equal(s, "");
	free(s);
}

static void test_ranges(void **state)
{
	uint32_t a[] = {0, 1, 2, 3, 5, 7, 8}, b[] = {2};
	char *s;

	(void)state;
	s = srun_ranges_str(a, 7);
	assert_string_equal(s, "0-3,5,7-8");
	free(s);
	s = srun_ranges_str(b, 1);
	assert_string_equal(s, "2");
	free(s);
}

static void test_label_width(void **state)
{
	(void)state;
	assert_int_equal(srun_label_width(1), 1);
	assert_int_equal(srun_label_width(10), 1);
	assert_int_equal(srun_label_width(11), 2);
	assert_int_equal(srun_label_width(101), 3);
}

static void test_status(void **state)
{
	char buf[128];

	(void)state;
	assert_null(srun_status_text(0, buf, sizeof(buf)));
	assert_string_equal(srun_status_text(3 << 8, buf, sizeof(buf)), "Exited with exit code 3");
	assert_string_equal(srun_status_text(SIGKILL, buf, sizeof(buf)), "Killed");
	assert_string_equal(srun_status_text(SIGSEGV | 0x80, buf, sizeof(buf)),
			    "Segmentation fault (core dumped)");
	assert_int_equal(srun_status_code(3 << 8), 3);
	assert_int_equal(srun_status_code(SIGKILL), 128 + SIGKILL);
	assert_int_equal(srun_status_code(0), 0);
}

/* Feed chunks of one task's stream; returns what is printed (static). */
static const char *feed(struct srun_out_stream *s, const struct srun_out_fmt *f, uint32_t task,
			const char *data, bool eof)
{
	static struct srun_buf out;

	out.len = 0;
	assert_int_equal(srun_out_feed(s, f, task, data, strlen(data), eof, &out), 0);
	assert_int_equal(srun_buf_add(&out, "", 1), 0);
	return out.data;
}

static void test_out_buffered(void **state)
{
	struct srun_out_fmt f = {.label_width = 2};
	struct srun_out_stream s = {0};

	(void)state;
	assert_string_equal(feed(&s, &f, 3, "a\nb", false), " 3: a\n");
	assert_string_equal(feed(&s, &f, 3, "c", false), "");
	assert_string_equal(feed(&s, &f, 3, "d\ne\nf", false), " 3: bcd\n 3: e\n");
	assert_string_equal(feed(&s, &f, 3, "", true), " 3: f");
	srun_out_stream_done(&s);
	f.label_width = 0;
	assert_string_equal(feed(&s, &f, 0, "x\ny", false), "x\n");
	assert_string_equal(feed(&s, &f, 0, "", true), "y");
	srun_out_stream_done(&s);
}

static void test_out_unbuffered(void **state)
{
	struct srun_out_fmt f = {.label_width = 1, .unbuffered = true};
	struct srun_out_stream s = {0};

	(void)state;
	assert_string_equal(feed(&s, &f, 1, "ab", false), "1: ab");
	assert_string_equal(feed(&s, &f, 1, "c\nd", false), "c\n1: d");
	assert_string_equal(feed(&s, &f, 1, "\n", false), "\n");
	srun_out_stream_done(&s);
}

static void test_export(void **state)
{
	char *envp[] = {"HOME=/root", "PATH=/bin", "SLURM_CONF=/etc/s.conf", "FOO=1", NULL};
	struct job_env e = {0};

	(void)state;
	assert_int_equal(srun_env_export(&e, NULL, envp), 0);
	assert_int_equal(e.n, 4);
	job_env_done(&e);
	assert_int_equal(srun_env_export(&e, "NONE", envp), 0);
	assert_int_equal(e.n, 1);
	assert_string_equal(job_env_get(&e, "SLURM_CONF"), "/etc/s.conf");
	job_env_done(&e);
	assert_int_equal(srun_env_export(&e, "PATH,BAR=2", envp), 0);
	assert_string_equal(job_env_get(&e, "PATH"), "/bin");
	assert_string_equal(job_env_get(&e, "BAR"), "2");
	assert_null(job_env_get(&e, "HOME"));
	job_env_done(&e);
	assert_int_equal(srun_env_export(&e, "ALL,BAR=2", envp), 0);
	assert_int_equal(e.n, 5);
	job_env_done(&e);
}

/* srun <args...> with envp; returns srun_opt_parse()'s code. */
static int parse(struct srun_opts *o, struct job_opt_err *e, char **envp, ...)
{
	char *argv[32] = {"srun"}, info[256];
	int argc = 1;
	va_list ap;

	va_start(ap, envp);
	for (char *a; argc < 31 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	*o = (struct srun_opts){0};
	*e = (struct job_opt_err){0};
	return srun_opt_parse(o, argc, argv, envp, info, sizeof(info), e);
}

static void test_opt_basic(void **state)
{
	char *env[] = {NULL};
	struct srun_opts o;
	struct job_opt_err e;

	(void)state;
	cli_init("srun");
	assert_int_equal(parse(&o, &e, env, "-n4", "-l", "-K", "-u", "-W", "5", "-X", "-o", "0",
			       "--mpi=pmi2", "-m", "cyclic", "hostname", "-x", NULL),
			 0);
	assert_int_equal(o.job.ntasks, 4);
	assert_true(o.label && o.kill_bad_exit && o.unbuffered && o.disable_status);
	assert_int_equal(o.max_wait, 5);
	assert_string_equal(o.ofname, "0");
	assert_string_equal(o.mpi, "pmi2");
	assert_string_equal(o.distribution, "cyclic");
	assert_int_equal(o.argc, 2);
	assert_string_equal(o.argv[0], "hostname");
	assert_int_equal(o.jobid, 0);
	srun_opts_done(&o);
}

static void test_opt_errors(void **state)
{
	char *env[] = {NULL};
	struct srun_opts o;
	struct job_opt_err e;

	(void)state;
	cli_init("srun");
	assert_true(parse(&o, &e, env, "-n", "0", "true", NULL) < 0);
	assert_string_equal(e.text, "srun: error: Invalid numeric value \"0\" for --ntasks.\n");
	assert_int_equal(e.exit_code, 1);
	srun_opts_done(&o);
	assert_true(parse(&o, &e, env, "-N", "abc", "true", NULL) < 0);
	assert_string_equal(e.text, "srun: error: \"abc\" is not a valid node count\n");
	assert_int_equal(e.exit_code, 255);
	srun_opts_done(&o);
	assert_true(parse(&o, &e, env, "-W", "abc", "true", NULL) < 0);
	assert_string_equal(e.text, "srun: error: Invalid numeric value \"abc\" for --wait.\n");
	srun_opts_done(&o);
	assert_true(parse(&o, &e, env, NULL) < 0);
	assert_string_equal(e.text, "srun: fatal: No command given to execute.\n");
	assert_int_equal(e.exit_code, 1);
	srun_opts_done(&o);
}

static void test_opt_in_allocation(void **state)
{
	char *env[] = {"SLURM_JOB_ID=12", "SLURM_NNODES=2", "SLURM_NTASKS=4",
		       "SLURM_JOB_NAME=batchname", NULL};
	char *env2[] = {"SLURM_JOB_NAME=myname", "SRUN_CPUS_PER_TASK=2", NULL};
	struct srun_opts o;
	struct job_opt_err e;
	char *argv[] = {"srun", "-n1", "true"}, info[256];

	(void)state;
	cli_init("srun");
	assert_int_equal(parse(&o, &e, env, "true", NULL), 0);
	assert_int_equal(o.jobid, 12);
	assert_int_equal(o.job.ntasks, 4);
	assert_int_equal(o.job.min_nodes, 2);
	assert_null(o.job.job_name); /* the batch job's name is not the step's */
	srun_opts_done(&o);
	o = (struct srun_opts){0};
	assert_int_equal(srun_opt_parse(&o, 3, argv, env, info, sizeof(info), &e), 0);
	assert_string_equal(info,
			    "srun: Warning: can't run 1 processes on 2 nodes, setting nnodes to 1\n");
	assert_int_equal(o.job.min_nodes, 1);
	srun_opts_done(&o);
	assert_int_equal(parse(&o, &e, env2, "--jobid=7", "true", NULL), 0);
	assert_int_equal(o.jobid, 7);
	assert_string_equal(o.job.job_name, "myname");
	assert_int_equal(o.job.cpus_per_task, 2);
	srun_opts_done(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counts),	    cmocka_unit_test(test_ranges),
	    cmocka_unit_test(test_label_width),	    cmocka_unit_test(test_status),
	    cmocka_unit_test(test_out_buffered),    cmocka_unit_test(test_out_unbuffered),
	    cmocka_unit_test(test_export),	    cmocka_unit_test(test_opt_basic),
	    cmocka_unit_test(test_opt_errors),	    cmocka_unit_test(test_opt_in_allocation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
