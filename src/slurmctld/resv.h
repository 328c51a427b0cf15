/* resv.h - advanced reservations: scontrol create/update/delete
 * reservation, their windows over time (DAILY, WEEKDAY, WEEKLY move on;
 * the others end), the nodes' RESERVED/MAINT flags while one is active,
 * and the checks of a job's --reservation. Active reservations mark their
 * nodes RESERVED, MAINT ones also MAINT.
 *
 * A reservation holds its nodes from StartTime to EndTime: other jobs are
 * kept off them for any part of that window (resv_mask.c), its own jobs
 * (Users= or Accounts=) run only there and only then, and end with it;
 * with FLEX they may also run before, after and outside it, and outlive
 * it. When one ends or is deleted, the jobs still pending in it lose it:
 * they are held (RESV_DEL_HOLD, reason ReservationDeleted, priority 0)
 * unless it has NO_HOLD_JOBS_AFTER, when they may run anywhere.
 * Reservations are saved with the nodes' state (node_state.c) and survive
 * a restart.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct ctld;
struct job;
struct job_desc;
struct resv_desc_msg;
struct resv_info;

struct resv {
	char *name;
	time_t start, end;
	char *node_list;	/* ranged hostlist, "" none */
	char *partition;	/* NULL none */
	char *users, *accounts; /* comma lists, NULL none */
	uint32_t flags;		/* RESV_FLAG_* */
	uint32_t id;		/* Slurm's ResvID: the create's number, unique while it lasts */
	/* derived (resv_table_resolve): node indexes, and whether the tick saw
	 * it active */
	uint32_t *node_idx;
	uint32_t node_count;
	uint32_t core_count;
	bool is_active;
};
#define RESV_MAX 1024 /* reservations at once */

/* 0, or a Slurm code: -ESLURM_RESERVATION_NAME_DUP, _INVALID (update of
 * an unknown one), _OVERLAP, -ESLURM_NODES_BUSY (running jobs, without
 * IGNORE_JOBS; NodeCnt with too few free nodes), -ESLURM_INVALID_NODE_NAME,
 * -ESLURM_INVALID_PARTITION_NAME, -ESLURM_RESERVATION_EMPTY,
 * -ESLURM_RSV_ALREADY_STARTED (a new StartTime for one that started),
 * -ESLURM_INVALID_TIME_VALUE, -EINVAL, -ENOSPC (RESV_MAX), -ENOMEM.
 * Nothing changes on error. *ret_name (create, malloc'd) the name. */
int resv_create(struct ctld *c, const struct resv_desc_msg *m, time_t now, char **ret_name);
int resv_update(struct ctld *c, const struct resv_desc_msg *m, time_t now);
/* -ESLURM_RESERVATION_INVALID, -ESLURM_RESERVATION_BUSY (a job runs in
 * it). Its pending jobs lose it (held unless NO_HOLD_JOBS_AFTER; each
 * change goes through job_changed()). */
int resv_delete(struct ctld *c, const char *name);
struct resv *resv_find(const struct ctld *c, const char *name);

/* Each second: ended windows move on (DAILY...) or the reservation is
 * removed (its pending jobs lose it, as with resv_delete); nodes get or
 * lose RESERVED / MAINT. true when a reservation changed (to be saved). */
bool resv_tick(struct ctld *c, time_t now);
/* The nodes' RESERVED / MAINT flags alone, ending nothing: at start, before
 * the jobs are back (the first resv_tick ends what ended meanwhile). */
void resv_nodes_mark(struct ctld *c, time_t now);
/* Node indexes from each node_list (at start and after reconfigure:
 * nodes gone from slurm.conf drop out). 0 or -ENOMEM. */
int resv_table_resolve(struct ctld *c);
void resv_table_free(struct ctld *c);
int resv_info_fill(const struct ctld *c, const struct resv *r, struct resv_info *ret);

/* A submission's --reservation: 0, -ESLURM_RESERVATION_INVALID, or
 * -ESLURM_RESERVATION_ACCESS (the user, or the job's account, is not
 * listed; admins may use any). */
int resv_job_check(const struct ctld *c, const struct job_desc *d, const char *user, bool is_admin);
