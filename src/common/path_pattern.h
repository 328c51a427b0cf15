/* path_pattern.h - expand sbatch's --output/--error/--input file name
 * patterns (%j, %A, %a, ...) as Slurm 22.05 does for a batch job.
 *
 * Letters: %% '%'; %A array job id (the job id when not an array); %a array
 * task id (4294967294, Slurm's NO_VAL, when not an array); %b array task id
 * modulo 10; %j job id; %J job id, plus ".<step>" for a numbered step; %s
 * step id ("batch" for the batch script); %N node name; %n node index; %t
 * task rank; %u user name; %x job name. A decimal width after '%' zero-pads
 * the numeric letters ("%4j" -> 0128), capped at 10, and is ignored by the
 * text letters. Any other "%X" (with its width) is kept verbatim. A pattern
 * that contains a backslash is not expanded at all: its backslashes are
 * dropped ("\\" keeps one). A relative result is prefixed with work_dir.
 *
 * Used by slurmstepd to open the files and by the controller to show
 * StdOut=/StdErr= in scontrol show job; neither needs the other's structs.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#define PATH_PATTERN_STEP_BATCH 0xfffffffbu /* Slurm's SLURM_BATCH_SCRIPT step id */

struct path_pattern_job {
	uint32_t job_id;
	uint32_t array_job_id;   /* ignored when array_task_id is NO_VAL */
	uint32_t array_task_id;  /* NO_VAL: not an array task */
	uint32_t step_id;        /* PATH_PATTERN_STEP_BATCH for the batch script */
	uint32_t node_id;        /* %n: 0 for the batch script */
	uint32_t task_id;        /* %t: 0 for the batch script */
	const char *job_name;    /* %x; NULL prints "(null)" as Slurm */
	const char *node_name;   /* %N: slurmstepd uses the short host name */
	const char *user_name;   /* %u */
	const char *work_dir;    /* prefix of relative results; NULL: none */
};

/* Expand pattern (NULL or "" gives NULL with -EINVAL). Returns 0 and a
 * malloc'd *ret, or -EINVAL / -ENOMEM with *ret untouched. */
int path_pattern_expand(const char *pattern, const struct path_pattern_job *j, char **ret);

/* Slurm's default stdout pattern of a batch job: "slurm-%A_%a.out" for an
 * array task, else "slurm-%j.out". stderr defaults to stdout's. */
const char *path_pattern_default_stdout(bool is_array);
