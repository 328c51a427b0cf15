/* step_cred.h - the step credential: what the controller grants a step,
 * signed, for each slurmd that launches its tasks (REQUEST_LAUNCH_TASKS).
 *
 * The controller packs the grant (below) and munge-encodes the packing, so
 * munged vouches that root or SlurmUser made it. slurmd decodes it, checks
 * the maker's uid, unpacks it and refuses a launch that differs from it in
 * anything it grants: the job, step, user and group, the step's nodes
 * (this node must be one of them, at its index), the task count, the
 * node of every task (the task map) and so the task ids here, the cpus, the memory limit and the GPUs here; and one past its
 * expiry. srun's copy of those fields is then the controller's word, and
 * the stepd gets exactly that. A step launched on several nodes served by
 * one munged is decoded several times: munged calls that a replay, which
 * is accepted here; slurmd's own list (cred_state) refuses a second
 * launch of one credential on one node.
 *
 * Payload (pack.h encoding), version STEP_CRED_VERSION:
 *   u16 version, u32 job_id, u32 step_id, u32 uid, u32 gid,
 *   u64 ctime_us, time expire, str step_nodes, u32 num_tasks,
 *   u32 run_count, run_count x { u32 count, u32 tasks, u32 cpus,
 *   u64 mem_mb, str gpus }, task map (task_map.h)
 * The runs cover the step's nodes in step_nodes order (the hostlist
 * expands in step order): `count` consecutive nodes granted the same.
 * The task map must give each node as many tasks as its run grants.
 */
#pragma once
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "task_map.h"

#define STEP_CRED_VERSION  2 /* 2: the task map */
#define STEP_CRED_EXPIRE_S 120 /* as Slurm's default credential lifetime */
/* The encoded credential in a message: munge's base64 of a payload of at
 * most STEP_CRED_PAYLOAD_MAX bytes, with its header. */
#define SL_STEP_CRED_MAX      (64u << 10)
#define STEP_CRED_PAYLOAD_MAX (SL_STEP_CRED_MAX / 2)

struct step_create_resp;
struct launch_tasks_msg;
struct pack_buf;

struct step_cred_run { /* consecutive step nodes with one grant */
	uint32_t count;
	uint32_t tasks; /* per node */
	uint32_t cpus;
	uint64_t mem; /* MB limit, 0: none */
	char *gpus;   /* "0,1", NULL: none */
};

struct step_cred {
	uint32_t job_id, step_id;
	uint32_t uid, gid;
	uint64_t ctime_us;  /* creation, controller's clock (a credential's identity) */
	time_t expire;	    /* no launch after this */
	char *step_nodes;   /* hostlist, in step node order */
	uint32_t num_tasks; /* in the whole step */
	uint32_t run_count;
	struct step_cred_run *runs;
	struct task_map map; /* the node of each task */
};

/* The grant of a step as the controller answers it (r->nodes...);
 * created at ctime_us, expiring STEP_CRED_EXPIRE_S later. 0 or -ENOMEM. */
int step_cred_from_resp(const struct step_create_resp *r, uint64_t ctime_us, struct step_cred *ret);
void step_cred_done(struct step_cred *c);
void step_cred_pack(const struct step_cred *c, struct pack_buf *b);
/* 0, or -ESLURMD_INVALID_JOB_CREDENTIAL for anything but a whole, sane
 * payload of this version (*ret is then empty). */
int step_cred_unpack(const void *data, size_t len, struct step_cred *ret);

/* The munge credential for c: 0 and *ret (owned), or the code of
 * auth_munge_cause() when the local munged could not sign. */
int step_cred_create(const char *munge_socket, const struct step_cred *c, char **ret);
/* Decode cred: 0 and *ret (step_cred_done it) when root or slurm_uid made
 * it; -ESLURMD_CREDENTIAL_EXPIRED past its munge TTL; a local code of
 * auth_munge_cause() when the local munged could not check it;
 * -ESLURMD_INVALID_JOB_CREDENTIAL otherwise. */
int step_cred_decode(const char *munge_socket, const char *cred, uid_t slurm_uid,
		     struct step_cred *ret);
/* Does c grant launch m on node at time now? 0, -ESLURMD_CREDENTIAL_EXPIRED,
 * or -ESLURMD_INVALID_JOB_CREDENTIAL with *why (static text) naming the
 * first field that differs. */
int step_cred_check_launch(const struct step_cred *c, const struct launch_tasks_msg *m,
			   const char *node, time_t now, const char **why);
