/* assoc.h - accounts, users' associations and QOS: the controller's copy
 * (Slurm's assoc_mgr), the truth for enforcement, priority and fairshare.
 *
 * The tree: "root" (the cluster's root account) -> accounts (Parent=) ->
 * user associations (leaves: user + account [+ partition]). Kept in the
 * accounting store (sacctmgr changes it through the controller) and loaded
 * at start. The scheduler side reads it on the loop only.
 *
 * This header is shared by the accounts work (assoc.c: table, store,
 * sacctmgr, limits) and the priority work (fair_tree.c, assoc_usage.c:
 * usage, Fair Tree, multifactor). Fields marked "priority" are written
 * only by the priority side; everything else only by assoc.c (and the
 * counters by assoc_limits.c).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/msg_assoc.h"

struct ctld;
struct job;

/* Per-user counters of a QOS (MaxJobsPerUser, MaxSubmitJobsPerUser). */
struct qos_user_use {
	uint32_t uid;
	uint32_t jobs; /* running */
};

struct qos {
	uint32_t id; /* > 0, never reused */
	char *name;
	uint32_t priority;   /* QOS Priority= */
	double usage_factor; /* UsageFactor=, 1.0 default */
	/* priority: decayed usage charged through this QOS */
	double usage_raw;
	/* sacctmgr's other fields (struct qos_rec: limits, preemption, text) */
	struct qos_rec rec;
	/* assoc_limits.c: what running jobs use */
	uint32_t used_jobs;
	uint64_t used_tres[ASSOC_TRES_N];
	struct qos_user_use *users;
	uint32_t user_count;
};

struct assoc {
	uint32_t id;	      /* > 0, never reused; root is 1 */
	struct assoc *parent; /* NULL for root */
	char *acct;	      /* account name ("root" for root) */
	char *user;	      /* NULL: an account's own association */
	char *partition;      /* NULL: every partition */
	uint32_t shares_raw;  /* Fairshare= (1 default; SLURM_PARENT: INFINITE) */
	bool is_deleted;      /* kept while jobs still refer to it */
	/* priority: decayed usage (billing TRES-seconds x QOS UsageFactor) of
	 * this association and everything below it */
	double usage_raw;
	/* priority: Fair Tree's factor (0..1) for a user association */
	double fs_factor;
	/* priority: Fair Tree's level fairshare (sshare Level FS) */
	double level_fs;
	/* sacctmgr: limits (ASSOC_NO_LIMIT: none), QOS= ids, DefaultQOS */
	struct assoc_limits lim;
	uint32_t *qos_ids; /* empty: inherited from the parent */
	uint32_t qos_id_count;
	uint32_t def_qos_id; /* 0: inherited (else "normal") */
	/* assoc_limits.c: running jobs and their TRES, this association and
	 * everything below it (Grp* limits) */
	uint32_t used_jobs;
	uint64_t used_tres[ASSOC_TRES_N];
};

struct assoc_table {
	struct assoc **assocs; /* id order; [0] is root when any */
	uint32_t assoc_count;
	struct qos **qos; /* id order */
	uint32_t qos_count;
	time_t last_update; /* any change of the tree or shares */
	/* sacctmgr's users, accounts, clusters (not part of the tree) */
	struct user_rec *users;
	uint32_t user_count;
	struct account_rec *accts;
	uint32_t acct_count;
	char **clusters;
	uint32_t cluster_count;
	uint32_t next_assoc_id, next_qos_id;
	bool is_loaded; /* the store was read: enforcement has a table */
};

/* The association a job runs under (its account, user, partition), NULL
 * when there is none (accounting without associations, or unknown). */
struct assoc *assoc_of_job(const struct ctld *c, const struct job *job);
/* The job's QOS, NULL when none applies. */
struct qos *qos_of_job(const struct ctld *c, const struct job *job);

/* ---- lookups (assoc.c) ---- */
struct qos *assoc_qos_find(const struct assoc_table *t, const char *name);
struct qos *assoc_qos_by_id(const struct assoc_table *t, uint32_t id);
struct assoc *assoc_by_id(const struct assoc_table *t, uint32_t id);
/* The live association of (acct, user, partition): a user's with that
 * partition first, then the user's without one. user NULL: the account's. */
struct assoc *assoc_find(const struct assoc_table *t, const char *acct, const char *user,
			 const char *partition);
struct user_rec *assoc_user_find(const struct assoc_table *t, const char *name);
struct account_rec *assoc_acct_find(const struct assoc_table *t, const char *name);
/* The QOS ids the association may use (its own list, else its parent's). */
const uint32_t *assoc_qos_allowed(const struct assoc *a, uint32_t *ret_count);
/* Its default QOS id (its own, else its parent's), 0 when none is set. */
uint32_t assoc_def_qos(const struct assoc *a);

/* ---- the table as records (store, RPC) ---- */
/* A deep copy of the table (owned by *d; free with assoc_dump_free). */
int assoc_table_dump(const struct assoc_table *t, struct assoc_dump *d);
/* Replace the table by d's records (start-up load). -EINVAL on a broken
 * tree (a parent missing), the table then empty. */
int assoc_table_load(struct assoc_table *t, const struct assoc_dump *d);
void assoc_table_free(struct assoc_table *t);
/* Adds the QOS "normal" when the table has none (a fresh store). */
int assoc_table_ensure_normal(struct assoc_table *t);
/* Add a record (taken, freed on error) at the end: ids only grow. */
int assoc_table_add_qos(struct assoc_table *t, struct qos *q);
int assoc_table_add_assoc(struct assoc_table *t, struct assoc *a);
struct assoc *assoc_free(struct assoc *a); /* NULL-safe, returns NULL */
struct qos *qos_free(struct qos *q);	   /* NULL-safe, returns NULL */
