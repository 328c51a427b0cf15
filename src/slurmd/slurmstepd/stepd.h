/* stepd.h - slurmstepd's context (R2) and the functions of its modules.
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
 *   script.c, privs.c, loop.c: the script file, uid changes, the poll loop
 *   frame.c     one stepd_proto.h frame read from slurmd
 *   iobuf.c     bytes waiting for a non-blocking fd
 */
#pragma once
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "common/macros.h"
#include "common/job_env.h"

struct acct_usage;
struct batch_launch_msg;
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
	struct batch_launch_msg *msg;
	struct launch_tasks_msg *launch;
	struct step *step; /* the tasks (one for a batch script) and srun's I/O */
	struct stepd_exec exec;
	uint32_t job_id, step_id; /* step_id STEPD_BATCH_STEP_ID for batch */
	char label[48];		  /* "JobId=<job>" or "StepId=<job>.<step>", for the log */
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
	/* the tasks' processes */
	int sig_fd;		   /* signalfd: SIGCHLD, SIGTERM, SIGINT (reap.c) */
	bool is_stopping;	   /* SIGTERM/SIGINT: job killed, one report try, exit */
	bool has_exited;	   /* every task exited */
	int status;		   /* wait status: the highest of the tasks' */
	uint32_t slurm_rc;	   /* the script could not be started (ESLURMD_*) */
	struct proctree *proctree; /* which process is whose (proctree.c) */
	/* usage gathering and enforcement; times in ms of CLOCK_MONOTONIC */
	struct usage *usage;  /* per task peaks and CPU time (usage.c) */
	unsigned acct_freq_s; /* JobAcctGatherFrequency task=, 0: only at the end */
	int sample_timer;     /* loop timer of the periodic sample */
	bool is_oom;
	bool is_terminating; /* TERMINATE / KILL_TIMELIMIT received */
	int64_t kill_at_ms;  /* next SIGKILL (the end of KillWait), 0: none */
	int kill_timer;	     /* loop timer of the SIGKILLs */
};

/* Loop priorities: what is dispatched first in a round. */
enum stepd_prio {
	STEPD_PRIO_SIGNALS, /* children reaped before their pipes are read */
	STEPD_PRIO_IO,	    /* srun and the task pipes */
	STEPD_PRIO_SOCK,    /* slurmd's requests last */
};

/* script.c */
int script_write(struct stepd *s); /* <spool>/job%05u/slurm_script, 0700, the user's */
void script_remove(struct stepd *s);

/* privs.c */
int privs_init(struct stepd *s); /* resolve groups; refuse what we cannot become */
struct privs_saved {
	bool is_dropped;
	gid_t egid;
	int ngroups;
	gid_t *groups;
};
int privs_drop_temp(const struct stepd *s, struct privs_saved *sv);
void privs_restore(struct privs_saved *sv);
int privs_drop_final(const struct stepd *s); /* in the child, before exec; no way back */

/* proctree.c */
int proctree_init(struct stepd *s); /* 0 or -ENOMEM; proctree_free() is NULL-safe */
void proctree_free(struct stepd *s);
struct proc_entry;
/* Every process of the node, sorted by pid, each with the local task it
 * belongs to (-1: not the job's). NULL (and 0) when /proc cannot be read. */
struct proc_entry *proctree_scan(const struct stepd *s, size_t *ret_n);
/* Remember the tasks of a scan: an orphan keeps its task from then on. */
void proctree_keep(struct stepd *s, const struct proc_entry *v, size_t n);
/* The local task of a process being reaped, or -1. */
int32_t proctree_task_of(const struct stepd *s, pid_t pid);
/* Send sig to the live tasks' process groups and every other process of
 * the job (found in /proc). Returns how many processes were signalled. */
int proctree_signal(const struct stepd *s, int sig);

/* env.c */
/* This node as job_env sees it (the cluster name only for a step). */
struct job_env_node env_node(const struct stepd *s);
/* SLURM_UMASK as submitted (octal), else 022. */
mode_t env_umask(char *const *env, uint32_t env_count);
/* The job's environment from the launch (s->env). 0 or -errno. */
int env_setup(struct stepd *s);
/* In a task's child: its own variables (SLURM_PROCID ... SLURM_TASK_PID). */
int env_task(struct stepd *s, uint32_t ltid);

/* io.c */
/* open(path, flags) as the job's user; -ESLURMD_IO_ERROR (logged) on failure. */
int io_open_as_user(const struct stepd *s, const char *what, const char *path, int flags,
		    int *ret_fd);
/* The batch script's stdin/stdout/stderr files, as the user, on the one
 * task's child fds; s->err_fd a copy of stderr for our messages. */
int io_open_batch(struct stepd *s);
void io_close(struct stepd *s);
/* Format fmt (at most 1023 characters), log it with error() and write
 * "slurmstepd[-<node>]: error: <text><eol>" into line (no "-<node>" when
 * node is NULL). Returns its length, cut to size - 1; 0 on failure. */
size_t io_error_line(char *line, size_t size, const char *node, const char *eol, const char *fmt,
		     va_list ap) _printf_(5, 0);

/* user_error.c */
/* An error line for the job's user, logged too: a batch job's goes into
 * its stderr file ("slurmstepd-<node>: error: ..."), a step's to srun
 * (IO_MESSAGE "slurmstepd: error: ...", flushed at once). */
void user_error(struct stepd *s, const char *fmt, ...) _printf_(2, 3);

/* usage.c */
#define USAGE_FIRST_SAMPLE_MS 100 /* the first sample, after the tasks started */
/* One usage slot per task, the sampling timer. 0 or -ENOMEM. usage_free()
 * is NULL-safe and leaves s->usage NULL. */
int usage_init(struct stepd *s);
void usage_free(struct stepd *s);
/* JobAcctGatherFrequency task=: "30", "task=30" or "task=30,energy=0". */
unsigned usage_freq(const struct sl_conf *c);
/* The tasks started: first sample in USAGE_FIRST_SAMPLE_MS, then every
 * acct_freq_s (none when it is 0: only the last one, at the end). */
void usage_sampling_start(struct stepd *s);
void usage_sampling_stop(struct stepd *s);
/* One /proc scan: per task RSS and VMSize and their peaks. Returns the sum
 * of the RSS of every process of the job, in bytes. */
uint64_t usage_gather(struct stepd *s);
/* A process reaped by wait4: its CPU time counts for the job, and a
 * task's ru_maxrss raises that task's RSS peak. */
void usage_reaped(struct stepd *s, pid_t pid, const struct rusage *ru);
/* The totals the completion carries: CPU time, the largest task peaks
 * with their global ranks, the sums of the peaks; ntasks 0 when no task
 * was ever started. All zero before usage_init(). */
void usage_total(const struct stepd *s, struct acct_usage *ret);

/* reap.c */
/* Block SIGCHLD/SIGTERM/SIGINT into a signalfd (registered in the loop),
 * become a child subreaper. 0 or -errno. */
int reap_init(struct stepd *s);
void reap_close(struct stepd *s);
/* Drain the signalfd (SIGTERM/SIGINT kill the job and make us stop),
 * then wait4 every exited child: usage and the tasks' ends. */
void reap_now(struct stepd *s);
/* Wait up to ms for a signal, then reap_now(). */
void reap_wait(struct stepd *s, int ms);

/* kill.c */
int kill_init(struct stepd *s); /* the SIGKILL timer; 0 or -ENOMEM */
/* TERMINATE / KILL_TIMELIMIT: the cancel line for the user, SIGCONT +
 * SIGTERM, SIGKILL after max(KillWait, 5 s), again every second. */
void kill_terminate(struct stepd *s, const char *why);
/* Take the last usage sample (what is still running counts), then serve
 * the loop until no process of the job is left (bounded). */
void kill_leftovers(struct stepd *s);

/* child.c */
/* Fork every task; in each child set up fds, identity, cwd, umask (nice),
 * environment and exec s->exec. The parent closes the children's fds.
 * -ESLURMD_EXECVE_FAILED when a fork failed: the tasks not started count
 * as exited with exec_fail_exit. */
int child_start(struct stepd *s);

/* frame.c */
/* Read one frame from fd: its type (one of types[0..ntypes), any when
 * ntypes is 0, else -EBADMSG) and the unpacked message (msg_free() it).
 * 0 or -errno. */
int frame_read(int fd, uint32_t max_len, int timeout_ms, const uint16_t *types, size_t ntypes,
	       uint16_t *ret_type, void **ret_msg);

/* sock.c */
int sock_open(struct stepd *s); /* bind + listen + register; -ESLURMD_STEP_EXISTS if one answers */
void sock_close(struct stepd *s);

/* complete.c */
/* REQUEST_COMPLETE_BATCH_SCRIPT (REQUEST_STEP_COMPLETE for a step),
 * retried with backoff until the controller answers; serves the loop
 * between tries. */
void complete_send(struct stepd *s);

/* launch.c */
/* Read the launch frame from fd (within a timeout) into s. 0, -EBADMSG
 * (not a launch) or another -errno. */
int launch_read(struct stepd *s, int fd);
/* Everything before "started": groups, socket, environment, script or
 * srun connection, files, usage. 0 or the -ESLURM* code for slurmd. */
int launch_setup(struct stepd *s);
void launch_free(struct stepd *s);
