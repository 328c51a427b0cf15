/* stepd.h - slurmstepd's context (R2), shared by its files; each file
 * declares its functions in its own header.
 *
 * One slurmstepd supervises the tasks of one job step on this node: the
 * tasks of an srun, or a batch script run as a step of one task. The
 * files, from the top down (each calls only files below it):
 *
 *   main.c      the program: order of set-up, run, report, clean-up
 *   launch.c    the launch message -> this context; the set-up of each kind
 *   complete.c  the end, reported to the controller (retried)
 *   sock.c      slurmd's unix socket: ping, signal, terminate
 *   kill.c      terminate (SIGTERM, SIGKILL after KillWait), leftovers
 *   reap.c      the stepd's signals and wait4() of every child
 *   child.c     fork and exec of the tasks (the script is one), in the child
 *   usage.c     usage sampling, the memory limit, the totals
 *   user_error.c the stepd's error lines for the user (stderr file or srun)
 *   task_stdio.c a step's task pipes and files
 *   step_io.c   a step's I/O with srun (io_proto.h)
 *   io.c        files opened as the user; the batch script's files
 *   env.c       the job's and each task's environment
 *   step.c      the task table: tasks, their ends, the step's status
 *   proctree.c  the job's processes in /proc, signalling them
 *   cgroup.c    the step's cgroups: tracking, cores, memory, devices
 *   pmi.c       --mpi=pmi2: the PMI-1/PMI-2 server, fences through srun
 *   pmix_srv.c  --mpi=pmix: libpmix's server, fences through srun
 *   affinity.c  task/affinity: --cpu-bind, the socket distribution
 *   gpu_task.c  each task's GPUs under --gpu-bind (Cores= for closest)
 *   frame.c     one stepd_proto.h frame read from slurmd
 *   iobuf.c     bytes waiting for a non-blocking fd
 *   script.c, privs.c, loop.c: the script file, uid changes, the poll loop
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/job_env.h"

struct batch_launch_msg;
struct affinity;
struct cgroup;
struct pmi;
struct pmix_step;
struct launch_tasks_msg;
struct loop;
struct proctree;
struct sl_conf;
struct step;
struct usage;

/* How the tasks are exec'd: set by launch.c for each kind. */
struct stepd_exec {
	char **argv;	     /* NULL-terminated; the strings are the launch's */
	const char *cwd;     /* the work dir; /tmp (with an error line) when it fails */
	char prefix[300];    /* the child's error lines: "<prefix>: error: ..." */
	bool is_path_search; /* execvpe() through the task's PATH, else execve() */
	bool has_nice;	     /* SLURM_PRIO_PROCESS sets the tasks' nice value */
	int exec_fail_exit;  /* the exit code of a task whose exec failed */
};

struct stepd {
	struct sl_conf *conf;
	char *conf_path; /* absolute, for SLURM_CONF */
	char *node_name;
	char *hostname; /* short host name: %N, HOSTNAME */
	char *spool_dir;
	struct loop *loop; /* every fd and timer of the stepd (loop.h) */
	/* what runs: exactly one of msg (batch) and launch (step) is set */
	bool is_batch;
	bool is_extern; /* a step: the job's extern step (PrologFlags=Contain) */
	struct batch_launch_msg *msg;
	struct launch_tasks_msg *launch;
	struct step *step; /* the tasks (one for a batch script) and srun's I/O */
	struct stepd_exec exec;
	uint32_t job_id, step_id; /* step_id STEPD_BATCH_STEP_ID for batch */
	char label[48];		  /* "JobId=<job>" or "StepId=<job>.<step>", for the log */
	char cancel_name[48];	  /* "JOB <job>" or "STEP <job>.<step>": the cancel line */
	uint32_t uid, gid;
	const char *user_name; /* borrowed from the launch; may be NULL */
	uint64_t mem_limit;    /* MB, 0 or huge: none */
	/* control socket */
	char sock_path[108];
	int listen_fd;
	int listen_id; /* its loop entry */
	/* script in the spool */
	char *script_dir;
	char *script_path;
	/* the user */
	gid_t *gids; /* supplementary groups to run with */
	int ngids;
	mode_t umask;
	struct job_env env;
	int err_fd; /* batch: the job's stderr, for our messages; else -1 */
	int ns_fd;  /* job_container/tmpfs: the job's mount namespace, else -1 */
	/* the tasks' processes */
	int sig_fd;		   /* signalfd: SIGCHLD, SIGTERM, SIGINT (reap.c) */
	bool is_stopping;	   /* SIGTERM/SIGINT: job killed, one report try, exit */
	bool has_exited;	   /* every task exited */
	int status;		   /* wait status: the highest of the tasks' */
	uint32_t slurm_rc;	   /* the script could not be started (ESLURMD_*) */
	struct proctree *proctree; /* which process is whose (proctree.c) */
	struct cgroup *cg;	   /* the step's cgroups (cgroup.c), NULL: none */
	struct pmi *pmi;	   /* --mpi=pmi2's server (pmi.c), NULL: none */
	struct pmix_step *pmix;	   /* --mpi=pmix's server (pmix_srv.c), NULL: none */
	struct affinity *aff;	   /* the tasks' CPU binding (affinity.c), NULL: none */
	char gpu_verbose[512];	   /* --gpu-bind=verbose: the next task's line (env.c), "" none */
	uint64_t gpu_cores[64];	   /* per GPU index its gres.conf Cores= (env.c, made once) */
	size_t gpu_cores_n;
	bool has_gpu_cores;
	/* usage gathering and enforcement; times in ms of CLOCK_MONOTONIC */
	struct usage *usage;  /* per task peaks and CPU time (usage.c) */
	unsigned acct_freq_s; /* JobAcctGatherFrequency task=, 0: only at the end */
	int sample_timer;     /* loop timer of the periodic sample */
	bool is_oom;
	bool is_terminating; /* TERMINATE / KILL_TIMELIMIT received */
	int64_t kill_at_ms;  /* next SIGKILL (the end of KillWait), 0: none */
	int kill_timer;	     /* loop timer of the SIGKILLs */
	/* the completion (complete.c) */
	time_t end_time;     /* when the last task ended */
	char done_path[120]; /* "<socket>.done": kept until the controller took it */
	int done_fd;	     /* open and flock()ed while this stepd lives, else -1 */
};

/* Loop priorities: what is dispatched first in a round. */
enum stepd_prio {
	STEPD_PRIO_SIGNALS, /* children reaped before their pipes are read */
	STEPD_PRIO_IO,	    /* srun and the task pipes */
	STEPD_PRIO_SOCK,    /* slurmd's requests last */
};
