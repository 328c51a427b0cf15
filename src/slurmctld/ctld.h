/* ctld.h - the controller's context (R2): everything the daemon owns, passed
 * explicitly, and the few controller-wide helpers of ctld.c (who is an
 * admin, sending a message, asking for a scheduling pass) that every floor
 * may call. Each subsystem's functions live in their own file.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/rpc_async.h"
#include "assoc.h"

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
struct prio_ctx;
struct job_hook;
struct ctld;
struct sched_bf;
struct job_wait;

/* Sends a message to a daemon or client (ctld_send); unit tests set their own
 * to record what the controller would have sent. */
typedef int ctld_send_fn(struct ctld *c, const char *host, uint16_t port, uint16_t type,
			 const void *msg, uid_t peer_uid, rpc_async_done_fn *done, void *arg);

struct ctld {
	struct event_base *base;
	struct sl_conf *conf;        /* swapped whole on reconfigure */
	char *conf_path;
	struct node *nodes;          /* array, config order */
	uint32_t node_count;
	uint32_t *node_order; /* node.c: placement order (Weight, then index); NULL = index */
	struct part *parts;          /* array, config order */
	uint32_t part_count;
	struct job **jobs;           /* id order (ids only grow) */
	uint32_t job_count;
	uint32_t job_cap;
	uint32_t next_job_id;
	uint32_t lowest_prio;        /* priority/basic: each new job one lower */
	time_t job_last_update;
	uint64_t alloc_gen; /* job_res.c: bumped by every allocation (backfill's check) */
	struct event *sched_ev;		     /* coalesced scheduling pass (ctld_sched_request) */
	struct sched_bf *bf;		     /* sched_bf.c: backfill's timer and thread */
	const struct job_hook *job_hooks[8]; /* job_changed() observers (job.c) */
	uint32_t job_hook_count;
	ctld_send_fn *send;	     /* NULL: rpc_async_call on the loop */
	struct journal *journal;     /* durable.c */
	uint64_t journal_live_bytes; /* its size after the last compaction */
	struct acct *acct;           /* acct.c: the accounting store and its thread */
	struct assoc_table assoc;    /* assoc.h: accounts, associations, QOS */
	struct prio_ctx *prio;	     /* job_prio.c: multifactor's timers and usage */
	struct event *commit_ev;     /* group commit, lowest priority; retries failed saves */
	bool is_journal_behind;	     /* durable.c: a change could not be journaled */
	bool is_sched_after_commit;  /* durable.c: a batch job waits for its record */
	int state_save_err;	     /* durable.c: 0, or why StateSaveLocation failed (-errno) */
	bool is_node_state_dirty;    /* node_state.c: the last save failed (retried) */
	time_t compact_retry_after;  /* durable.c: a failed compaction backs off */
	struct event *compact_ev;    /* durable.c: polls a background compaction */
	struct durable_waiter *waiters; /* replies held until the next commit */
	struct durable_waiter **waiters_tail;
	struct event *job_timer;     /* ctld_timer.c: the 1 s pass over jobs and steps */
	time_t last_timer_pass;      /* last scheduling pass run by the timer */
	struct rpc_server *rpc;
	struct event *ping_timer;
	struct event *sig_term, *sig_int, *sig_hup, *sig_chld;
	struct mail_runs *mail; /* mail.c: MailProg children not yet reaped */
	struct event *shutdown_timer;
	time_t boot_time;
	time_t node_last_update;     /* any node change */
	time_t part_last_update;
	bool is_shutting_down;
	uint32_t shutdown_pending;   /* slurmd shutdown replies still awaited */
	bool is_clean_start;         /* -c: ignore saved state */
	bool ignore_state_errors;    /* -i */
	/* node_ping.c: where the spread ping round stands */
	uint32_t ping_tick;	  /* ticks done in the current round */
	bool is_ping_first_round; /* the quick round right after start */
	struct jwt_key *jwt_key;  /* auth_token.c: jwt_key of AuthAltParameters, or NULL */
	struct job_wait *job_wait; /* job_wait.c: REQUEST_JOB_WAIT's waits */
};

/* root or SlurmUser. */
bool ctld_is_admin(const struct ctld *c, uid_t uid);
/* Send type+msg to host:port without waiting (c->send, else rpc_async_call
 * on c->base with MessageTimeout); done gets the reply on the loop. Returns
 * <0 when it could not even be started (done is then not called). */
int ctld_send(struct ctld *c, const char *host, uint16_t port, uint16_t type, const void *msg,
	      uid_t peer_uid, rpc_async_done_fn *done, void *arg);
/* ctld_send to node n's slurmd, as SlurmUser. */
int ctld_send_node(struct ctld *c, const struct node *n, uint16_t type, const void *msg,
		   rpc_async_done_fn *done, void *arg);
/* Ask for a scheduling pass soon: coalesced through one event, so a burst
 * of submits and completions costs one pass. Does nothing before
 * job_sched_init() (unit tests call job_sched_pass() themselves). */
void ctld_sched_request(struct ctld *c);
