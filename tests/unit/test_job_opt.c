/* test_job_opt.c - the shared job option model: table, value parsers with
 * Slurm 22.05's texts and exit codes (checked against the real sbatch),
 * precedence of script < environment < command line, verification,
 * --begin, and the job description built from the options. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/job_opt.h"
#include "cli/sbatch_script.h"
#include "common/macros.h"
#include "common/msg_job.h"

/* 2026-12-02T11:00:55Z, a Wednesday; tests run with TZ=UTC. */
#define NOW ((time_t)1796209255)

static int setup_tz(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

/* Parse "sbatch <args...>" (NULL-terminated) on fresh options. */
static int parse(struct job_opts *o, struct job_opt_err *e, ...)
{
	char *argv[64] = {"sbatch"};
	int argc = 1, ind;
	va_list ap;

	va_start(ap, e);
	for (char *a; (a = va_arg(ap, char *)) && argc < 63;)
		argv[argc++] = a;
	va_end(ap);
	memset(e, 0, sizeof(*e));
	assert_int_equal(job_opts_init(o, "sbatch"), 0);
	return job_opt_parse_argv(o, argc, argv, JOB_OPT_SRC_CLI, &ind, e);
}

static void test_table_is_consistent(void **state)
{
	int last = -1;
	bool seen[_JOPT_COUNT] = {false};

	(void)state;
	for (const struct job_opt_def *d = job_opt_table; d->name; d++) {
		/* ids follow table order except aliases (same id as an earlier row) */
		if (!seen[d->id])
			assert_true((int)d->id > last);
		if (!seen[d->id])
			last = (int)d->id;
		seen[d->id] = true;
		for (const struct job_opt_def *p = job_opt_table; p < d; p++) {
			assert_string_not_equal(p->name, d->name);
			if (d->short_opt)
				assert_true(p->short_opt != d->short_opt);
		}
	}
	for (int i = 0; i < _JOPT_COUNT; i++)
		assert_true(seen[i]);
	assert_string_equal(job_opt_name(JOPT_CPUS_PER_TASK), "cpus-per-task");
}

static void test_good_values(void **state)
{
	struct job_opts o;
	struct job_opt_err e;

	(void)state;
	assert_int_equal(parse(&o, &e, "-J", "name", "-p", "a,b", "-A", "acct", "-q", "high",
			       "--comment=c c", "-a", "1-3%2", "-d", "afterok:12", "-w", "n[1-2]",
			       "-x", "n3", "--mail-user=u@x", "--export=NONE", "-c", "4", "-n", "8",
			       "--ntasks-per-node=2", "-t", "1-02:03:04", "--mem=2G", "-H",
			       "--parsable", "--test-only", "-W", "--requeue", "--open-mode=append",
			       "--exclusive", "--nice", "-Q", NULL),
			 0);
	assert_string_equal(o.job_name, "name");
	assert_string_equal(o.partition, "a,b");
	assert_string_equal(o.account, "acct");
	assert_string_equal(o.qos, "high");
	assert_string_equal(o.comment, "c c");
	assert_string_equal(o.array, "1-3%2");
	assert_string_equal(o.dependency, "afterok:12");
	assert_string_equal(o.nodelist, "n[1-2]");
	assert_string_equal(o.exclude, "n3");
	assert_string_equal(o.mail_user, "u@x");
	assert_string_equal(o.export_env, "NONE");
	assert_int_equal(o.cpus_per_task, 4);
	assert_true(o.cpus_set);
	assert_int_equal(o.ntasks, 8);
	assert_int_equal(o.ntasks_per_node, 2);
	assert_int_equal(o.time_limit, 1 * 1440 + 2 * 60 + 3 + 1); /* seconds round up */
	assert_int_equal(o.mem, 2048);
	assert_true(o.hold && o.parsable && o.test_only && o.wait);
	assert_int_equal(o.requeue, 1);
	assert_int_equal(o.open_mode, OPEN_MODE_APPEND);
	assert_int_equal(o.exclusive, JOB_OPT_EXCL_NODE);
	assert_int_equal(o.nice, 100);
	assert_int_equal(o.quiet, 1);
	assert_int_equal(o.src[JOPT_JOB_NAME], JOB_OPT_SRC_CLI);
	job_opts_done(&o);

	assert_int_equal(parse(&o, &e, "--job-name", "x", "--time=0", "--mem-per-cpu=512K",
			       "--no-requeue", "--open-mode=t", "--exclusive=user", "--nice=-5",
			       "-o", "none", "--tasks-per-node=3", NULL),
			 0);
	assert_int_equal(o.time_limit, INFINITE);
	assert_int_equal(o.mem_per_cpu, 1);
	assert_int_equal(o.requeue, 0);
	assert_int_equal(o.open_mode, OPEN_MODE_TRUNCATE);
	assert_int_equal(o.exclusive, JOB_OPT_EXCL_USER);
	assert_int_equal(o.nice, -5);
	assert_string_equal(o.std_out, "/dev/null");
	assert_int_equal(o.ntasks_per_node, 3);
	job_opts_done(&o);
}

/* Each bad value with Slurm's exact stderr text and exit code. */
static const struct {
	const char *opt, *val, *text;
	int exit_code;
} bad[] = {
    {"--mem", "abc", "sbatch: error: Invalid --mem specification\n", 255},
    {"--mem-per-cpu", "1X", "sbatch: error: Invalid --mem-per-cpu specification\n", 255},
    {"--time", "garbage", "sbatch: error: Invalid --time specification\n", 255},
    {"--time-min", "x", "sbatch: error: Invalid --time-min specification\n", 255},
    {"-N", "abc", "sbatch: error: \"abc\" is not a valid node count\n", 255},
    {"-N", "", "sbatch: error: \"\" is not a valid node count\n", 255},
    {"-N", "3k5", "sbatch: error: \"3k5\" is not a valid node count\n", 255},
    {"-N", "1-2x", "sbatch: error: \"2x\" is not a valid node count\n", 255},
    {"-N", "--", "sbatch: error: \"-\" is not a valid node count\n", 255},
    {"-N", "5-2", "sbatch: error: Maximum node count 2 is less than minimum node count 5\n", 255},
    {"-N", "1-", "sbatch: error: Maximum node count -1 is less than minimum node count 1\n", 255},
    {"-n", "0", "sbatch: error: Invalid numeric value \"0\" for --ntasks.\n", 1},
    {"-n", "abc", "sbatch: error: Invalid numeric value \"abc\" for --ntasks.\n", 1},
    {"-n", "-1", "sbatch: error: Invalid numeric value \"-1\" for --ntasks.\n", 1},
    {"-n", "99999999999999999999",
     "sbatch: error: Numeric argument (9223372036854775807) to big for --ntasks.\n", 1},
    {"-c", "0", "sbatch: error: Invalid numeric value \"0\" for --cpus-per-task.\n", 1},
    {"--ntasks-per-node", "x",
     "sbatch: error: Invalid numeric value \"x\" for --ntasks-per-node.\n", 1},
    {"--tasks-per-node", "0", "sbatch: error: Invalid numeric value \"0\" for --ntasks-per-node.\n",
     1},
    {"--cores-per-socket", "zz9",
     "sbatch: error: Invalid numeric value \"zz9\" for --cores-per-socket.\n", 1},
    {"--mail-type", "bogus", "sbatch: error: Invalid --mail-type specification\n", 255},
    {"--mail-type", ",", "sbatch: error: Invalid --mail-type specification\n", 255},
    {"--open-mode", "foo", "sbatch: error: Invalid --open-mode specification\n", 255},
    {"--exclusive", "foo", "sbatch: error: Invalid --exclusive specification\n", 255},
    {"--nice", "2147483647", "sbatch: error: Invalid --nice value, out of range (+/- 2147483645)\n",
     255},
    {"--signal", "FOO", "sbatch: error: Invalid --signal specification\n", 255},
    {"--signal", "B:USR1@abc", "sbatch: error: Invalid --signal specification\n", 255},
    {"--signal", "usr1@65536", "sbatch: error: Invalid --signal specification\n", 255},
    {"--signal", "0", "sbatch: error: Invalid --signal specification\n", 255},
    {"--signal", "65536", "sbatch: error: Invalid --signal specification\n", 255},
    {"--signal", "X:HUP", "sbatch: error: Invalid --signal specification\n", 255},
    {"--signal", "B:", "sbatch: error: Invalid --signal specification\n", 255},
    {"--signal", "rtmin", "sbatch: error: Invalid --signal specification\n", 255},
    {"--begin", "garbage",
     "Invalid time specification (pos=0): garbage\nsbatch: error: Invalid --begin "
     "specification\n",
     255},
    {"--begin", "now+5sec",
     "Invalid time specification (pos=4): now+5sec\nsbatch: error: Invalid --begin "
     "specification\n",
     255},
    {"--begin", "", "sbatch: error: Invalid --begin specification\n", 255},
    {"--kill-on-invalid-dep", "maybe",
     "sbatch: error: Invalid --kill-on-invalid-dep specification\n", 255},
    {"--no-kill", "zz9", "sbatch: error: Invalid --no-kill specification\n", 255},
    {"--delay-boot", "zz9", "sbatch: error: Invalid --delay-boot specification\n", 255},
    {"--tmp", "zz9", "sbatch: error: Invalid --tmp specification\n", 255},
};

static void test_bad_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct job_opts o;
		struct job_opt_err e;
		char arg[128];

		snprintf(arg, sizeof(arg), "%s=%s", bad[i].opt, bad[i].val);
		if (bad[i].opt[1] != '-') /* short options take the value apart */
			assert_true(parse(&o, &e, bad[i].opt, bad[i].val, NULL) < 0);
		else
			assert_true(parse(&o, &e, arg, NULL) < 0);
		assert_string_equal(e.text, bad[i].text);
		assert_int_equal(e.exit_code, bad[i].exit_code);
		job_opts_done(&o);
	}
}

/* getopt's own complaint goes to stderr under the program name. */
static void test_unknown_option(void **state)
{
	struct job_opts o;
	struct job_opt_err e;
	char out[512] = "";
	FILE *tmp = tmpfile();
	int saved = dup(2), r;

	(void)state;
	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	r = parse(&o, &e, "--bogus-option", "--wrap", "true", NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	out[fread(out, 1, sizeof(out) - 1, tmp)] = '\0';
	fclose(tmp);
	assert_true(r < 0);
	assert_string_equal(out, "sbatch: unrecognized option '--bogus-option'\n");
	assert_string_equal(e.text, "Try \"sbatch --help\" for more information\n");
	assert_int_equal(e.exit_code, 255);
	job_opts_done(&o);
}

static void test_stop_options_and_script_start(void **state)
{
	char *argv[] = {"sbatch", "-J", "x", "script.sh", "-t", "5", NULL};
	struct job_opts o;
	struct job_opt_err e;
	int ind = 0;

	(void)state;
	assert_int_equal(parse(&o, &e, "-V", "--bogus", NULL), JOB_OPT_STOP);
	assert_true(o.version);
	job_opts_done(&o);
	assert_int_equal(parse(&o, &e, "--usage", NULL), JOB_OPT_STOP);
	assert_true(o.usage);
	job_opts_done(&o);
	/* options stop at the script; what follows is the script's */
	assert_int_equal(job_opts_init(&o, "sbatch"), 0);
	assert_int_equal(job_opt_parse_argv(&o, 6, argv, JOB_OPT_SRC_CLI, &ind, &e), 0);
	assert_int_equal(ind, 3);
	assert_int_equal(o.time_limit, NO_VAL);
	job_opts_done(&o);
}

static void test_nodes(void **state)
{
	static const struct {
		const char *arg;
		int min, max;
	} cases[] = {{"3", 3, 3},  {"2-4", 2, 4}, {"2k", 2048, 2048}, {"1m", 1048576, 1048576},
		     {"-3", 1, 3}, {"3-0", 3, 0}, {" 3", 3, 3},	      {"0", 0, 0}};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct job_opts o;
		struct job_opt_err e;
		char buf[32];

		assert_int_equal(parse(&o, &e, "-N", cases[i].arg, NULL), 0);
		assert_int_equal(o.min_nodes, cases[i].min);
		assert_int_equal(o.max_nodes, cases[i].max);
		assert_true(o.nodes_set);
		assert_non_null(job_opt_show(&o, JOPT_NODES, buf, sizeof(buf)));
		job_opts_done(&o);
	}
}

static void test_mail_type(void **state)
{
	static const struct {
		const char *arg;
		uint16_t bits;
		const char *shown;
	} cases[] = {
	    {"BEGIN", MAIL_JOB_BEGIN, "BEGIN"},
	    {"begin,end", MAIL_JOB_BEGIN | MAIL_JOB_END, "BEGIN,END"},
	    {"BEGIN,bogus", MAIL_JOB_BEGIN, "BEGIN"},
	    {"NONE", 0, "NONE"},
	    {"BEGIN,NONE", 0, "NONE"},
	    {"ALL",
	     MAIL_JOB_BEGIN | MAIL_JOB_END | MAIL_JOB_FAIL | MAIL_JOB_REQUEUE | MAIL_JOB_STAGE_OUT
		 | MAIL_INVALID_DEPEND,
	     "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT"},
	    {"TIME_LIMIT_90,ARRAY_TASKS,requeue,fail",
	     MAIL_JOB_TIME90 | MAIL_ARRAY_TASKS | MAIL_JOB_REQUEUE | MAIL_JOB_FAIL,
	     "ARRAY_TASKS,FAIL,REQUEUE,TIME_LIMIT_90"},
	    {"TIME_LIMIT,TIME_LIMIT_80,TIME_LIMIT_50",
	     MAIL_JOB_TIME100 | MAIL_JOB_TIME80 | MAIL_JOB_TIME50,
	     "TIME_LIMIT_50,TIME_LIMIT_80,TIME_LIMIT"},
	};
	struct job_opts o;
	struct job_opt_err e;
	char buf[128];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char arg[80];

		snprintf(arg, sizeof(arg), "--mail-type=%s", cases[i].arg);
		assert_int_equal(parse(&o, &e, arg, NULL), 0);
		assert_int_equal(o.mail_type, cases[i].bits);
		assert_string_equal(job_opt_show(&o, JOPT_MAIL_TYPE, buf, sizeof(buf)),
				    cases[i].shown);
		job_opts_done(&o);
	}
	/* several options add up, NONE later does not clear (Slurm's |=) */
	assert_int_equal(
	    parse(&o, &e, "--mail-type=begin", "--mail-type=end", "--mail-type=NONE", NULL), 0);
	assert_int_equal(o.mail_type, MAIL_JOB_BEGIN | MAIL_JOB_END);
	job_opts_done(&o);
}

static void test_signal(void **state)
{
	static const struct {
		const char *arg;
		uint16_t sig, time, flags;
		const char *shown;
	} cases[] = {
	    {"USR1", 10, 60, 0, "USR1"},
	    {"B:USR1@90", 10, 90, JOB_OPT_SIG_BATCH, "B:USR1@90"},
	    {"10@5", 10, 5, 0, "USR1@5"},
	    {"SIGUSR2", 12, 60, 0, "USR2"},
	    {"br:HUP", 1, 60, JOB_OPT_SIG_BATCH | JOB_OPT_SIG_RESV, "RB:HUP"},
	    {"usr1@", 10, 0, 0, "USR1@0"},
	    {"65", 65, 60, 0, "65"},
	    {"-1", 65535, 60, 0, "65535"},
	    {"KILL@65535", 9, 65535, 0, "KILL@65535"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct job_opts o;
		struct job_opt_err e;
		char arg[64], buf[64];

		snprintf(arg, sizeof(arg), "--signal=%s", cases[i].arg);
		assert_int_equal(parse(&o, &e, arg, NULL), 0);
		assert_int_equal(o.warn_signal, cases[i].sig);
		assert_int_equal(o.warn_time, cases[i].time);
		assert_int_equal(o.warn_flags, cases[i].flags);
		assert_string_equal(job_opt_show(&o, JOPT_SIGNAL, buf, sizeof(buf)),
				    cases[i].shown);
		job_opts_done(&o);
	}
}

static void test_begin_grammar(void **state)
{
	static const struct {
		const char *in;
		const char *iso; /* NULL: error at pos */
		int pos;
	} cases[] = {
	    {"now", "2026-12-02T11:00:55", 0},
	    {"now+60", "2026-12-02T11:01:55", 0},
	    {"now+1hour", "2026-12-02T12:00:55", 0},
	    {"now+2hours", "2026-12-02T13:00:55", 0},
	    {"now+3days", "2026-12-05T11:00:55", 0},
	    {"now+1week", "2026-12-09T11:00:55", 0},
	    {"now+5 minutes", "2026-12-02T11:05:55", 0},
	    {"now-5", "2026-12-02T11:00:50", 0},
	    {"16:00", "2026-12-02T16:00:00", 0},
	    {"10:00", "2026-12-03T10:00:00", 0}, /* passed today: tomorrow */
	    {"16:00:30", "2026-12-02T16:00:30", 0},
	    {"4:00PM", "2026-12-02T16:00:00", 0},
	    {"12:30am", "2026-12-03T00:30:00", 0},
	    {"1225", "2026-12-25T00:00:00", 0},
	    {"122525", "2025-12-25T00:00:00", 0},
	    {"12/25", "2026-12-25T00:00:00", 0},
	    {"12/25/25", "2025-12-25T00:00:00", 0},
	    {"12.25", "2026-12-25T00:00:00", 0},
	    {"0301", "2027-03-01T00:00:00", 0}, /* passed this year: next year */
	    {"2026-03-01", "2026-03-01T00:00:00", 0},
	    {"2026-03-01T10:00", "2026-03-01T10:00:00", 0},
	    {"2026-03-01T10:00:05", "2026-03-01T10:00:05", 0},
	    {"2026-03-01 10:00", "2026-03-01T10:00:00", 0},
	    {"2026-02-30", "2026-03-02T00:00:00", 0},
	    {"midnight", "2026-12-03T00:00:00", 0},
	    {"noon", "2026-12-02T12:00:00", 0},
	    {"fika", "2026-12-02T15:00:00", 0},
	    {"teatime", "2026-12-02T16:00:00", 0},
	    {"today", "2026-12-02T00:00:00", 0},
	    {"tomorrow", "2026-12-03T00:00:00", 0},
	    {"tomorrowT10:00", "2026-12-03T10:00:00", 0},
	    {"uts1700000000", "2023-11-14T22:13:20", 0},
	    {"now+5sec", NULL, 4},
	    {"now+5h", NULL, 4},
	    {"now+", NULL, 3},
	    {"4pm", NULL, 1},
	    {"2026-03-01T10", NULL, 13},
	    {"2026-3-1", NULL, 0},
	    {"elevenses", NULL, 0},
	    {"25:00", NULL, 0},
	    {"13/45", NULL, 0},
	    {"0", NULL, -1},
	    {"1700000000", NULL, 0},
	    {"today+5", NULL, 5},
	    {"noon+1hour", NULL, 4},
	    {"now+99999999999999999999", NULL, 15},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int pos = 12345;
		time_t t = job_opt_parse_begin(cases[i].in, NOW, &pos);
		char buf[32];
		struct tm tm;

		if (!cases[i].iso) {
			assert_int_equal(t, -1);
			assert_int_equal(pos, cases[i].pos);
			continue;
		}
		assert_true(t > 0);
		gmtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
		assert_string_equal(buf, cases[i].iso);
	}
	assert_int_equal(job_opt_parse_begin("", NOW, NULL), 0);
	assert_int_equal(job_opt_parse_begin("T -", NOW, NULL), 0);
}

/* Precedence: #SBATCH < SBATCH_* < command line, as sbatch(1) says. */
static void test_precedence(void **state)
{
	static const char script[] = "#!/bin/sh\n#SBATCH -J scr -t 5 -p scrpart --mem=10\n"
				     "#SBATCH -o script.out\n";
	char *env[] = {"SBATCH_JOB_NAME=envname", "SBATCH_TIMELIMIT=7", "OTHER=1", NULL};
	char *argv[] = {"sbatch", "-J", "cli", NULL};
	struct sbatch_directives d;
	struct job_opts o;
	struct job_opt_err e = {0};

	(void)state;
	assert_int_equal(job_opts_init(&o, "sbatch"), 0);
	assert_int_equal(sbatch_script_directives("sbatch", script, strlen(script), "x.sh", &d, &e),
			 0);
	assert_int_equal(sbatch_script_apply(&o, &d, &e), 0);
	sbatch_directives_done(&d);
	assert_string_equal(o.job_name, "scr");
	assert_int_equal(o.src[JOPT_JOB_NAME], JOB_OPT_SRC_SCRIPT);
	assert_int_equal(job_opt_parse_env(&o, env, &e), 0);
	assert_string_equal(o.job_name, "envname");
	assert_int_equal(o.time_limit, 7);
	assert_int_equal(job_opt_parse_argv(&o, 3, argv, JOB_OPT_SRC_CLI, NULL, &e), 0);
	assert_string_equal(o.job_name, "cli");
	assert_int_equal(o.src[JOPT_JOB_NAME], JOB_OPT_SRC_CLI);
	assert_int_equal(o.time_limit, 7);	     /* env beat the script */
	assert_string_equal(o.partition, "scrpart"); /* only the script set it */
	assert_int_equal(o.mem, 10);
	assert_int_equal(job_opt_verify(&o, NULL, 0, &e), 0);
	assert_non_null(strstr(o.std_out, "/script.out"));
	assert_true(o.std_out[0] == '/');
	job_opts_done(&o);
}

static void test_env_flags(void **state)
{
	static const struct {
		const char *val;
		bool set;
	} cases[] = {{"1", true},  {"yes", true}, {"YES", true},   {"", true},	 {"2", true},
		     {"01", true}, {"0", false},  {"true", false}, {"y", false}, {"foo", false}};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char var[64];
		char *env[] = {var, NULL};
		struct job_opts o;
		struct job_opt_err e = {0};

		snprintf(var, sizeof(var), "SBATCH_WAIT=%s", cases[i].val);
		assert_int_equal(job_opts_init(&o, "sbatch"), 0);
		assert_int_equal(job_opt_parse_env(&o, env, &e), 0);
		assert_int_equal(o.wait, cases[i].set);
		job_opts_done(&o);
	}
}

static void test_mem_group(void **state)
{
	struct job_opts o;
	struct job_opt_err e = {0};
	char *env_cpu[] = {"SBATCH_MEM_PER_CPU=3", NULL};
	char *env_both[] = {"SBATCH_MEM_PER_CPU=3", "SBATCH_MEM_PER_NODE=4", NULL};

	(void)state;
	/* both on the command line: fatal */
	assert_int_equal(parse(&o, &e, "--mem=1", "--mem-per-cpu=2", NULL), 0);
	assert_true(job_opt_verify(&o, NULL, 0, &e) < 0);
	assert_string_equal(e.text, "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are "
				    "mutually exclusive.\n");
	assert_int_equal(e.exit_code, 1);
	job_opts_done(&o);
	/* the command line beats the environment, whatever the option */
	assert_int_equal(job_opts_init(&o, "sbatch"), 0);
	assert_int_equal(job_opt_parse_env(&o, env_cpu, &e), 0);
	assert_int_equal(o.mem_per_cpu, 3);
	{
		char *argv[] = {"sbatch", "--mem=5", NULL};

		assert_int_equal(job_opt_parse_argv(&o, 2, argv, JOB_OPT_SRC_CLI, NULL, &e), 0);
	}
	assert_int_equal(job_opt_verify(&o, NULL, 0, &e), 0);
	assert_int_equal(o.mem, 5);
	assert_int_equal(o.mem_per_cpu, NO_VAL64);
	job_opts_done(&o);
	/* two from the environment: Slurm names them SLURM_* */
	memset(&e, 0, sizeof(e));
	assert_int_equal(job_opts_init(&o, "sbatch"), 0);
	assert_int_equal(job_opt_parse_env(&o, env_both, &e), 0);
	assert_true(job_opt_verify(&o, NULL, 0, &e) < 0);
	assert_string_equal(e.text, "sbatch: fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and "
				    "SLURM_MEM_PER_NODE are mutually exclusive.\n");
	job_opts_done(&o);
}

static void test_verify(void **state)
{
	struct job_opts o;
	struct job_opt_err e;
	char info[256];

	(void)state;
	assert_int_equal(parse(&o, &e, "-Q", "-v", NULL), 0);
	assert_true(job_opt_verify(&o, info, sizeof(info), &e) < 0);
	assert_string_equal(e.text,
			    "sbatch: error: don't specify both --verbose (-v) and --quiet (-Q)\n");
	assert_int_equal(e.exit_code, JOB_OPT_EXIT_ERROR);
	job_opts_done(&o);

	assert_int_equal(parse(&o, &e, "-N", "2", "-n", "1", NULL), 0);
	assert_int_equal(job_opt_verify(&o, info, sizeof(info), &e), 0);
	assert_string_equal(info, "sbatch: Warning: can't run 1 processes on 2 nodes, setting "
				  "nnodes to 1\n");
	assert_int_equal(o.min_nodes, 1);
	assert_int_equal(o.max_nodes, 1);
	job_opts_done(&o);

	assert_int_equal(parse(&o, &e, "-w", "n[1-3],n2", "-N", "2", NULL), 0);
	assert_true(job_opt_verify(&o, info, sizeof(info), &e) < 0);
	assert_string_equal(e.text, "sbatch: error: invalid number of nodes (-N 3-2)\n");
	job_opts_done(&o);

	assert_int_equal(parse(&o, &e, "-N", "2", "--ntasks-per-node=3", "-D", "/w", "-o", "o%j",
			       "-e", "/abs", "-i", "in", NULL),
			 0);
	assert_int_equal(job_opt_verify(&o, info, sizeof(info), &e), 0);
	assert_true(o.ntasks_set);
	assert_int_equal(o.ntasks, 6);
	assert_string_equal(o.std_out, "/w/o%j");
	assert_string_equal(o.std_err, "/abs");
	assert_string_equal(o.std_in, "/w/in");
	job_opts_done(&o);

	assert_int_equal(parse(&o, &e, "-n", "3000000000", NULL), 0); /* wraps like Slurm's int */
	assert_true(job_opt_verify(&o, info, sizeof(info), &e) < 0);
	assert_string_equal(e.text, "sbatch: error: invalid number of tasks (-n -1294967296)\n");
	job_opts_done(&o);
}

static void test_fill_desc_defaults(void **state)
{
	struct job_opts o;
	struct job_opt_err e;
	struct job_desc d;

	(void)state;
	assert_int_equal(parse(&o, &e, NULL), 0);
	assert_int_equal(job_opt_verify(&o, NULL, 0, &e), 0);
	assert_int_equal(job_opt_fill_desc(&o, &d), 0);
	assert_null(d.name);
	assert_null(d.partition);
	assert_null(d.tres_per_node);
	assert_null(d.tres_per_job);
	assert_null(d.std_out);
	assert_string_equal(d.std_in, "/dev/null");
	assert_string_equal(d.work_dir, o.cwd);
	assert_int_equal(d.min_nodes, NO_VAL);
	assert_int_equal(d.max_nodes, NO_VAL);
	assert_int_equal(d.num_tasks, NO_VAL);
	assert_int_equal(d.ntasks_per_node, NO_VAL16);
	assert_int_equal(d.cpus_per_task, NO_VAL16);
	assert_int_equal(d.time_limit, NO_VAL);
	assert_int_equal(d.time_min, NO_VAL);
	assert_true(d.mem_per_node == NO_VAL64 && d.mem_per_cpu == NO_VAL64);
	assert_int_equal(d.requeue, NO_VAL16);
	assert_int_equal(d.nice, NO_VAL);
	assert_int_equal(d.flags, 0);
	assert_int_equal(d.begin_time, 0);
	assert_int_equal(d.user_id, getuid());
	assert_int_equal(d.group_id, getgid());
	assert_non_null(d.submit_host);
	assert_null(strchr(d.submit_host, '.'));
	job_desc_done(&d);
	job_opts_done(&o);
}

static void test_fill_desc_values(void **state)
{
	struct job_opts o;
	struct job_opt_err e;
	struct job_desc d;

	(void)state;
	assert_int_equal(parse(&o, &e, "-N", "1-3", "-n", "4", "-c", "2", "--gres=gpu:2k,mps:10",
			       "--gpus-per-node=a100:1", "-G", "4", "--nice=5", "-H",
			       "--exclusive=user", "--kill-on-invalid-dep=yes", "--signal=B:USR1",
			       "--begin=uts1700000000", "-D", "/tmp", "--mem-per-cpu=100", NULL),
			 0);
	assert_int_equal(job_opt_verify(&o, NULL, 0, &e), 0);
	assert_int_equal(job_opt_fill_desc(&o, &d), 0);
	assert_int_equal(d.min_nodes, 1);
	assert_int_equal(d.max_nodes, 3);
	assert_int_equal(d.num_tasks, 4);
	assert_int_equal(d.cpus_per_task, 2);
	assert_string_equal(d.tres_per_node, "gres/gpu:a100:1,gres/gpu:2048,gres/mps:10");
	assert_string_equal(d.tres_per_job, "gres/gpu:4");
	assert_int_equal(d.nice, NICE_OFFSET + 5);
	assert_int_equal(d.flags, JOB_DESC_HOLD | JOB_DESC_EXCLUSIVE_USER | JOB_DESC_KILL_INV_DEP);
	assert_int_equal(d.warn_signal, 10);
	assert_int_equal(d.warn_time, 60);
	assert_int_equal(d.begin_time, 1700000000);
	assert_string_equal(d.work_dir, "/tmp");
	assert_int_equal(d.mem_per_cpu, 100);
	job_desc_done(&d);
	job_opts_done(&o);

	assert_int_equal(parse(&o, &e, "--gres=gpu", "--gres=none", NULL), 0);
	assert_null(o.gres);
	job_opts_done(&o);
	assert_int_equal(parse(&o, &e, "--gres=gres:gpu:tesla:2", NULL), 0);
	assert_string_equal(o.gres, "gres/gpu:tesla:2");
	job_opts_done(&o);
}

static void test_show(void **state)
{
	struct job_opts o;
	struct job_opt_err e;
	char buf[128];

	(void)state;
	assert_int_equal(parse(&o, &e, "-t", "90", "--mem=2048", "--mem-per-gpu=1536", "-H",
			       "--gres=gpu:1", "--open-mode=a", "-k", "--requeue", NULL),
			 0);
	assert_string_equal(job_opt_show(&o, JOPT_TIME, buf, sizeof(buf)), "01:30:00");
	assert_string_equal(job_opt_show(&o, JOPT_MEM, buf, sizeof(buf)), "2G");
	assert_string_equal(job_opt_show(&o, JOPT_MEM_PER_GPU, buf, sizeof(buf)), "1536");
	assert_string_equal(job_opt_show(&o, JOPT_HOLD, buf, sizeof(buf)), "set");
	assert_string_equal(job_opt_show(&o, JOPT_GRES, buf, sizeof(buf)), "gres:gpu:1");
	assert_string_equal(job_opt_show(&o, JOPT_OPEN_MODE, buf, sizeof(buf)), "a");
	assert_string_equal(job_opt_show(&o, JOPT_NO_KILL, buf, sizeof(buf)), "set");
	assert_string_equal(job_opt_show(&o, JOPT_REQUEUE, buf, sizeof(buf)), "requeue");
	assert_null(job_opt_show(&o, JOPT_PARTITION, buf, sizeof(buf)));
	job_opts_done(&o);
}

static void test_array_and_dependency_syntax(void **state)
{
	static const char *const arrays_ok[] = {"1-3",	   "0",	      "0,6,16-32", "0-15:4",
						"1-100%5", "1,2,3%1", "1,,2,",	   "5:2"};
	static const char *const arrays_bad[] = {"",   "abc", "1-", "3-1",  "1-10:0", ",",
						 "1%", "1%x", "-1", "1-3:", "1;2"};
	static const char *const deps_ok[] = {"afterok:12",
					      "afterok:99999999",
					      "afterany:12:13",
					      "after:12+5",
					      "afterok:12_3",
					      "afterany:12_*",
					      "singleton",
					      "afterok:1,afterany:2",
					      "afterok:1?afternotok:2",
					      "12",
					      "12:13",
					      "aftercorr:5,singleton"};
	static const char *const deps_bad[] = {"",
					       "foo:1",
					       "afterok",
					       "afterok:",
					       "afterok:x",
					       "afterok:1,",
					       "afterok:1?afterany:2,afterok:3",
					       ",afterok:1",
					       "afterok:1:",
					       "afterok:1_",
					       "after:1+"};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(arrays_ok); i++)
		assert_true(job_opt_array_ok(arrays_ok[i]));
	for (size_t i = 0; i < ARRAY_SIZE(arrays_bad); i++)
		assert_false(job_opt_array_ok(arrays_bad[i]));
	for (size_t i = 0; i < ARRAY_SIZE(deps_ok); i++)
		assert_true(job_opt_dependency_ok(deps_ok[i]));
	for (size_t i = 0; i < ARRAY_SIZE(deps_bad); i++)
		assert_false(job_opt_dependency_ok(deps_bad[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_is_consistent),
	    cmocka_unit_test(test_good_values),
	    cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_unknown_option),
	    cmocka_unit_test(test_stop_options_and_script_start),
	    cmocka_unit_test(test_nodes),
	    cmocka_unit_test(test_mail_type),
	    cmocka_unit_test(test_signal),
	    cmocka_unit_test(test_begin_grammar),
	    cmocka_unit_test(test_precedence),
	    cmocka_unit_test(test_env_flags),
	    cmocka_unit_test(test_mem_group),
	    cmocka_unit_test(test_verify),
	    cmocka_unit_test(test_fill_desc_defaults),
	    cmocka_unit_test(test_fill_desc_values),
	    cmocka_unit_test(test_show),
	    cmocka_unit_test(test_array_and_dependency_syntax),
	};

	return cmocka_run_group_tests(tests, setup_tz, NULL);
}
