/* msg.h - wire structs of every message and the message table (R15, R16).
 *
 * Each message is a plain struct; msg_table.c maps its type number to its
 * name, size and pack/unpack/free triple (in msg_<family>.c). Unpack writes
 * into a zeroed struct and the free half is valid after a failed or
 * partial unpack. Daemons and CLIs never see a pack_buf: they use
 * msg_pack_body()/msg_unpack_body() or the rpc layer.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "msg_acct.h"
#include "msg_job.h"
#include "msg_prio.h"
#include "msg_resv.h"
#include "msg_step.h"
#include "msg_types.h"

struct pack_buf;

#define PROTOCOL_VERSION ((uint16_t)(38 << 8)) /* 22.05 numbering */

/* ---- generic ---- */
struct rc_msg {             /* RESPONSE_SLURM_RC */
	uint32_t rc;        /* 0 or a positive sl_errno code */
};
struct empty_msg {          /* REQUEST_PING, REQUEST_RECONFIGURE, ... */
	uint8_t unused;
};
struct shutdown_msg {       /* REQUEST_SHUTDOWN */
	uint16_t options;   /* 0: all daemons, 1: slurmctld only */
};

/* ---- nodes ---- */
/* One job step a slurmd has on its node: a live slurmstepd, or one that
 * ended and whose completion waits in the spool (NODE_STEP_DONE) to be
 * acknowledged. The batch script's step is SL_BATCH_STEP. */
struct node_step_ref {
	uint32_t job_id, step_id;
	uint16_t flags; /* NODE_STEP_* */
};
#define NODE_STEP_DONE 0x1

struct node_reg_msg {       /* MESSAGE_NODE_REGISTRATION_STATUS, slurmd -> ctld */
	char *node_name;
	char *hostname;
	char *arch;
	char *os;
	char *version;
	char *gres;         /* "gpu:4" as detected or configured */
	uint16_t cpus, boards, sockets, cores, threads;
	uint64_t real_memory; /* MB */
	uint32_t tmp_disk;    /* MB */
	uint32_t cpu_load;    /* load average x 100 */
	uint64_t free_mem;    /* MB */
	time_t boot_time;
	time_t slurmd_start_time;
	uint64_t instance;    /* this run of slurmd: its start, in us since the epoch */
	uint16_t port;        /* where this slurmd listens */
	uint32_t step_count;  /* what runs here, for the controller to reconcile */
	struct node_step_ref *steps;
};

struct ping_slurmd_msg {    /* RESPONSE_PING_SLURMD */
	uint32_t cpu_load;  /* x 100 */
	uint64_t free_mem;  /* MB */
	uint32_t step_count; /* as in node_reg_msg */
	struct node_step_ref *steps;
};

struct node_info_req {      /* REQUEST_NODE_INFO */
	time_t last_update;
	uint16_t show_flags;
	char *node_name;    /* NULL: all nodes */
};

struct node_info {          /* one node as sinfo/scontrol see it */
	char *name;
	char *node_addr;
	char *node_hostname;
	char *arch;
	char *os;
	char *version;
	char *features;     /* AvailableFeatures, NULL = (null) */
	char *features_act;
	char *gres;         /* configured, e.g. "gpu:4" */
	char *gres_used;    /* e.g. "gpu:0" (indexes later) */
	char *partitions;   /* comma list, configuration order */
	char *reason;
	char *cfg_tres;     /* "cpu=4,mem=4000M,billing=4,gres/gpu=4" */
	char *alloc_tres;   /* NULL when nothing allocated */
	char *comment;
	char *extra;
	uint32_t state;     /* base | flags, states.h */
	uint32_t reason_uid;   /* NO_VAL when unset */
	time_t reason_time;
	uint16_t port;
	uint16_t cpus, boards, sockets, cores, threads;
	uint16_t alloc_cpus;
	uint64_t real_memory;  /* MB */
	uint64_t alloc_mem;    /* MB */
	uint64_t free_mem;     /* MB, NO_VAL64 when unknown */
	uint32_t tmp_disk;
	uint32_t weight;
	uint32_t cpu_load;     /* x 100, NO_VAL when unknown */
	time_t boot_time;
	time_t slurmd_start_time;
	time_t last_busy;
};

struct node_info_msg {      /* RESPONSE_NODE_INFO */
	time_t last_update;
	uint32_t count;
	struct node_info *nodes;
};

struct update_node_msg {    /* REQUEST_UPDATE_NODE */
	char *node_names;   /* hostlist expression */
	uint32_t state;     /* enum node_update_state, or 0: no change */
	char *reason;
	uint32_t weight;    /* NO_VAL: no change */
	char *features;     /* AvailableFeatures; NULL: no change */
	char *comment;      /* NULL: no change */
	char *features_act; /* ActiveFeatures; NULL: no change */
};

#define REBOOT_FLAGS_ASAP 0x0001 /* drain first; the reason "Reboot ASAP" */

struct reboot_msg {         /* REQUEST_REBOOT_NODES (scontrol -> ctld -> slurmd) */
	char *node_list;    /* hostlist expression or "ALL"; to slurmd: its name */
	char *reason;       /* NULL: "Reboot ASAP" or "reboot requested" */
	uint16_t flags;     /* REBOOT_FLAGS_* */
	uint32_t next_state; /* NO_VAL, NODE_UPDATE_RESUME or NODE_UPDATE_DOWN */
};

/* ---- partitions ---- */
#define PART_FLAG_DEFAULT 0x0001
#define PART_FLAG_HIDDEN 0x0002
#define PART_FLAG_NO_ROOT 0x0004 /* DisableRootJobs */
#define PART_FLAG_ROOT_ONLY 0x0008
#define PART_FLAG_REQ_RESV 0x0010
#define PART_FLAG_LLN 0x0020
#define PART_FLAG_EXCLUSIVE_USER 0x0040

enum part_state {           /* Slurm's PARTITION_* values as sinfo prints them */
	PART_STATE_DOWN = 0x01,     /* "down": accepts jobs, does not run them */
	PART_STATE_UP = 0x03,
	PART_STATE_DRAIN = 0x02,    /* "drain": runs, accepts none */
	PART_STATE_INACTIVE = 0x00, /* "inact" */
};
/* The two bits the states are made of (Slurm's PARTITION_SUBMIT and
 * PARTITION_SCHED): new jobs accepted; queued jobs started. */
#define PART_STATE_SUBMIT_BIT 0x01
#define PART_STATE_SCHED_BIT 0x02

struct part_info {
	char *name;
	char *nodes;        /* hostlist expression as configured */
	char *allow_groups; /* NULL: ALL */
	char *allow_accounts;
	char *allow_qos;
	char *alloc_nodes;
	char *qos;          /* NULL: N/A */
	char *tres;         /* "cpu=16,mem=16000M,node=4,billing=16" */
	char *job_defaults;
	uint16_t flags;     /* PART_FLAG_* */
	uint16_t state_up;  /* enum part_state */
	uint32_t max_time;  /* minutes, INFINITE */
	uint32_t default_time; /* minutes, NO_VAL: NONE */
	uint32_t max_nodes; /* INFINITE: UNLIMITED */
	uint32_t min_nodes;
	uint32_t max_cpus_per_node; /* INFINITE */
	uint32_t total_cpus;
	uint32_t total_nodes;
	uint32_t grace_time;
	uint16_t priority_job_factor;
	uint16_t priority_tier;
	uint16_t over_subscribe; /* 0: NO, else FORCE:n / YES:n later */
	uint16_t over_time_limit; /* NO_VAL16: NONE */
	uint16_t preempt_mode;    /* 0: OFF */
	uint64_t def_mem_per_cpu;  /* MB; 0: unset */
	uint64_t def_mem_per_node; /* MB; 0: UNLIMITED */
	uint64_t max_mem_per_cpu;
	uint64_t max_mem_per_node;
};

struct part_info_req {      /* REQUEST_PARTITION_INFO */
	time_t last_update;
	uint16_t show_flags;
};

struct part_info_msg {      /* RESPONSE_PARTITION_INFO */
	time_t last_update;
	uint32_t count;
	struct part_info *parts;
};

/* REQUEST_CREATE_PARTITION / _UPDATE_ / _DELETE_ (scontrol, admins): the
 * partition's name and scontrol's "Key=Value" words (none for a delete),
 * applied in order by conf_part_edit(). At most PART_EDIT_WORDS_MAX. */
#define PART_EDIT_WORDS_MAX 64
struct part_edit_msg {
	char *name;
	char **words;
	uint32_t word_count;
};

/* RESPONSE_LICENSE_INFO (asked with a part_info_req: last_update,
 * show_flags) */
struct license_info {
	char *name;
	uint32_t total, in_use, available, reserved;
	bool is_remote;
};

struct license_info_msg {
	time_t last_update;
	uint32_t count;
	struct license_info *lics;
};

/* ---- config ---- */
struct key_pair {
	char *key;
	char *value;        /* NULL prints (null) */
};

struct build_info_msg {     /* RESPONSE_BUILD_INFO: scontrol show config */
	time_t last_update;
	time_t boot_time;
	uint32_t count;
	struct key_pair *pairs; /* in print order, already formatted */
};

/* ---- the table ---- */
typedef void msg_pack_fn(const void *msg, struct pack_buf *b, uint16_t ver);
typedef int msg_unpack_fn(void *msg, struct pack_buf *b, uint16_t ver);
typedef void msg_free_fn(void *msg);

struct msg_type {
	uint16_t type;
	const char *name;
	size_t size;
	msg_pack_fn *pack;
	msg_unpack_fn *unpack;
	msg_free_fn *free;
};

/* NULL when unknown. */
const struct msg_type *msg_lookup(uint16_t type);
/* "REQUEST_PING" or "MSG_<n>" in a static buffer. */
const char *msg_type_name(uint16_t type);
/* Zeroed struct of the type's size; NULL on ENOMEM. */
void *msg_alloc(const struct msg_type *t);
/* Frees contents and the struct; NULL-safe. */
void msg_free(const struct msg_type *t, void *m);
/* Unpack a whole body: leftover bytes are an error. On failure *ret is
 * NULL and the partial message is freed. */
int msg_unpack_body(uint16_t type, const void *data, size_t len, uint16_t ver, void **ret);

/* Exposed for unit testing: the table, sorted by type. */
extern const struct msg_type msg_table[];
extern const size_t msg_table_len;

/* Per-family free helpers used by callers that build messages by hand. */
void node_info_done(struct node_info *n);
void part_info_done(struct part_info *p);
