/* conf.h - slurm.conf and gres.conf as parsed, validated structs.
 *
 * conf_load() reads a file (with Include, NodeName=DEFAULT, ranges) into a
 * new struct sl_conf; nothing global changes, so reconfigure can parse,
 * validate and only then swap (R23). Keys are case-insensitive. A key
 * Slurm knows that we do not act on is kept (see conf_get_raw) and logged
 * at debug; an unknown key or a malformed value is an error "file:line:
 * text". Every key that appeared is kept raw for `scontrol show config`.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "errprintf.h" /* struct sl_error, errprintf(); were declared here */

struct conf_node {
	char *name;
	char *node_addr;     /* defaults to node_hostname */
	char *node_hostname; /* defaults to name */
	uint16_t port;       /* defaults to SlurmdPort */
	uint16_t cpus;       /* defaults to sockets*cores*threads */
	uint16_t boards;
	uint16_t sockets;          /* total: Boards x SocketsPerBoard, or Sockets= */
	uint16_t cores_per_socket;
	uint16_t threads_per_core;
	uint64_t real_memory;      /* MB, default 1 */
	uint32_t tmp_disk;         /* MB */
	uint32_t weight;           /* default 1 */
	char *features;            /* NULL when none */
	char *gres;                /* "gpu:4" as written, NULL when none */
	char *state;               /* configured State=, upper case; "UNKNOWN" when not given */
	char *reason;
};

struct conf_part {
	char *name;
	char *nodes;               /* hostlist expression as written ("ALL" expanded) */
	bool is_default;
	bool hidden;
	bool root_only;
	bool disable_root_jobs;
	bool exclusive_user;
	bool lln;
	bool req_resv;
	uint16_t state_up;         /* enum part_state from msg.h */
	uint32_t max_time;         /* minutes; INFINITE when UNLIMITED/unset */
	uint32_t default_time;     /* minutes; NO_VAL when unset */
	uint32_t max_nodes;        /* INFINITE when unset */
	uint32_t min_nodes;
	uint32_t max_cpus_per_node;/* INFINITE */
	uint32_t grace_time;
	uint16_t priority_job_factor; /* 1 */
	uint16_t priority_tier;       /* 1 */
	uint16_t over_time_limit;     /* NO_VAL16 */
	uint64_t def_mem_per_cpu;     /* MB; 0 unset */
	uint64_t def_mem_per_node;    /* MB; 0 unset */
	uint64_t def_mem_per_gpu;     /* MB; 0 unset (slurm.conf's DefMemPerGPU then) */
	uint16_t def_cpu_per_gpu;     /* 0 unset (slurm.conf's DefCpuPerGPU then) */
	uint64_t max_mem_per_cpu;
	uint64_t max_mem_per_node;
	char *allow_groups;        /* NULL = ALL */
	char *allow_accounts;
	char *allow_qos;
	char *deny_accounts; /* NULL = none */
	char *deny_qos;
	char *alloc_nodes;
	char *qos;
	char *over_subscribe;      /* as written, NULL = NO */
};

struct gres_conf {               /* one gres.conf line that applies to a node */
	char *node_name;         /* hostlist expression, NULL = every node */
	char *name;              /* "gpu" */
	char *type;              /* "a100" or NULL */
	char *file;              /* "/dev/nvidia[0-3]" or NULL */
	char *cores;             /* Cores= (CPUs=): the cores nearest its devices, "0-3,8";
				  * NULL: no affinity given */
	uint64_t count;          /* from Count= or the number of files */
};

struct conf_kv {                 /* a key as it appeared (last one wins) */
	char *key;               /* canonical spelling, e.g. "SlurmctldPort" */
	char *value;
};

/* job_container.conf beside slurm.conf (conf_container.c): its lines in
 * file order, each for every node or for its NodeName= list. */
struct container_entry {
	char *nodes;        /* NodeName= hostlist, NULL: every node */
	char *base_path;    /* BasePath=, NULL: not on this line */
	char *dirs;         /* Dirs=, NULL: not on this line */
	char *init_script;  /* InitScript= */
	bool auto_base_path, has_auto;
};

struct container_conf {
	struct container_entry *v;
	uint32_t count;
	bool is_read;       /* the file was there */
};

/* What job_container.conf says for one node (strings borrowed). */
struct container_node {
	const char *base_path;   /* NULL: none (an error with tmpfs) */
	const char *dirs;        /* "/tmp,/dev/shm" unless Dirs= */
	const char *init_script; /* NULL: none */
	bool auto_base_path;
};

#define CONTAINER_NONE 0
#define CONTAINER_TMPFS 1

/* cgroup.conf beside slurm.conf (conf_cgroup.c); Slurm's defaults. */
struct cgroup_conf {
	uint16_t plugin;          /* CGROUP_PLUGIN_*: CgroupPlugin, autodetect */
	char *mountpoint;         /* CgroupMountpoint, /sys/fs/cgroup */
	bool constrain_cores;     /* ConstrainCores, no */
	bool constrain_ram;       /* ConstrainRAMSpace, no */
	bool constrain_swap;      /* ConstrainSwapSpace, no */
	bool constrain_devices;   /* ConstrainDevices, no */
	double allowed_ram;       /* AllowedRAMSpace, percent of the allocation, 100 */
	double allowed_swap;      /* AllowedSwapSpace, percent of it, 0 */
	double max_ram_percent;   /* MaxRAMPercent of RealMemory, 100 */
	double max_swap_percent;  /* MaxSwapPercent of RealMemory, 100 */
	uint64_t min_ram;         /* MinRAMSpace, MB, 30 */
	uint32_t swappiness;      /* MemorySwappiness 0-100, NO_VAL: the kernel's */
};

#define CGROUP_PLUGIN_AUTO 0
#define CGROUP_PLUGIN_V1   1
#define CGROUP_PLUGIN_V2   2

/* ProctrackType= (proctrack/pgid tracks as linuxproc does) and the
 * TaskPlugin= list. */
#define PROCTRACK_CGROUP    0 /* Slurm's default */
#define PROCTRACK_LINUXPROC 1
#define PROCTRACK_PGID      2
#define TASK_PLUGIN_CGROUP   0x1
#define TASK_PLUGIN_AFFINITY 0x2

#define PE_TIMEOUT_NONE 65534 /* PrologEpilogTimeout's default */

/* JobSubmitPlugins= (lua only: job_submit.lua beside slurm.conf) */
#define JOB_SUBMIT_LUA 0x1

/* PrologFlags */
#define PROLOG_FLAG_ALLOC 0x01	     /* the Prolog runs when the job gets its nodes */
#define PROLOG_FLAG_NOHOLD 0x02	     /* ... salloc does not wait for it */
#define PROLOG_FLAG_DEFER_BATCH 0x04 /* ... the batch script waits for every node's */
#define PROLOG_FLAG_SERIAL 0x08	     /* one Prolog or Epilog at a time on a node */
#define PROLOG_FLAG_CONTAIN 0x10     /* accepted: no extern step yet */
#define PROLOG_FLAG_X11 0x20	     /* accepted: no X11 forwarding */
#define PROLOG_FLAG_FORCE_REQUEUE 0x40 /* ForceRequeueOnFail */

/* HealthCheckNodeState: the nodes the controller asks (states), how */
#define HC_STATE_ALLOC 0x01
#define HC_STATE_ANY 0x02
#define HC_STATE_IDLE 0x04
#define HC_STATE_MIXED 0x08
#define HC_STATE_NONDRAINED_IDLE 0x10
#define HC_STATE_CYCLE 0x20      /* spread over the interval */
#define HC_STATE_START_ONLY 0x40 /* only when slurmd starts */

struct sl_conf {
	char *path;                      /* the slurm.conf that was read */
	char *cluster_name;
	char *control_machine;           /* SlurmctldHost name part */
	char *control_addr;              /* SlurmctldHost "(addr)" part, or the name */
	uint16_t slurmctld_port;         /* 6817 */
	uint16_t slurmd_port;            /* 6818 */
	char *slurm_user;                /* "root" */
	uint32_t slurm_user_id;          /* resolved, 0 if unknown */
	char *slurmd_user;
	char *auth_type;
	char *auth_info;
	char *auth_alt_types;            /* "auth/jwt" or NULL */
	char *auth_alt_params;           /* "jwt_key=/path,..." or NULL */
	char *munge_socket;              /* from AuthInfo=socket=..., NULL = default */
	char *state_save_location;       /* /var/spool */
	char *slurmd_spool_dir;          /* /var/spool/slurmd; may hold %n / %h */
	char *slurmctld_pidfile;         /* /var/run/slurmctld.pid */
	char *slurmd_pidfile;            /* /var/run/slurmd.pid; may hold %n */
	char *slurmctld_logfile;         /* NULL: stderr/syslog */
	char *slurmd_logfile;            /* may hold %n / %h */
	int slurmctld_debug;             /* enum log_level; info */
	int slurmd_debug;
	uint32_t slurmd_timeout;         /* 300 */
	uint32_t slurmctld_timeout;      /* 120 */
	uint32_t message_timeout;        /* 10 */
	uint32_t unkillable_step_timeout; /* 60: COMPLETING longer drains the node */
	uint32_t batch_start_timeout;	  /* 10: a batch job launched longer (plus
					   * MessageTimeout) must be on its node */
	uint32_t max_message_size;       /* bytes; 64 MiB */
	uint16_t return_to_service;      /* 0 */
	uint16_t job_requeue;		 /* 1: batch jobs are requeued unless --no-requeue */
	bool config_overrides;           /* SlurmdParameters=config_overrides */
	uint32_t max_job_count;          /* 10000 */
	uint32_t max_array_size;         /* 1001 */
	uint32_t first_job_id;           /* 1 */
	uint32_t max_job_id;             /* 0x03ff0000 */
	uint32_t min_job_age;            /* 300 */
	uint32_t kill_wait;              /* 30 */
	uint64_t def_mem_per_cpu;        /* MB; 0 unset */
	uint64_t def_mem_per_node;       /* MB; 0 unset */
	uint64_t def_mem_per_gpu;        /* MB per GPU of a job that asks none; 0 unset */
	uint16_t def_cpu_per_gpu;        /* cpus per GPU of a job that asks none; 0 unset */
	char *gres_types;
	char *select_type;
	char *select_type_params;
	char *scheduler_type;
	char *priority_type;
	char *mail_prog;
	char *prolog, *epilog;           /* slurmd's, as root; a glob; NULL: none */
	char *health_check_program;      /* slurmd's, as root; NULL: none */
	char *licenses;                  /* Licenses=, checked (license_spec.h); NULL none */
	char *reboot_program;            /* slurmd's, as root, for scontrol reboot */
	uint32_t resume_timeout;         /* s a rebooted node has to register */
	char *task_prolog, *task_epilog; /* the stepd's, as the user, each task */
	char *srun_prolog, *srun_epilog; /* srun's, around each step it launches */
	char *prolog_slurmctld, *epilog_slurmctld; /* the controller's, as SlurmUser */
	uint32_t health_check_interval;  /* s; 0: only when slurmd starts */
	uint16_t health_check_state;     /* HC_STATE_*: HealthCheckNodeState, ANY */
	uint16_t prolog_epilog_timeout;  /* s; PE_TIMEOUT_NONE: wait for ever */
	uint16_t prolog_flags;           /* PROLOG_FLAG_*: PrologFlags */
	char *private_data;              /* as written, for show config */
	uint32_t private_data_flags;     /* PRIVATE_DATA_* */
	uint16_t acct_enforce;		 /* ACCT_ENFORCE_*: AccountingStorageEnforce */
	uint16_t preempt_type;		 /* PREEMPT_TYPE_*: PreemptType, preempt/none */
	uint16_t preempt_mode;		 /* PREEMPT_MODE_*: PreemptMode, OFF */
	char *acct_storage_type;         /* "accounting_storage/sqlite" (ours: the default),
	                                  * "/slurmdbd" (uses the same store), "/none" */
	char *acct_storage_loc;          /* NULL: StateSaveLocation/job_accounting.db */
	uint16_t enforce_part_limits;	 /* ENFORCE_PART_*: EnforcePartLimits, NO */
	uint32_t max_script_size;	 /* SchedulerParameters=max_script_size=, 4 MiB */
	/* SchedulerParameters, sched/backfill (Slurm's defaults) */
	int32_t bf_interval;	  /* s, 30; -1 disables backfill */
	uint32_t bf_window;	  /* min, 1440 */
	uint32_t bf_resolution;	  /* s, 60 */
	uint32_t bf_max_job_test; /* 500 */
	uint32_t bf_max_job_user; /* 0: no cap */
	bool bf_continue, bf_busy_nodes;
	/* SchedulerParameters, the main scheduler (Slurm's defaults) */
	uint32_t sched_queue_depth;    /* default_queue_depth: jobs an event pass tests, 100 */
	uint32_t sched_part_depth;     /* partition_job_depth: per partition a pass, 0 no cap */
	uint32_t sched_interval;       /* s between passes that test every job, 60 */
	uint32_t sched_max_time;       /* max_sched_time, s; 0: MessageTimeout/2, at most 2 */
	uint32_t sched_max_job_start;  /* sched_max_job_start: starts a pass, 0 no cap */
	char *propagate_rlimits;	 /* PropagateResourceLimits as written, NULL = ALL */
	char *propagate_rlimits_except;	 /* PropagateResourceLimitsExcept, NULL = none */
	/* priority/multifactor (conf_prio.h) */
	uint32_t prio_weight_age, prio_weight_assoc, prio_weight_fairshare;
	uint32_t prio_weight_job_size, prio_weight_partition, prio_weight_qos;
	char *prio_weight_tres;	       /* PriorityWeightTRES as written, NULL none */
	uint32_t prio_max_age;	       /* minutes; 7 days */
	uint32_t prio_decay_half_life; /* minutes; 7 days, 0 no decay */
	uint32_t prio_calc_period;     /* minutes; 5 */
	uint16_t prio_reset_period;    /* enum prio_reset; NONE */
	bool prio_favor_small;	       /* PriorityFavorSmall; NO */
	uint32_t prio_flags;	       /* PRIO_FLAG_* */
	uint16_t proctrack;	       /* PROCTRACK_*: ProctrackType */
	uint16_t task_plugins;	       /* TASK_PLUGIN_* bits: TaskPlugin, 0 task/none */
	struct cgroup_conf cgroup;     /* cgroup.conf, defaults when absent */
	uint16_t job_container;        /* CONTAINER_*: JobContainerType */
	uint16_t job_submit_plugins;   /* JOB_SUBMIT_* bits: JobSubmitPlugins, 0 none */
	struct container_conf container; /* job_container.conf (with tmpfs) */

	struct conf_node *nodes;         /* one per node, config order */
	uint32_t node_count;
	struct conf_part *parts;         /* config order */
	uint32_t part_count;
	struct gres_conf *gres;          /* from gres.conf beside slurm.conf */
	uint32_t gres_count;
	struct conf_kv *kv;              /* every key seen, in first-seen order */
	uint32_t kv_count;
};

/* PrivateData= words (Slurm's numbers); "all" sets every bit. */
#define PRIVATE_DATA_JOBS 0x0001u
#define PRIVATE_DATA_NODES 0x0002u
#define PRIVATE_DATA_PARTITIONS 0x0004u
#define PRIVATE_DATA_USAGE 0x0008u
#define PRIVATE_DATA_USERS 0x0010u
#define PRIVATE_DATA_ACCOUNTS 0x0020u
#define PRIVATE_DATA_RESERVATIONS 0x0040u
#define PRIVATE_DATA_CLOUD 0x0080u
#define PRIVATE_DATA_EVENTS 0x0100u
#define PRIVATE_DATA_ALL 0xffffu

/* AccountingStorageEnforce= words we act on. */
#define ACCT_ENFORCE_ASSOCS 0x1 /* a job needs an association */
#define ACCT_ENFORCE_LIMITS 0x2 /* association (and QOS) limits */
#define ACCT_ENFORCE_QOS    0x4 /* a job's QOS must be allowed */
#define ACCT_ENFORCE_SAFE   0x8

/* PreemptType= and PreemptMode= (the mode's GANG/WITHIN words are
 * accepted and not acted on; SUSPEND is refused: no gang scheduling). */
#define PREEMPT_TYPE_NONE	    0
#define PREEMPT_TYPE_QOS	    1
#define PREEMPT_TYPE_PARTITION_PRIO 2 /* accepted, not acted on */
#define PREEMPT_MODE_OFF	    0
#define PREEMPT_MODE_CANCEL	    1
#define PREEMPT_MODE_REQUEUE	    2

/* EnforcePartLimits= (Slurm's numbers; YES is ALL). */
#define ENFORCE_PART_NO	 0
#define ENFORCE_PART_ANY 1
#define ENFORCE_PART_ALL 2

/* Parse path (and gres.conf in the same directory when present) into a
 * new struct. On error returns a negative code (-EINVAL for bad input,
 * -EEXIST for a duplicate node or partition, -ESLURM_INVALID_NODE_NAME for
 * a partition naming an unknown node, -ELOOP for Include nested too deep,
 * -errno when a file cannot be read), *ret untouched, nothing leaked, and
 * err->text holds "file:line: what is wrong" (the file being the included
 * one when the fault is there). "Key=" with an empty value gives a string
 * key its default back. */
int conf_load(const char *path, struct sl_conf **ret, struct sl_error *err);
/* What a command needs: every key, but no node or partition (their lines
 * are skipped unread: the controller has them, and with a thousand nodes
 * parsing them would be most of a short command's work) and no gres.conf
 * or cgroup.conf. */
int conf_load_client(const char *path, struct sl_conf **ret, struct sl_error *err);
struct sl_conf *conf_free(struct sl_conf *c); /* NULL-safe, returns NULL */

/* Path of slurm.conf: $SLURM_CONF or the build's default (/etc/slurm/slurm.conf). */
const char *conf_default_path(void);

/* Lookups; NULL when absent. */
const struct conf_node *conf_node_find(const struct sl_conf *c, const char *name);
const struct conf_part *conf_part_find(const struct sl_conf *c, const char *name);
const char *conf_get_raw(const struct sl_conf *c, const char *key); /* case-insensitive */

/* AccountingStorageType other than accounting_storage/none. */
bool conf_is_acct_enabled(const struct sl_conf *c);
/* The accounting store's file: AccountingStorageLoc, or
 * StateSaveLocation/job_accounting.db; malloc'd, NULL on ENOMEM. */
char *conf_acct_storage_path(const struct sl_conf *c);

/* Replace %n (node name) and %h (host name) in a path template; malloc'd. */
char *conf_expand_path(const char *tmpl, const char *node_name, const char *host_name);

/* Parse job_container.conf alone into c->container (conf_load reads it
 * beside slurm.conf with JobContainerType=job_container/tmpfs). */
int conf_container_load(const char *path, struct sl_conf *c, struct sl_error *err);
void conf_container_done(struct container_conf *g);
/* The settings of node (later lines override earlier ones). */
void conf_container_of(const struct sl_conf *c, const char *node, struct container_node *ret);
/* BasePath of node, %n and %h expanded (malloc'd); NULL without tmpfs or
 * a BasePath (errno ENOENT), or on ENOMEM. */
char *conf_container_base(const struct sl_conf *c, const char *node, const char *host);

/* Parse cgroup.conf alone into c->cgroup (used by conf_load, which
 * reads it beside slurm.conf when present, and by tests); unknown keys
 * and bad values are errors as in slurm.conf. */
int conf_cgroup_load(const char *path, struct sl_conf *c, struct sl_error *err);
/* cgroup.conf's defaults into g (the strings freed first). */
int conf_cgroup_defaults(struct cgroup_conf *g);
void conf_cgroup_done(struct cgroup_conf *g);

/* Parse gres.conf alone (used by conf_load and by tests). Appends entries;
 * on error removes the ones this call added and fills err as conf_load. */
int conf_gres_load(const char *path, struct sl_conf *c, struct sl_error *err);


/* scontrol create/update PartitionName=...: a partition edited outside a
 * file. conf_part_defaults: a new partition's values (slurm.conf(5)'s, as
 * for a PartitionName line with no DEFAULT line before it) and name.
 * conf_part_copy: a deep copy. conf_part_edit: one "Key=Value" word of
 * the PartitionName keys applied to p ("ALL" in an allow list stored as
 * NULL; Nodes= kept as written, the caller resolves it); -EINVAL with
 * err for an unknown key, a key that is accepted in slurm.conf but not
 * acted on, or a bad value; -ENOMEM. All 0 or -ENOMEM but edit. */
int conf_part_defaults(struct conf_part *p, const char *name);
int conf_part_copy(struct conf_part *dst, const struct conf_part *src);
int conf_part_edit(struct conf_part *p, const char *word, struct sl_error *err);
void conf_part_free(struct conf_part *p); /* the strings; p zeroed */
