/* job_script.h - the controller's own job scripts (slurm.conf
 * PrologSlurmctld=, EpilogSlurmctld=), run as SlurmUser off the event
 * loop (forked, reaped on SIGCHLD, killed with their process group past
 * PrologEpilogTimeout), with Slurm's SLURM_* variables.
 *
 * PrologSlurmctld runs when a job is given its nodes: the job is RUNNING
 * and CONFIGURING meanwhile, and its batch script is launched (or its
 * salloc/srun granted the allocation) only once the script exited 0. A
 * failure or a timeout requeues a batch job (it may run elsewhere) and
 * cancels an interactive one. With PrologFlags=Alloc the nodes' Prologs
 * run then too (REQUEST_LAUNCH_PROLOG, answered by REQUEST_COMPLETE_PROLOG)
 * and the job is CONFIGURING until the batch host's is done (every
 * node's with DeferBatch, and for salloc/srun unless NoHold).
 * EpilogSlurmctld runs when a job ends; the job stays COMPLETING until
 * it is done (its failure is only logged). Both are journaled with the
 * job (CONFIGURING, and job->is_epilog_ctld) and run again after a
 * controller restart, as Slurm's.
 */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

struct ctld;
struct epilog_complete_msg;
struct job;

/* PrologSlurmctld is configured: job_start hands new jobs here. */
bool job_script_has_prolog(const struct ctld *c);
/* The job got its nodes: PrologSlurmctld starts (job CONFIGURING). */
void job_script_prolog(struct ctld *c, struct job *job);
/* The job ended (job_hook's ended, registered by job_script_init):
 * EpilogSlurmctld starts (job COMPLETING) when one is configured. The
 * caller journals the job. */
void job_script_epilog(struct ctld *c, struct job *job);
/* REQUEST_COMPLETE_PROLOG from a node (PrologFlags=Alloc): 0, or
 * ESLURM_INVALID_JOB_ID when that job waits for no Prolog there. A
 * failure drains the node and requeues (held) or cancels the job. */
int job_script_node_prolog(struct ctld *c, const struct epilog_complete_msg *m);
/* After the jobs were loaded: the SIGCHLD handler (it reaps every child
 * of the controller, MailProg's too: mail_reaped), and the scripts of
 * CONFIGURING jobs and of jobs with is_epilog_ctld run again. */
int job_script_init(struct ctld *c);
void job_script_fini(struct ctld *c);
