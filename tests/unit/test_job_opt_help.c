/* test_job_opt_help.c - the --help of sbatch, salloc and srun comes from
 * job_opt_help_table: every sbatch option has a description, an option
 * with no parser is never listed as working, an option the command does
 * not accept never shows, and the layout is Slurm's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/job_opt.h"
#include "cli/job_opt_help.h"

static const struct job_opt_help *help_row(const char *name, enum job_opt_cmd cmd)
{
	for (const struct job_opt_help *h = job_opt_help_table; h->name; h++)
		if (!strcmp(h->name, name) && (h->cmds & cmd))
			return h;
	return NULL;
}

/* The help text of cmd with accepts() as given; malloc'd. */
static char *help_text(enum job_opt_cmd cmd, job_opt_accepts_fn *accepts, const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	job_opt_help_print(f, cmd, "Usage: sbatch [OPTIONS(0)...]", accepts, arg);
	fclose(f);
	return buf;
}

/* Where "--name" stands as an option in text (followed by '=', '[', ' '
 * or a newline), NULL when it does not. */
static const char *find_opt(const char *text, const char *name)
{
	char want[64];
	size_t n = (size_t)snprintf(want, sizeof(want), "--%s", name);

	for (const char *p = strstr(text, want); p; p = strstr(p + 1, want))
		if (strchr("=[ \n", p[n]) && (p == text || p[-1] == ' '))
			return p;
	return NULL;
}

static void test_every_sbatch_option_has_a_description(void **state)
{
	(void)state;
	for (const struct job_opt_def *d = job_opt_table; d->name; d++) {
		const struct job_opt_help *h = help_row(d->name, JOB_CMD_SBATCH);

		if (!h)
			fail_msg("--%s has no help row for sbatch", d->name);
		if (h->short_opt != d->short_opt)
			fail_msg("--%s: help shows -%c, the table has -%c", d->name,
				 h->short_opt ? h->short_opt : ' ',
				 d->short_opt ? d->short_opt : ' ');
	}
}

static void test_an_option_without_a_parser_is_listed_as_ignored(void **state)
{
	(void)state;
	for (const struct job_opt_def *d = job_opt_table; d->name; d++) {
		const struct job_opt_help *h = help_row(d->name, JOB_CMD_SBATCH);

		if (!d->parse && h && !(h->ignored & JOB_CMD_SBATCH))
			fail_msg("--%s has no parser but sbatch --help lists it as working",
				 d->name);
	}
}

static void test_sbatch_help_names_every_option_of_its_table(void **state)
{
	char *text = help_text(JOB_CMD_SBATCH, job_opt_table_accepts, NULL);

	(void)state;
	for (const struct job_opt_def *d = job_opt_table; d->name; d++)
		if (!find_opt(text, d->name))
			fail_msg("sbatch --help lacks --%s", d->name);
	free(text);
}

static bool accepts_all_but_gres(const char *name, const void *arg)
{
	(void)arg;
	return strcmp(name, "gres") != 0;
}

static void test_an_option_the_command_does_not_accept_never_shows(void **state)
{
	char *text = help_text(JOB_CMD_SRUN, accepts_all_but_gres, NULL);

	(void)state;
	assert_null(find_opt(text, "gres"));
	assert_non_null(find_opt(text, "gres-flags"));
	/* sbatch-only rows do not show in srun's help even if accepted */
	assert_null(find_opt(text, "parsable"));
	assert_null(find_opt(text, "wrap"));
	free(text);
}

static void test_refused_options_have_their_own_section(void **state)
{
	char *text = help_text(JOB_CMD_SBATCH, job_opt_table_accepts, NULL);
	const char *refused = strstr(text, "\nRefused with an error");
	const char *ignored = strstr(text, "\nAccepted for compatibility, not acted on (");

	(void)state;
	assert_non_null(refused);
	assert_true(refused < ignored);
	assert_true(find_opt(text, "contiguous") > refused && find_opt(text, "contiguous") < ignored);
	assert_true(find_opt(text, "core-spec") > refused && find_opt(text, "core-spec") < ignored);
	assert_true(find_opt(text, "tmp") < refused);
	assert_true(find_opt(text, "mincpus") < refused);
	assert_true(find_opt(text, "reboot") > refused && find_opt(text, "reboot") < ignored);
	assert_true(find_opt(text, "container") > refused && find_opt(text, "container") < ignored);
	free(text);
}

static void test_ignored_options_come_after_the_working_ones(void **state)
{
	char *text = help_text(JOB_CMD_SBATCH, job_opt_table_accepts, NULL);
	const char *ignored = strstr(text, "\nAccepted for compatibility, not acted on (");

	(void)state;
	assert_non_null(ignored);
	assert_true(find_opt(text, "wckey") > ignored);	    /* no parser */
	assert_true(find_opt(text, "licenses") < ignored);  /* the controller checks it */
	assert_true(find_opt(text, "constraint") < ignored);
	assert_true(find_opt(text, "bb") > ignored);	    /* burst buffers: nothing here */
	assert_true(find_opt(text, "time") < ignored);
	assert_true(find_opt(text, "mem") < ignored);
	/* acted on since: they change how the job runs */
	assert_true(find_opt(text, "no-kill") < ignored);
	assert_true(find_opt(text, "hint") < ignored);
	assert_true(find_opt(text, "ntasks-per-socket") < ignored);
	assert_true(find_opt(text, "export-file") < ignored);
	assert_true(find_opt(text, "get-user-env") < ignored);
	free(text);
}

static void test_layout_is_slurms(void **state)
{
	char *text = help_text(JOB_CMD_SBATCH, job_opt_table_accepts, NULL);

	(void)state;
	assert_non_null(strstr(text, "Usage: sbatch [OPTIONS(0)...]\n\nParallel run options:\n"));
	assert_non_null(
	    strstr(text, "\n  -A, --account=name          charge job to specified account\n"));
	assert_non_null(strstr(text,
			       "\n      --mail-user=user        who to send email notification "
			       "for job state\n                              changes\n"));
	assert_non_null(strstr(text, "\n      --switches=max-switches{@max-time-to-wait}\n"
				     "                              Optimum switches"));
	assert_non_null(strstr(text,
			       "\nHelp options:\n  -h, --help                  show this help "
			       "message\n      --usage                 display brief usage "
			       "message\n\nOther options:\n  -V, --version               output "
			       "version information and exit\n\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_sbatch_option_has_a_description),
	    cmocka_unit_test(test_an_option_without_a_parser_is_listed_as_ignored),
	    cmocka_unit_test(test_sbatch_help_names_every_option_of_its_table),
	    cmocka_unit_test(test_an_option_the_command_does_not_accept_never_shows),
	    cmocka_unit_test(test_ignored_options_come_after_the_working_ones),
	    cmocka_unit_test(test_refused_options_have_their_own_section),
	    cmocka_unit_test(test_layout_is_slurms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
