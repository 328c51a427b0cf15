/* msg_job.h - job messages: submission, info, kill, update, batch launch
 * and completion. Included by msg.h; pack/unpack/free in msg_job.c.
 *
 * Conventions: NO_VAL / NO_VAL16 / NO_VAL64 mean "not given"; times are
 * time_t (0 = unset); memory is MB; time limits are minutes (INFINITE).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "msg_acct.h"

/* mail_type bits (Slurm's values) */
#define MAIL_JOB_BEGIN 0x0001
#define MAIL_JOB_END 0x0002
#define MAIL_JOB_FAIL 0x0004
#define MAIL_JOB_REQUEUE 0x0008
#define MAIL_JOB_TIME100 0x0010
#define MAIL_JOB_TIME90 0x0020
#define MAIL_JOB_TIME80 0x0040
#define MAIL_JOB_TIME50 0x0080
#define MAIL_JOB_STAGE_OUT 0x0100
#define MAIL_ARRAY_TASKS 0x0200
#define MAIL_INVALID_DEPEND 0x0400

/* open_mode */
#define OPEN_MODE_DEFAULT 0
#define OPEN_MODE_TRUNCATE 1
#define OPEN_MODE_APPEND 2

/* job_desc.flags */
#define JOB_DESC_HOLD 0x0001        /* -H: submit held (JobHeldUser) */
#define JOB_DESC_EXCLUSIVE 0x0002   /* --exclusive */
#define JOB_DESC_TEST_ONLY 0x0004   /* --test-only: will-run, nothing created */
#define JOB_DESC_KILL_INV_DEP 0x0008
#define JOB_DESC_EXCLUSIVE_USER 0x0010 /* --exclusive=user: its nodes only for its user's jobs */
#define JOB_DESC_OVERSUBSCRIBE 0x0020 /* -s: may share cores where OverSubscribe=YES */
#define JOB_DESC_NO_KILL 0x0040	      /* -k: a failed node leaves the job, which goes on */

/* job_desc.gres_flags (--gres-flags) */
#define GRES_FLAG_DISABLE_BINDING 0x0001

/* What sbatch (and later salloc/srun) asks for. */
struct job_desc {
	char *name;
	char *partition;      /* comma list, NULL = default partition */
	char *script;         /* batch script text */
	char **argv;          /* script arguments (argv[0] = script path) */
	uint32_t argc;
	char **env;           /* the environment the job gets, per --export */
	uint32_t env_count;
	char *work_dir;
	char *std_in, *std_out, *std_err; /* patterns as given, NULL = default */
	char *comment;
	char *account;
	char *qos;
	char *dependency;
	char *array_spec;     /* "1-10%2", NULL = not an array */
	char *req_nodes;      /* -w hostlist */
	char *exc_nodes;      /* -x hostlist */
	char *mail_user;
	char *tres_per_node;  /* --gres / --gpus-per-node as "gres/gpu:2" */
	char *tres_per_job;   /* --gpus as "gres/gpu:4" */
	char *submit_host;
	uint32_t min_nodes, max_nodes; /* NO_VAL */
	uint32_t num_tasks;            /* NO_VAL */
	uint16_t ntasks_per_node;      /* NO_VAL16 */
	uint16_t cpus_per_task;        /* NO_VAL16 */
	uint32_t time_limit;           /* minutes, NO_VAL */
	uint32_t time_min;             /* minutes, NO_VAL */
	uint64_t mem_per_node;         /* MB, NO_VAL64 */
	uint64_t mem_per_cpu;          /* MB, NO_VAL64 */
	uint16_t mail_type;
	uint16_t open_mode;
	uint16_t requeue;              /* 0, 1 or NO_VAL16 (JobRequeue) */
	uint16_t warn_signal;          /* --signal, 0 none */
	uint16_t warn_time;            /* seconds before the end */
	uint16_t flags;                /* JOB_DESC_* */
	uint32_t nice;                 /* NICE_OFFSET + nice, NO_VAL */
	time_t begin_time;
	uint32_t user_id, group_id;    /* only trusted when the sender is root */
	/* salloc/srun allocations (REQUEST_RESOURCE_ALLOCATION): where the
	 * grant and SRUN_* notices go. Port 0: a batch job. */
	char *alloc_host;
	uint16_t alloc_port;
	/* layout 2 (JOB_DESC_LAYOUT_2): */
	char *features;       /* -C/--constraint (feature_expr.h), NULL none */
	char *prefer;         /* --prefer, NULL none */
	char *licenses;       /* -L "name[:count],...", NULL none */
	char *reservation;    /* --reservation, NULL none */
	uint32_t priority;    /* --priority (operators only); 0 none (--priority=0 is -H) */
	uint32_t tmp_mb;      /* --tmp: only nodes with TmpDisk >= it; 0 none */
	uint16_t min_cpus;    /* --mincpus: at least this many cpus on each node; 0 none */
	uint16_t sockets_per_node, cores_per_socket; /* only nodes with at least; 0 none */
	/* layout 3 (JOB_DESC_LAYOUT_3): GPUs beyond per node and per job */
	char *tres_per_task;  /* --gpus-per-task as "gres/gpu[:type]:N", NULL none */
	char *tres_per_socket; /* --gpus-per-socket as "gres/gpu[:type]:N", NULL none */
	char *gpu_bind;       /* --gpu-bind as given (the stepd reads SLURM_GPU_BIND), NULL */
	uint16_t cpus_per_gpu; /* --cpus-per-gpu; 0 none */
	uint16_t ntasks_per_gpu; /* --ntasks-per-gpu; 0 none */
	uint16_t gres_flags;  /* GRES_FLAG_* (--gres-flags) */
	uint64_t mem_per_gpu; /* MB per allocated GPU (--mem-per-gpu); 0 none */
	/* layout 4 (JOB_DESC_LAYOUT_3 is the one before it) */
	uint16_t ntasks_per_socket; /* --ntasks-per-socket: at most N tasks per socket; 0 none */
	bool is_shared;       /* script and env are share.h's copies: given back, not freed */
};
#define NICE_OFFSET 0x80000000u
/* job_desc_unpack's ver for a job_desc packed before the layout-2 fields
 * (features, prefer, licenses, reservation) existed: the journal tags
 * what it holds, and maps its older tag to this one. The wire always
 * carries the newest layout (PROTOCOL_VERSION). */
#define JOB_DESC_LAYOUT_1 ((uint16_t)(PROTOCOL_VERSION - 1))
/* ... and one packed before the layout-3 fields (the GPU options). */
#define JOB_DESC_LAYOUT_2 ((uint16_t)(PROTOCOL_VERSION - 2))
/* ... and one packed before the layout-4 field (--ntasks-per-socket). */
#define JOB_DESC_LAYOUT_3 ((uint16_t)(PROTOCOL_VERSION - 3))

struct submit_response {             /* RESPONSE_SUBMIT_BATCH_JOB, RESPONSE_JOB_WILL_RUN */
	uint32_t job_id;
	uint32_t error_code;
	time_t start_time;                 /* will-run: expected start */
	char *node_list;                   /* will-run */
	char *partition;                   /* will-run */
	uint32_t proc_cnt;		   /* will-run: the cpus it would get */
	char *user_msg;
};

/* The controller matches every job against the list: a longer one is
 * refused (ESLURM_INVALID_PARTITION_NAME), squeue filters it itself. */
#define JOB_INFO_PARTS_MAX 4096

struct job_info_req {                /* REQUEST_JOB_INFO */
	time_t last_update;
	uint16_t show_flags;
	char *job_ids;                     /* NULL: all; "12,13_4" */
	uint32_t after_job_id;		   /* paging: only jobs with a greater id */
	uint32_t *user_ids;		   /* only these users' jobs (squeue -u); none: all */
	uint32_t n_user_ids;
	/* only jobs whose base state's bit (1 << base) is in state_bases, or
	 * with a flag of state_flags (squeue -t, and its default of active
	 * jobs); both 0: any state */
	uint32_t state_bases;
	uint32_t state_flags;
	char *partitions;                  /* only jobs in one of these (squeue -p); NULL: any;
					    * at most JOB_INFO_PARTS_MAX bytes */
};

/* One job as squeue / scontrol show job see it. Strings NULL print (null). */
struct job_info {
	uint32_t job_id;
	uint32_t array_job_id;             /* 0: not an array */
	uint32_t array_task_id;            /* NO_VAL: meta record or none */
	char *array_task_str;              /* pending tasks "3-20", NULL */
	uint32_t array_max_tasks;          /* %N throttle, 0 none */
	char *name;
	uint32_t user_id, group_id;
	char *user_name;
	char *group_name;                  /* NULL from slurmctld: CLIs resolve group_id (no
	                                    * group lookup per job on the controller's loop) */
	uint32_t priority;
	uint32_t nice;                     /* NICE_OFFSET based */
	char *account, *qos;
	uint32_t job_state;                /* base | flags, states.h */
	uint16_t state_reason;             /* enum job_state_reason */
	char *state_desc;                  /* overrides the reason's name */
	char *reason_detail;               /* our plain-words "why" sentence */
	char *dependency;
	uint16_t requeue, restart_cnt, batch_flag;
	uint32_t exit_code;                /* wait status */
	uint32_t derived_ec;
	uint32_t time_limit, time_min;     /* minutes */
	time_t submit_time, eligible_time, accrue_time, start_time, end_time;
	time_t suspend_time, last_sched_eval;
	uint32_t pre_sus_time;
	char *partition;
	char *alloc_node;
	uint32_t alloc_sid;
	char *req_nodes, *exc_nodes, *nodes, *sched_nodes, *batch_host;
	uint16_t sched_by; /* JOB_SCHED_*: Scheduler= */
	uint32_t num_nodes, max_nodes, num_cpus, num_tasks;
	uint16_t cpus_per_task, ntasks_per_node;
	char *tres_req_str, *tres_alloc_str;
	uint16_t pn_min_cpus;
	uint64_t pn_min_memory;            /* MB; MEM_PER_CPU bit when per cpu */
	uint32_t pn_min_tmp_disk;
	char *features;
	uint16_t shared;                   /* 0 NO (exclusive), 1 OK, ... */
	uint16_t contiguous;
	char *licenses, *network;
	char *command, *work_dir, *std_err, *std_in, *std_out; /* expanded paths */
	char *comment;
	char *tres_per_node;
	char *mail_user;
	uint16_t mail_type;
	char *cpus_per_node;               /* "4(x2)" */
	char *gres_detail;                 /* "gpu:4(IDX:0-3)" per node, ';' joined */
	char *resv_name;                   /* --reservation, NULL none (kept in brief records) */
	/* the GPU options beyond tres_per_node, "gres/gpu[:type]:N" (NULL none) */
	char *tres_per_job, *tres_per_task, *tres_per_socket;
	char *cpus_per_tres, *mem_per_tres; /* --cpus-per-gpu, --mem-per-gpu (MB) */
};
#define MEM_PER_CPU 0x8000000000000000ull
/* Scheduler= of scontrol show job */
#define JOB_SCHED_MAIN	  0 /* started, or looked at, by the main pass */
#define JOB_SCHED_BF	  1 /* started by backfill */
#define JOB_SCHED_BF_PLAN 2 /* pending, planned by backfill (Backfill:*) */

struct job_info_msg {                /* RESPONSE_JOB_INFO */
	time_t last_update;
	uint32_t count;
	struct job_info *jobs;
	uint32_t last_job_id; /* paging: the next req.after_job_id */
	bool is_more;	      /* more jobs follow: ask again */
	bool is_view;	      /* strings point into the frame (job_info_msg_unpack_view) */
	uint32_t cap;	      /* room in jobs (job_info_msg_append); 0: count */
	/* Packing only: count records already packed (job_info_pack), sent
	 * as they are instead of jobs (the controller's kept records). */
	const uint8_t *packed;
	size_t packed_len;
};

/* One record as job_info_msg_pack writes it. */
void job_info_pack(const struct job_info *j, struct pack_buf *b);

/* Paging (docs/protocol.md): a reply stops after the job that takes it
 * over JOB_INFO_PAGE_BYTES (at least one job goes in every page), far
 * below MaxMessageSize; the client asks again with after_job_id =
 * last_job_id until is_more is false. */
#define JOB_INFO_PAGE_BYTES (8u << 20)
/* show_flags bit of ours (above Slurm's SHOW_* bits): the controller
 * sends every page on the request's connection, one frame each, without
 * being asked again; page sizes grow from JOB_STREAM_PAGE_MIN to
 * JOB_STREAM_PAGE_MAX bytes, so the client can start on the first while
 * the next are built. The last frame has is_more false (or is a
 * RESPONSE_SLURM_RC on error). */
#define JOB_SHOW_STREAM	    0x8000u
#define JOB_STREAM_PAGE_MIN (64u << 10)
#define JOB_STREAM_PAGE_MAX (1u << 20)
/* show_flags bit of ours: brief records. The controller leaves out the
 * strings job_info_brief() clears (and does not work them out), so that
 * a listing that prints none of them (squeue's usual formats) costs the
 * controller less than half of a full one and the wire two thirds.
 * Every number is sent as always. */
#define JOB_SHOW_BRIEF 0x4000u
/* Clears (sets NULL, frees nothing) the strings a brief record leaves
 * out: reason_detail, dependency, alloc_node, req_nodes, exc_nodes,
 * batch_host, the TRES strings, features, licenses, network, command,
 * work_dir, the stdio paths, comment, tres_per_node, mail_user,
 * cpus_per_node, gres_detail. A brief record keeps the job's ids, name,
 * user, account, qos, partition, state and reason (state_desc), nodes,
 * sched_nodes and array_task_str. */
void job_info_brief(struct job_info *j);
/* Move the jobs of page to the end of all (page is left empty); -EINVAL
 * for a view. */
int job_info_msg_append(struct job_info_msg *all, struct job_info_msg *page);
/* RESPONSE_JOB_INFO's body unpacked without copying its strings: they
 * point into data, so *ret (free with msg_free as usual) is good only as
 * long as data is. Codes as msg_unpack_body. */
int job_info_msg_unpack_view(const void *data, size_t len, uint16_t ver,
			     struct job_info_msg **ret);

#define KILL_JOB_BATCH 0x0001        /* -b: the batch shell only */
#define KILL_FULL_JOB 0x0004         /* -f: every process of the job */
#define KILL_HURRY 0x0010

struct kill_job_msg {                /* REQUEST_KILL_JOB */
	char *sjob_id;                     /* "12", "12_3", "12_[1-3]" */
	uint16_t signal;                   /* 9 = cancel */
	uint16_t flags;                    /* KILL_* */
};

struct update_job_msg {              /* REQUEST_UPDATE_JOB (scontrol update/hold/release) */
	char *sjob_id;
	char *name;                        /* NULL no change */
	char *partition;
	uint32_t time_limit;               /* minutes, NO_VAL */
	uint32_t min_nodes, max_nodes;     /* NO_VAL */
	uint32_t nice;                     /* NICE_OFFSET based, NO_VAL */
	uint32_t priority;                 /* 0 hold, INFINITE release, NO_VAL */
	uint16_t hold_user;                /* with priority 0: uhold (JobHeldUser) */
	uint16_t requeue_op;               /* REQUEST_JOB_REQUEUE reuse: 1 = requeue, 2 = hold */
	char *account, *qos;		   /* NULL no change */
};

/* Slurm's batch launch, ctld -> slurmd of the batch host. */
struct batch_launch_msg {            /* REQUEST_BATCH_JOB_LAUNCH */
	uint32_t job_id;
	uint32_t array_job_id, array_task_id; /* NO_VAL when not an array */
	uint32_t uid, gid;
	char *user_name;
	uint32_t *gids;                    /* supplementary groups */
	uint32_t ngids;
	char *job_name;
	char *script;
	char **argv;
	uint32_t argc;
	char **env;
	uint32_t env_count;
	char *work_dir;
	char *std_in, *std_out, *std_err;  /* patterns, NULL = default */
	uint16_t open_mode;
	char *nodes;                       /* the job's node list */
	uint32_t num_nodes;
	uint32_t num_tasks;
	uint16_t cpus_per_task;            /* NO_VAL16 when not given */
	uint16_t ntasks_per_node;          /* NO_VAL16 */
	char *cpus_per_node;               /* "4(x2)" SLURM_JOB_CPUS_PER_NODE */
	char *tasks_per_node;              /* "1(x2)" SLURM_TASKS_PER_NODE */
	uint16_t cpus_on_node;             /* on the batch host */
	uint64_t mem_per_node;             /* MB, 0 none (SLURM_MEM_PER_NODE) */
	uint64_t mem_per_cpu;              /* MB, 0 none (SLURM_MEM_PER_CPU) */
	uint64_t mem_limit;                /* MB this step may use on this node */
	char *gpus;                        /* indexes on the batch host "0,1", NULL */
	char *partition, *account, *qos;
	char *cluster_name;
	char *submit_host, *submit_dir;
	uint32_t time_limit;               /* minutes */
	time_t start_time;
};

struct complete_batch_msg {          /* REQUEST_COMPLETE_BATCH_SCRIPT */
	uint32_t job_id;
	uint32_t job_rc;                   /* wait status */
	uint32_t slurm_rc;                 /* launch failure code, 0 */
	char *node_name;
	uint16_t is_oom;                   /* killed for memory */
	struct acct_usage usage;           /* of the batch step (msg_acct.h) */
	time_t end_time;		   /* when its tasks ended there (0: unknown) */
};

struct signal_job_msg {              /* REQUEST_SIGNAL_TASKS / TERMINATE_JOB / KILL_TIMELIMIT */
	uint32_t job_id;
	uint32_t step_id;                  /* SL_ALL_STEPS: every step of the job on the node */
	uint16_t signal;
	uint16_t flags;                    /* KILL_* */
	char *reason;                      /* e.g. "TIME LIMIT", for the stderr line */
	/* REQUEST_TERMINATE_JOB / KILL_TIMELIMIT of a whole job: what the
	 * node's Epilog is told (its environment); 0 and NULL otherwise */
	uint32_t uid, gid;
	uint32_t exit_code;                /* the script's wait status */
	char *user_name, *partition, *account, *nodes;
	/* REQUEST_LAUNCH_PROLOG: the job's share of this node, for its extern
	 * step (PrologFlags=Contain); 0 and NULL otherwise */
	uint32_t cpus;
	uint64_t mem;                      /* MB */
	char *gpus;                        /* "0,1", NULL: none */
};

struct epilog_complete_msg {         /* MESSAGE_EPILOG_COMPLETE */
	uint32_t job_id;
	uint32_t rc;
	char *node_name;
};

void job_desc_done(struct job_desc *d);
/* Swap d's script, environment and the strings jobs have alike
 * (partition, working directory, account, QOS, submit host, stdio paths)
 * for shared copies (share.h): jobs with the same ones keep them once.
 * 0, or -ENOMEM with d unchanged. */
int job_desc_share(struct job_desc *d);
/* Set one of d's strings (&d->account...) to a copy of s (NULL: none),
 * shared when d is and the field is one job_desc_share shares; the old
 * value given back. 0 or -ENOMEM (unchanged). */
int job_desc_set_str(struct job_desc *d, char **field, const char *s);
void job_info_done(struct job_info *j);
