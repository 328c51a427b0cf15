/* fuzz_parsers.c - libFuzzer target: the small user-text parsers of the
 * controller and the commands: array ranges (--array, "0-15:4%2"), time
 * limits (-t), memory sizes (--mem). The first byte picks the parser. A
 * parse that succeeds must print back (ranges, time, memory) without
 * crashing; an array is parsed with Slurm's default MaxArraySize so a
 * range cannot ask for more than 1001 ids.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse_mem.h"
#include "common/parse_time.h"
#include "slurmctld/job_array.h"
#include "fuzz_str.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_array(const char *s, uint32_t max_size)
{
	uint32_t *ids = NULL, n = 0, throttle = 0;

	if (job_array_parse(s, max_size, &ids, &n, &throttle) == 0) {
		for (uint32_t i = 0; i < n; i++)
			if (ids[i] >= max_size || (i && ids[i] <= ids[i - 1]))
				abort(); /* sorted, unique, below the cap */
		free(job_array_ranges(ids, n));
		free(ids);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[64], *s;
	uint32_t secs, mins;
	uint64_t mb;

	if (size < 1 || size > 4096)
		return 0;
	s = fuzz_str(data + 1, size - 1);
	if (!s)
		return 0;
	switch (data[0] % 4) {
	case 0:
		fuzz_array(s, 1001);
		break;
	case 1:
		fuzz_array(s, 100001); /* a large MaxArraySize (ids are allocated up to it) */
		break;
	case 2:
		if (time_str2secs(s, &secs) == 0) {
			secs2time_str(secs, buf, sizeof(buf));
			secs2elapsed_str(secs, buf, sizeof(buf));
		}
		if (time_str2mins(s, &mins) == 0)
			mins2time_str(mins, buf, sizeof(buf));
		break;
	default:
		if (mem_str2mb(s, &mb) == 0)
			mem_mb2str(mb, buf, sizeof(buf));
	}
	free(s);
	return 0;
}
