/* step.h - the life of job steps in the controller: creation (step_create.c
 * places them), completion reports from the stepds, steps ending with
 * their job, scancel JOB.STEP, step time limits.
 *
 * A running step that is not --overlap holds cpus (and GPUs when it asked
 * for some) of the job's nodes against other steps; the batch step holds
 * none. Every step start and end calls job_changed(), so after a
 * controller restart running steps are known again and finished ones keep
 * their accounting. A step id is never given twice in a job
 * (job->next_step_id).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "step_rec.h"

struct ctld;
struct job;
struct step_complete_msg;
struct step_signal_msg;

/* Every running step of job ends now with step_state (JOB_CANCELLED,
 * JOB_TIMEOUT, JOB_NODE_FAIL); each one's srun gets SRUN_JOB_COMPLETE
 * {job, step, srun_reason}. The tasks themselves are stopped by the job's
 * own terminate to its nodes (SL_ALL_STEPS). Returns how many steps were
 * running. Safe to call twice (the second does nothing). The caller calls
 * job_changed(). */
uint32_t step_job_ending(struct ctld *c, struct job *job, uint32_t step_state,
			 uint16_t srun_reason);
/* A --no-kill job lost node (c->nodes index), which was job_node in its
 * allocation before it left (job_res_release_node): its steps there end
 * NODE_FAIL (their tasks on the other nodes are killed, their sruns told),
 * except the extern step and an srun --no-kill step on several nodes
 * (its srun gets SRUN_NODE_FAIL), which go on without it; every running
 * step's job_node past it moves down one. The caller calls
 * job_changed(). */
void step_node_lost(struct ctld *c, struct job *job, uint32_t node, uint32_t job_node);
/* From the timer: steps past their own time limit get
 * REQUEST_KILL_TIMELIMIT and end TIMEOUT when their nodes report. */
void step_timer(struct ctld *c, time_t now);
/* Set the final state and end time (no notice, no signal) and journal it. */
void step_end(struct ctld *c, struct step *s, uint32_t state, time_t now);
/* Add a built record to the job (takes s's strings even on error); steps
 * that are over and recorded leave first. Returns the stored record (every
 * earlier step pointer of the job is invalid after it), NULL on ENOMEM. */
struct step *step_append(struct ctld *c, struct job *job, struct step *s);
/* PrologFlags=Contain: the job's extern step (SL_EXTERN_STEP), on every
 * node of the job with its resources there, holding nothing against its
 * other steps, RUNNING until the job ends (then COMPLETED). Each node's
 * slurmd starts its stepd after the Prolog; its report brings the usage
 * of what ran in it (processes adopted by pam_slurm_adopt). Nothing is
 * made twice for one run. 0 or -ENOMEM. */
int step_extern_create(struct ctld *c, struct job *job, time_t now);
/* REQUEST_STEP_COMPLETE from one node: its exit code and usage are added
 * to the step; the last node ends it. Returns 1 when the report was
 * recorded (the job is journaled: reply once durable), 0 when it was
 * unknown or a retry (reply at once). */
int step_complete(struct ctld *c, const struct step_complete_msg *m);
/* scancel JOB.STEP (REQUEST_CANCEL_JOB_STEP) by uid: the step's tasks, or
 * the batch script for step SL_BATCH_STEP, get the signal. 0 or a negative
 * Slurm code. */
int step_signal(struct ctld *c, const struct step_signal_msg *m, uid_t uid);
/* SRUN_JOB_COMPLETE {job, step, reason} to the step's srun (async; a
 * failure is only logged). */
void step_notify_srun(struct ctld *c, const struct job *job, const struct step *s, uint16_t reason);
/* type (REQUEST_TERMINATE_JOB, REQUEST_SIGNAL_TASKS, REQUEST_KILL_TIMELIMIT)
 * with the step's id to its nodes that have not completed. */
void step_send_nodes(struct ctld *c, const struct job *job, const struct step *s, uint16_t type,
		     uint16_t sig);
