/* step.h - job steps in the controller: srun's REQUEST_JOB_STEP_CREATE,
 * the stepds' REQUEST_STEP_COMPLETE, scancel JOB.STEP, scontrol show step
 * / squeue -s, step time limits, and steps ending with their job.
 *
 * Steps live in job->steps (a grown array, id order). A running step that
 * is not --overlap holds cpus (and GPUs when it asked for some) of the
 * job's nodes against other steps; the batch step holds none. Finished
 * steps stay until the job is purged (job_free -> step_job_free).
 *
 * Steps are journaled inside their job's record (job_state.c): every step
 * start and end calls job_touch(), so after a controller restart running
 * steps are known again and finished ones keep their accounting. A step id
 * is never given twice in a job (job->next_step_id).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/msg_acct.h"

struct ctld;
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
	struct acct_usage usage;      /* summed over nodes (msg_acct.h) */
	char *max_rss_node, *max_vm_node; /* where usage's maxima were */
	uint32_t kill_requid;         /* scancel JOB.STEP by this uid; NO_VAL: nobody */
	bool is_oom;
	bool is_cancelled; /* scancel of the step */
	bool is_timed_out; /* its own time limit passed */
	char *srun_host;   /* SRUN_* notices; port 0: none */
	uint16_t srun_port;
	uint32_t srun_pid;
	time_t last_srun_ping;	/* step_ping.c: last answer (or the end of the one in flight) */
	/* the accounting snapshot with its final row; 0: none yet (not journaled) */
	uint64_t acct_seq;
};

/* Every running step of job ends now with step_state (JOB_CANCELLED,
 * JOB_TIMEOUT, JOB_NODE_FAIL); each one's srun gets SRUN_JOB_COMPLETE
 * {job, step, srun_reason}. The tasks themselves are stopped by the job's
 * own terminate to its nodes (SL_ALL_STEPS). Returns how many steps were
 * running. Safe to call twice (the second does nothing). */
uint32_t step_job_ending(struct ctld *c, struct job *job, uint32_t step_state,
			 uint16_t srun_reason);
/* A step of the job was killed for memory: a job whose script or command
 * then fails ends OUT_OF_MEMORY, not FAILED. */
bool step_job_had_oom(const struct job *job);
/* acct.c queued snapshot seq of job (0: none): every step of the job's
 * current run that is over, all its nodes reported, is in it with its
 * final row. A step keeps the first such seq (a lost one holds everything
 * back until it is written again: acct_seq_is_written). */
void step_mark_recorded(struct job *job, uint64_t seq);
/* The step belongs to the job's current run (not to one before a requeue). */
bool step_is_of_this_run(const struct job *job, const struct step *s);
/* Running steps of a job (not counting the batch step). */
uint32_t step_running_count(const struct job *job);
/* The 1 s job timer: steps past their own time limit get
 * REQUEST_KILL_TIMELIMIT and end TIMEOUT when their nodes report. */
void step_timer(struct ctld *c, time_t now);
/* step_ping.c, from step_timer: SRUN_PING each running step's srun every
 * few seconds; a step whose srun cannot be reached (killed before its
 * tasks started, so no stepd saw it go) is cancelled and its cpus freed. */
void step_ping_sruns(struct ctld *c, time_t now);
/* Set the final state and end time (no notice, no signal). */
void step_end(struct ctld *c, struct step *s, uint32_t state, time_t now);
/* Free every step of the job (job_free). */
void step_job_free(struct job *job);

/* Within step*.c (step.c: records, create, complete, ending; step_rpc.c:
 * cancel and info). */
struct step *step_find(struct job *job, uint32_t step_id);
bool step_is_running(const struct step *s);
/* SRUN_JOB_COMPLETE {job, step, reason} to the step's srun (async; a
 * failure is only logged). */
void step_notify_srun(struct ctld *c, const struct job *job, const struct step *s, uint16_t reason);
/* type (REQUEST_TERMINATE_JOB, REQUEST_SIGNAL_TASKS, REQUEST_KILL_TIMELIMIT)
 * with the step's id to its nodes that have not completed. */
void step_send_nodes(struct ctld *c, const struct job *job, const struct step *s, uint16_t type,
		     uint16_t sig);
