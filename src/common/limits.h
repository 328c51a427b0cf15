/* limits.h - every cap on input from outside, with its reason (R13). */
#pragma once

#define SL_NAME_MAX 256                /* node, partition, user, job names */
#define SL_CONTAINER_DIRS 16           /* job_container.conf Dirs= entries */
#define SL_STR_MAX (1u << 20)          /* any other string field in a message */
#define SL_ARRAY_MAX (1u << 20)        /* element count of any packed array */
#define SL_FRAME_MAX_DEFAULT (64u << 20) /* MaxMessageSize default: 64 MiB */
#define SL_FRAME_PREAUTH (64u << 10)   /* bytes of header+cred read before auth */
#define SL_CRED_MAX 4096               /* a munge credential is well under 1 KiB */
#define SL_CONF_LINE_MAX (64u << 10)   /* one slurm.conf line after continuations */
#define SL_CONF_INCLUDE_DEPTH 16       /* nested Include lines */
#define SL_HOSTLIST_MAX 1000000        /* hosts one expression may expand to */
#define SL_REASON_MAX 1024             /* node drain reason text */
#define SL_PATH_MAX 4096               /* file and directory names */
#define SL_SCRIPT_MAX (4u << 20)       /* batch script, the reference's default cap */

/* REQUEST_JOB_WAIT (slurmctld/job_wait.c): each wait holds a connection
 * and a descriptor until it is answered, so the waits at once stay well
 * under the descriptors the RPC server has (RLIMIT_NOFILE, 1024 at least),
 * and a wait lasts at most an hour: the client asks again for longer. */
#define SL_WAIT_JOBS_MAX 1000      /* job ids one wait names */
#define SL_WAIT_TIMEOUT_MAX 3600   /* seconds one wait may last */
#define SL_WAIT_PER_UID_MAX 32     /* waits of one user at once (root, SlurmUser too) */
#define SL_WAIT_TOTAL_MAX 256      /* waits of all users at once */

/* The PMI server of a --mpi=pmi2 step (slurmstepd/pmi.c), which runs as
 * root outside the job's memory cgroup on cgroup v1: what a task or srun
 * makes it hold. A real MPI job stays far below: MPICH puts a few hundred
 * bytes per rank (its business card) and a handful of node attributes, and
 * reads each reply before its next command. */
#define SL_PMI_OUT_MAX (256u << 10)      /* replies a task left unread (a PMI client has one) */
#define SL_PMI_KVS_BYTES_MAX (32u << 20) /* the step's key space: keys + values + 64 each */
#define SL_PMI_KVS_KEYS_MAX 262144       /* keys in the step's space (~100,000 MPICH ranks) */
#define SL_PMI_NODEATTR_MAX 1024         /* PMI-2 node attributes of one node */

/* job_submit.lua (slurmctld/job_submit_lua.c) runs on the controller's
 * loop: its load and each call into it stop after this long, and its
 * interpreter holds at most this much. A site's rules take well under a
 * millisecond and a few hundred KB. */
#define SL_JOB_SUBMIT_LUA_MS 1000
#define SL_JOB_SUBMIT_LUA_MEM (64u << 20)
