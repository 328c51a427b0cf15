/* job.h - the controller's job records and job table.
 *
 * A job owns the request it was submitted with (struct job_desc: script,
 * environment, options) plus what the controller decided: id, state and
 * reason, priority, partition, time limit, allocation. The table keeps
 * jobs in id order (ids only grow), so lookups are a binary search and
 * iteration is submit order.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/job_states.h"
#include "common/msg_acct.h"
#include "select.h"

struct blob;
struct blob_store;
struct ctld;
struct job_depend;
struct job_desc;
struct job_info;
struct step;

struct job {
	uint32_t job_id;
	uint32_t array_job_id;        /* 0: not part of an array */
	uint32_t array_task_id;       /* NO_VAL: the meta record (or not an array) */
	uint32_t *array_pending;      /* meta record: task ids not started, sorted */
	uint32_t array_pending_count;
	uint32_t array_throttle;      /* %N, 0 none */
	struct job_depend *depend;    /* parsed desc->dependency (derived, not journaled) */
	struct job_desc *desc;        /* owned: the request as submitted */
	/* desc's script and environment (as packed by pack_strv) once
	 * job_table_add moved them to the controller's blob store: then
	 * desc->script is NULL and desc->env empty (job_files_load) */
	struct blob *script_blob, *env_blob;
	uid_t uid;
	gid_t gid;
	char *user_name;
	uint32_t *gids;               /* supplementary groups at submit */
	uint32_t ngids;
	uint32_t state;               /* job_states.h */
	enum job_state_reason reason;
	char *state_desc;             /* overrides the reason name when set */
	uint32_t priority;            /* 0 = held */
	bool is_user_hold;            /* held by the user (JobHeldUser) */
	bool is_prio_fixed;	      /* set by an admin: multifactor keeps it (not journaled) */
	bool is_str_shared;	      /* user_name and partition are share.h's (job_table_add;
				       * not journaled) */
	time_t prio_time; /* multifactor: when priority was computed (sprio's factors; not
			     journaled) */
	char *partition;              /* the partition chosen */
	uint32_t time_limit;          /* minutes, INFINITE */
	uint32_t min_nodes, max_nodes;
	uint32_t num_tasks;
	uint16_t cpus_per_task;
	uint64_t mem_per_cpu;         /* MB, 0 when per node */
	uint64_t mem_per_node;        /* MB, 0 when per cpu or none */
	uint16_t gpus_per_node;
	uint32_t gpus_total;
	time_t submit_time, eligible_time, start_time, end_time, last_sched_eval;
	struct sel_result alloc;      /* empty while pending */
	char *nodes;                  /* allocated hostlist, NULL while pending */
	char *batch_host;
	uint32_t exit_code;           /* wait status */
	uint16_t restart_cnt;
	bool is_cancelled;            /* terminate sent on a cancel */
	bool is_timed_out;            /* terminate sent at the time limit */
	bool is_requeued;             /* terminate sent by scontrol requeue */
	bool is_requeue_hold;         /* ... and hold it once back in the queue */
	bool is_warned;               /* --signal sent before the time limit */
	uint8_t stats_seen;	      /* sched_stats.c: what sdiag counted (not journaled) */
	bool is_epilog_ctld;	      /* job_script.c: EpilogSlurmctld runs (journaled) */
	bool is_prolog_ctld;	      /* job_script.c: PrologSlurmctld runs (not journaled:
				       * CONFIGURING says to run it again) */
	uid_t cancelled_by;
	/* job_epilog.c: the nodes whose Epilog it still waits for (journaled),
	 * and when they were last asked (not journaled) */
	uint32_t epilog_count;
	uint32_t *epilog_nodes;
	time_t epilog_asked;
	/* job_script.c (PrologFlags=Alloc): the nodes whose Prolog has not
	 * reported yet, prolog_count of them below (not journaled: asked
	 * again after a restart) */
	uint32_t *prolog_nodes;
	/* steps (step_rec.h): srun steps in id order; one that is over leaves once its
	 * accounting row is written (step_retire_recorded) */
	struct step *steps;
	uint32_t step_count;
	uint32_t next_step_id;        /* journaled: a step id is never given twice in a job */
	/* the ResvID of the reservation it started in (journaled; 0: none; a
	 * pending job's is its reservation's, looked up: acct_rec.c) */
	uint32_t resv_id;
	/* interactive allocations (salloc, srun): desc->alloc_port != 0 */
	bool is_grant_sent;           /* the client has its allocation (reply or grant) */
	time_t last_client_ping;      /* last time the client answered SRUN_PING */
	time_t kill_seen_time;	      /* COMPLETING and its node still runs it: since
				       * (node_reconcile.c; not journaled) */
	bool is_launching;	      /* REQUEST_BATCH_JOB_LAUNCH sent, not answered yet */
	bool is_kill_deferred;	      /* a kill found nothing while launching: sent
				       * again once the launch is answered (job_launch.c;
				       * neither journaled) */
	uint32_t prolog_count;	      /* prolog_nodes' (job_script.c) */
	/* accounting (acct.c) */
	struct acct_usage *batch_usage; /* the batch step's, from its completion (NULL: none:
					 * a pending job does not carry the room) */
	uint64_t acct_seq; /* its latest queued row (job_seq_is_recorded); not journaled */
	/* durable.c: the journal record that made it known (journal_seq), 0 for
	 * a job replayed; DURABLE_SEQ_NEVER when it could not be journaled.
	 * It starts only once that record is on disk. Not journaled. */
	uint64_t saved_seq;
	/* sched/backfill's plan for a pending job (sched_bf.c; not journaled):
	 * expected start (0: none), its nodes, the job whose end lets it start */
	time_t sched_start;
	char *sched_nodes;
	uint32_t sched_after;
	uint8_t sched_by; /* JOB_SCHED_*: who started it, or planned it */
	/* job_preempt.c (not journaled): the job this one gives its place to
	 * (0: none), and when its GraceTime is over (0: none) */
	uint32_t preempted_for;
	time_t preempt_kill_at;
	/* assoc_limits.c (not journaled: resolved again from desc->account,
	 * user_name, partition and desc->qos): the association and QOS, and
	 * what a running job's counters were charged to (0: nothing) */
	uint32_t assoc_id, qos_id;
	uint32_t charged_assoc_id, charged_qos_id;
	bool is_assoc_charged;
	/* job_info.c (not journaled): the brief record squeue lists, as
	 * packed, kept while info_gen stays what it was then (NULL: none) */
	struct job_info_kept *info_kept;
	uint32_t info_gen;
};

/* Something squeue or scontrol show of the job changed: its kept record
 * is packed again at the next listing. job_changed does it; a change not
 * journaled (the scheduler's reason, priority, estimates) calls it. */
static inline void job_info_touch(struct job *job)
{
	job->info_gen++;
}

/* Table */
struct job *job_find(struct ctld *c, uint32_t job_id);
int job_table_add(struct ctld *c, struct job *job);   /* takes ownership, even on error */
/* Free job_id's record and take it out of the table (journal replay of a
 * purge); false when there is none. No hook runs. */
bool job_table_remove(struct ctld *c, uint32_t job_id);
void job_table_free(struct ctld *c);
/* Drop finished jobs older than MinJobAge (0: never) whose latest
 * accounting row is written (job_seq_is_recorded). */
void job_table_purge(struct ctld *c, time_t now);
/* What the timer's per-job checks go through: between job_view_take() and
 * job_view_drop() (one timer turn) the jobs that are not pending plus the
 * pending interactive allocations, taken in one pass, so that a queue of
 * pending jobs is read once a second rather than once per check; at any
 * other time every job. */
void job_view_take(struct ctld *c);
void job_view_drop(struct ctld *c);
struct job *const *job_view(const struct ctld *c, uint32_t *ret_n);

struct job *job_free(struct job *job);                  /* NULL-safe, returns NULL */
/* The batch step's usage (all zero when none was reported). */
const struct acct_usage *job_batch_usage(const struct job *job);
/* Set it to a copy of *u; NULL or all zero: none. 0 or -ENOMEM (none). */
int job_set_batch_usage(struct job *job, const struct acct_usage *u);
/* job->partition = a copy of name. 0 or -ENOMEM (unchanged). */
int job_set_partition(struct job *job, const char *name);
/* What a node reports ended at `reported` (0: unknown) ended then, kept
 * within [start, now]; else now. */
time_t job_time_of_report(time_t reported, time_t start, time_t now);
/* A batch job that loses its node runs again: --requeue, --no-requeue,
 * else JobRequeue. */
bool job_may_requeue(const struct ctld *c, const struct job *job);
bool job_is_finished(const struct job *job);            /* base state past RUNNING */
/* uid may see the job: always, unless PrivateData=jobs hides other users'
 * jobs from non-admins (squeue, scontrol show job/step, sacct). */
bool job_is_visible(const struct ctld *c, const struct job *job, uid_t uid);
bool job_is_pending(const struct job *job);
bool job_is_running(const struct job *job);             /* RUNNING or completing */
/* salloc, or srun outside an allocation (desc->alloc_port != 0): no batch
 * script, the client is told of the grant and of the end (job_alloc.c). */
bool job_is_interactive(const struct job *job);
/* A job's batch script and environment move out of its request into the
 * blob store (blob_store.h) when the job joins the table, and are read
 * back for its launch. */
/* What job_files_load() gives: pointers into the job's request, or into
 * copies read from the store (freed by job_files_done). */
struct job_files {
	const char *script;
	char *const *env;
	uint32_t env_count;
	uint8_t *script_bytes; /* owned copies, when read back */
	char **env_owned;
	uint32_t env_owned_count;
};

/* Move job->desc's script and environment into s, leaving desc->script
 * NULL and desc->env empty; blobs job already has (a replayed record's,
 * an array task's) are taken into s instead. A request whose strings are
 * shared copies already (job_desc_share, which job_table_add calls
 * after this) keeps them. 0, or -ENOMEM (what could not be moved stays
 * in desc, which works the same). */
int job_files_store(struct blob_store *s, struct job *job);
/* Fill f with job's script and environment. 0, or blob_read()'s code, or
 * -EBADMSG for an environment that does not unpack. */
int job_files_load(const struct job *job, struct job_files *f);
void job_files_done(struct job_files *f);

/* A batch job: it has a script, in desc or in the blob store. */
bool job_has_script(const struct job *job);
/* The batch script of the job runs now (scontrol show step: StepId=N.batch). */
bool job_is_batch_running(const struct job *job);

/* Observers of job changes, so that the files that change jobs (scheduler,
 * steps, ends) know neither the journal nor accounting, and unit tests run
 * them with neither. durable.c (journal) and acct.c (accounting rows)
 * register at start; hooks run in registration order. Any member may be
 * NULL. */
struct job_hook {
	/* Every change of a job that must survive a restart. */
	void (*changed)(struct ctld *c, struct job *job);
	/* The job's current run ends REQUEUED at now: called before the job
	 * is reset to PENDING with restart_cnt + 1. */
	void (*requeued)(struct ctld *c, struct job *job, time_t now);
	/* The accounting snapshot seq (job->acct_seq, step->acct_seq; 0:
	 * none) is on disk. */
	bool (*is_recorded)(const struct ctld *c, uint64_t seq);
	/* MinJobAge: the job leaves memory (it is freed right after). */
	void (*purged)(struct ctld *c, const struct job *job);
	/* The job's run ended: its final state is set and its resources
	 * given back; called once, before the change is journaled. */
	void (*ended)(struct ctld *c, struct job *job);
};
/* h must outlive c's use of it. The first call makes c's registry (no init
 * before it). -ENOSPC when the table is full (8 hooks), -ENOMEM. */
int job_hook_add(struct ctld *c, const struct job_hook *h);
/* Forget every hook and free the registry: once the files that registered
 * are gone (main.c: with the job table, after them). */
void job_hooks_clear(struct ctld *c);
/* The job changed: bumps job_last_update and tells every hook. */
void job_changed(struct ctld *c, struct job *job);
void job_requeued(struct ctld *c, struct job *job, time_t now);
void job_ended(struct ctld *c, struct job *job);
/* True unless a hook says seq is not on disk (always true with no hooks:
 * without accounting nothing waits for it). */
bool job_seq_is_recorded(const struct ctld *c, uint64_t seq);
