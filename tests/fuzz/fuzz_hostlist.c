/* fuzz_hostlist.c - libFuzzer target: expand and compress any expression. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "fuzz_str.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hostlist *hl = NULL;
	char *s = size > 4096 ? NULL : fuzz_str(data, size);

	if (!s)
		return 0;
	if (hostlist_new(s, &hl) == 0) {
		free(hostlist_ranged_string(hl));
		hostlist_free(hl);
	}
	free(s);
	return 0;
}
