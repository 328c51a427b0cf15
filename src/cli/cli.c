/* cli.c - plumbing shared by the command-line tools.
 *
 * Purpose: the few behaviours every Slurm command has in common, written
 * once: the program name in messages, loading slurm.conf with a readable
 * error, "-V", slurm_perror()'s "<what>: <strerror>" line, scontrol-style
 * keyword abbreviation, the partition words of sinfo and scontrol.
 * Owns: only the program name (a static buffer, set once at start).
 * Caveat: cli_error() writes directly to stderr rather than through
 * log.c so that the exact text never depends on the log configuration.
 */
#include "cli/cli.h"

#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/sl_errno.h"

#ifndef SL_VERSION
#define SL_VERSION "22.05.8"
#endif

static char prog_name[64] = "slurm";

void cli_init(const char *argv0)
{
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0;
	if (base && *base)
		snprintf(prog_name, sizeof(prog_name), "%s", base);
	(void)log_init(prog_name, LOG_LEVEL_INFO, NULL, 0);
}

void cli_big_heap(void)
{
	const uintptr_t huge = 2u << 20;
	uintptr_t lo = (uintptr_t)sbrk(0), hi;
	void *grow;
	bool grew;

	mallopt(M_MMAP_THRESHOLD, CLI_HEAP_PAD);
	mallopt(M_TRIM_THRESHOLD, CLI_HEAP_PAD * 4);
	mallopt(M_TOP_PAD, CLI_HEAP_PAD);
	grow = malloc(huge); /* more than the heap has: it grows by this and the pad */
	grew = grow != NULL;
	free(grow);
	lo = (lo + huge - 1) & ~(huge - 1);
	hi = (uintptr_t)sbrk(0) & ~(huge - 1);
	/* a fault in there brings 2 MB at once (THP "madvise" mode; nothing
	 * happens where THP is off); under ASan the heap is elsewhere */
	if (grew && hi > lo && hi - lo <= 2 * (uintptr_t)CLI_HEAP_PAD)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

const char *cli_prog(void)
{
	return prog_name;
}

static int conf_load_as(struct sl_conf **ret, bool has_nodes)
{
	struct sl_error err = {.text = ""};
	const char *path = conf_default_path();
	int r;

	r = has_nodes ? conf_load(path, ret, &err) : conf_load_client(path, ret, &err);
	if (r < 0) {
		if (err.text[0])
			cli_error("%s", err.text);
		else
			cli_error("Unable to process configuration file %s: %s", path,
				  sl_strerror(r));
	}
	return r;
}

int cli_conf_load(struct sl_conf **ret)
{
	return conf_load_as(ret, false);
}

int cli_conf_load_nodes(struct sl_conf **ret)
{
	return conf_load_as(ret, true);
}

void cli_print_version(void)
{
	printf("slurm %s\n", SL_VERSION);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout); /* keep stdout and stderr in the order they were written */
	fprintf(stderr, "%s: error: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Each non-empty line of text as an error or an info line. */
static void print_lines(const char *text, bool is_error)
{
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");

		if (len && is_error)
			cli_error("%.*s", (int)len, p);
		else if (len)
			info("%.*s", (int)len, p);
		p += len + (p[len] == '\n');
	}
}

void cli_error_lines(const char *text)
{
	print_lines(text, true);
}

void cli_info_lines(const char *text)
{
	print_lines(text, false);
}

void cli_perror(const char *msg, int code)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s\n", msg, sl_strerror(code));
}

bool cli_keyword_match(const char *word, size_t len, const char *keyword, size_t min)
{
	size_t klen = strlen(keyword);

	if (!word || len == 0 || len > klen)
		return false;
	/* Slurm compares MAX(len, min) characters, so a word shorter than min
	 * only matches when it is the whole keyword. */
	if (len < min && len != klen)
		return false;
	return strncasecmp(word, keyword, len) == 0;
}

char *cli_oversubscribe_str(uint16_t v, char *buf, size_t n)
{
	if (v == 0)
		snprintf(buf, n, "NO");
	else if (v & CLI_OVERSUB_FORCE)
		snprintf(buf, n, "FORCE:%u", (unsigned)(v & ~CLI_OVERSUB_FORCE));
	else if (v & CLI_OVERSUB_EXCLUSIVE)
		snprintf(buf, n, "EXCLUSIVE");
	else
		snprintf(buf, n, "YES:%u", (unsigned)v);
	return buf;
}

char *cli_preempt_mode_str(uint16_t v, char *buf, size_t n)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} modes[] = {{0x0001, "SUSPEND"}, {0x0002, "REQUEUE"}, {0x0008, "CANCEL"}};
	const char *base = v & ~0x8000 ? "UNKNOWN" : NULL;

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if ((v & ~0x8000) == modes[i].bit)
			base = modes[i].name;
	if (!(v & 0x8000))
		snprintf(buf, n, "%s", base ? base : "OFF");
	else
		snprintf(buf, n, "%s%sGANG", base ? base : "", base ? "," : "");
	return buf;
}
