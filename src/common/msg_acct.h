/* msg_acct.h - job accounting on the wire: the usage a stepd gathers
 * (struct acct_usage, carried by REQUEST_COMPLETE_BATCH_SCRIPT and
 * REQUEST_STEP_COMPLETE), and sacct/seff's query of the controller's
 * accounting store (REQUEST_ACCT_QUERY -> RESPONSE_ACCT_QUERY). Included by
 * msg.h; pack/unpack/free in msg_acct.c.
 *
 * The store is never read by the commands themselves: they ask the
 * controller, which answers from its accounting thread (slurmctld/acct.c).
 * A reply holds at most req.limit jobs and about 16 MB (the store cuts a
 * page early, keeping at least one job); the client asks again with
 * after = reply.last until reply.is_more is false, so however many rows
 * match, no reply nears MaxMessageSize (unless one job alone does).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct pack_buf;

/* Usage of one step: on one node (stepd -> ctld), or summed over its
 * nodes (ctld, store, query). Memory peaks are per task, as Slurm's
 * jobacct_gather keeps them: MaxRSS is the largest task's peak, AveRSS is
 * tot_rss_kb / ntasks. A task's RSS includes every process it started. */
struct acct_usage {
	uint64_t user_usec, sys_usec;  /* CPU time of every process of the step */
	uint64_t max_rss_kb;           /* the largest task peak RSS */
	uint64_t tot_rss_kb;           /* sum of every task's peak RSS */
	uint64_t max_vm_kb, tot_vm_kb; /* the same for virtual memory size */
	uint32_t max_rss_task;         /* global task rank of the largest RSS peak */
	uint32_t max_vm_task;
	uint32_t ntasks;               /* tasks counted in tot_* (0: none sampled) */
};

void acct_usage_pack(const struct acct_usage *u, struct pack_buf *b);
void acct_usage_unpack(struct acct_usage *u, struct pack_buf *b);

/* Add one node's usage u to the step total t: CPU times and tot_* sum,
 * ntasks sum, maxima kept with their task. Returns ACCT_MERGE_* bits for
 * the maxima u now holds, so the caller can record u's node as the
 * MaxRSSNode / MaxVMSizeNode. */
#define ACCT_MERGE_RSS 0x1
#define ACCT_MERGE_VM 0x2
unsigned acct_usage_merge(struct acct_usage *t, const struct acct_usage *u);

/* ---- the store's rows, as the query returns them ---- */

struct acct_step_rec {
	uint32_t step_id;      /* 0.., or SL_BATCH_STEP */
	char *name;            /* "batch" for the batch step */
	uint32_t state;        /* base job state (JOB_COMPLETE, ...); JOB_RUNNING while running */
	uint32_t exit_code;    /* wait status (highest over tasks) */
	uint32_t kill_requid;  /* who cancelled it (scancel JOB.STEP), NO_VAL: nobody */
	char *nodes;           /* hostlist */
	uint32_t nnodes, ntasks, ncpus;
	time_t start, end;     /* end 0: running */
	char *tres_alloc;      /* "cpu=2,mem=200M,node=1" (Slurm's order; sacct sorts) */
	struct acct_usage usage;
	char *max_rss_node, *max_vm_node; /* where the maxima were */
};

struct acct_job_rec {
	uint64_t inx;          /* store row index (paging cursor) */
	uint32_t job_id;
	uint32_t array_job_id;  /* 0: not an array */
	uint32_t array_task_id; /* NO_VAL: not a task (or a pending array's meta record) */
	char *array_task_str;   /* the meta record of an array: its pending tasks "2-5" */
	uint32_t restart_cnt;   /* a requeued job has one row per run */
	char *name;
	uint32_t uid, gid;
	char *user;             /* user name at submit */
	char *account, *partition, *qos;
	uint32_t state;         /* base state | JOB_REQUEUE for a run that was requeued */
	uint32_t reason;        /* enum job_state_reason */
	uint32_t exit_code;     /* wait status of the batch script / the allocation's command */
	uint32_t derived_ec;    /* highest wait status of the job's steps */
	uint32_t kill_requid;   /* who cancelled it, NO_VAL: nobody */
	char *nodes;            /* allocated hostlist, NULL while pending */
	uint32_t nnodes;        /* allocated (requested while pending) */
	uint32_t ncpus;         /* allocated cpus (requested while pending) */
	uint32_t req_cpus, req_nodes;
	uint64_t req_mem_mb;    /* the job's whole memory request (ReqMem) */
	uint32_t mem_per_cpu;   /* 1: it was asked per cpu (--mem-per-cpu, DefMemPerCPU) */
	uint32_t time_limit;    /* minutes, INFINITE */
	time_t submit, eligible, start, end; /* 0: not yet */
	char *work_dir, *comment;
	char *tres_req, *tres_alloc; /* as scontrol prints them ("cpu=1,mem=100M,node=1,billing=1") */
	char *resv_name;        /* --reservation (sacct Reservation), NULL: none */
	uint32_t resv_id;       /* that reservation's ResvID (ReservationId), 0: none */
	uint32_t step_count;
	struct acct_step_rec *steps; /* batch first, then 0, 1, ... */
};

void acct_step_rec_done(struct acct_step_rec *s);  /* frees the strings */
void acct_job_rec_done(struct acct_job_rec *j);    /* frees the strings and steps */

/* ---- REQUEST_ACCT_QUERY / RESPONSE_ACCT_QUERY ---- */

#define ACCT_Q_ALL_USERS 0x0001 /* -a: every user (refused silently under PrivateData=jobs) */
#define ACCT_Q_NO_STEPS 0x0002  /* -X: job rows only */
#define ACCT_Q_NODES	  0x0004  /* -i: nodes_min/max apply */
#define ACCT_Q_CPUS	  0x0008  /* -I: cpus_min/max apply */
#define ACCT_Q_TIME_LIMIT 0x0010  /* -k: time_limit_min/max apply */
#define ACCT_Q_LIMIT_MAX 50000u /* jobs in one reply, at most */
#define ACCT_Q_NODES_MAX  65536u /* hosts req.nodes may name (-N): more is refused */

struct acct_query_req {
	uint32_t flags;      /* ACCT_Q_* */
	char *job_ids;       /* "12,13_2,14": a job (all of an array's tasks) or one array
	                      * task; NULL: any. Steps are chosen by the client. */
	char *uids;          /* "0,1000"; NULL: the caller's own (every user with ALL_USERS) */
	char *accounts, *partitions, *names; /* comma lists; NULL: any */
	char *gids;          /* "100,1000"; NULL: any */
	char *qos;           /* comma list of QOS names; NULL: any */
	char *nodes;         /* hostlist: jobs that ran on any of these nodes; NULL: any */
	uint32_t nodes_min, nodes_max;		 /* allocated nodes in [min, max] (ACCT_Q_NODES) */
	uint32_t cpus_min, cpus_max;		 /* allocated cpus in [min, max] (ACCT_Q_CPUS) */
	uint32_t time_limit_min, time_limit_max; /* minutes in [min, max] (ACCT_Q_TIME_LIMIT) */
	uint32_t state_mask; /* 1 << base state (1 << JOB_REQUEUE_BIT for REQUEUED); 0: any */
	time_t start, end;   /* the window, Slurm's defaults already applied by the client;
	                      * 0/0: no window */
	uint64_t after;      /* rows with a store index above this (paging) */
	uint32_t limit;      /* jobs per reply, 1..ACCT_Q_LIMIT_MAX */
};
#define ACCT_STATE_REQUEUED_BIT 31 /* state_mask bit for REQUEUED runs */

struct acct_query_resp {
	uint32_t error_code; /* 0, or a positive sl_errno code (accounting disabled, ...) */
	uint64_t last;       /* store index of the last job sent: the next req.after */
	bool is_more;        /* more rows match */
	uint32_t count;
	struct acct_job_rec *jobs;
};
