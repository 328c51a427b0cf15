/* scontrol_step.h - "scontrol show step[s] [JOB[_TASK][.STEP]]", as Slurm
 * 22.05's scontrol_print_step() and slurm_sprint_job_step_info().
 *
 * Pure: the id parser, the record renderer and the list printer take
 * wire records and write text; the request is the caller's.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct scontrol_show_opts;
struct step_info;
struct step_info_msg;

/* A "show step" argument as scontrol reads it (strtol, so junk after the
 * numbers is ignored): job, "_task" (NO_VAL: none), ".step" ("batch" ->
 * SL_BATCH_STEP; NO_VAL: every step). NULL s: everything NO_VAL. */
struct scontrol_step_id {
	uint32_t job_id, array_id, step_id;
};
void scontrol_step_id_parse(const char *s, struct scontrol_step_id *ret);

/* One "StepId=..." record: seven lines indented by three spaces and a
 * blank line, or one line with one_liner. */
void scontrol_show_step(FILE *out, const struct step_info *s, const struct scontrol_show_opts *o);

/* The records of "show step [id]" that match id (NULL: all). With an id
 * and no match: "Job step 12.5 not found" (or "12_3.5") on out unless
 * quiet is 1, and -ENOENT. Without an id and no record: "No job steps in
 * the system" (unless quiet 1), 0. */
int scontrol_step_print(FILE *out, const struct step_info_msg *m, const char *id,
			const struct scontrol_show_opts *o, int quiet);
