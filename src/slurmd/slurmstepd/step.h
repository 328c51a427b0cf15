/* step.h - slurmstepd's step mode: the tasks of one job step on this node
 * (REQUEST_LAUNCH_TASKS from srun, through slurmd) and their I/O with
 * srun over one TCP connection (io_proto.h).
 *
 * step.c drives it (setup before "started" is reported, then the loop),
 * step_task.c opens the tasks' files and pipes and forks them, step_io.c
 * moves bytes: task pipes -> frames to srun, frames from srun -> task
 * stdin and signals, and sends each IO_TASK_EXIT once its streams ended.
 * Everything runs on the stepd's single poll loop (main.c stepd_poll):
 * no read or write on a pipe or on srun's socket blocks.
 */
#pragma once
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/macros.h"

struct pollfd;
struct stepd;

/* Bytes waiting to be written: data[off..len). */
struct iobuf {
	uint8_t *data;
	size_t off, len, cap;
};

struct step_task {
	uint32_t gtid, ltid;
	pid_t pid;                 /* its session and process group id too */
	int child_fd[3];           /* its stdin/stdout/stderr until forked, then -1 */
	int in_fd;                 /* our end of its stdin pipe; -1: file, closed */
	int out_fd, err_fd;        /* our ends of its stdout/stderr pipes; -1: file, EOF */
	bool has_out_eof, has_err_eof; /* the EOF frame went to srun */
	struct iobuf in;           /* stdin not yet taken by the task */
	bool is_in_eof;            /* close in_fd once in is drained */
	bool has_exited, is_reported;
	int status;                /* wait status */
	int64_t exit_ms;           /* when it was reaped (CLOCK_MONOTONIC ms) */
};

struct step {
	struct step_task *tasks;   /* ntasks_here of them, local id order */
	uint32_t ntasks;
	int io_fd;                 /* srun's I/O connection; -1 once closed */
	struct iobuf out;          /* frames for srun */
	uint8_t *rd;               /* partial frame from srun */
	size_t rd_len;
	bool is_srun_gone;         /* the connection failed before the end */
	struct pollfd *pfd;        /* poll set, 3 per task + 1 */
	size_t pfd_cap;
	int *shared_fds;           /* output files, shared by tasks with equal paths */
	size_t nshared;
};

/* step.c */
/* Everything before "started": privileges, socket, environment, srun
 * connection, files. 0 or the -ESLURM* code for slurmd. */
int step_setup(struct stepd *s);
/* Fork the tasks, run the loop until each was reported to srun, kill
 * what they left. The caller then reports the completion. */
void step_run(struct stepd *s);
void step_free(struct stepd *s);
/* "slurmstepd: error: <text>" to srun's stderr (IO_MESSAGE) and the log. */
void step_message(struct stepd *s, const char *fmt, ...) _printf_(2, 3);
/* The wait status to report: the highest exit code, a signal above exit 0. */
int step_status_max(int a, int b);

/* step_task.c */
int step_task_files(struct stepd *s);    /* pipes or files for every task */
int step_task_start(struct stepd *s);    /* fork them all; -ESLURMD_EXECVE_FAILED */
/* A reaped child: note the task's end. false when pid is no task. */
bool step_task_reaped(struct stepd *s, pid_t pid, int status);

/* step_io.c */
int step_io_connect(struct stepd *s);    /* TCP to io_host:io_port, IO_INIT */
void step_io_frame(struct stepd *s, uint16_t type, uint32_t gtid, uint32_t ltid,
		   const void *payload, size_t len);
size_t step_io_poll_fill(struct stepd *s, struct pollfd *p);
void step_io_poll_handle(struct stepd *s, const struct pollfd *p, size_t n);
/* Send IO_TASK_EXIT for each ended task whose streams ended (or that has
 * waited a second for them). Returns ms until the next forced report,
 * or -1 when none is pending. */
int step_io_report_exits(struct stepd *s);
/* Every task reported and every frame written (or srun gone). */
bool step_io_is_done(const struct stepd *s);
/* srun is gone: close everything it fed, kill the tasks. */
void step_io_srun_gone(struct stepd *s, const char *why);
void step_io_close(struct stepd *s);
/* Write what srun's connection takes now (the rest goes from the loop). */
void step_io_flush(struct stepd *s);
