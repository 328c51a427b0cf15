/* msg_assoc.h - accounts, associations and QOS on the wire (sacctmgr,
 * sshare) and in the accounting store: the records, and the messages
 * REQUEST_ASSOC_MGR (a change) -> RESPONSE_ASSOC_MGR, REQUEST_ASSOC_LIST /
 * REQUEST_SHARE_INFO -> RESPONSE_ASSOC_LIST (every record). Numbers are in
 * our own range 9100-9199 (docs/protocol.md). Pack/unpack/free in
 * msg_assoc.c.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct pack_buf;

/* TRES that limits count, in Slurm's id order. */
enum assoc_tres { ASSOC_TRES_CPU, ASSOC_TRES_MEM, ASSOC_TRES_NODE, ASSOC_TRES_GPU, ASSOC_TRES_N };
#define ASSOC_NO_LIMIT	 0xffffffffu	       /* a u32 limit that is not set */
#define ASSOC_NO_LIMIT64 0xffffffffffffffffull /* a TRES limit that is not set */
#define ASSOC_NAME_MAX	 64		       /* account, user, QOS, cluster names */
#define ASSOC_TEXT_MAX	 256		       /* Description=, Organization= */
#define ASSOC_RECS_MAX	 200000		       /* records of one kind in a message */

/* Slurm's TRES name of each slot ("cpu", "mem", "node", "gres/gpu"). */
extern const char *const assoc_tres_names[ASSOC_TRES_N];

struct assoc_limits {
	uint32_t grp_jobs, grp_submit, max_jobs, max_submit;
	uint32_t max_wall; /* minutes */
	uint64_t grp_tres[ASSOC_TRES_N];
	uint64_t max_tres_pj[ASSOC_TRES_N]; /* MaxTRESPerJob (MaxTRES) */
};
void assoc_limits_none(struct assoc_limits *l); /* every limit unset */
/* name is one of the comma list's items (case-insensitive); false for NULL. */
bool assoc_name_in_list(const char *list, const char *name);

struct assoc_rec {
	uint32_t id, parent_id; /* parent_id 0: root */
	char *acct, *user, *partition;
	uint32_t shares;
	uint32_t def_qos_id;
	char *qos_ids; /* "1,3": the QOS ids allowed; NULL/"": the parent's */
	struct assoc_limits lim;
	double usage_raw, fs_factor, level_fs; /* sshare (the priority side) */
};

struct qos_rec {
	uint32_t id;
	char *name, *description;
	char *preempt;	    /* QOS names, "a,b" */
	char *preempt_mode; /* "cluster", "cancel", "requeue", "suspend", "off" */
	uint32_t priority;
	uint32_t grace_time; /* seconds */
	double usage_factor;
	uint32_t max_wall; /* minutes */
	uint32_t max_jobs_pu, max_submit_pu, grp_jobs;
	uint64_t grp_tres[ASSOC_TRES_N], max_tres_pj[ASSOC_TRES_N];
};

struct user_rec {
	char *name, *default_acct;
	uint32_t admin_level; /* 1 None, 2 Operator, 3 Administrator */
};

struct account_rec {
	char *name, *description, *organization;
};

/* The whole table (RESPONSE_ASSOC_LIST, the store's load and save). */
struct assoc_dump {
	uint32_t error_code; /* positive sl_errno (accounting off, ...) */
	char *cluster;	     /* ClusterName */
	uint32_t cluster_count;
	char **clusters;
	uint32_t user_count;
	struct user_rec *users;
	uint32_t acct_count;
	struct account_rec *accts;
	uint32_t assoc_count;
	struct assoc_rec *assocs;
	uint32_t qos_count;
	struct qos_rec *qos;
	uint32_t next_assoc_id, next_qos_id;
};
void assoc_dump_free(void *d); /* a struct assoc_dump: frees what it holds, zeroes it */
void assoc_rec_done(struct assoc_rec *r);
void qos_rec_done(struct qos_rec *r);
void user_rec_done(struct user_rec *r);
void account_rec_done(struct account_rec *r);
/* Deep copies (0 or -ENOMEM, *dst zeroed on error). */
int qos_rec_copy(struct qos_rec *dst, const struct qos_rec *src);

enum assoc_op { ASSOC_OP_ADD = 1, ASSOC_OP_MODIFY, ASSOC_OP_DELETE };
enum assoc_entity { ASSOC_E_CLUSTER = 1, ASSOC_E_ACCOUNT, ASSOC_E_USER, ASSOC_E_QOS };
#define ASSOC_F_COMMIT 0x1 /* apply; without it only check and report */

/* REQUEST_ASSOC_MGR: sacctmgr add|modify|delete. names: the entities
 * named before where/set ("bob,alice"); where and set: "Key=Value" lines
 * separated by '\n' ("QOS+=a" for += and "QOS-=a" for -=). */
struct assoc_mgr_req {
	uint32_t op, entity, flags;
	char *names, *where, *set;
};

/* RESPONSE_ASSOC_MGR: rc (positive sl_errno, 0), what to print on stdout
 * (out) and stderr (err), and whether anything would change. */
struct assoc_mgr_resp {
	uint32_t rc;
	bool is_changed;
	char *out, *err;
};

struct assoc_list_req {
	uint32_t flags; /* none yet */
};
