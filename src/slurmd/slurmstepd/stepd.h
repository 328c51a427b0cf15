/* stepd.h - slurmstepd's context (R2) and the functions of its modules.
 *
 * One slurmstepd supervises either one batch script or the tasks of one
 * job step on this node (srun). main.c reads the launch message and
 * drives the loop; script.c writes the script into the spool; privs.c is
 * the only place that changes uids; io.c opens the batch job's files and
 * writes our "slurmstepd-<node>: error:" lines into its stderr; task.c
 * forks and execs the script and reaps; usage.c walks /proc for the job's
 * processes (per task RSS/VMSize peaks, CPU time, the memory limit,
 * signals); sock.c serves slurmd's unix socket;
 * complete.c reports the end to the controller. Step mode: step.c sets
 * up and runs the step, step_task.c forks the tasks, step_io.c carries
 * their I/O to and from srun (io_proto.h).
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
struct sl_conf;
struct step;
struct usage;

struct stepd {
	struct sl_conf *conf;
	char *conf_path;               /* absolute, for SLURM_CONF */
	char *node_name;
	char *hostname;                /* short host name: %N, HOSTNAME */
	char *spool_dir;
	/* what runs: exactly one of msg (batch) and launch (step) is set */
	bool is_batch;
	struct batch_launch_msg *msg;
	struct launch_tasks_msg *launch;
	struct step *step;             /* step mode: tasks and srun's I/O (step.h) */
	uint32_t job_id, step_id;      /* step_id STEPD_BATCH_STEP_ID for batch */
	uint32_t uid, gid;
	const char *user_name;         /* borrowed from the launch; may be NULL */
	uint64_t mem_limit;            /* MB, 0 or huge: none */
	/* control socket */
	char sock_path[108];
	int listen_fd;
	/* script in the spool */
	char *script_dir;
	char *script_path;
	/* the user */
	gid_t *gids;                   /* supplementary groups to run with */
	int ngids;
	mode_t umask;
	struct job_env env;
	/* job stdio, opened as the user; err_fd also carries our messages */
	int in_fd, out_fd, err_fd;
	/* the script (or the step's tasks, step.h) and its processes */
	pid_t pid;                     /* the script; its session and process group id too */
	int sigchld_fd;                /* signalfd: SIGCHLD, SIGTERM, SIGINT */
	bool is_stopping;              /* SIGTERM/SIGINT: job killed, one report try, exit */
	bool has_exited;               /* the script / every task of the step exited */
	int status;                    /* wait status of the script / highest of the tasks */
	uint32_t slurm_rc;             /* the script could not be started (ESLURMD_*) */
	/* usage gathering and enforcement; times in ms of CLOCK_MONOTONIC */
	struct usage *usage;           /* per task peaks and CPU time (usage.c) */
	unsigned acct_freq_s;          /* JobAcctGatherFrequency task=, 0: only at the end */
	int64_t next_sample_ms;        /* 0: no periodic sampling */
	bool is_oom;
	bool is_terminating;           /* TERMINATE / KILL_TIMELIMIT received */
	int64_t kill_at_ms;            /* next SIGKILL, 0: none */
};

/* script.c */
int script_write(struct stepd *s);   /* <spool>/job%05u/slurm_script, 0700, the user's */
void script_remove(struct stepd *s);

/* privs.c */
int privs_init(struct stepd *s);     /* resolve groups; refuse what we cannot become */
struct privs_saved {
	bool is_dropped;
	gid_t egid;
	int ngroups;
	gid_t *groups;
};
int privs_drop_temp(const struct stepd *s, struct privs_saved *sv);
void privs_restore(struct privs_saved *sv);
int privs_drop_final(const struct stepd *s); /* in the child, before exec; no way back */

/* io.c */
int io_open(struct stepd *s);        /* as the user; -ESLURMD_IO_ERROR with a logged reason */
/* open(path, flags) as the job's user; -ESLURMD_IO_ERROR (logged) on failure. */
int io_open_as_user(const struct stepd *s, const char *what, const char *path, int flags,
		    int *ret_fd);
void io_close(struct stepd *s);
/* "slurmstepd-<node>: error: <text>\n" into the job's stderr. */
void io_job_error(const struct stepd *s, const char *fmt, ...) _printf_(2, 3);
/* Format fmt (at most 1023 characters), log it with error() and write
 * "slurmstepd[-<node>]: error: <text><eol>" into line (no "-<node>" when
 * node is NULL). Returns its length, cut to size - 1; 0 on failure.
 * Shared by io_job_error() and step_message() (step.h). */
size_t io_error_line(char *line, size_t size, const char *node, const char *eol,
		     const char *fmt, va_list ap) _printf_(5, 0);

/* task.c */
int task_start(struct stepd *s);     /* fork + exec the script; sets s->pid */
void task_reap(struct stepd *s);     /* wait4 every exited child, note the script's/tasks' end */
/* In a freshly forked child: empty signal mask, default dispositions, a
 * new session, the three fds on 0/1/2 (_exit(127) when that fails) and
 * every other fd closed. Shared by the script and a step's tasks. */
void task_child_setup(int in_fd, int out_fd, int err_fd);

/* usage.c */
#define USAGE_FIRST_SAMPLE_MS 100    /* the first sample, after the tasks started */
/* One usage slot per task on this node (after setup: the step knows its
 * tasks). 0 or -ENOMEM. usage_free() is NULL-safe and leaves s->usage NULL. */
int usage_init(struct stepd *s);
void usage_free(struct stepd *s);
/* Send sig to the job's process group and every process descending from
 * the script (found in /proc). Returns how many processes were signalled. */
int usage_signal_job(const struct stepd *s, int sig);
/* One /proc scan: per task RSS and VMSize and their peaks. Returns the sum
 * of the RSS of every process of the job, in bytes. */
uint64_t usage_gather(struct stepd *s);
/* usage_gather(), then the sum against the memory limit (OOM kill). */
void usage_sample(struct stepd *s);
/* A process reaped by wait4: its CPU time counts for the job, and a
 * task's ru_maxrss raises that task's RSS peak. */
void usage_reaped(struct stepd *s, pid_t pid, const struct rusage *ru);
/* The totals the completion carries: CPU time, the largest task peaks
 * with their global ranks, the sums of the peaks; ntasks 0 when no task
 * was ever started. All zero before usage_init(). */
void usage_total(const struct stepd *s, struct acct_usage *ret);

/* sock.c */
int sock_open(struct stepd *s);      /* bind + listen; -ESLURMD_STEP_EXISTS if one answers */
void sock_handle(struct stepd *s);   /* accept and answer one request */
void sock_close(struct stepd *s);

/* complete.c */
/* REQUEST_COMPLETE_BATCH_SCRIPT (REQUEST_STEP_COMPLETE for a step),
 * retried with backoff until the controller answers; serves the socket
 * between tries. */
void complete_send(struct stepd *s);

/* main.c */
int64_t stepd_now_ms(void);          /* CLOCK_MONOTONIC */
/* Wait up to timeout_ms for socket requests, signals, children and timers. */
void stepd_poll(struct stepd *s, int timeout_ms);
/* TERMINATE / KILL_TIMELIMIT: the stderr line (a step's goes to srun),
 * SIGCONT + SIGTERM, SIGKILL later. */
void stepd_terminate(struct stepd *s, const char *why);
/* The tasks started: first sample in USAGE_FIRST_SAMPLE_MS, then every
 * acct_freq_s (none when it is 0: only the last one, at the end). */
void stepd_sampling_start(struct stepd *s);
/* ms until the next sample or kill timer (at most 10 s). */
int stepd_loop_timeout_ms(const struct stepd *s);
/* Take the last usage sample (what is still running counts), then sleep
 * in stepd_poll until no process of the job is left (bounded). */
void stepd_kill_leftovers(struct stepd *s);
/* This node as job_env sees it, for the script and a step alike (the
 * cluster_name is left NULL: only a step sets it). */
struct job_env_node stepd_env_node(const struct stepd *s);
