/* step_rec.h - the records of job steps: struct step, lookup and the
 * predicates every floor needs. No I/O and no controller calls: a leaf
 * below job.c (a job owns its steps, job_free -> step_job_free).
 *
 * Steps live in job->steps (a grown array, id order). A step that is over
 * leaves the job once its accounting row is written (step.c), as Slurm
 * drops a finished step record. Steps are journaled inside their job's
 * record (job_state.c).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/msg_acct.h"

struct job;

struct step_node_rec {	   /* one node of a step, step node order */
	uint32_t job_node; /* index into job->alloc.nodes (valid while running) */
	uint32_t node;	   /* index into c->nodes */
	uint32_t tasks;
	uint16_t cpus;
	uint64_t mem;  /* MB, 0: none */
	uint64_t gpus; /* GPU index mask */
	bool is_done;  /* its REQUEST_STEP_COMPLETE came */
};

struct step {
	uint32_t step_id;
	char *name;
	char *command;
	uint32_t state; /* JOB_RUNNING, then JOB_COMPLETE/FAILED/CANCELLED/... */
	struct step_node_rec *nodes;
	uint32_t node_count;
	char *nodes_str; /* hostlist of the step's nodes */
	uint32_t num_tasks;
	uint32_t num_cpus;
	uint16_t cpus_per_task;
	uint16_t flags;	     /* STEP_FLAG_* */
	bool is_gpus_held;   /* asked gres/gpu:N: its GPUs are its own */
	uint32_t time_limit; /* minutes, INFINITE */
	time_t start_time, end_time;
	uint32_t exit_code; /* highest wait status */
	uint32_t nodes_done;
	time_t nodes_end_time;		  /* the latest end a node reported (not journaled) */
	struct acct_usage usage;	  /* summed over nodes (msg_acct.h) */
	char *max_rss_node, *max_vm_node; /* where usage's maxima were */
	uint32_t kill_requid;		  /* scancel JOB.STEP by this uid; NO_VAL: nobody */
	bool is_oom;
	bool is_cancelled; /* scancel of the step */
	bool is_timed_out; /* its own time limit passed */
	char *srun_host;   /* SRUN_* notices; port 0: none */
	uint16_t srun_port;
	uint32_t srun_pid;
	time_t last_srun_ping; /* step_ping.c: last answer (or the end of the one in flight) */
	/* the accounting snapshot with its final row; 0: none yet (not journaled) */
	uint64_t acct_seq;
};

/* Free a record's strings (not the record). */
void step_rec_done(struct step *s);
/* Free every step of the job (job_free). */
void step_job_free(struct job *job);
struct step *step_find(struct job *job, uint32_t step_id);
bool step_is_running(const struct step *s);
/* Not running and every node has reported. */
bool step_is_over(const struct step *s);
/* Running steps of a job (not counting the batch step). */
uint32_t step_running_count(const struct job *job);
/* A step of the job was killed for memory: a job whose script or command
 * then fails ends OUT_OF_MEMORY, not FAILED. */
bool step_job_had_oom(const struct job *job);
/* The step belongs to the job's current run (not to one before a requeue). */
bool step_is_of_this_run(const struct job *job, const struct step *s);
/* Accounting queued snapshot seq of job (0: none): every step of the job's
 * current run that is over, all its nodes reported, is in it with its
 * final row. A step keeps the first such seq (a lost one holds everything
 * back until it is written again: job_seq_is_recorded). */
void step_mark_recorded(struct job *job, uint64_t seq);
