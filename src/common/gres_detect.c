/* gres_detect.c - node GRES string from gres.conf; see gres_detect.h.
 *
 * Input: the gres.conf entries (already parsed by conf_gres.c) and one node
 * name. Action: keep the entries whose host list names the node, expand
 * File= with the host-list syntax ("/dev/nvidia[0-3]"), stat() each path,
 * and add the counts per (Name, Type), case-insensitively as Slurm's GRES
 * plugins compare them. Caveat: no AutoDetect (NVML/RSMI); a device is
 * "there" when stat() succeeds, whatever it is.
 */
#include "gres_detect.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "conf.h"
#include "errprintf.h"
#include "hostlist.h"
#include "macros.h"

struct gres_sum {
	const char *name; /* borrowed from the first entry that named it */
	const char *type; /* NULL when untyped */
	uint64_t count;
};

static void hostlist_freep(struct hostlist **hl)
{
	hostlist_free(*hl);
}

static bool str_eq_nullable(const char *a, const char *b)
{
	if (!a || !*a || !b || !*b)
		return (!a || !*a) && (!b || !*b);
	return strcaseeq(a, b);
}

/* Sharing GRES: File= names the GPUs they sit on, Count= is independent. */
static bool gres_is_shared(const char *name)
{
	return strcaseeq(name, "mps") || strcaseeq(name, "shard");
}

static int entry_applies(const struct gres_conf *g, const char *node_name, bool *ret,
			 struct sl_error *err)
{
	_cleanup_(hostlist_freep) struct hostlist *hl = NULL;
	int r;

	if (!g->node_name) {
		*ret = true;
		return 0;
	}
	r = hostlist_new(g->node_name, &hl);
	if (r < 0)
		return errprintf(err, r == -ENOMEM ? r : -EINVAL,
				 "gres.conf: Name=%s: bad NodeName=%s", g->name, g->node_name);
	*ret = hostlist_find(hl, node_name) >= 0;
	return 0;
}

static int missing_add(struct gres_detect *d, const char *path)
{
	char **m = realloc(d->missing, (d->missing_count + 2) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	d->missing = m;
	m[d->missing_count] = strdup(path);
	if (!m[d->missing_count])
		return -ENOMEM;
	m[++d->missing_count] = NULL;
	return 0;
}

/* Count of g on this node; records the File= paths that are absent. */
static int entry_count(const struct gres_conf *g, struct gres_detect *d, uint64_t *ret,
		       struct sl_error *err)
{
	_cleanup_(hostlist_freep) struct hostlist *hl = NULL;
	uint64_t present = 0;
	size_t nfiles;
	struct stat st;
	int r;

	if (!g->file || !*g->file) {
		*ret = g->count;
		return 0;
	}
	r = hostlist_new(g->file, &hl);
	if (r < 0)
		return errprintf(err, r == -ENOMEM ? r : -EINVAL, "gres.conf: Name=%s: bad File=%s",
				 g->name, g->file);
	nfiles = hostlist_count(hl);
	if (!gres_is_shared(g->name) && g->count != nfiles)
		return errprintf(err, -EINVAL,
				 "gres.conf: Name=%s File=%s: Count=%" PRIu64
				 " does not match the %zu files",
				 g->name, g->file, g->count, nfiles);
	for (size_t i = 0; i < nfiles; i++) {
		const char *path = hostlist_nth(hl, i);

		if (stat(path, &st) == 0)
			present++;
		else if ((r = missing_add(d, path)) < 0)
			return r;
	}
	*ret = gres_is_shared(g->name) ? g->count : present;
	return 0;
}

static void sum_add(struct gres_sum *sums, size_t *n, const struct gres_conf *g, uint64_t count)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcaseeq(sums[i].name, g->name) && str_eq_nullable(sums[i].type, g->type)) {
			sums[i].count += count;
			return;
		}
	}
	sums[(*n)++] = (struct gres_sum){
	    .name = g->name,
	    .type = g->type && *g->type ? g->type : NULL,
	    .count = count,
	};
}

/* "name[:type]:count" joined by commas, grouped by name in first-seen order. */
static char *sums_format(const struct gres_sum *sums, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	bool first = true;

	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcaseeq(sums[j].name, sums[i].name);
		for (size_t k = i; k < n && !seen; k++) {
			if (!strcaseeq(sums[k].name, sums[i].name) || !sums[k].count)
				continue;
			fprintf(f, "%s%s%s%s:%" PRIu64, first ? "" : ",", sums[k].name,
				sums[k].type ? ":" : "", sums[k].type ? sums[k].type : "",
				sums[k].count);
			first = false;
		}
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int gres_detect(const struct gres_conf *conf, size_t n, const char *node_name,
		struct gres_detect *ret, struct sl_error *err)
{
	_cleanup_(gres_detect_done) struct gres_detect d = {0};
	_cleanup_free_ struct gres_sum *sums = NULL;
	size_t nsums = 0;
	int r;

	if (n) {
		sums = calloc(n, sizeof(*sums));
		if (!sums)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t count = 0;
		bool applies = false;

		if (!conf[i].name)
			continue; /* the parser requires Name=; nothing to report */
		r = entry_applies(&conf[i], node_name, &applies, err);
		if (r < 0)
			return r;
		if (!applies)
			continue;
		r = entry_count(&conf[i], &d, &count, err);
		if (r < 0)
			return r;
		sum_add(sums, &nsums, &conf[i], count);
	}
	d.gres = sums_format(sums, nsums);
	if (!d.gres)
		return -ENOMEM;
	if (!d.missing) {
		d.missing = calloc(1, sizeof(*d.missing));
		if (!d.missing)
			return -ENOMEM;
	}
	*ret = d;
	d = (struct gres_detect){0};
	return 0;
}

void gres_detect_done(struct gres_detect *d)
{
	if (!d)
		return;
	free(d->gres);
	for (size_t i = 0; i < d->missing_count; i++)
		free(d->missing[i]);
	free(d->missing);
	*d = (struct gres_detect){0};
}

/* One "name[:type][:count]" entry; count defaults to 1 and may carry a
 * K/M/G/T/P suffix (powers of 1024), as Slurm reads it. */
static uint64_t gres_entry_count(const char *entry, size_t len, const char *name)
{
	size_t name_len = strlen(name);
	const char *last, *end = entry + len;
	uint64_t n = 0, mult = 1;
	const char *p;

	if (len < name_len || strncasecmp(entry, name, name_len) != 0
	    || (len > name_len && entry[name_len] != ':'))
		return 0;
	last = entry + len;
	while (last > entry && last[-1] != ':')
		last--;
	if (last == entry || last - entry <= (ptrdiff_t)name_len)
		return 1; /* "gpu" or "gpu:a100": one */
	for (p = last; p < end && *p >= '0' && *p <= '9'; p++)
		n = n * 10 + (uint64_t)(*p - '0');
	if (p == last)
		return 1; /* "gpu:a100" */
	if (p < end && p + 1 == end) {
		const char *units = "KMGTP", *u = strchr(units, *p & ~0x20);

		if (!u || !*p)
			return 0;
		for (const char *k = units; k <= u; k++)
			mult *= 1024;
		p++;
	}
	return p == end ? n * mult : 0;
}

uint64_t gres_count(const char *gres, const char *name)
{
	uint64_t total = 0;

	while (gres && *gres) {
		const char *comma = strchr(gres, ',');
		size_t len = comma ? (size_t)(comma - gres) : strlen(gres);

		total += gres_entry_count(gres, len, name);
		gres = comma ? comma + 1 : NULL;
	}
	return total;
}

int gres_cores_mask(const char *list, uint64_t *ret)
{
	uint64_t m = 0;

	for (const char *p = list; *p;) {
		char *end;
		unsigned long a, b;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		a = b = strtoul(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			b = strtoul(end + 1, &end, 10);
		}
		if (a > b || b >= GRES_CORES_MAX || (*end && *end != ','))
			return -EINVAL;
		for (unsigned long c = a; c <= b; c++)
			m |= UINT64_C(1) << c;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return -EINVAL; /* a trailing comma */
	}
	if (!*list)
		return -EINVAL;
	if (ret)
		*ret = m;
	return 0;
}

/* The device files of a gres.conf line naming GPUs of node_name; NULL
 * for any other line (or one whose lists do not parse: checked when the
 * file was read). */
static struct hostlist *gpu_files_here(const struct gres_conf *g, const char *node_name)
{
	struct hostlist *hl = NULL;
	struct sl_error err;
	bool is_here = false;

	if (!g->name || !strcaseeq(g->name, "gpu") || !g->file)
		return NULL;
	if (entry_applies(g, node_name, &is_here, &err) < 0 || !is_here)
		return NULL;
	if (hostlist_new(g->file, &hl) < 0)
		return NULL;
	return hl;
}

int gres_gpu_cores(const struct gres_conf *conf, size_t n, const char *node_name, uint64_t *ret,
		   size_t max, size_t *ret_n)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		_cleanup_(hostlist_freep) struct hostlist *hl = gpu_files_here(&conf[i], node_name);
		uint64_t cores = 0;

		if (!hl)
			continue;
		if (conf[i].cores && gres_cores_mask(conf[i].cores, &cores) < 0)
			return -EINVAL;
		for (size_t k = 0; k < hostlist_count(hl) && count < max; k++)
			ret[count++] = cores;
	}
	*ret_n = count;
	return 0;
}

int gres_gpu_files(const struct gres_conf *conf, size_t n, const char *node_name, char ***ret,
		   size_t *ret_n)
{
	char **v = NULL;
	size_t count = 0;
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		_cleanup_(hostlist_freep) struct hostlist *hl = gpu_files_here(&conf[i], node_name);

		for (size_t k = 0; hl && k < hostlist_count(hl); k++) {
			char **nv = realloc(v, (count + 2) * sizeof(*v));

			if (!nv || !(nv[count] = strdup(hostlist_nth(hl, k)))) {
				v = nv ? nv : v;
				r = -ENOMEM;
				break;
			}
			v = nv;
			v[++count] = NULL;
		}
	}
	if (r < 0) {
		for (size_t i = 0; i < count; i++)
			free(v[i]);
		free(v);
		return r;
	}
	*ret = v;
	*ret_n = count;
	return 0;
}
