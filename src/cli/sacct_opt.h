/* sacct_opt.h - what sacct's options mean, as pure functions: Slurm's time
 * forms (-S/-E) and the default time window, state names (-s), the -j
 * list and which rows it shows, and the order rows print in.
 * Nothing here reads the clock: callers pass "now".
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct acct_job_rec;
struct acct_step_rec;

/* Slurm's parse_time(s, past=1) at now, in local time: "HH:MM[:SS][AM|PM]",
 * "MMDD[YY]", "MM.DD[.YY]", "MM/DD[/YY]" (each optionally "-HH:MM[:SS]"),
 * "YYYY-MM-DD[THH:MM[:SS]]", "today", "tomorrow", "midnight", "noon",
 * "elevenses", "fika", "teatime", "now[{+|-}count[seconds|minutes|hours|
 * days|weeks]]", "uts<epoch>". A time without a date is today; a date
 * without a year is this year, or last year when its month is still to
 * come. Returns 0 and *ret (0 when s names nothing), or -EINVAL with
 * *ret_pos the offset Slurm reports ("Invalid time specification
 * (pos=N): s"). */
int sacct_parse_time(const char *s, time_t now, time_t *ret, int *ret_pos);
/* The same for a -S/-E argument: on failure prints Slurm's "Invalid time
 * specification (pos=N): s" line to stderr and returns -EINVAL. */
int sacct_time_arg(const char *s, time_t now, time_t *ret);

/* The window the query uses (man sacct, DEFAULT TIME WINDOW): start and
 * end are -S/-E (0: not given). Without -j or -s: midnight .. now; with
 * -j: epoch .. now, and no window at all (0/0) when neither -S nor -E was
 * given, so jobs that never became eligible show too; with -s: start
 * defaults to now (epoch with -j) and end to -S, else now. */
void sacct_time_window(bool has_jobs, bool has_states, time_t start, time_t end, time_t now,
		       time_t *ret_start, time_t *ret_end);

/* -v: "Jobs Eligible in the time window from Wed Dec 02 00:00:00 2026 to
 * ..." ("Jobs COMPLETED,RUNNING in ..." with -s; a start of 0 is "Epoch
 * 0", an end of 0 now, an end equal to the start one second later, as
 * Slurm's exclusive end), as Slurm's sacct says it. malloc'd; NULL: out
 * of memory. */
char *sacct_window_line(const char *states, time_t start, time_t end, time_t now);
/* -i/-I "min[-max]": "N" is [N, N]. -EINVAL for anything else (Slurm
 * also refuses "N-"). */
int sacct_parse_range(const char *s, uint32_t *ret_min, uint32_t *ret_max);
/* -T: start times before the window's start become its start, end times
 * after its end (and no end yet: running) become its end, on the job row
 * and its steps; a row that never started is left alone. Elapsed and
 * CPUTime follow, as they are computed from start and end. 0: no bound. */
void sacct_truncate(struct acct_job_rec *j, time_t start, time_t end);

/* "CD,f,OOM,requeued" -> acct_query_req.state_mask. Names and short
 * forms of the JOB STATE CODES, any case. -EINVAL with *ret_bad a
 * malloc'd copy of the first unknown word; -ENOMEM. */
int sacct_state_mask(const char *list, uint32_t *ret_mask, char **ret_bad);

/* One -j item: "N", "N_T", "N.S", "N_T.S", "N.batch". */
struct sacct_sel {
	uint32_t job_id;  /* a job id, or an array's id */
	uint32_t task_id; /* NO_VAL: any */
	uint32_t step_id; /* NO_VAL: the whole job */
};

/* One -j item: "N", "N_T", "N.S", "N_T.S", S a number or batch, extern,
 * interactive. 0 or -EINVAL. */
int sacct_parse_sel(const char *tok, struct sacct_sel *sel);
/* Parse a -j list. Returns 0 with a malloc'd array and the query's job_ids
 * ("12,13_2", each job once, malloc'd); -EINVAL with *ret_bad the bad item
 * (malloc'd); -ENOMEM. */
int sacct_parse_jobs(const char *list, struct sacct_sel **ret, size_t *ret_n, char **ret_job_ids,
		     char **ret_bad);
/* Whether the job row prints (a selection without a step names it; no
 * selection: every job), and whether step s of it prints (its job prints
 * whole, or a selection names the step). */
bool sacct_job_shown(const struct sacct_sel *v, size_t n, const struct acct_job_rec *j);
bool sacct_step_shown(const struct sacct_sel *v, size_t n, const struct acct_job_rec *j,
		      const struct acct_step_rec *s);

/* Sort rows by (array id or job id, array task id, run), the order sacct
 * prints; a pending array's meta record follows its tasks. */
void sacct_rows_sort(struct acct_job_rec *v, size_t n);
/* Without -D only the latest run of a job id shows: drop (acct_job_rec_done
 * and remove) every row an older run of a job id that has a later row in
 * v. Keeps order; returns the new count. */
size_t sacct_rows_dedup(struct acct_job_rec *v, size_t n);
