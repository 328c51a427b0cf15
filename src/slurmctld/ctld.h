/* ctld.h - the controller's context (R2), passed explicitly: what several
 * files share, and a pointer to each subsystem's own opaque state; and the
 * few controller-wide helpers of ctld.c (who is an admin, sending a
 * message, asking for a scheduling pass) that every floor may call. Each
 * subsystem's functions and state live in their own file.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/rpc_async.h"
#include "assoc.h"
#include "job_gpu.h"

struct acct;
struct admin;
struct ctld;
struct ctld_timer;
struct job_sched;
struct job_view;
struct license;
struct part_edit;
struct resv;
struct blob_store;
struct durable;
struct event;
struct event_base;
struct job;
struct job_hooks;
struct jwt_key;
struct mail_runs;
struct job_scripts;
struct job_submit_lua;
struct node;
struct node_ping;
struct node_health;
struct node_reboot;
struct part;
struct prio_ctx;
struct sched_bf;
struct user_db;
struct job_wait;
struct sl_conf;

/* Sends a message to a daemon or client (ctld_send); unit tests set their own
 * to record what the controller would have sent. */
typedef int ctld_send_fn(struct ctld *c, const char *host, uint16_t port, uint16_t type,
			 const void *msg, uid_t peer_uid, rpc_async_done_fn *done, void *arg);

/* What several files share. A subsystem's own state is its opaque struct,
 * made by its init (main.c's subsystems[] table) and freed by its fini;
 * other files reach it through the owner's functions. */
struct ctld {
	struct event_base *base;
	struct sl_conf *conf;        /* swapped whole on reconfigure */
	char *conf_path;
	struct node *nodes;          /* array, config order */
	uint32_t node_count;
	char gpu_types[GPU_TYPES_MAX][TRES_TYPE_MAX]; /* the nodes' GPU types (job_gpu.c); id = index + 1 */
	uint32_t gpu_type_count;
	uint32_t excl_user_jobs;     /* running --exclusive=user jobs (job_res.c) */
	uint32_t *node_order; /* node.c: placement order (Weight, then index); NULL = index */
	struct part *parts;          /* array, config order */
	struct part_edit *part_edits; /* part_admin.c: scontrol's partition edits, kept
				       * (node_state.c saves them) */
	uint32_t part_edit_count;
	struct resv *resvs;	     /* resv.c: advanced reservations, creation order */
	uint32_t resv_count;
	uint32_t resv_seq;	     /* resv.c: the last create's number (names, ResvIDs) */
	time_t resv_last_update;
	struct license *licenses;    /* license.c: Licenses=, config order */
	uint32_t license_count;
	uint32_t part_count;
	struct job **jobs;           /* id order (ids only grow) */
	uint32_t job_count;
	uint32_t job_cap;            /* job.c: room in jobs */
	uint32_t next_job_id;
	uint32_t lowest_prio;        /* priority/basic: each new job one lower */
	time_t job_last_update;
	/* job_info.c: bumped when what every job's record depends on changes
	 * (reconfigure), so no kept record is used again */
	uint32_t job_info_epoch;
	bool is_job_info_checked; /* SL_CHECK_JOB_INFO_CACHE: every kept record
				   * compared with a fresh one (tests) */
	uint64_t alloc_gen; /* job_res.c: bumped by every allocation (backfill's check) */
	struct event *sched_ev;		     /* coalesced scheduling pass (ctld_sched_request) */
	ctld_send_fn *send;	     /* NULL: rpc_async_call on the loop */
	struct assoc_table assoc;    /* assoc.h: accounts, associations, QOS */
	/* StateSaveLocation's health: node_state.c reports a failed save
	 * here, below durable.c, whose commit event retries it. */
	struct event *commit_ev;  /* durable.c: group commit, lowest priority */
	int state_save_err;	  /* 0, or why StateSaveLocation failed (-errno) */
	bool is_node_state_dirty; /* node_state.c: the last save failed (retried) */
	time_t boot_time;
	time_t node_last_update;     /* any node change */
	time_t part_last_update;
	bool is_shutting_down;
	bool is_clean_start;         /* -c: ignore saved state */
	bool ignore_state_errors;    /* -i */
	/* each subsystem's own state, opaque, in the order main.c makes them */
	struct job_hooks *job_hooks; /* job.c: job_changed() observers (first job_hook_add) */
	struct job_view *job_view;   /* job.c: the timer turn's jobs (job_view_take) */
	struct durable *durable;  /* durable.c: the journal and the held replies */
	struct blob_store *blobs; /* durable.c: jobs' scripts and environments
				   * (NULL: they stay in memory, in desc) */
	struct acct *acct;	  /* acct.c: the accounting store and its thread */
	struct prio_ctx *prio;	  /* job_prio.c: multifactor's timers and usage */
	struct admin *admin;	  /* admin.c: a shutdown in progress */
	struct mail_runs *mail;	  /* mail.c: MailProg children not yet reaped */
	struct job_scripts *scripts; /* job_script.c: PrologSlurmctld, EpilogSlurmctld */
	struct jwt_key *jwt_key;  /* auth_token.c: jwt_key of AuthAltParameters, or NULL */
	struct job_wait *job_wait; /* job_wait.c: REQUEST_JOB_WAIT's waits */
	struct node_ping *ping;	  /* node_ping.c: the spread ping round */
	struct node_health *health; /* node_health.c: REQUEST_HEALTH_CHECK's timer */
	struct node_reboot *reboot; /* node_reboot.c: reboots to issue or time out */
	struct ctld_timer *timer; /* ctld_timer.c: the 1 s pass over jobs and steps */
	struct sched_bf *bf;	  /* sched_bf.c: backfill's timer and thread */
	struct job_sched *sched;  /* job_sched.c: the pace of passes after events */
	struct user_db *users;	  /* user_db.c: names and groups, off the loop; NULL: asked inline */
	struct job_submit_lua *job_submit_lua; /* job_submit_lua.c: JobSubmitPlugins=lua's
						* script; NULL: none */
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
