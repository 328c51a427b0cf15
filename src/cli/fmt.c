/* fmt.c - the format engine shared by sinfo and squeue (see fmt.h).
 *
 * Purpose: turn a format string into fields once, the same way for both
 * tools (Slurm parses them alike: strtok on '%', '.', digits, a letter,
 * the rest is suffix), and print cells with _print_str()'s padding and
 * truncation rules; plus the id lists ("3-20,25") and comma lists the
 * tools' filters and job array columns read.
 * Owns: the fields' suffix/raw strings (fmt_spec_done frees them).
 */
#include "cli/fmt.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/macros.h"

#define IDSET_MAX (1u << 20) /* ids one list may name */

static int add(struct fmt_spec *f, struct fmt_field fl, const char *suf, size_t suflen,
	       const char *raw, size_t rawlen)
{
	struct fmt_field *v = realloc(f->v, (f->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	f->v = v;
	if (suflen && !(fl.suffix = strndup(suf, suflen)))
		return -ENOMEM;
	if (raw && !(fl.raw = strndup(raw, rawlen))) {
		free(fl.suffix);
		return -ENOMEM;
	}
	v[f->n++] = fl;
	return 0;
}

void fmt_spec_done(struct fmt_spec *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].suffix);
		free(f->v[i].raw);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

int fmt_parse_short(struct fmt_spec *f, const char *s, bool allow_auto, fmt_letter_fn *fn,
		    const void *arg)
{
	const char *p = strchr(s, '%');
	int r = 0;

	if (p != s) {
		struct fmt_field lit = {.id = FMT_LITERAL};

		r = add(f, lit, s, p ? (size_t)(p - s) : strlen(s), NULL, 0);
	}
	while (r == 0 && p) {
		const char *t = p + 1, *next = strchr(t, '%');
		size_t len = next ? (size_t)(next - t) : strlen(t), i = 0;
		struct fmt_field fl = {.id = FMT_INVALID};

		p = next;
		if (len == 0)
			continue;
		if (t[i] == '.')
			fl.right = true, i++;
		if (allow_auto && i < len && t[i] == '#')
			fl.autow = true, i++;
		while (i < len && isdigit((unsigned char)t[i]) && fl.width < 100000)
			fl.width = fl.width * 10 + (t[i++] - '0');
		while (i < len && isdigit((unsigned char)t[i]))
			i++; /* absurd widths stop growing */
		if (i < len) {
			fl.letter = t[i];
			fl.id = fn(t[i], arg);
			i++;
		}
		if (fl.id < 0)
			fl.id = FMT_INVALID;
		r = add(f, fl, t + i, len - i, fl.id == FMT_INVALID ? t - 1 : NULL, len + 1);
	}
	return r;
}

int fmt_parse_long(struct fmt_spec *f, const char *s, fmt_name_fn *fn, const void *arg)
{
	char *copy = strdup(s), *save = NULL, *tok;
	int r = copy ? 0 : -ENOMEM;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && r == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end = NULL;
		struct fmt_field fl = {.width = 20};

		if (colon) {
			long w;

			*colon = '\0';
			fl.right = colon[1] == '.';
			w = strtol(colon + 1 + fl.right, &end, 10);
			fl.width = w < 0 ? 0 : w > 100000 ? 100000 : (int)w;
		}
		fl.id = fn(tok, arg);
		if (fl.id < 0)
			fl.id = FMT_INVALID;
		r = add(f, fl, end ? end : "", end ? strlen(end) : 0,
			fl.id == FMT_INVALID ? tok : NULL, strlen(tok));
	}
	free(copy);
	return r;
}

static void fmt_put_spaces(FILE *out, int n)
{
	static const char spaces[] = "                                ";

	for (; n > 0; n -= (int)sizeof(spaces) - 1)
		fwrite_unlocked(spaces, 1,
				n < (int)sizeof(spaces) - 1 ? (size_t)n : sizeof(spaces) - 1, out);
}

void fmt_put_cell(FILE *out, const char *s, int width, bool right, bool cut)
{
	int len = (int)strlen(s);

	if (width <= 0) {
		fputs(s, out);
		return;
	}
	if (len > width && (cut || !right))
		len = width;
	/* as fprintf("%*.*s") would, without parsing a format a cell (the
	 * commands are single-threaded: no stream lock a cell either) */
	if (right)
		fmt_put_spaces(out, width - len);
	fwrite_unlocked(s, 1, (size_t)len, out);
	if (!right)
		fmt_put_spaces(out, width - len);
}

char *fmt_num_unit(uint64_t v, char unit0, char *buf, size_t n)
{
	static const char units[] = "\0KMGTPE";
	const char *u = strchr(units + 1, unit0);
	int i = unit0 && u ? (int)(u - units) : 0;
	bool half = false;

	if (v == 0) {
		snprintf(buf, n, "0");
		return buf;
	}
	while (!half && v >= 1024 && v % 512 == 0 && i < 6) {
		half = v % 1024 != 0;
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, n, "%" PRIu64, v);
	else
		snprintf(buf, n, "%" PRIu64 "%s%c", v, half ? ".50" : "", units[i]);
	return buf;
}

char *fmt_date(time_t t, char *buf, size_t n)
{
	struct tm tm;

	if (!n || !localtime_r(&t, &tm) || !strftime(buf, n, "%a %b %d %H:%M:%S %Y", &tm)) {
		if (n)
			buf[0] = '\0';
		return NULL;
	}
	return buf;
}

void fmt_print_date(FILE *out, time_t now)
{
	char buf[64];

	if (fmt_date(now, buf, sizeof(buf)))
		fprintf(out, "%s\n", buf);
}

/* ---- id lists ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int fmt_idset_parse(const char *s, uint32_t **ret, size_t *ret_n)
{
	uint32_t *v = NULL;
	size_t n = 0, cap = 0;

	for (const char *p = s; p && *p;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo, step = 1;

		if (end == p)
			goto invalid;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (*end == ':')
			step = strtoul(end + 1, &end, 10);
		if ((*end && *end != ',') || hi < lo || step == 0 || hi >= NO_VAL
		    || n + (hi - lo) / step + 1 > IDSET_MAX)
			goto invalid;
		for (unsigned long i = lo; i <= hi; i += step) {
			if (n == cap) {
				uint32_t *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[n++] = (uint32_t)i;
		}
		p = *end ? end + 1 : end;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_u32);
	*ret = v;
	*ret_n = n;
	return 0;
invalid:
	free(v);
	return -EINVAL;
}

char *fmt_idset_format(const uint32_t *v, size_t n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t k = i;

		while (k + 1 < n && v[k + 1] <= v[k] + 1)
			k++;
		fprintf(f, "%s%u", i ? "," : "", v[i]);
		if (v[k] != v[i])
			fprintf(f, "-%u", v[k]);
		i = k + 1;
	}
	return fclose(f) == 0 ? s : (free(s), NULL);
}

bool fmt_idset_has(const char *s, uint32_t id)
{
	uint32_t *v = NULL;
	size_t n = 0;
	bool hit = false;

	if (fmt_idset_parse(s, &v, &n) == 0)
		hit = n && bsearch(&id, v, n, sizeof(*v), cmp_u32) != NULL;
	free(v);
	return hit;
}

bool fmt_list_has(const char *list, const char *s, bool icase)
{
	size_t len = s ? strlen(s) : 0;

	for (const char *p = list; s && p && *p;) {
		size_t tl = strcspn(p, ",");

		if (tl == len && (icase ? !strncasecmp(p, s, len) : !strncmp(p, s, len)))
			return true;
		p += tl + (p[tl] == ',');
	}
	return false;
}
