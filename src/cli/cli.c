/* cli.c - plumbing shared by the command-line tools.
 *
 * Purpose: the few behaviours every Slurm command has in common, written
 * once: the program name in messages, loading slurm.conf with a readable
 * error, "-V", slurm_perror()'s "<what>: <strerror>" line, scontrol-style
 * keyword abbreviation, and one blocking request to the controller.
 * Owns: only the program name (a static buffer, set once at start).
 * Caveat: cli_error() writes directly to stderr rather than through
 * log.c so that the exact text never depends on the log configuration.
 */
#include "cli/cli.h"

#include <errno.h>
#include <grp.h>
#include <malloc.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/rpc_client.h"
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

int cli_conf_load(struct sl_conf **ret)
{
	struct sl_error err = {.text = ""};
	const char *path = conf_default_path();
	int r;

	r = conf_load(path, ret, &err);
	if (r < 0) {
		if (err.text[0])
			cli_error("%s", err.text);
		else
			cli_error("Unable to process configuration file %s: %s", path,
				  sl_strerror(r));
	}
	return r;
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

void cli_error_lines(const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");

		if (len)
			cli_error("%.*s", (int)len, p);
		p += len + (p[len] == '\n');
	}
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

/* The last names looked up, by id (a listing of 5,000 jobs of a few
 * users asked the password database 5,000 times: half of squeue's time).
 * Per thread: slurmrestd's workers share this code. An error of the
 * database is not kept; an unknown id is. */
#define ID_CACHE 16
struct id_name {
	uint32_t id;
	bool used, found;
	char name[64];
};
static __thread struct id_name uid_cache[ID_CACHE], gid_cache[ID_CACHE];

static bool cached_name(struct id_name *cache, bool is_group, uint32_t id, char *buf, size_t n)
{
	struct id_name *e = &cache[id % ID_CACHE];
	struct passwd pw, *pres = NULL;
	struct group gr, *gres = NULL;
	const char *name = NULL;
	char tmp[1024];

	if (!(e->used && e->id == id)) {
		if (is_group ? getgrgid_r((gid_t)id, &gr, tmp, sizeof(tmp), &gres) != 0
			     : getpwuid_r((uid_t)id, &pw, tmp, sizeof(tmp), &pres) != 0)
			return false;
		name = is_group ? (gres ? gres->gr_name : NULL) : (pres ? pres->pw_name : NULL);
		if (name && strlen(name) >= sizeof(e->name)) { /* too long to keep */
			snprintf(buf, n, "%s", name);
			return true;
		}
		*e = (struct id_name){ .id = id, .used = true, .found = name != NULL };
		if (name)
			snprintf(e->name, sizeof(e->name), "%s", name);
	}
	if (e->found)
		snprintf(buf, n, "%s", e->name);
	return e->found;
}

bool cli_uid_name(uint32_t uid, char *buf, size_t n)
{
	return cached_name(uid_cache, false, uid, buf, n);
}

bool cli_gid_name(uint32_t gid, char *buf, size_t n)
{
	return cached_name(gid_cache, true, gid, buf, n);
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

int cli_ctld_fetch(const struct sl_conf *conf, uint16_t req_type, const void *req,
		   uint16_t resp_type, void **ret_msg)
{
	return cli_ctld_fetch_as(conf, NULL, req_type, req, resp_type, ret_msg);
}

int cli_ctld_fetch_as(const struct sl_conf *conf, const struct frame_as *as, uint16_t req_type,
		      const void *req, uint16_t resp_type, void **ret_msg)
{
	uint16_t type = 0;
	void *m = NULL;
	int r;

	r = rpc_call_ctld_as(conf, as, req_type, req, &type, &m);
	if (r < 0)
		return r;
	if (type == resp_type) {
		*ret_msg = m;
		return 0;
	}
	if (type == RESPONSE_SLURM_RC) {
		const struct rc_msg *rc = m;

		r = rc->rc ? -(int)rc->rc : -SLURM_UNEXPECTED_MSG_ERROR;
	} else {
		r = -SLURM_UNEXPECTED_MSG_ERROR;
	}
	msg_free(msg_lookup(type), m);
	return r;
}

bool cli_uid_of(const char *name, uint32_t *ret)
{
	struct passwd pw, *res = NULL;
	char buf[1024], *end;
	unsigned long n;

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 && res) {
		*ret = res->pw_uid;
		return true;
	}
	n = strtoul(name, &end, 10);
	if (!*name || *end || getpwuid_r((uid_t)n, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return false;
	*ret = (uint32_t)n;
	return true;
}

bool cli_gid_of(const char *name, uint32_t *ret)
{
	struct group gr, *res = NULL;
	char buf[4096], *end;
	unsigned long n;

	if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) == 0 && res) {
		*ret = res->gr_gid;
		return true;
	}
	n = strtoul(name, &end, 10);
	if (!*name || *end || getgrgid_r((gid_t)n, &gr, buf, sizeof(buf), &res) != 0 || !res)
		return false;
	*ret = (uint32_t)n;
	return true;
}
