/* msg_step.h - interactive allocations (salloc, srun), job steps and the
 * notices the controller sends to srun/salloc. Included by msg.h;
 * pack/unpack/free in msg_step.c.
 *
 * Flow of `srun -n4 cmd` without an allocation:
 *   srun -> ctld   REQUEST_RESOURCE_ALLOCATION (job_desc, alloc_host/port set)
 *   ctld -> srun   RESPONSE_RESOURCE_ALLOCATION (job id; nodes when it could start at once)
 *   ctld -> srun's alloc port, later: RESPONSE_RESOURCE_ALLOCATION again once granted
 *   srun -> ctld   REQUEST_JOB_STEP_CREATE -> RESPONSE_JOB_STEP_CREATE (layout, credential)
 *   srun -> each slurmd REQUEST_LAUNCH_TASKS -> RESPONSE_SLURM_RC
 *   each stepd -> srun's io port: the task I/O stream (io_proto.h)
 *   each stepd -> ctld REQUEST_STEP_COMPLETE
 *   srun -> ctld   REQUEST_COMPLETE_JOB_ALLOCATION
 * Inside an allocation (SLURM_JOB_ID set) srun starts at the step creation.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "msg_acct.h"
#include "task_map.h"

/* Step ids (Slurm's): normal steps count from 0. */
#define SL_BATCH_STEP 0xfffffffbu  /* SLURM_BATCH_SCRIPT, printed "batch" */
#define SL_EXTERN_STEP 0xfffffffcu /* SLURM_EXTERN_CONT, printed "extern" */
#define SL_ALL_STEPS 0xfffffffeu   /* NO_VAL: every step of the job */

/* step_create_req.flags */
#define STEP_FLAG_EXCLUSIVE 0x0001 /* --exclusive: own cpus; 22.05's default anyway, so
                                    * the controller treats it like no flag */
#define STEP_FLAG_OVERLAP 0x0002   /* --overlap: shares cpus with every other step */
#define STEP_FLAG_NO_GRES 0x0004   /* --gres=none: no GPUs at all */
#define STEP_FLAG_NO_KILL 0x0008   /* srun --no-kill: a failed node leaves the step, which
				    * goes on (in a --no-kill job) */

/* launch_tasks_msg.flags: what srun was asked. The stepd does not act on
 * them: srun applies them itself (labels, line buffering, killing the step
 * on a bad exit) and the stepd always forwards output as soon as it reads it. */
#define LAUNCH_UNBUFFERED 0x0001   /* -u */
#define LAUNCH_KILL_BAD_EXIT 0x0002 /* -K: a task exiting non-zero ends the step */
#define LAUNCH_LABEL 0x0004        /* -l (SLURM_LABELIO=1 is in env already) */
#define LAUNCH_PTY 0x0008          /* --pty: task 0 on a pseudo-terminal (the stepd acts on it) */
#define LAUNCH_MULTI_PROG 0x0010   /* --multi-prog: argv[0] is the configuration file */

struct alloc_response {            /* RESPONSE_RESOURCE_ALLOCATION (reply and later grant) */
	uint32_t job_id;
	uint32_t error_code;           /* 0 or a positive sl_errno code */
	uint32_t job_state;            /* JOB_PENDING while waiting, JOB_RUNNING when granted */
	uint16_t state_reason;         /* why it waits (enum job_state_reason) */
	char *job_name;
	char *node_list;               /* NULL while pending */
	uint32_t num_nodes;
	uint32_t num_cpus;
	uint32_t num_tasks;            /* NO_VAL: -n not given */
	char *cpus_per_node;           /* "4(x2),2": SLURM_JOB_CPUS_PER_NODE */
	char *tasks_per_node;          /* SLURM_TASKS_PER_NODE */
	char *partition, *account, *qos;
	uint64_t mem_per_node;         /* MB, 0: not asked per node */
	uint64_t mem_per_cpu;          /* MB, 0 */
	uint32_t time_limit;           /* minutes, INFINITE */
	char *user_msg;
};

struct step_create_req {           /* REQUEST_JOB_STEP_CREATE */
	uint32_t job_id;
	char *name;                    /* step name (executable or -J) */
	uint32_t num_tasks;            /* NO_VAL: one per node */
	uint32_t min_nodes, max_nodes; /* NO_VAL: all the job's nodes (or as tasks need) */
	uint16_t cpus_per_task;        /* NO_VAL16: 1 */
	uint16_t ntasks_per_node;      /* NO_VAL16 */
	uint64_t mem_per_node;         /* MB, NO_VAL64: not given */
	uint64_t mem_per_cpu;          /* MB, NO_VAL64 */
	char *tres_per_node;           /* "gres/gpu:1", NULL: all the job's GPUs on those nodes */
	char *req_nodes, *exc_nodes;   /* -w / -x within the job's nodes */
	uint32_t time_limit;           /* minutes, NO_VAL: the job's */
	uint16_t flags;                /* STEP_FLAG_* */
	char *srun_host;               /* where SRUN_* notices go (0 port: none) */
	uint16_t srun_port;
	uint32_t srun_pid;
	char *command;                 /* argv joined by spaces, for scontrol show step */
	uint16_t task_dist;            /* enum task_dist: -m's node level */
	uint16_t plane_size;           /* TASK_DIST_PLANE */
	char *task_nodes;              /* TASK_DIST_ARBITRARY: the node of each task, in
	                                * task order (a hostlist, repeats kept) */
	char *tres_per_task;           /* --gpus-per-task "gres/gpu[:type]:N", NULL */
	char *tres_per_step;           /* --gpus "gres/gpu[:type]:N" for the step, NULL */
};

struct step_node {                 /* one node of a step, in step node order */
	char *name;
	char *addr;                    /* slurmd's address (NodeAddr) */
	uint16_t port;                 /* slurmd's port */
	uint32_t tasks;                /* tasks placed there */
	uint32_t cpus;                 /* cpus the step holds there */
	uint64_t mem;                  /* MB limit there, 0: none */
	char *gpus;                    /* global GPU indexes "0,1", NULL: none */
};

struct step_create_resp {          /* RESPONSE_JOB_STEP_CREATE */
	uint32_t job_id;
	uint32_t step_id;
	uint32_t error_code;           /* 0 or sl_errno; ESLURM_NODES_BUSY: retry later */
	char *user_msg;
	char *step_nodes;              /* hostlist of the step's nodes */
	uint32_t num_tasks;
	uint32_t node_count;
	struct step_node *nodes;
	struct task_map map;           /* the node of each task (task_map.h) */
	char *cred;                    /* step credential (step_cred.h), for each slurmd */
	/* the job, for the task environment */
	uint32_t uid, gid;
	char *user_name;
	char *job_name;
	char *job_nodes;
	uint32_t job_num_nodes;
	char *job_cpus_per_node;       /* "4(x2)" */
	char *partition, *account, *qos;
	uint32_t time_limit;           /* the step's, minutes, INFINITE */
};

struct extern_pid_msg {            /* REQUEST_ADD_EXTERN_PID: pam_slurm_adopt -> stepd */
	uint32_t uid;                  /* who logs in: must own the job */
	uint32_t pid;                  /* the process to adopt into the extern step;
	                                * 0: only whether the job is uid's */
};

struct launch_tasks_msg {          /* REQUEST_LAUNCH_TASKS: srun -> slurmd -> slurmstepd */
	uint32_t job_id, step_id;
	uint32_t uid, gid;
	char *user_name;
	char *cred;                    /* from step_create_resp */
	char *node_name;               /* the node this copy is for */
	char **argv;
	uint32_t argc;
	char **env;                    /* srun's environment + job and step variables */
	uint32_t env_count;
	char *cwd;
	char *step_nodes;              /* hostlist of the step */
	uint32_t num_nodes;            /* in the step */
	uint32_t node_id;              /* this node's index in the step (SLURM_NODEID) */
	uint32_t num_tasks;            /* in the whole step */
	uint32_t *gtids;               /* global task ids on this node, ascending */
	uint32_t ntasks_here;
	struct task_map map;           /* the node of every task of the step */
	uint32_t cpus_on_node;         /* SLURM_CPUS_ON_NODE */
	uint64_t mem_limit;            /* MB, 0: none */
	char *gpus;                    /* "0,1": SLURM_STEP_GPUS / CUDA_VISIBLE_DEVICES, NULL */
	char *io_host;                 /* srun's I/O listener (io_proto.h) */
	uint16_t io_port;
	char *io_key;                  /* secret the stepd presents in IO_INIT */
	char *ofname, *efname, *ifname; /* patterns; NULL: streamed to/from srun */
	char *task_prolog, *task_epilog; /* srun --task-prolog/--task-epilog, NULL */
	uint16_t open_mode;            /* OPEN_MODE_* for ofname/efname */
	uint16_t flags;                /* LAUNCH_* */
	uint32_t time_limit;           /* minutes, INFINITE (informational) */
};

struct step_complete_msg {         /* REQUEST_STEP_COMPLETE: stepd -> ctld, one per node */
	uint32_t job_id, step_id;
	char *node_name;
	uint32_t step_rc;              /* highest task wait status on the node */
	uint16_t is_oom;
	struct acct_usage usage;       /* of the step's tasks on the node (msg_acct.h) */
	time_t end_time;	       /* when its tasks ended there (0: unknown) */
};

struct step_stat_req {             /* REQUEST_JOB_STEP_STAT: sstat -> slurmd -> slurmstepd */
	uint32_t job_id, step_id;      /* step_id SL_BATCH_STEP for the batch script */
	uint32_t uid;                  /* who asks: set by slurmd from the credential */
};

struct step_stat_resp {            /* RESPONSE_JOB_STEP_STAT: one node's live usage */
	uint32_t job_id, step_id;
	char *node_name;
	struct acct_usage usage;       /* peaks so far, CPU time of live and ended processes */
	uint64_t min_cpu_usec;         /* the task with the least CPU time */
	uint32_t min_cpu_task;         /* its global rank */
};

struct complete_alloc_msg {        /* REQUEST_COMPLETE_JOB_ALLOCATION: salloc/srun are done */
	uint32_t job_id;
	uint32_t job_rc;               /* wait status of the command / highest task status */
};

struct step_signal_msg {           /* REQUEST_CANCEL_JOB_STEP: scancel 12.3, srun teardown */
	uint32_t job_id, step_id;
	uint16_t signal;               /* SIGKILL: cancel (terminate sequence) */
	uint16_t flags;
};

struct step_info_req {             /* REQUEST_JOB_STEP_INFO */
	time_t last_update;
	uint32_t job_id;               /* NO_VAL: all */
	uint32_t step_id;              /* NO_VAL: all */
	uint16_t show_flags;
};

struct step_info {
	uint32_t job_id, step_id;
	uint32_t array_job_id, array_task_id; /* 0 / NO_VAL when not an array */
	char *name, *partition, *nodes;
	char *tres_alloc_str;          /* "cpu=2,mem=200M,node=1" */
	char *srun_host;
	uint32_t srun_pid;
	uint32_t user_id;
	char *user_name;
	uint32_t state;                /* JOB_RUNNING, JOB_COMPLETE, JOB_CANCELLED, ... */
	time_t start_time;
	uint32_t time_limit;           /* minutes, INFINITE */
	uint32_t num_nodes, num_cpus, num_tasks;
	uint32_t exit_code;            /* wait status */
};

struct step_info_msg {             /* RESPONSE_JOB_STEP_INFO */
	time_t last_update;
	uint32_t count;
	struct step_info *steps;
};

struct srun_notice_msg {           /* SRUN_PING, SRUN_TIMEOUT, SRUN_NODE_FAIL,
				    * SRUN_JOB_COMPLETE: ctld -> client */
	uint32_t job_id;
	uint32_t step_id;              /* SL_ALL_STEPS: the whole allocation */
	time_t timeout;                /* SRUN_TIMEOUT: when the limit hits */
	uint16_t reason;               /* SRUN_JOB_COMPLETE: SRUN_END_* */
	char *node_name;               /* SRUN_NODE_FAIL: the node that failed, else NULL */
};
#define SRUN_END_CANCELLED 0       /* scancel or admin */
#define SRUN_END_TIME_LIMIT 1
#define SRUN_END_NODE_FAIL 2

void step_info_done(struct step_info *s);
