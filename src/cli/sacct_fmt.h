/* sacct_fmt.h - sacct's fields and how it prints them (Slurm 22.05's table).
 *
 * A format list ("jobid,jobname%20,state") becomes columns that index the
 * field table; each job row and step row of the accounting store
 * (msg_acct.h) prints as one line: cells cut to width with a '+' for the
 * last visible character, right-justified unless the width is negative,
 * one space after every cell; or, parsable, joined with '|'.
 * Everything here is pure (no controller, no clock: the caller passes
 * "now"), so unit tests compare exact bytes.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct acct_job_rec;
struct acct_step_rec;

/* Slurm's field lists (sacct.h): the default, -b and -l. */
#define SACCT_DEFAULT_FIELDS "jobid,jobname,partition,account,alloccpus,state,exitcode"
#define SACCT_BRIEF_FIELDS   "jobid,state,exitcode"
#define SACCT_LONG_FIELDS                                                                          \
	"jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,"        \
	"maxrss,maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,"         \
	"mincpu,mincpunode,mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode,"             \
	"avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy,"              \
	"maxdiskread,maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite,"                    \
	"maxdiskwritenode,maxdiskwritetask,avediskwrite,reqtres,alloctres,tresusageinave,"         \
	"tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,tresusageinminn,"           \
	"tresusageinmint,tresusageintot,tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt,"        \
	"tresusageoutave,tresusageouttot"

enum sacct_parsable {
	SACCT_TABLE = 0,
	SACCT_PARSABLE,	 /* -p: delimiter after every field */
	SACCT_PARSABLE2, /* -P: delimiter between fields */
};

struct sacct_out {
	enum sacct_parsable parsable;
	const char *delim;   /* --delimiter; NULL: "|" */
	char units;	     /* --units=K|M|G|T|P; 0: Slurm's exact conversion */
	bool noconvert;	     /* --noconvert: values in their own unit */
	time_t now;	     /* Elapsed of what still runs */
	const char *cluster; /* the Cluster field */
};

struct sacct_col {
	int field; /* index into the field table */
	int width; /* negative: left-justified; 0: the value as is */
};

struct sacct_cols {
	struct sacct_col *v;
	size_t n;
};

/* Append the columns of a comma-separated list: a field name or a prefix
 * of one, any case (the first in table order wins), optionally "%W" ("%-W"
 * left-justifies); "ALL" (or a prefix of it) adds every field. Returns 0;
 * -EINVAL for an unknown name, with *ret_bad a malloc'd copy of it;
 * -ENOMEM. Columns added before an error stay. */
int sacct_cols_add(struct sacct_cols *c, const char *list, char **ret_bad);
void sacct_cols_done(struct sacct_cols *c);

/* The header line and, for the table, the line of dashes. */
void sacct_print_header(FILE *out, const struct sacct_cols *c, const struct sacct_out *o);
/* The line of job j (s NULL) or of its step s. */
void sacct_print_row(FILE *out, const struct sacct_cols *c, const struct sacct_out *o,
		     const struct acct_job_rec *j, const struct acct_step_rec *s);
/* -e/--helpformat: every field name, four per line. */
void sacct_print_field_names(FILE *out);

/* ---- value formats, exposed for unit tests ---- */

/* CPU times (TotalCPU, UserCPU, SystemCPU): "D-HH:MM:SS", "HH:MM:SS" from
 * an hour, "MM:SS.mmm" below it when there are milliseconds, else
 * "00:MM:SS". */
char *sacct_cpu_str(uint64_t usec, char *buf, size_t n);
/* ExitCode from a wait status: "E:0" exited, "0:S" signaled; NO_VAL: "". */
char *sacct_exit_str(uint32_t status, char *buf, size_t n);
/* State: "COMPLETED", "REQUEUED", "CANCELLED by 1000" (requid NO_VAL or
 * INFINITE: nobody known). */
char *sacct_state_str(uint32_t state, uint32_t requid, char *buf, size_t n);
/* JobID (raw false) or JobIDRaw of a job row (s NULL) or step row:
 * "12", "12.batch", "3_1.0", "11223_[2-5]". */
char *sacct_jobid_str(const struct acct_job_rec *j, const struct acct_step_rec *s, bool raw,
		      char *buf, size_t n);
/* A TRES string with its entries sorted by name ("billing=8,cpu=8,...");
 * malloc'd (NULL on ENOMEM); NULL or "" gives "". */
char *sacct_tres_sorted(const char *tres);
/* A size v in unit0 (0 bytes, 'K', 'M') as sacct prints it under o's
 * --units / --noconvert ("3044K", "2.50M", with --units=G "1.20G"). */
char *sacct_size_str(uint64_t v, char unit0, const struct sacct_out *o, char *buf, size_t n);
