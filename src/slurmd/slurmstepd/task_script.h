/* task_script.h - the user's scripts around each task: TaskProlog
 * (slurm.conf) then srun --task-prolog run in the task's own process, as
 * the user, with the task's environment, just before it execs; their
 * output says what to change: "export NAME=value" and "unset NAME" edit
 * the task's environment, "print TEXT" writes TEXT to the task's stdout
 * (other lines are ignored). A prolog that fails ends the task with its
 * exit code, as Slurm's. TaskEpilog then srun --task-epilog run once per
 * task, as the user, after every task of the step ended, each killed
 * past TASK_EPILOG_TIMEOUT_S; their result is only logged.
 * A batch script whose job asked for the user's login environment
 * (SLURM_GET_USER_ENV=1: --get-user-env, or --export other than ALL)
 * gets it the same way, before the prologs: the variables the job does
 * not set come from the user's login shell.
 */
#pragma once
#include <stdbool.h>

struct stepd;

#define TASK_EPILOG_TIMEOUT_S  60
#define USER_ENV_TIMEOUT_S     8 /* the login shell that prints the user's environment */
#define TASK_PROLOG_OUTPUT_MAX (1024 * 1024) /* bytes of a prolog's output acted on */

/* Does a task need its prolog run (then the task is forked, not
 * vforked: the prolog's output is parsed in the task's process)? */
bool task_script_has_prolog(const struct stepd *s);
/* In the task's process, as the user, before exec: each prolog, its
 * output acted on. 0, or the exit code the task ends with (its stderr
 * says why). */
int task_script_prolog(struct stepd *s);
/* In the stepd, after the tasks ended: each epilog once per task. */
void task_script_epilog(struct stepd *s);
