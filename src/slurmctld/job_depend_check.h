/* job_depend_check.h - job dependencies checked against the job table
 * (job_depend.c does the parsing and the rules; this file answers its
 * questions from the table).
 */
#pragma once
#include <time.h>

#include "common/job_states.h"

struct ctld;
struct job;

/* At submit: parse and check desc->dependency. -ESLURM_DEPENDENCY with a
 * text for the user in *ret_msg (malloc'd) when it is wrong. */
int job_depend_check_submit(struct ctld *c, struct job *job, char **ret_msg);
/* On each pass: WAIT_NO_REASON (may run), WAIT_DEPENDENCY or
 * WAIT_DEP_INVALID (DependencyNeverSatisfied). */
enum job_state_reason job_depend_check_now(struct ctld *c, struct job *job, time_t now);
/* What scontrol shows as Dependency=: unsatisfied parts, NULL = (null). */
char *job_depend_check_text(const struct job *job);
