/* test_sbatch_script.c - the batch script: Slurm's sanity checks, --wrap,
 * #SBATCH extraction (stops at the first command, quoting, comments,
 * fatal errors), reading with the size cap, the job's environment per
 * --export, and hostile directive lines. Texts are the real sbatch's. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/job_opt.h"
#include "cli/sbatch_script.h"
#include "common/conf.h"
#include "common/limits.h"
#include "common/macros.h"
#include "common/pack.h"

static void test_checks(void **state)
{
	static const struct {
		const char *buf;
		size_t len;
		const char *text;
	} cases[] = {
	    {"", 0, "sbatch: error: Batch script is empty!\n"},
	    {" \n\t\n", 4, "sbatch: error: Batch script contains only whitespace!\n"},
	    {" #!/bin/sh\n", 11,
	     "sbatch: error: This does not look like a batch script.  The first\n"
	     "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
	     "sbatch: error: For instance: #!/bin/sh\n"},
	    {"echo \0 x\r\n", 10,
	     "sbatch: error: This does not look like a batch script.  The first\n"
	     "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
	     "sbatch: error: For instance: #!/bin/sh\n"},
	    {"#!/bin/sh\r\necho \0 x\r\n", 21,
	     "sbatch: error: The Slurm controller does not allow scripts that\n"
	     "sbatch: error: contain a NULL character '\\0'.\n"},
	    {"#!/bin/sh\n#SBATCH -J x\r\n", 24,
	     "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
	     "sbatch: error: instead of expected UNIX line breaks (\\n).\n"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct job_opt_err e = {0};

		assert_true(sbatch_script_check("sbatch", cases[i].buf, cases[i].len, &e) < 0);
		assert_string_equal(e.text, cases[i].text);
		assert_int_equal(e.exit_code, JOB_OPT_EXIT_ERROR);
	}
	{
		struct job_opt_err e = {0};

		assert_int_equal(sbatch_script_check("sbatch", "#!", 2, &e), 0);
		assert_int_equal(sbatch_script_check("sbatch", "#!/bin/sh\necho\r\n", 15, &e), 0);
	}
}

static void test_wrap(void **state)
{
	char *s = sbatch_script_wrap("echo hi; true");

	(void)state;
	assert_string_equal(s, "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n"
			       "echo hi; true\n");
	free(s);
}

/* The directive words of a script, joined by '|'. */
static int words(const char *script, char *out, size_t n, struct job_opt_err *e)
{
	struct sbatch_directives d;
	int r;

	memset(e, 0, sizeof(*e));
	out[0] = '\0';
	r = sbatch_script_directives("sbatch", script, strlen(script), "t.sh", &d, e);
	if (r < 0)
		return r;
	assert_string_equal(d.argv[0], "sbatch");
	assert_null(d.argv[d.argc]);
	for (int i = 1; i < d.argc; i++)
		snprintf(out + strlen(out), n - strlen(out), "%s%s", i > 1 ? "|" : "", d.argv[i]);
	sbatch_directives_done(&d);
	return 0;
}

static void test_directives(void **state)
{
	static const struct {
		const char *script, *words;
	} cases[] = {
	    {"#!/bin/sh\n#SBATCH -J a\n  # comment\n\n#SBATCH -t 5\necho hi\n#SBATCH -p late\n",
	     "-J|a|-t|5"},
	    {"#!/bin/sh\necho first\n#SBATCH -J no\n", ""},
	    {"#!/bin/sh\n #SBATCH -J indented\n#SBATCH -J x\n", "-J|x"},
	    {"#!/bin/sh\n#SBATCH -J \"a b\" -p x # tail -t 5\n", "-J|a b|-p|x"},
	    {"#!/bin/sh\n#SBATCH -J 'it'\"'\"'s' --comment=a#b\n", "-J|it's|--comment=a"},
	    {"#!/bin/sh\n#SBATCH --comment=a\\ b\\#c\n", "--comment=a|b#c"},
	    {"#!/bin/sh\n#SBATCH \"\" -t 4\n#SBATCH -J y\n", "-J|y"},
	    {"#!/bin/sh\n#SBATCH --comment=\"\" -t 4\n", "--comment=|-t|4"},
	    {"#!/bin/sh\n#SBATCHfoo -t 7\n", "foo|-t|7"},
	    {"#!/bin/sh\n#SBATCH\n#SBATCH -J x:y\n", "-J|x:y"},
	    {"#!/bin/sh\n#sbatch -J lower\n#SBATCH -J upper\n", "-J|upper"},
	    {"#!/bin/sh\n\t\n#SBATCH\t-J\ttab\n", "-J|tab"},
	    {"#!/bin/sh\n#SBATCH -J last", "-J|last"},
	};
	char out[256];
	struct job_opt_err e;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(words(cases[i].script, out, sizeof(out), &e), 0);
		assert_string_equal(out, cases[i].words);
	}
}

static void test_directive_errors(void **state)
{
	static const struct {
		const char *script, *text;
	} cases[] = {
	    {"#!/bin/sh\n#SBATCH -J \"unterminated\n",
	     "sbatch: fatal: t.sh: line 2: Unmatched `\"` in [ \"unterminated]\n"},
	    {"#!/bin/sh\n#SBATCH -J x -t '5\n",
	     "sbatch: fatal: t.sh: line 2: Unmatched `'` in [ '5]\n"},
	    {"#!/bin/sh\n#SBATCH : -J x\n",
	     "sbatch: fatal: t.sh: line 2: Unexpected `:` in [: -J x]\n"},
	    {"#!/bin/sh\n\n#SBATCH -J x : -t 5\n",
	     "sbatch: fatal: t.sh: line 3: Unexpected `:` in [ : -t 5]\n"},
	};
	char out[256];
	struct job_opt_err e;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_true(words(cases[i].script, out, sizeof(out), &e) < 0);
		assert_string_equal(e.text, cases[i].text);
		assert_int_equal(e.exit_code, 1);
	}
	assert_true(words("#!/bin/sh\n#SBATCH -J a\n#SBATCH hetjob\n", out, sizeof(out), &e) < 0);
	assert_int_equal(e.exit_code, JOB_OPT_EXIT_ERROR);
}

static void test_slurm_magic_word(void **state)
{
	static const char s[] = "#!/bin/sh\n#SLURM -J one\n#SLURM -t 5\n";
	struct sbatch_directives d;
	struct job_opt_err e = {0};

	(void)state;
	assert_int_equal(sbatch_script_directives("sbatch", s, strlen(s), "t.sh", &d, &e), 0);
	assert_int_equal(d.argc, 5);
	assert_string_equal(d.warn, "sbatch: error: Change from #SLURM to #SBATCH in your script "
				    "and verify the options are valid in sbatch\n");
	sbatch_directives_done(&d);
}

static int apply_script(const char *script, struct job_opts *o, struct job_opt_err *e)
{
	struct sbatch_directives d;
	int r;

	memset(e, 0, sizeof(*e));
	assert_int_equal(job_opts_init(o, "sbatch"), 0);
	r = sbatch_script_directives("sbatch", script, strlen(script), "t.sh", &d, e);
	if (r == 0)
		r = sbatch_script_apply(o, &d, e);
	sbatch_directives_done(&d);
	return r;
}

static void test_apply(void **state)
{
	static const struct {
		const char *script, *text;
		int exit_code;
	} bad[] = {
	    {"#!/bin/sh\n#SBATCH -J x extra\n",
	     "sbatch: error: Invalid directive found in batch script: extra\n", 255},
	    {"#!/bin/sh\n#SBATCH extra -t garbage\n",
	     "sbatch: error: Invalid directive found in batch script: extra\n", 255},
	    {"#!/bin/sh\n#SBATCH -t garbage referencing\n",
	     "sbatch: error: Invalid --time specification\n", 255},
	    {"#!/bin/sh\n#SBATCH --nice 5\n",
	     "sbatch: error: Invalid directive found in batch script: 5\n", 255},
	    {"#!/bin/sh\n#SBATCH --mem=abc\n", "sbatch: error: Invalid --mem specification\n", 255},
	};
	struct job_opts o;
	struct job_opt_err e;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_true(apply_script(bad[i].script, &o, &e) < 0);
		assert_string_equal(e.text, bad[i].text);
		assert_int_equal(e.exit_code, bad[i].exit_code);
		job_opts_done(&o);
	}
	/* Slurm reads these only from the command line */
	assert_int_equal(
	    apply_script("#!/bin/sh\n#SBATCH -v -Q --wrap=x --help -V --usage -J a\n", &o, &e), 0);
	assert_int_equal(o.verbose, 0);
	assert_int_equal(o.quiet, 0);
	assert_null(o.wrap);
	assert_false(o.help || o.version || o.usage);
	assert_string_equal(o.job_name, "a");
	job_opts_done(&o);
	/* "-J=x" keeps the '=' as Slurm's getopt does */
	assert_int_equal(apply_script("#!/bin/sh\n#SBATCH -J=x\n", &o, &e), 0);
	assert_string_equal(o.job_name, "=x");
	job_opts_done(&o);
}

static void test_read(void **state)
{
	char path[] = "/tmp/test_sbatch_scriptXXXXXX";
	struct job_opt_err e = {0};
	int fd = mkstemp(path), pfd[2];
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\necho\n", 15), 15);
	assert_int_equal(sbatch_script_read("sbatch", path, -1, &buf, &len, &e), 0);
	assert_int_equal(len, 15);
	assert_string_equal(buf, "#!/bin/sh\necho\n");
	free(buf);
	/* over the cap: fatal, nothing read */
	assert_int_equal(ftruncate(fd, (off_t)SL_SCRIPT_MAX + 1), 0);
	assert_true(sbatch_script_read("sbatch", path, -1, &buf, &len, &e) < 0);
	assert_non_null(strstr(e.text, "sbatch: fatal: Script file /tmp/test_sbatch_script"));
	assert_non_null(strstr(e.text, " is too large\n"));
	assert_int_equal(e.exit_code, 1);
	close(fd);
	unlink(path);
	memset(&e, 0, sizeof(e));
	assert_true(sbatch_script_read("sbatch", "/nonexistent/script.sh", -1, &buf, &len, &e) < 0);
	assert_string_equal(e.text, "sbatch: error: Unable to open file /nonexistent/script.sh\n");
	assert_int_equal(e.exit_code, JOB_OPT_EXIT_ERROR);
	/* from a descriptor (stdin) */
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(write(pfd[1], "#!/bin/sh\n", 10), 10);
	close(pfd[1]);
	assert_int_equal(sbatch_script_read("sbatch", NULL, pfd[0], &buf, &len, &e), 0);
	assert_int_equal(len, 10);
	free(buf);
	close(pfd[0]);
}

/* The job's environment for --export=<x> from a fixed submit environment. */
static char **build(const char *export, const char *job_name, const struct sl_conf *conf,
		    uint32_t *n, char *warn, size_t wn)
{
	char *proc[] = {"FOO=foo1", "BAR=bar1", "SLURM_XX=sx", "NOEQUALS", "PATH=/bin", NULL};
	struct job_opts o;
	char **env = NULL;

	assert_int_equal(job_opts_init(&o, "sbatch"), 0);
	o.export_env = export ? strdup(export) : NULL;
	o.job_name = job_name ? strdup(job_name) : NULL;
	assert_int_equal(sbatch_build_env(&o, proc, conf, &env, n, warn, wn), 0);
	job_opts_done(&o);
	return env;
}

static const char *find(char **env, uint32_t n, const char *name)
{
	size_t len = strlen(name);

	for (uint32_t i = 0; i < n; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

static void test_export(void **state)
{
	static const struct {
		const char *export;
		const char *foo, *bar, *baz, *export_env, *get_user_env;
	} cases[] = {
	    {NULL, "foo1", "bar1", NULL, NULL, NULL},
	    {"ALL", "foo1", "bar1", NULL, NULL, NULL},
	    {"all", "foo1", "bar1", NULL, NULL, NULL},
	    {"NONE", NULL, NULL, NULL, "NONE", "1"},
	    {"none", NULL, NULL, NULL, "none", "1"},
	    {"NIL", NULL, NULL, NULL, "NIL", "1"},
	    {"FOO,BAZ=2,NOTSET", "foo1", NULL, "2", "FOO,BAZ=2,NOTSET", "1"},
	    {"ALL,FOO=x", "x", "bar1", NULL, "ALL,FOO=x", "1"},
	    {"FOO=x,ALL", "foo1", "bar1", NULL, "FOO=x,ALL", "1"},
	    {"FOO=\"a,b\",'BAZ=x y'", "\"a,b\"", NULL, "x y", "FOO=\"a,b\",'BAZ=x y'", "1"},
	    {",FOO,,BAR,", "foo1", "bar1", NULL, ",FOO,,BAR,", "1"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char warn[256];
		uint32_t n = 0;
		char **env = build(cases[i].export, NULL, NULL, &n, warn, sizeof(warn));

		assert_string_equal(warn, "");
		assert_string_equal(find(env, n, "SLURM_XX"), "sx"); /* SLURM_* always go */
		assert_non_null(find(env, n, "SLURM_SUBMIT_DIR"));
		assert_non_null(find(env, n, "SLURM_SUBMIT_HOST"));
		assert_non_null(find(env, n, "SLURM_PRIO_PROCESS"));
		assert_non_null(find(env, n, "SLURM_RLIMIT_NOFILE"));
		assert_int_equal(strlen(find(env, n, "SLURM_UMASK")), 4);
		assert_null(find(env, n, "NOEQUALS"));
		assert_null(find(env, n, "SLURM_JOB_NAME"));
#define CHECK(name, want)                                                                          \
	if (want)                                                                                  \
		assert_string_equal(find(env, n, name), want);                                     \
	else                                                                                       \
		assert_null(find(env, n, name))
		CHECK("FOO", cases[i].foo);
		CHECK("BAR", cases[i].bar);
		CHECK("BAZ", cases[i].baz);
		CHECK("SLURM_EXPORT_ENV", cases[i].export_env);
		CHECK("SLURM_GET_USER_ENV", cases[i].get_user_env);
#undef CHECK
		strv_free(env, n);
	}
}

static void test_export_bad_quote_and_names(void **state)
{
	char warn[256];
	uint32_t n = 0;
	char **env;

	(void)state;
	env = build("BAR,FOO=\"a,b", "myjob", NULL, &n, warn, sizeof(warn));
	assert_string_equal(warn,
			    "sbatch: error: Improperly formed environment variable (FOO=\"a,b)\n");
	assert_string_equal(find(env, n, "BAR"), "bar1");
	assert_null(find(env, n, "FOO"));
	assert_string_equal(find(env, n, "SLURM_JOB_NAME"), "myjob");
	strv_free(env, n);
}

static void test_propagate_limits(void **state)
{
	struct conf_kv kv[] = {{"PropagateResourceLimits", "NONE"}};
	struct conf_kv kv2[] = {{"PropagateResourceLimitsExcept", "CORE,AS"}};
	struct sl_conf conf = {.kv = kv, .kv_count = 1};
	uint32_t n = 0;
	char **env;

	(void)state;
	env = build(NULL, NULL, &conf, &n, NULL, 0);
	assert_null(find(env, n, "SLURM_RLIMIT_CPU"));
	strv_free(env, n);
	conf.kv = kv2;
	env = build(NULL, NULL, &conf, &n, NULL, 0);
	assert_null(find(env, n, "SLURM_RLIMIT_CORE"));
	assert_null(find(env, n, "SLURM_RLIMIT_AS"));
	assert_non_null(find(env, n, "SLURM_RLIMIT_STACK"));
	strv_free(env, n);
}

static void test_option_echoes(void **state)
{
	char *proc[] = {"SLURM_EXPORT_ENV=keep", NULL};
	char *argv[] = {"sbatch",
			"-n",
			"4",
			"-c",
			"2",
			"--ntasks-per-node=2",
			"-G",
			"2",
			"--gpus-per-node=1",
			"--open-mode=append",
			"-d",
			"afterok:1",
			"--export=NONE",
			NULL};
	struct job_opts o;
	struct job_opt_err e = {0};
	uint32_t n = 0;
	char **env = NULL;

	(void)state;
	assert_int_equal(job_opts_init(&o, "sbatch"), 0);
	assert_int_equal(job_opt_parse_argv(&o, 13, argv, JOB_OPT_SRC_CLI, NULL, &e), 0);
	assert_int_equal(job_opt_verify(&o, NULL, 0, &e), 0);
	assert_int_equal(sbatch_build_env(&o, proc, NULL, &env, &n, NULL, 0), 0);
	assert_string_equal(find(env, n, "SLURM_EXPORT_ENV"), "keep"); /* not overwritten */
	assert_string_equal(find(env, n, "SLURM_OPEN_MODE"), "a");
	assert_string_equal(find(env, n, "SLURM_JOB_DEPENDENCY"), "afterok:1");
	assert_string_equal(find(env, n, "SLURM_GPUS"), "2");
	assert_string_equal(find(env, n, "SLURM_GPUS_PER_NODE"), "1");
	assert_string_equal(find(env, n, "SLURM_CPUS_PER_TASK"), "2");
	assert_string_equal(find(env, n, "SLURM_NTASKS"), "4");
	assert_string_equal(find(env, n, "SLURM_NPROCS"), "4");
	assert_string_equal(find(env, n, "SLURM_NTASKS_PER_NODE"), "2");
	/* Slurm's order: the echoes come last */
	assert_string_equal(env[n - 1], "SLURM_NTASKS_PER_NODE=2");
	strv_free(env, n);
	job_opts_done(&o);
}

/* Hostile scripts: a huge line, binary junk, many words; never a crash. */
static void test_hostile(void **state)
{
	size_t big = 1u << 20;
	char *s = malloc(big + 64);
	struct job_opts o;
	struct job_opt_err e;
	uint32_t x = 12345;
	static const char alphabet[] = " #SBATCH-J\"'\\:\n\tab=x";
	int saved, null;
	size_t i;

	(void)state;
	assert_non_null(s);
	strcpy(s, "#!/bin/sh\n#SBATCH -J ");
	memset(s + strlen(s), 'a', big);
	strcpy(s + 22 + big, "\n");
	assert_int_equal(apply_script(s, &o, &e), 0);
	assert_int_equal(strlen(o.job_name), big);
	job_opts_done(&o);
	fflush(stderr);
	saved = dup(2);
	null = open("/dev/null", O_WRONLY);
	dup2(null, 2); /* getopt complains about the junk on stderr */
	for (int round = 0; round < 200; round++) {
		size_t len = 10 + (x % 4000);

		memcpy(s, "#!/bin/sh\n", 10);
		for (i = 10; i < len; i++) {
			x = x * 1103515245u + 12345u;
			if (round % 2)
				s[i] = (char)((x >> 16) & 0xff);
			else
				s[i] = alphabet[(x >> 16) % (sizeof(alphabet) - 1)];
		}
		s[len] = '\0';
		(void)apply_script(s, &o, &e); /* any result, no crash, no leak */
		job_opts_done(&o);
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(null);
	memcpy(s, "#!/bin/sh\n#SBATCH", 17);
	for (i = 17; i + 3 <= big; i += 3)
		memcpy(s + i, " -H", 3);
	s[i] = '\0';
	assert_int_equal(apply_script(s, &o, &e), 0);
	assert_true(o.hold);
	job_opts_done(&o);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_checks),
	    cmocka_unit_test(test_wrap),
	    cmocka_unit_test(test_directives),
	    cmocka_unit_test(test_directive_errors),
	    cmocka_unit_test(test_slurm_magic_word),
	    cmocka_unit_test(test_apply),
	    cmocka_unit_test(test_read),
	    cmocka_unit_test(test_export),
	    cmocka_unit_test(test_export_bad_quote_and_names),
	    cmocka_unit_test(test_propagate_limits),
	    cmocka_unit_test(test_option_echoes),
	    cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
