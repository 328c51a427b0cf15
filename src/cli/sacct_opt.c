/* sacct_opt.c - the meaning of sacct's options (see sacct_opt.h).
 *
 * Purpose: Slurm's time grammar for -S/-E read the way parse_time() reads
 * it with "past" set (sacct's use), the DEFAULT TIME WINDOW table of the
 * man page, -s names to the query's state mask, -j items to the query's
 * job list plus the client-side choice of which job and step rows print,
 * and the print order.
 * Caveat: times are local (mktime); "uts<N>" is taken as given.
 */
#include "cli/sacct_opt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/fmt.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"

/* ---- -S / -E ---- */

struct when {
	int hour, min, sec;  /* hour -1: no time given */
	int mon, mday, year; /* mon -1: no date given; year -1: none (tm_year otherwise) */
};

static void set_date(struct when *w, time_t t)
{
	struct tm tm;

	localtime_r(&t, &tm);
	w->mon = tm.tm_mon;
	w->mday = tm.tm_mday;
	w->year = tm.tm_year;
}

static bool two_digits(const char *p, int *ret)
{
	if (!isdigit((unsigned char)p[0]) || !isdigit((unsigned char)p[1]))
		return false;
	*ret = (p[0] - '0') * 10 + (p[1] - '0');
	return true;
}

/* One or two digits at s + *pos. */
static bool one_or_two(const char *s, int *pos, int *ret)
{
	if (!isdigit((unsigned char)s[*pos]))
		return false;
	*ret = s[(*pos)++] - '0';
	if (isdigit((unsigned char)s[*pos]))
		*ret = *ret * 10 + (s[(*pos)++] - '0');
	return true;
}

/* "HH:MM[:SS] [AM|PM]" at s + *pos; *pos ends after it. */
static int parse_clock(const char *s, int *pos, struct when *w)
{
	int h, m, sec = 0;

	if (!one_or_two(s, pos, &h) || h > 23 || s[*pos] != ':')
		return -EINVAL;
	if (!two_digits(s + *pos + 1, &m) || m > 59)
		return -EINVAL;
	*pos += 3;
	if (s[*pos] == ':') {
		if (!two_digits(s + *pos + 1, &sec) || sec > 59)
			return -EINVAL;
		*pos += 3;
	}
	while (isblank((unsigned char)s[*pos]))
		(*pos)++;
	if (!strncasecmp(s + *pos, "pm", 2)) {
		if (h < 12)
			h += 12;
		else if (h > 12)
			return -EINVAL;
		*pos += 2;
	} else if (!strncasecmp(s + *pos, "am", 2)) {
		if (h == 12)
			h = 0;
		else if (h > 12)
			return -EINVAL;
		*pos += 2;
	}
	w->hour = h, w->min = m, w->sec = sec;
	return 0;
}

/* "YYYY-MM-DD" or "MM[./]DD[[./]YY]" at s + *pos. */
static int parse_date(const char *s, int *pos, struct when *w)
{
	size_t len = strlen(s + *pos);
	int y = -1, m, d, yy;

	if (len >= 8 && s[*pos + 4] == '-' && s[*pos + 7] == '-') {
		if (!two_digits(s + *pos, &yy) || !two_digits(s + *pos + 2, &y))
			return -EINVAL;
		y += yy * 100 - 1900;
		*pos += 5;
		if (!one_or_two(s, pos, &m) || s[(*pos)++] != '-' || !one_or_two(s, pos, &d))
			return -EINVAL;
	} else {
		if (!one_or_two(s, pos, &m))
			return -EINVAL;
		if (s[*pos] == '.' || s[*pos] == '/')
			(*pos)++;
		if (!one_or_two(s, pos, &d))
			return -EINVAL;
		if (s[*pos] == '.' || s[*pos] == '/')
			(*pos)++;
		if (isdigit((unsigned char)s[*pos])) {
			if (!two_digits(s + *pos, &yy))
				return -EINVAL;
			y = yy + 100;
			*pos += 2;
		}
	}
	if (m < 1 || m > 12 || d < 1 || d > 31)
		return -EINVAL;
	w->mon = m - 1, w->mday = d, w->year = y;
	return 0;
}

/* "now[{+|-}count[unit]]" after "now" at s + *pos. */
static int parse_now(const char *s, int *pos, time_t now, struct when *w)
{
	static const struct {
		const char *name;
		long mult;
	} units[] = {
	    {"seconds", 1}, {"second", 1},   {"minutes", 60}, {"minute", 60},	 {"hours", 3600},
	    {"hour", 3600}, {"days", 86400}, {"day", 86400},  {"weeks", 604800}, {"week", 604800},
	};
	long cnt = 0, sign = 1;
	bool digit = false;
	struct tm tm;
	time_t t;

	while (isblank((unsigned char)s[*pos]))
		(*pos)++;
	if (s[*pos] == '+' || s[*pos] == '-') {
		sign = s[(*pos)++] == '-' ? -1 : 1;
		for (; s[*pos] && s[*pos] != '\n'; (*pos)++) {
			size_t i;

			if (isblank((unsigned char)s[*pos]))
				continue;
			if (isdigit((unsigned char)s[*pos])) {
				cnt = cnt * 10 + (s[*pos] - '0');
				digit = true;
				continue;
			}
			for (i = 0; i < ARRAY_SIZE(units); i++)
				if (!strncasecmp(s + *pos, units[i].name, strlen(units[i].name)))
					break;
			if (i == ARRAY_SIZE(units))
				return -EINVAL;
			cnt *= units[i].mult;
			*pos += (int)strlen(units[i].name);
			break;
		}
		if (!digit)
			return -EINVAL;
	} else if (s[*pos] && s[*pos] != '\n') {
		return -EINVAL;
	}
	t = now + sign * cnt;
	localtime_r(&t, &tm);
	*w = (struct when){.hour = tm.tm_hour,
			   .min = tm.tm_min,
			   .sec = tm.tm_sec,
			   .mon = tm.tm_mon,
			   .mday = tm.tm_mday,
			   .year = tm.tm_year};
	return 0;
}

static int parse_word(const char *s, int *pos, time_t now, struct when *w)
{
	static const struct {
		const char *word;
		int hour; /* -1: today, -2: tomorrow, -3: now */
	} words[] = {
	    {"today", -1},     {"tomorrow", -2}, {"midnight", 0}, {"noon", 12},
	    {"elevenses", 11}, {"fika", 15},	 {"teatime", 16}, {"now", -3},
	};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		size_t len = strlen(words[i].word);

		if (strncasecmp(s + *pos, words[i].word, len))
			continue;
		*pos += (int)len;
		if (words[i].hour == -3)
			return parse_now(s, pos, now, w);
		if (words[i].hour < 0)
			set_date(w, words[i].hour == -1 ? now : now + 86400);
		else
			w->hour = words[i].hour, w->min = 0, w->sec = 0;
		return 0;
	}
	return -EINVAL;
}

int sacct_parse_time(const char *s, time_t now, time_t *ret, int *ret_pos)
{
	struct when w = {.hour = -1, .mon = -1, .year = -1};
	struct tm nt, tm = {0};
	int pos = 0, r = 0;
	time_t t;

	if (!strncasecmp(s, "uts", 3)) {
		char *end;
		long v = strtol(s + 3, &end, 10);

		if (v < 1000000 || *end || end == s + 3) {
			*ret_pos = 0;
			return -EINVAL;
		}
		*ret = (time_t)v;
		return 0;
	}
	localtime_r(&now, &nt);
	while (r == 0 && s[pos] && s[pos] != '\n') {
		char c = s[pos];

		if (isblank((unsigned char)c) || c == '-' || c == 'T')
			pos++;
		else if (!isdigit((unsigned char)c))
			r = parse_word(s, &pos, now, &w);
		else if (s[pos + 1] == ':' || (s[pos + 1] && s[pos + 2] == ':'))
			r = parse_clock(s, &pos, &w);
		else
			r = parse_date(s, &pos, &w);
	}
	if (r < 0) {
		*ret_pos = pos;
		return r;
	}
	if (w.hour == -1 && w.mon == -1) {
		*ret = 0;
		return 0;
	}
	if (w.hour == -1)
		w.hour = 0, w.min = 0, w.sec = 0;
	if (w.mon == -1)
		set_date(&w, now); /* a time alone: today, looking back */
	if (w.year == -1)
		w.year = w.mon > nt.tm_mon ? nt.tm_year - 1 : nt.tm_year;
	tm.tm_sec = w.sec, tm.tm_min = w.min, tm.tm_hour = w.hour;
	tm.tm_mday = w.mday, tm.tm_mon = w.mon, tm.tm_year = w.year, tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1) {
		*ret_pos = pos;
		return -EINVAL;
	}
	*ret = t;
	return 0;
}

void sacct_time_window(bool has_jobs, bool has_states, time_t start, time_t end, time_t now,
		       time_t *ret_start, time_t *ret_end)
{
	if (has_jobs && !has_states && !start && !end) {
		*ret_start = *ret_end = 0;
		return;
	}
	if (!start) {
		if (has_jobs)
			start = 0;
		else if (has_states)
			start = now;
		else {
			struct tm tm;

			localtime_r(&now, &tm);
			tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
			tm.tm_isdst = -1;
			start = mktime(&tm);
		}
	}
	if (!end)
		end = has_states && start ? start : now;
	*ret_start = start;
	*ret_end = end;
}

char *sacct_window_line(const char *states, time_t start, time_t end, time_t now)
{
	char *out = NULL, *copy = states ? strdup(states) : NULL, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	char s1[64], s2[64];
	/* Slurm's end is exclusive: our inclusive end of a one-moment
	 * window (-s) is the second before the one it prints */
	time_t e = !end ? now : end == start ? end + 1 : end;

	if (!f || (states && !copy)) {
		if (f)
			fclose(f);
		free(out);
		free(copy);
		return NULL;
	}
	fputs("Jobs ", f);
	if (!copy)
		fputs("Eligible", f);
	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		uint32_t st;

		if (job_state_from_string(tok, &st) < 0)
			continue;
		fprintf(f, "%s%s", ftell(f) > 5 ? "," : "",
			st == JOB_REQUEUE ? "REQUEUED" : job_state_string(st));
	}
	free(copy);
	if (start)
		fmt_date(start, s1, sizeof(s1));
	else
		snprintf(s1, sizeof(s1), "Epoch 0");
	fmt_date(e, s2, sizeof(s2));
	fprintf(f, " in the time window from %s to %s", s1, s2);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

int sacct_parse_range(const char *s, uint32_t *ret_min, uint32_t *ret_max)
{
	unsigned long lo, hi;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	lo = strtoul(s, &end, 10);
	hi = lo;
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return -EINVAL;
		hi = strtoul(end + 1, &end, 10);
	}
	if (*end || errno || lo > UINT32_MAX - 1 || hi > UINT32_MAX - 1)
		return -EINVAL;
	*ret_min = (uint32_t)lo;
	*ret_max = (uint32_t)hi;
	return 0;
}

/* One time of a row: not before the window's start, and an end (or the
 * lack of one, running) not after the window's end. */
static void truncate_times(time_t *start, time_t *end, time_t s, time_t e)
{
	if (!*start)
		return; /* never started: nothing to cut */
	if (s && *start < s)
		*start = s;
	if (e && (!*end || *end > e))
		*end = e;
	if (*end && *end < *start)
		*end = *start;
}

void sacct_truncate(struct acct_job_rec *j, time_t start, time_t end)
{
	truncate_times(&j->start, &j->end, start, end);
	for (uint32_t i = 0; i < j->step_count; i++)
		truncate_times(&j->steps[i].start, &j->steps[i].end, start, end);
}

int sacct_time_arg(const char *s, time_t now, time_t *ret)
{
	int pos = 0;

	if (sacct_parse_time(s, now, ret, &pos) == 0)
		return 0;
	fprintf(stderr, "Invalid time specification (pos=%d): %s\n", pos, s);
	return -EINVAL;
}

/* ---- -s ---- */

int sacct_state_mask(const char *list, uint32_t *ret_mask, char **ret_bad)
{
	char *copy = strdup(list), *save = NULL, *tok;
	uint32_t mask = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint32_t st;

		int known = job_state_from_string(tok, &st);

		if (known < 0 || (st >= _JOB_STATE_BASE_MAX && st != JOB_REQUEUE)) {
			*ret_bad = strdup(tok);
			free(copy);
			/* a state flag (SE, RD, ...) is known but never accounted */
			return !*ret_bad ? -ENOMEM : known < 0 ? -EINVAL : -ENOTSUP;
		}
		mask |= st == JOB_REQUEUE ? 1u << ACCT_STATE_REQUEUED_BIT : 1u << st;
	}
	free(copy);
	*ret_mask = mask;
	return 0;
}

/* ---- -j ---- */

static bool parse_u32(const char *s, const char **end, uint32_t *ret)
{
	char *e;
	unsigned long v;

	if (!isdigit((unsigned char)*s))
		return false;
	v = strtoul(s, &e, 10);
	if (v >= NO_VAL)
		return false;
	*ret = (uint32_t)v;
	*end = e;
	return true;
}

int sacct_parse_sel(const char *tok, struct sacct_sel *sel)
{
	static const struct {
		const char *name;
		uint32_t id;
	} named[] = {
	    {"batch", SL_BATCH_STEP},
	    {"extern", 0xfffffffcu},
	    {"interactive", 0xfffffffau},
	};
	const char *p;

	*sel = (struct sacct_sel){.task_id = NO_VAL, .step_id = NO_VAL};
	if (!parse_u32(tok, &p, &sel->job_id) || !sel->job_id)
		return -EINVAL;
	if (*p == '_' && !parse_u32(p + 1, &p, &sel->task_id))
		return -EINVAL;
	if (*p == '.') {
		p++;
		for (size_t i = 0; i < ARRAY_SIZE(named); i++)
			if (!strcasecmp(p, named[i].name)) {
				sel->step_id = named[i].id;
				return 0;
			}
		if (!parse_u32(p, &p, &sel->step_id))
			return -EINVAL;
	}
	return *p ? -EINVAL : 0;
}

int sacct_parse_jobs(const char *list, struct sacct_sel **ret, size_t *ret_n, char **ret_job_ids,
		     char **ret_bad)
{
	char *copy = strdup(list), *save = NULL, *tok, *ids = NULL;
	struct sacct_sel *v = calloc(strlen(list) / 2 + 1, sizeof(*v));
	size_t n = 0, len = 0;
	FILE *f = open_memstream(&ids, &len);
	int r = copy && v && f ? 0 : -ENOMEM;

	for (tok = r ? NULL : strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool seen = false;

		if (sacct_parse_sel(tok, &v[n]) < 0) {
			*ret_bad = strdup(tok);
			r = -EINVAL;
			break;
		}
		for (size_t i = 0; i < n && !seen; i++)
			seen = v[i].job_id == v[n].job_id && v[i].task_id == v[n].task_id;
		if (!seen && v[n].task_id == NO_VAL)
			fprintf(f, "%s%u", ftell(f) ? "," : "", v[n].job_id);
		else if (!seen)
			fprintf(f, "%s%u_%u", ftell(f) ? "," : "", v[n].job_id, v[n].task_id);
		n++;
	}
	if (f && fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	free(copy);
	if (r < 0) {
		free(v);
		free(ids);
		return r;
	}
	*ret = v;
	*ret_n = n;
	*ret_job_ids = ids;
	return 0;
}

static bool sel_matches(const struct sacct_sel *sel, const struct acct_job_rec *j)
{
	if (sel->task_id == NO_VAL)
		return sel->job_id == j->job_id
		       || (j->array_job_id && sel->job_id == j->array_job_id);
	if (!j->array_job_id || sel->job_id != j->array_job_id)
		return false;
	if (j->array_task_id != NO_VAL)
		return sel->task_id == j->array_task_id;
	return j->array_task_str && fmt_idset_has(j->array_task_str, sel->task_id);
}

bool sacct_job_shown(const struct sacct_sel *v, size_t n, const struct acct_job_rec *j)
{
	if (!n)
		return true;
	for (size_t i = 0; i < n; i++)
		if (v[i].step_id == NO_VAL && sel_matches(&v[i], j))
			return true;
	return false;
}

bool sacct_step_shown(const struct sacct_sel *v, size_t n, const struct acct_job_rec *j,
		      const struct acct_step_rec *s)
{
	if (sacct_job_shown(v, n, j))
		return true;
	for (size_t i = 0; i < n; i++)
		if (v[i].step_id == s->step_id && sel_matches(&v[i], j))
			return true;
	return false;
}

/* ---- order ---- */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct acct_job_rec *a = pa, *b = pb;
	int c = cmp_u64(a->array_job_id ? a->array_job_id : a->job_id,
			b->array_job_id ? b->array_job_id : b->job_id);

	if (!c)
		c = cmp_u64(a->array_task_id, b->array_task_id);
	if (!c)
		c = cmp_u64(a->job_id, b->job_id);
	if (!c)
		c = cmp_u64(a->restart_cnt, b->restart_cnt);
	return c ? c : cmp_u64(a->inx, b->inx);
}

void sacct_rows_sort(struct acct_job_rec *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_rows);
}

size_t sacct_rows_dedup(struct acct_job_rec *v, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && v[i + 1].job_id == v[i].job_id) {
			acct_job_rec_done(&v[i]);
			continue;
		}
		if (out != i)
			v[out] = v[i];
		out++;
	}
	return out;
}
