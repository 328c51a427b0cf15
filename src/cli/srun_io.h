/* srun_io.h - srun's wait for its step: the task I/O streams of every
 * node's slurmstepd (io_proto.h), srun's stdin, the controller's notices
 * and the signals a user sends srun (Ctrl-C status and forwarding, -K,
 * -W), in one poll loop, until every task has ended.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct sl_conf;
struct alloc_listener;
struct step_create_resp;
struct srun_layout;

#define SRUN_IN_NONE -2 /* srun does not read its stdin (-i file or none) */
#define SRUN_ALL_TASKS -1

struct srun_io_cfg {
	const struct sl_conf *conf;
	struct alloc_listener *notice; /* SRUN_* notices */
	int listen_fd;		       /* the I/O listener */
	const char *key;	       /* io_key the stepds present */
	const struct step_create_resp *resp;
	const struct srun_layout *lay;
	const bool *launched;	       /* per node: REQUEST_LAUNCH_TASKS succeeded */
	bool label, unbuffered, kill_bad_exit, disable_status, quit_on_interrupt;
	bool pty;		       /* --pty: task 0's terminal size follows ours */
	void (*tty_restore)(void);     /* --pty: our terminal back, when task 0 ends */
	int max_wait;		       /* -W seconds, 0 */
	int out_task, err_task;	       /* SRUN_ALL_TASKS or the one task printed */
	int in_task;		       /* SRUN_IN_NONE, SRUN_ALL_TASKS or the one task fed */
};

/* Run the step's I/O to its end; returns srun's exit code (the highest
 * task exit code, 128 + signal for a signalled task, 1 for a task whose
 * end was never reported) and the wait status it came from in
 * *ret_status (for REQUEST_COMPLETE_JOB_ALLOCATION). */
int srun_io_run(const struct srun_io_cfg *cfg, uint32_t *ret_status);
