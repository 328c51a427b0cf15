/* tres.c - see tres.h. */
#include "tres.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_mem.h"

char *tres_string(const struct tres *t)
{
	char buf[256], mem[32];
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
	if (t->gpus && t->gpu_type && n < sizeof(buf))
		TRES_ADD(",gres/gpu:%.*s=%" PRIu64, TRES_TYPE_MAX - 1, t->gpu_type, t->gpus);
#undef TRES_ADD
	return strdup(buf);
}

const char *tres_gpu_type(const char *gres, char *buf, size_t len)
{
	const char *p = gres;
	bool is_found = false;

	if (!gres || len == 0)
		return NULL;
	while (*p) {
		size_t elen = strcspn(p, ",");

		if (elen > 4 && !strncmp(p, "gpu:", 4)) {
			const char *t = p + 4;
			size_t tlen = strcspn(t, ":,");

			if (tlen == 0 || tlen > elen - 4
			    || (t[tlen] != ':' && isdigit((unsigned char)*t)))
				return NULL; /* "gpu:4", "gpu:2K": untyped */
			if (tlen >= len
			    || (is_found && (strlen(buf) != tlen || strncmp(buf, t, tlen))))
				return NULL;
			memcpy(buf, t, tlen);
			buf[tlen] = '\0';
			is_found = true;
		} else if (elen == 3 && !strncmp(p, "gpu", 3)) {
			return NULL;
		}
		p += elen;
		if (*p == ',')
			p++;
	}
	return is_found ? buf : NULL;
}
