/* srun_fmt.c - texts srun computes; see srun_fmt.h. */
#include "cli/srun_fmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Append to a growing string; -1 on ENOMEM (s freed then). */
static int append(char **s, size_t *len, const char *tmp)
{
	size_t k = strlen(tmp);
	char *p = realloc(*s, *len + k + 1);

	if (!p) {
		free(*s);
		*s = NULL;
		return -1;
	}
	memcpy(p + *len, tmp, k + 1);
	*s = p;
	*len += k;
	return 0;
}

char *srun_counts_str(const uint32_t *v, size_t n)
{
	char *s = calloc(1, 1);
	size_t len = 0;

	for (size_t i = 0; s && i < n;) {
		size_t j = i;
		char tmp[48];

		while (j + 1 < n && v[j + 1] == v[i])
			j++;
		if (j > i)
			snprintf(tmp, sizeof(tmp), "%s%u(x%zu)", len ? "," : "", v[i], j - i + 1);
		else
			snprintf(tmp, sizeof(tmp), "%s%u", len ? "," : "", v[i]);
		append(&s, &len, tmp);
		i = j + 1;
	}
	return s;
}

char *srun_ranges_str(const uint32_t *ids, size_t n)
{
	char *s = calloc(1, 1);
	size_t len = 0;

	for (size_t i = 0; s && i < n;) {
		size_t j = i;
		char tmp[48];

		while (j + 1 < n && ids[j + 1] == ids[j] + 1)
			j++;
		if (j > i)
			snprintf(tmp, sizeof(tmp), "%s%u-%u", len ? "," : "", ids[i], ids[j]);
		else
			snprintf(tmp, sizeof(tmp), "%s%u", len ? "," : "", ids[i]);
		append(&s, &len, tmp);
		i = j + 1;
	}
	return s;
}

int srun_label_width(uint32_t ntasks)
{
	int w = 1;

	for (uint32_t v = ntasks > 0 ? ntasks - 1 : 0; v >= 10; v /= 10)
		w++;
	return w;
}

const char *srun_status_text(int status, char *buf, size_t n)
{
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status) == 0)
			return NULL;
		snprintf(buf, n, "Exited with exit code %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		const char *t = strsignal(WTERMSIG(status));

		snprintf(buf, n, "%s%s", t ? t : "Unknown signal",
			 WCOREDUMP(status) ? " (core dumped)" : "");
	} else {
		snprintf(buf, n, "Unknown status %d", status);
	}
	return buf;
}

int srun_status_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
