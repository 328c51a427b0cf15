/* job_opt_help.h - the --help text of sbatch, salloc and srun, printed
 * from one table of option descriptions.
 *
 * A row describes a long option as --help shows it (letter, argument,
 * words, section) and says which commands it applies to, and in which of
 * them the option is accepted but not acted on. A command prints the rows
 * for it whose option its own getopt table accepts, so an option it does
 * not accept never shows; options it accepts and ignores, and those it
 * refuses with an error, are listed in sections of their own, never among
 * the working ones. The layout is Slurm
 * 22.05's: a usage line, sections, the option in a 30-column field, then
 * its words (continuation lines indented to the same column).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The commands a row applies to (bits). */
enum job_opt_cmd {
	JOB_CMD_SBATCH = 1 << 0,
	JOB_CMD_SALLOC = 1 << 1,
	JOB_CMD_SRUN = 1 << 2,
};

/* In a row's ignored bits: the option is refused with an error, not
 * ignored (listed in a section of its own). */
#define JOB_OPT_HELP_REFUSED 0x80

enum job_opt_help_section {
	JOB_HELP_RUN,		 /* "Parallel run options:" */
	JOB_HELP_CONSTRAINT,	 /* "Constraint options:" */
	JOB_HELP_CONSUMABLE,	 /* "Consumable resources related options:" */
	JOB_HELP_AFFINITY,	 /* "Affinity/Multi-core options: ..." */
	JOB_HELP_AFFINITY_TASKS, /* same section, after a blank line */
	JOB_HELP_GPU,		 /* "GPU scheduling options:" */
	JOB_HELP_HELP,		 /* "Help options:" */
	JOB_HELP_OTHER,		 /* "Other options:" */
	_JOB_HELP_SECTION_COUNT,
};

struct job_opt_help {
	const char *name; /* long name; NULL ends the table */
	char short_opt;	  /* 0: none */
	const char *arg;  /* as shown after the name: "=name", "[=value]", "" */
	const char *text; /* the words; '\n' starts a continuation line, a
			   * leading '\n' puts them all below the option */
	uint8_t section;  /* enum job_opt_help_section */
	uint8_t cmds;	  /* JOB_CMD_* it applies to */
	uint8_t ignored;  /* JOB_CMD_* where it is accepted and not acted on;
			   * with JOB_OPT_HELP_REFUSED: refused with an error there */
};

/* Ends with a row whose name is NULL. Exposed for tests. */
extern const struct job_opt_help job_opt_help_table[];

/* Does the command accept the long option name? */
typedef bool job_opt_accepts_fn(const char *name, const void *arg);

/* Print cmd's --help to f: usage_line, then each section with the rows
 * for cmd that accepts(name, arg) allows, the ignored ones last before
 * the help options. */
void job_opt_help_print(FILE *f, enum job_opt_cmd cmd, const char *usage_line,
			job_opt_accepts_fn *accepts, const void *arg);

/* accepts() over sbatch's job_opt_table (arg unused). */
bool job_opt_table_accepts(const char *name, const void *arg);
