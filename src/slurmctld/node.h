/* node.h - the controller's node records and their state machine.
 *
 * Domain logic only (no I/O): registration, responses and failures seen
 * by the ping timer, admin updates, and the node_info view for sinfo and
 * scontrol. Callers persist and reply.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "job_gpu.h"

struct conf_node;
struct ctld;
struct node_info;
struct node_reg_msg;
struct update_node_msg;

struct node {
	const struct conf_node *cfg; /* in ctld->conf; re-pointed on reconfigure */
	uint32_t state;              /* base | flags (states.h) */
	char *reason;
	uint32_t reason_uid;         /* NO_VAL when unset */
	time_t reason_time;
	bool is_registered;          /* since this controller started */
	bool is_down_no_respond;     /* DOWN set by us for "Not responding" */
	bool is_ping_in_flight;
	time_t last_response;        /* 0: never */
	/* what the slurmd reported */
	char *arch, *os, *version, *gres_reported;
	uint32_t cpu_load;           /* x100, NO_VAL unknown */
	uint64_t free_mem;           /* MB, NO_VAL64 unknown */
	time_t boot_time, slurmd_start_time, last_busy;
	char *partitions;            /* "cpu-queue,gpu-queue", set by part.c */
	uint32_t weight;	     /* Weight=, or scontrol update's until reconfigure */
	/* scontrol update's AvailableFeatures / ActiveFeatures, until a
	 * reconfigure or restart (as Slurm); NULL: slurm.conf's Features */
	char *features, *features_act;
	/* in use by running jobs (job_sched.c keeps these) */
	uint16_t cpus_used;
	uint32_t cpus_shared;        /* cpus of jobs that share cores (OverSubscribe), summed */
	uint64_t mem_used;           /* MB */
	uint64_t gpus_used;          /* bitmask of GPU indexes */
	uint64_t gpu_type_mask[GPU_TYPES_MAX]; /* [type id - 1]: its GPUs of it (job_gpu.c) */
	bool is_exclusive_used;
	uint16_t excl_user_jobs;     /* running --exclusive=user jobs here, all of... */
	uint32_t excl_user_uid;      /* ...this user: no other user's job comes here */
	uint16_t epilogs;            /* jobs whose Epilog runs here (job_epilog.c) */
	/* node_reconcile.c: a job or step was too young to be judged missing;
	 * ask the node again at this time (0: no need) */
	time_t recheck_time;
	/* scontrol reboot (node_reboot.c): the state after it (NO_VAL,
	 * NODE_UPDATE_RESUME or NODE_UPDATE_DOWN), when it was issued and
	 * which slurmd was running then; ASAP drained the node */
	uint32_t reboot_next_state;
	time_t boot_req_time;
	uint64_t slurmd_instance, reboot_old_instance; /* node_reg_msg's instance */
	bool is_reboot_asap;
};

/* The cpus running jobs hold, as sinfo and scontrol count them: a shared
 * core once, never more than the node has. */
uint32_t node_alloc_cpus(const struct node *n);

/* Build records for every node in c->conf (all UNKNOWN + NO_RESPOND). */
int node_table_build(struct ctld *c);
/* Re-point records at a new conf after reconfigure: nodes that still exist
 * keep their state and usage (by name; their index may change); new ones
 * start UNKNOWN. Takes the new arrays from c->conf; frees the old records.
 * *ret_map (owned) maps each old index to the new one, NO_VAL for a node
 * that is gone: every stored index (jobs' and steps' nodes) must be
 * remapped with it before anything reads c->nodes by index again. On
 * -ENOMEM nothing changed. */
int node_table_rebuild(struct ctld *c, uint32_t **ret_map);
void node_table_free(struct ctld *c);
struct node *node_find(struct ctld *c, const char *name);
/* The node's available and active features (comma lists; NULL none). */
const char *node_features(const struct node *n);
const char *node_features_act(const struct node *n);
const char *node_name(const struct node *n);

/* A registration arrived (or answered our request). Applies hardware
 * checks (unless config_overrides) and ReturnToService; returns true when
 * the node's admin-visible state changed and should be saved. */
bool node_register(struct ctld *c, struct node *n, const struct node_reg_msg *m, time_t now);
/* The slurmd answered a ping. */
void node_responded(struct ctld *c, struct node *n, uint32_t cpu_load, uint64_t free_mem,
		    time_t now);
/* A ping failed: mark not responding; after SlurmdTimeout set DOWN with
 * reason "Not responding". Returns true when the state went DOWN. */
bool node_no_response(struct ctld *c, struct node *n, time_t now);

/* Set n's reason (NULL: none) as uid. */
void node_set_reason(struct node *n, const char *reason, uint32_t uid, time_t now);
/* Append " : what" to n's reason (once), as Slurm marks a reboot's steps. */
void node_reason_append(struct node *n, const char *what, time_t now);
/* Forget a requested or issued reboot of n (its ASAP drain too). */
void node_reboot_clear(struct node *n, time_t now);

/* Drain n with reason (kept when it already has one), as SlurmUser. */
void node_drain(struct ctld *c, struct node *n, const char *reason, time_t now);

/* scontrol update NodeName=...: validates everything first, then applies
 * to every node or to none (a new Weight= reorders placement). Returns 0
 * or a negative Slurm code. */
int node_update(struct ctld *c, const struct update_node_msg *m, uid_t uid, time_t now);

/* IDLE, MIXED or ALLOCATED from what running jobs use; other base
 * states (DOWN, UNKNOWN, FUTURE) are left alone. */
void node_update_alloc_state(struct node *n);

/* Fill an info record (owned strings) for sinfo/scontrol. */
int node_info_fill(const struct ctld *c, const struct node *n, struct node_info *ret);
