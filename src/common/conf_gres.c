/* conf_gres.c - gres.conf lines into struct gres_conf.
 *
 * Purpose: one entry per gres.conf line that names a GRES: Name=, Type=,
 * File= (a host-list style expression such as /dev/nvidia[0-3]), Count=
 * (a number with an optional K/M/G/T/P suffix, powers of 1024) and
 * NodeName= (a host list; none means every node). Count defaults to the
 * number of files, or 1 without File=.
 * Cores= (and its old name CPUs=): the node's core indexes nearest the
 * line's devices (--gpu-bind=closest), a list of numbers and ranges.
 * Accepted and ignored: Links=, Flags=, AutoDetect= (a line holding only
 * AutoDetect/NodeName is skipped).
 * Caveats: Name is not checked against GresTypes and Count is not checked
 * against the number of files (MPS-style shares differ legitimately).
 */
#include "conf_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gres_detect.h"
#include "hostlist.h"
#include "log.h"
#include "macros.h"

DEFINE_FREEP(struct hostlist, hostlist_free)

struct gres_line {
	struct gres_conf g;
	bool has_count;
	bool has_autodetect;
};

static int gres_count_set(void *base, const struct conf_key *k, const char *val,
			  const struct conf_where *at, struct sl_error *err);
static int gres_autodetect_set(void *base, const struct conf_key *k, const char *val,
			       const struct conf_where *at, struct sl_error *err);

#define GK(n, t, f) CONF_KEY(n, t, gres_line, f, 0, 0, NULL)

/* clang-format off */
static const struct conf_key gres_keys[] = {
	CONF_KEY_FN("AutoDetect", gres_autodetect_set),
	GK("Cores", CONF_STR, g.cores),
	CONF_KEY_FN("Count", gres_count_set),
	GK("CPUs", CONF_STR, g.cores), /* old name of Cores */
	GK("File", CONF_STR, g.file),
	CONF_KEY_RAW("Flags"),
	CONF_KEY_RAW("Links"),
	GK("Name", CONF_STR, g.name),
	GK("NodeName", CONF_STR, g.node_name),
	GK("Type", CONF_STR, g.type),
};
/* clang-format on */

/* "4", "100", "2K" ... "1P": powers of 1024. */
static int parse_count(const char *val, uint64_t *ret)
{
	static const char units[] = "KMGTP";
	unsigned long long v;
	const char *u;
	char *end;

	if (!isdigit((unsigned char)val[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end) {
		u = strchr(units, toupper((unsigned char)*end));
		if (!u || end[1])
			return -EINVAL;
		for (const char *p = units; p <= u; p++) {
			if (v > UINT64_MAX / 1024)
				return -EINVAL;
			v *= 1024;
		}
	}
	*ret = v;
	return 0;
}

static int gres_count_set(void *base, const struct conf_key *k, const char *val,
			  const struct conf_where *at, struct sl_error *err)
{
	struct gres_line *l = base;

	if (parse_count(val, &l->g.count) < 0)
		return errprintf(err, -EINVAL, "%s:%u: %s=%s: not a count", at->file, at->line,
				 k->name, val);
	l->has_count = true;
	return 0;
}

static int gres_autodetect_set(void *base, const struct conf_key *k, const char *val,
			       const struct conf_where *at, struct sl_error *err)
{
	struct gres_line *l = base;

	(void)err;
	debug("%s:%u: %s=%s accepted, not acted on", at->file, at->line, k->name, val);
	l->has_autodetect = true;
	return 0;
}

static void gres_conf_done(struct gres_conf *g)
{
	free(g->node_name);
	free(g->name);
	free(g->type);
	free(g->file);
	free(g->cores);
	*g = (struct gres_conf){0};
}

static void gres_line_done(struct gres_line *l)
{
	gres_conf_done(&l->g);
}

/* Check the host lists; count the files. */
static int gres_check(struct gres_line *l, const struct conf_where *at, struct sl_error *err)
{
	_cleanup_(hostlist_freep) struct hostlist *hl = NULL;

	if (l->g.node_name && hostlist_new(l->g.node_name, &hl) < 0)
		return errprintf(err, -EINVAL, "%s:%u: NodeName=%s: bad host list", at->file,
				 at->line, l->g.node_name);
	hl = hostlist_free(hl);
	if (l->g.cores && gres_cores_mask(l->g.cores, NULL) < 0)
		return errprintf(err, -EINVAL,
				 "%s:%u: Cores=%s: expected core indexes such as 0-3,8 (below %d)",
				 at->file, at->line, l->g.cores, GRES_CORES_MAX);
	if (l->g.file) {
		if (hostlist_new(l->g.file, &hl) < 0 || hostlist_count(hl) == 0)
			return errprintf(err, -EINVAL, "%s:%u: File=%s: bad file list", at->file,
					 at->line, l->g.file);
		if (!l->has_count)
			l->g.count = hostlist_count(hl);
	} else if (!l->has_count) {
		l->g.count = 1;
	}
	return 0;
}

static int gres_line(void *arg, const struct conf_where *at, struct conf_tok *t, size_t n,
		     struct sl_error *err)
{
	_cleanup_(gres_line_done) struct gres_line l = {0};
	struct sl_conf *c = arg;
	struct gres_conf *g;
	int r;

	for (size_t i = 0; i < n; i++) {
		const struct conf_key *k =
		    conf_key_find(gres_keys, ARRAY_SIZE(gres_keys), t[i].key);

		if (!k)
			return errprintf(err, -EINVAL, "%s:%u: unknown gres.conf key '%s'",
					 at->file, at->line, t[i].key);
		if (k->type == CONF_RAW)
			debug("%s:%u: %s=%s accepted, not acted on", at->file, at->line, k->name,
			      t[i].val);
		r = conf_value_set(&l, k, t[i].val, at, err);
		if (r < 0)
			return r;
	}
	if (!l.g.name) {
		if (l.has_autodetect && !l.g.file && !l.g.type && !l.has_count)
			return 0;
		return errprintf(err, -EINVAL, "%s:%u: Name= is required", at->file, at->line);
	}
	r = gres_check(&l, at, err);
	if (r < 0)
		return r;
	g = realloc(c->gres, (c->gres_count + 1) * sizeof(*g));
	if (!g)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	c->gres = g;
	g[c->gres_count++] = l.g;
	l.g = (struct gres_conf){0};
	return 0;
}

int conf_gres_load(const char *path, struct sl_conf *c, struct sl_error *err)
{
	uint32_t start = c->gres_count;
	int r;

	r = conf_read_file(path, gres_line, c, err);
	if (r >= 0)
		return 0;
	while (c->gres_count > start) /* all of this file or none of it */
		gres_conf_done(&c->gres[--c->gres_count]);
	return r;
}
