/* tres.c - see tres.h. */
#include "tres.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_mem.h"

char *tres_string(const struct tres *t)
{
	char buf[160], mem[32];
	size_t n = 0;

	buf[0] = '\0';
#define TRES_ADD(...) n += (size_t)snprintf(buf + n, sizeof(buf) - n, __VA_ARGS__)
	if (t->cpus)
		TRES_ADD("%scpu=%" PRIu32, n ? "," : "", t->cpus);
	if (t->mem_mb) {
		mem_mb2str(t->mem_mb, mem, sizeof(mem));
		TRES_ADD("%smem=%s", n ? "," : "", mem);
	}
	if (t->nodes)
		TRES_ADD("%snode=%" PRIu32, n ? "," : "", t->nodes);
	if (t->billing)
		TRES_ADD("%sbilling=%" PRIu32, n ? "," : "", t->billing);
	if (t->gpus)
		TRES_ADD("%sgres/gpu=%" PRIu64, n ? "," : "", t->gpus);
#undef TRES_ADD
	return strdup(buf);
}
