/* fuzz_rest_job.c - libFuzzer target: slurmrestd's request bodies
 * (job_parse.c): a job submission and a job update, as the daemon gets
 * them (at most 1 MiB). Refusals are text for the client; nothing may
 * crash, leak or take quadratic time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "slurmrestd/job_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct update_job_msg m;
	struct job_desc d;
	char err[512];

	if (size > (1u << 20))
		return 0;
	(void)job_parse_submit((const char *)data, size, &d, err, sizeof(err));
	job_desc_done(&d);
	(void)job_parse_update((const char *)data, size, "12", &m, err, sizeof(err));
	msg_lookup(REQUEST_UPDATE_JOB)->free(&m);
	return 0;
}
