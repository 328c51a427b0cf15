/* ctld.h - the controller's context (R2): everything the daemon owns, passed
 * explicitly. No .c; each subsystem's functions live in their own file.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct event;
struct event_base;
struct rpc_server;
struct sl_conf;
struct durable_waiter;
struct job;
struct journal;
struct acct;
struct node;
struct part;

struct ctld {
	struct event_base *base;
	struct sl_conf *conf;        /* swapped whole on reconfigure */
	char *conf_path;
	struct node *nodes;          /* array, config order */
	uint32_t node_count;
	struct part *parts;          /* array, config order */
	uint32_t part_count;
	struct job **jobs;           /* id order (ids only grow) */
	uint32_t job_count;
	uint32_t job_cap;
	uint32_t next_job_id;
	uint32_t lowest_prio;        /* priority/basic: each new job one lower */
	time_t job_last_update;
	struct event *sched_ev;      /* coalesced scheduling pass (event_active) */
	struct journal *journal;     /* durable.c */
	struct acct *acct;           /* acct.c: the accounting store and its thread */
	struct event *commit_ev;     /* group commit, lowest priority */
	struct durable_waiter *waiters; /* replies held until the next commit */
	struct durable_waiter **waiters_tail;
	struct event *job_timer;     /* time limits, purge, periodic scheduling */
	time_t last_timer_pass;      /* last scheduling pass run by the timer */
	struct rpc_server *rpc;
	struct event *ping_timer;
	struct event *sig_term, *sig_int, *sig_hup, *sig_chld;
	struct event *shutdown_timer;
	time_t boot_time;
	time_t node_last_update;     /* any node change */
	time_t part_last_update;
	bool is_shutting_down;
	uint32_t shutdown_pending;   /* slurmd shutdown replies still awaited */
	bool is_clean_start;         /* -c: ignore saved state */
	bool ignore_state_errors;    /* -i */
};

/* Privilege a request needs (STYLE R17). */
enum priv {
	PRIV_ANY,
	PRIV_ADMIN,  /* root or SlurmUser */
	PRIV_SLURMD, /* root or SlurmUser: daemon-originated */
};

bool ctld_is_admin(const struct ctld *c, uid_t uid);
