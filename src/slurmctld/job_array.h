/* job_array.h - job arrays as Slurm keeps them: one pending "meta" record
 * holding the task ids not started yet; when the scheduler starts a task
 * it is split off into its own record with a new job id (the last task
 * keeps the meta record's id). A %N throttle caps the running tasks.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctld;
struct job;

/* "0-15:4", "1,3,5-7", "1-100%5" -> sorted unique ids and the throttle
 * (0 = none). -ESLURM_INVALID_ARRAY when malformed or an id is not below
 * max_size (MaxArraySize). */
int job_array_parse(const char *spec, uint32_t max_size, uint32_t **ret_ids, uint32_t *ret_n,
		    uint32_t *ret_throttle);
/* Compressed ranges of ids: "3-20", "1,3,5-7", "0-12:4"; malloc'd. */
char *job_array_ranges(const uint32_t *ids, uint32_t n);

bool job_is_array_meta(const struct job *job);  /* pending tasks left */
/* Tasks of meta's array that run now (for the throttle). */
uint32_t job_array_running(const struct ctld *c, const struct job *meta);
/* Split the first pending task off meta: a new record (new id) for it, or
 * meta itself when it is the last one. Returns the task's record, NULL on
 * ENOMEM. The new record is in the table. */
struct job *job_array_split(struct ctld *c, struct job *meta);
/* The record of task `task` of array `array_id` (running or finished), or
 * the meta record when that task is still pending; NULL when unknown. */
struct job *job_array_find_task(struct ctld *c, uint32_t array_id, uint32_t task,
				bool *ret_is_pending);
/* Drop a pending task from its meta record. */
void job_array_drop_pending(struct job *meta, uint32_t task);
