/* job_depend.h - job dependencies (-d/--dependency): parse, check at
 * submit, evaluate each scheduling pass, render for scontrol/squeue.
 *
 * Pure: no controller state and no I/O. The controller answers questions
 * about other jobs through the callbacks in struct job_depend_ops.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/job_states.h"

struct sl_error;

/* Cap on ids in one spec: a user-supplied list is refused above this
 * before anything is allocated (R13; belongs in limits.h). */
#define JOB_DEPEND_MAX_ITEMS 4096
/* task_id of an "N_*" item: every task of array N. */
#define JOB_DEPEND_ALL_TASKS 0xffffffffu /* INFINITE */

enum job_depend_type {
	JOB_DEPEND_AFTER,	       /* "after": started or cancelled (+minutes) */
	JOB_DEPEND_AFTER_ANY,	       /* "afterany": ended in any state */
	JOB_DEPEND_AFTER_OK,	       /* "afterok": COMPLETED, exit 0 */
	JOB_DEPEND_AFTER_NOT_OK,       /* "afternotok": ended in any other state */
	JOB_DEPEND_AFTER_CORR,	       /* "aftercorr": same task id of array N ok */
	JOB_DEPEND_AFTER_BURST_BUFFER, /* "afterburstbuffer": as afterany */
	JOB_DEPEND_SINGLETON,	       /* "singleton": no earlier job of user+name */
};

enum job_depend_state {
	JOB_DEPEND_UNFULFILLED = 0,
	JOB_DEPEND_FULFILLED, /* sticky: not shown, never re-evaluated */
	JOB_DEPEND_FAILED,    /* sticky: can never be met, even after requeue */
};

enum job_depend_result {
	JOB_DEPEND_OK,	 /* satisfied: the job may run */
	JOB_DEPEND_WAIT, /* reason Dependency */
	JOB_DEPEND_NEVER /* reason DependencyNeverSatisfied */
};

struct job_depend_item {
	enum job_depend_type type;
	enum job_depend_state state;
	uint32_t job_id;  /* 0 for singleton */
	uint32_t task_id; /* NO_VAL: whole job; JOB_DEPEND_ALL_TASKS: N_*; else N_M */
	uint32_t minutes; /* "after:N+M" delay; 0 otherwise */
};

struct job_depend {
	bool is_or; /* items joined by '?' (any) rather than ',' (all) */
	uint32_t n;
	struct job_depend_item items[];
};

/* What the controller knows about one job. */
struct job_depend_job {
	uint32_t state;	   /* base state | flags, as in struct job */
	time_t start_time; /* when it started, or was cancelled if it never started */
	int exit_status;   /* wait status of the batch script */
};

/* Counts over every task of one job array (pending tasks still inside the
 * meta record count too). "Done" = finished and no longer COMPLETING. */
struct job_depend_array {
	uint32_t total;
	uint32_t pending;
	uint32_t done_ok;    /* COMPLETED with exit 0 */
	uint32_t done_notok; /* any other finished state */
	time_t last_start;   /* latest start_time among started tasks */
};

/* task_id NO_VAL: the job record with this id (plain job or one task);
 * otherwise task task_id of array job_id. Return false when no such job is
 * known (never existed, or purged after MinJobAge). */
typedef bool job_depend_job_fn(void *arg, uint32_t job_id, uint32_t task_id,
			       struct job_depend_job *ret);
/* Fill counts for the array whose ArrayJobId is array_job_id; return false
 * (or total 0) when no job has that ArrayJobId. */
typedef bool job_depend_array_fn(void *arg, uint32_t array_job_id, struct job_depend_array *ret);
/* singleton: true while another job of the same user and job name,
 * submitted earlier than the job being evaluated, is pending, running or
 * suspended. The job being evaluated is the caller's business (in arg). */
typedef bool job_depend_singleton_fn(void *arg);

struct job_depend_ops {
	job_depend_job_fn *job;
	job_depend_array_fn *array;
	job_depend_singleton_fn *singleton_busy;
	void *arg;
};

/* Flag for job_depend_parse(): also accept the "(unfulfilled)"/"(failed)"
 * suffixes job_depend_format() writes, so that string can be saved and read
 * back (state files). Never set it for user input. */
#define JOB_DEPEND_PARSE_STATE 0x1u

/* Parse a --dependency spec. NULL or "" gives *ret = NULL (no dependency)
 * and 0. On success *ret is owned by the caller (job_depend_free). Errors:
 * -ESLURM_DEPENDENCY with a text in err (syntax, unknown type, "expand",
 * ',' mixed with '?', too many ids), -ENOMEM; *ret untouched on error. */
int job_depend_parse(const char *spec, unsigned flags, struct job_depend **ret,
		     struct sl_error *err);
struct job_depend *job_depend_free(struct job_depend *d); /* NULL-safe, returns NULL */

/* Submit/update-time check. -ESLURM_DEPENDENCY when an item names the job
 * itself (self_job_id, or self_array_job_id for a task of an array; pass 0
 * for unknown). On success items naming an array's job id become "N_*"
 * (as Slurm does), and items naming a job that is not known are marked
 * fulfilled (Slurm 22.05 accepts "afterok:99999999" and does not hold the
 * job). d may be NULL. On error d may be partly rewritten; discard it. */
int job_depend_validate(struct job_depend *d, const struct job_depend_ops *ops,
			uint32_t self_job_id, uint32_t self_array_job_id, struct sl_error *err);

/* Re-evaluate the unfulfilled items and combine them. self_task_id is the
 * array task id of the job being evaluated (NO_VAL if not an array task;
 * used only by aftercorr). NULL d gives JOB_DEPEND_OK. */
enum job_depend_result job_depend_evaluate(struct job_depend *d, const struct job_depend_ops *ops,
					   uint32_t self_task_id, time_t now);

/* WAIT -> WAIT_DEPENDENCY, NEVER -> WAIT_DEP_INVALID, OK -> WAIT_NO_REASON. */
enum job_state_reason job_depend_reason(enum job_depend_result r);

/* The Dependency= text: unsatisfied items only, each with "(unfulfilled)"
 * or "(failed)", joined by ',' or '?'. *ret = NULL when nothing is left to
 * show (the caller prints "(null)"), else an owned string. Returns 0 or
 * -ENOMEM (*ret untouched). */
int job_depend_format(const struct job_depend *d, char **ret);
