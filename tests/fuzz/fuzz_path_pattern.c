/* fuzz_path_pattern.c - libFuzzer target: expand any -o/-e/-i pattern
 * (widths, unknown letters, backslashes) for a batch job, an array task
 * and a step task. Must never crash, leak or grow without bound: the
 * result is at most a few times the pattern (a width is capped at 10).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/path_pattern.h"
#include "fuzz_str.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const work_dirs[] = {"/home/u/job", NULL, ""};
	struct path_pattern_job j = {
	    .job_id = 11224,
	    .array_job_id = 11220,
	    .step_id = PATH_PATTERN_STEP_BATCH,
	    .job_name = "fuzz %j job",
	    .node_name = "n1",
	    .user_name = "u",
	};
	char *pattern, *out;

	if (size < 1 || size > 8192)
		return 0;
	pattern = fuzz_str(data + 1, size - 1);
	if (!pattern)
		return 0;
	j.array_task_id = data[0] & 1 ? 7 : NO_VAL;
	j.step_id = data[0] & 2 ? 3 : PATH_PATTERN_STEP_BATCH;
	j.task_id = data[0] & 4 ? 4294967295u : 0;
	j.work_dir = work_dirs[(data[0] >> 3) % 3];
	if (path_pattern_expand(pattern, &j, &out) == 0) {
		/* each "%N" (2 bytes) gives at most 14 bytes ("%10j" 10 digits) */
		if (strlen(out) > 16 * size + 64)
			abort();
		free(out);
	}
	free(pattern);
	return 0;
}
