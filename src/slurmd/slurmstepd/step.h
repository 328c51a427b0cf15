/* step.h - the tasks this slurmstepd runs (one for a batch script): the
 * task table (step.c) with each task's fds and state, and the state of a
 * step's I/O with srun (io_proto.h) that step_io.c moves through the
 * stepd's loop: task pipes -> frames to srun, frames from srun -> task
 * stdin and signals. A batch script's task has files, not pipes, and no
 * srun; task_stdio.c opens a step's pipes and files.
 */
#pragma once
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/macros.h"
#include "iobuf.h"

struct io_hdr;
struct stepd;

struct step_task {
	uint32_t gtid, ltid;
	pid_t pid;		       /* its session and process group id too; -1 before fork */
	int child_fd[3];	       /* its stdin/stdout/stderr until forked, then -1 */
	int in_fd;		       /* our end of its stdin pipe; -1: file, closed */
	int out_fd, err_fd;	       /* our ends of its stdout/stderr pipes; -1: file, EOF */
	bool has_out_eof, has_err_eof; /* the EOF frame went to srun */
	struct iobuf in;	       /* stdin not yet taken by the task */
	bool is_in_eof;		       /* close in_fd once in is drained */
	bool has_exited, is_reported;
	bool is_pty;	 /* --pty task 0: in_fd and out_fd are its terminal's master */
	int status;	 /* wait status */
	int64_t exit_ms; /* when it was reaped (CLOCK_MONOTONIC ms) */
};

/* One loop entry of step_io.c: srun's socket or one stream of a task. */
struct step_io_src {
	struct stepd *s;
	struct step_task *t; /* NULL: srun's socket */
	int which;	     /* 0 stdin, 1 stdout, 2 stderr */
	int id;		     /* the loop entry */
};

struct step {
	struct step_task *tasks; /* ntasks of them, local id order */
	uint32_t ntasks;
	int io_fd;	  /* srun's I/O connection; -1 once closed (or none) */
	struct iobuf out; /* frames for srun */
	uint8_t *rd;	  /* partial frame from srun */
	size_t rd_len;
	bool is_srun_gone;	  /* the connection failed before the end */
	struct step_io_src *srcs; /* 1 + 3 per task, once registered */
	int *shared_fds;	  /* output files, shared by tasks with equal paths */
	size_t nshared;
	/* --mpi=pmi2: IO_PMI_KVS frames go here (pmi.c sets it; a pointer,
	 * since pmi.c sends through step_io.c) */
	void (*on_pmi_frame)(struct stepd *s, const struct io_hdr *h, const uint8_t *p);
};

/* step.c */
/* The task table: ntasks tasks with these global ids, nothing open. 0 or
 * -ENOMEM. step_free() closes what is still open; NULL-safe. */
int step_new(struct stepd *s, uint32_t ntasks, const uint32_t *gtids);
void step_free(struct stepd *s);
/* Close the tasks' child fds (the children have their copies). */
void step_close_child_fds(struct step *st);
/* A reaped child: note the task's end (and the step's, once every task
 * ended). false when pid is no task. */
bool step_reaped(struct stepd *s, pid_t pid, int status);
/* The wait status to report: the highest exit code, a signal above exit 0. */
int step_status_max(int a, int b);
