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
 * only by the priority side; everything else only by assoc.c.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct job;

struct qos {
	uint32_t id; /* > 0, never reused */
	char *name;
	uint32_t priority;   /* QOS Priority= */
	double usage_factor; /* UsageFactor=, 1.0 default */
	/* priority: decayed usage charged through this QOS */
	double usage_raw;
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
};

struct assoc_table {
	struct assoc **assocs; /* id order; [0] is root when any */
	uint32_t assoc_count;
	struct qos **qos; /* id order */
	uint32_t qos_count;
	time_t last_update; /* any change of the tree or shares */
};

/* The association a job runs under (its account, user, partition), NULL
 * when there is none (accounting without associations, or unknown). */
struct assoc *assoc_of_job(const struct ctld *c, const struct job *job);
/* The job's QOS, NULL when none applies. */
struct qos *qos_of_job(const struct ctld *c, const struct job *job);
