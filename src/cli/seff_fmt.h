/* seff_fmt.h - the pieces of seff that do not talk to anyone: the numbers
 * of one job's efficiency report and its text (upstream contrib seff's
 * format), which store rows a job id selects, and our per-user table
 * (seff -u). seff.c fetches the rows and prints what these functions make.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct acct_job_rec;

/* What one report shows, derived from a store row the way upstream seff
 * derives it from slurmdbd's record. */
struct seff_job {
	uint32_t job_id;
	uint32_t array_job_id;		    /* 0: not part of an array */
	uint32_t array_task_id;		    /* NO_VAL: the record of an array's pending tasks */
	const char *array_task_str;	    /* those pending tasks ("2-5"), borrowed */
	const char *cluster, *user, *group; /* borrowed; NULL prints as "" */
	uint32_t state;			    /* job state with its flags */
	uint32_t exit_status;		    /* high byte of the wait status, as upstream */
	uint32_t ncpus, nnodes;		    /* allocated (requested while pending), at least 1 */
	uint64_t cpu_secs;		    /* CPU Utilized: user + system of every step */
	uint64_t wall_secs;		    /* Job Wall-clock time (up to now while running) */
	uint64_t mem_kb;		    /* Memory Utilized */
	uint32_t mem_ntasks;		    /* tasks of the step that gave mem_kb, 0: none */
	uint64_t req_mem_kb;		    /* the whole memory request */
	bool is_mem_per_cpu;		    /* the request was --mem-per-cpu (else per node) */
};

/* Fill *ret from row j at time now (for the running wall time):
 * CPU Utilized is the sum over the steps of user + system CPU, rounded to
 * seconds as upstream does (whole seconds summed, then the microsecond
 * parts summed and rounded); Memory Utilized is the largest step's sum of
 * task RSS peaks (tot_rss_kb); the wall time is end - start, now - start
 * while running, 0 before the start. cluster, user (j->user) and group are
 * left for the caller when they are not in the row (cluster and group
 * are set NULL). is_mem_per_cpu is false: the store does not record how
 * the memory was asked for. Pointers in *ret borrow from j. */
void seff_job_from_rec(const struct acct_job_rec *j, time_t now, struct seff_job *ret);

/* The report, byte for byte as upstream seff 2.1 (Slurm 22.05) prints it:
 * "Job ID", "Array Job ID" for array tasks, "Cluster", "User/Group",
 * "State" ("(exit code N)" unless PENDING or RUNNING), "Cores: 1" or
 * "Nodes"/"Cores per node", then for a job that is not pending the CPU
 * and memory lines and for a RUNNING one the warning line; a PENDING one
 * ends with "Efficiency not available for jobs in the PENDING state.". */
void seff_report(FILE *f, const struct seff_job *s);
/* -d: upstream's two "Slurm data:" lines and an empty line. */
void seff_debug(FILE *f, const struct seff_job *s);

/* Kibibytes as upstream's kbytes2str: "%.2f %sB" with the unit K, M, G,
 * T, P, E chosen by int(log(kb) / log(1024)); 0 is "0.00 MB". */
char *seff_kbytes_str(double kb, char *buf, size_t n);

/* "N", "N_T", optionally followed by ".STEP" (ignored: the report is of
 * the whole job). Sets *ret_job and *ret_task (NO_VAL for "N") and
 * returns 0, or -EINVAL (outputs untouched). */
int seff_parse_id(const char *s, uint32_t *ret_job, uint32_t *ret_task);

/* The rows a seff id names, into out (room for n pointers); returns how
 * many. "N_T": the task T of array N. "N": every task of array N when N
 * is an array (sorted by task, the pending tasks' record last), else the
 * job whose id is N (a task's own id selects that task). Of a requeued
 * job only the latest run is kept, as sacct without -D shows it. */
size_t seff_select(const struct acct_job_rec *jobs, size_t n, uint32_t job_id, uint32_t task_id,
		   const struct acct_job_rec **out);

/* ---- seff -u USER [-S TIME] [-E TIME] ---- */

#define SEFF_DEFAULT_DAYS 7 /* the default window: the last 7 days (-S/-E: sacct_parse_time) */

/* The per-user table of the jobs in jobs[0..n) that finished (every end
 * state, and requeued runs) after they started; jobs that never ran have
 * no usage and are left out. Sorted by waste, largest first (ties by job
 * id). Prints a title naming user and the window [start, end], a header,
 * aligned columns JobID JobName State Elapsed CPUs CPUEff ReqMem MaxMem
 * MemEff IdleCore-h UnusedGB-h, and a hint line; only
 * "No finished jobs for USER in that window." when none is left.
 * Returns the number of rows printed. */
size_t seff_user_table(FILE *f, const char *user, time_t start, time_t end,
		       const struct acct_job_rec *jobs, size_t n);
