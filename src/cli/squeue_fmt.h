/* squeue_fmt.h - squeue's job list as a pure function: filter, fold job
 * arrays, sort and print, as Slurm 22.05's squeue does.
 *
 * Input: the controller's RESPONSE_JOB_INFO records plus the options;
 * output: squeue's text. Nothing here talks to a daemon, so unit tests
 * feed it records equal to the reference cluster and compare bytes.
 * The date line of -l/-i is the caller's (fmt_print_date).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct hostlist;
struct job_info;
struct job_info_msg;
struct step_info_msg;

/* One -j entry: "12" (array_id NO_VAL) or "12_3". */
struct squeue_job_id {
	uint32_t job_id;
	uint32_t array_id;
};

/* One -s entry: "12.0", "12_3.1" (array_id NO_VAL: no task given),
 * "12.batch" (step_id SL_BATCH_STEP). */
struct squeue_step_id {
	uint32_t job_id;
	uint32_t array_id;
	uint32_t step_id;
};

struct squeue_opts {
	const char *format;		    /* -o; NULL: format_long, else the built-in one */
	const char *format_long;	    /* -O; used when format is NULL */
	const char *sort;		    /* -S; NULL: "P,t,-p" ("S" with --start) */
	bool long_flag;			    /* -l */
	bool start_flag;		    /* --start */
	bool no_header;			    /* -h */
	bool array_flag;		    /* -r: one line per array task */
	bool step_flag;			    /* -s: the step view (squeue_print_steps) */
	const struct squeue_step_id *steps; /* -s LIST; NULL: every step */
	size_t n_steps;
	/* Filters; a NULL pointer (or has_users false) means no filter. */
	const struct squeue_job_id *jobs; /* -j */
	size_t n_jobs;
	bool has_users;	       /* -u given, even if no name resolved */
	const uint32_t *users; /* -u, as uids */
	size_t n_users;
	const char *partitions; /* -p, comma separated */
	const char *names;	/* -n, comma separated, case-insensitive */
	const char *accounts;	/* -A, comma separated, case-insensitive */
	const char *qos;	/* -q, comma separated, case-insensitive */
	const char *nodes;	/* -w, host list expression */
	bool all_states;	/* -t all */
	const uint32_t *states; /* -t, from squeue_parse_states(); NULL: active jobs */
	size_t n_states;
	time_t now; /* for TIME, TIME_LEFT and the start-time order */
};

/* The format used when o->format and o->format_long are NULL. Static. */
const char *squeue_builtin_format(const struct squeue_opts *o);
/* The step view's default ("%.15i %.8j %.9P %.8u %.9M %N"). */
#define SQUEUE_STEP_FORMAT "%.15i %.8j %.9P %.8u %.9M %N"

/* Header (unless no_header) and one line per job that passes the filters,
 * pending array tasks folded into their meta record ("11209_[3-20%2]")
 * unless array_flag, sorted as squeue sorts. Unknown format letters are
 * reported on stderr ("squeue: error: Invalid job format specification:
 * x") and print only their suffix. Returns 0, -EINVAL after "squeue:
 * error: Invalid sort specification: x" (the header is already out then,
 * as in Slurm), or -ENOMEM. */
int squeue_print(FILE *out, const struct squeue_opts *o, const struct job_info_msg *m);
/* The same over the pages of a listing (job_fetch_pages), as one. The
 * records are read, never changed. */
int squeue_print_pages(FILE *out, const struct squeue_opts *o,
		       const struct job_info_msg *const *pages, size_t n_pages);

/* Whether every field o prints and sorts on is in a brief record
 * (JOB_SHOW_BRIEF, job_info_brief): squeue then asks for brief ones. */
bool squeue_wants_brief(const struct squeue_opts *o);
/* The -O name of field i, NULL past the last (for the tests). */
const char *squeue_field_name(size_t i);

/* The states to ask the controller for (job_info_req's state_bases and
 * state_flags): every job the -t filter (or its default, the active
 * jobs) keeps is in them; both 0 when no such pair says it (all states,
 * or a value with both a base state and flags). */
void squeue_pick_states(const struct squeue_opts *o, uint32_t *ret_bases, uint32_t *ret_flags);

/* The filters alone (-j -u -p -t -n -A -q, want: -w as a host list or
 * NULL), as squeue_print applies them to one record: true to keep it.
 * For --json/--yaml, which print the records as the controller sends
 * them (no folding, no sorting). */
bool squeue_job_keep(const struct squeue_opts *o, const struct hostlist *want,
		     const struct job_info *j);

/* squeue -s: header (unless no_header) and one line per step that passes
 * the filters Slurm applies to steps (-j, -p, the -s list, -w, -u; pending
 * steps never show), sorted by o->sort or "P,i". Step letters: %A tasks,
 * %b tres per node, %i id ("12.0", "12.batch", "123_4.0"), %j name, %l
 * limit, %M time used, %N nodes, %P partition, %S start, %u user, %U uid;
 * -O names as Slurm's step view (StepId, StepName, Nodes, NumTask(s),
 * NumCPUs, StepState, ...). Unknown ones are reported ("squeue: error:
 * Invalid job step format specification: x") and print only their suffix.
 * Returns 0 or -ENOMEM. */
int squeue_print_steps(FILE *out, const struct squeue_opts *o, const struct step_info_msg *m);
