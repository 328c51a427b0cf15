/* msg_wait.h - REQUEST_JOB_WAIT / RESPONSE_JOB_WAIT: wait, without polling,
 * until jobs reach a set of states (scontrol wait_job, sbatch --wait).
 *
 * The controller answers once the jobs are done (any one of them, or all
 * with JOB_WAIT_ALL), or when timeout_s passed. A job is done when its
 * base state is in the set (or with JOB_WAIT_STARTED it left PENDING), or
 * when it finished and its nodes are released, so that it can no longer
 * get there. An array's id stands for every task of the array.
 */
#pragma once
#include <stdint.h>

#define JOB_WAIT_ALL 0x1 /* flags: answer when every job is done (else: any one) */

/* states: one bit (1u << base state) per base state of job_states.h, and */
#define JOB_WAIT_STARTED  (1u << 30) /* any state but PENDING */
#define JOB_WAIT_FINISHED (1u << 31) /* any finished state, nodes released */

enum job_wait_result {
	JOB_WAIT_REACHED = 0,  /* in the set */
	JOB_WAIT_ENDED = 1,    /* finished outside the set: it will not get there */
	JOB_WAIT_TIMEOUT = 2,  /* not done when timeout_s passed */
	JOB_WAIT_UNKNOWN = 3,  /* no such job, or one the user may not see */
	JOB_WAIT_PURGED = 4,   /* left the controller (MinJobAge) while waited on */
	JOB_WAIT_PENDING = 5,  /* not done yet: the others were (without JOB_WAIT_ALL) */
	_JOB_WAIT_RESULT_MAX,
};

struct job_wait_req { /* REQUEST_JOB_WAIT */
	uint32_t *job_ids;    /* 1..SL_WAIT_JOBS_MAX */
	uint32_t job_id_count;
	uint32_t states;      /* bits above; 0: JOB_WAIT_FINISHED */
	uint32_t flags;       /* JOB_WAIT_ALL */
	uint32_t timeout_s;   /* 0: answer at once; capped at SL_WAIT_TIMEOUT_MAX */
};

struct job_wait_job {
	uint32_t job_id;      /* as asked */
	uint32_t state;       /* job_states.h; for an array the task with the highest exit code */
	uint32_t exit_code;   /* wait status; an array's highest (as sbatch --wait counts it) */
	uint32_t result;      /* enum job_wait_result */
};

struct job_wait_resp { /* RESPONSE_JOB_WAIT: one per asked id, in the asked order */
	uint32_t count;
	struct job_wait_job *jobs;
};

/* The exit code sbatch --wait gives for a wait status: the script's code,
 * or 1 when a signal ended it. */
int job_wait_exit_code(uint32_t status);
/* "REACHED", "ENDED", ...; "?" when out of range. */
const char *job_wait_result_name(uint32_t result);
