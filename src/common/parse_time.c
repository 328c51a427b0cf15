/* parse_time.c - time limit grammar and the duration/timestamp printers.
 *
 * Purpose: one place that reads "-t 1-02:03:04" style values and prints
 * limits, elapsed times and timestamps byte for byte as Slurm 22.05 does.
 * Caveat: the parser is stricter than Slurm's sscanf/atoi one on garbage
 * (e.g. "-5", "1::2"), which Slurm either rejects or misreads; every form
 * Slurm documents parses to the same value.
 */
#include "parse_time.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "macros.h"

/* Largest total we return; above it the value would read as NO_VAL. */
#define TIME_SECS_MAX ((uint64_t)NO_VAL - 1)

/* Parse one field of 1..10 digits starting at *p, stopping at stop or NUL. */
static int parse_field(const char **p, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;
	size_t digits = 0;

	while (*s >= '0' && *s <= '9') {
		if (++digits > 10) /* 10 digits already exceed TIME_SECS_MAX */
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	if (digits == 0)
		return -EINVAL;
	*p = s;
	*ret = v;
	return 0;
}

/* Split s (after an optional "D-") into up to three ':' fields. */
static int parse_fields(const char *s, uint64_t f[3], int *ret_n)
{
	int n = 0;

	if (*s == '\0') {
		*ret_n = 0;
		return 0;
	}
	for (;;) {
		if (n == 3 || parse_field(&s, &f[n]) < 0)
			return -EINVAL;
		n++;
		if (*s == '\0')
			break;
		if (*s != ':')
			return -EINVAL;
		s++;
	}
	*ret_n = n;
	return 0;
}

int time_str2secs(const char *s, uint32_t *ret_secs)
{
	const char *dash;
	uint64_t days = 0, f[3] = {0}, total;
	int n, r;

	if (!s || !*s)
		return -EINVAL;
	if (streq(s, "-1") || strcaseeq(s, "INFINITE") || strcaseeq(s, "UNLIMITED")) {
		*ret_secs = INFINITE;
		return 0;
	}

	dash = strchr(s, '-');
	if (dash) {
		const char *p = s;

		if (parse_field(&p, &days) < 0 || p != dash)
			return -EINVAL; /* empty days, or a ':' before the '-' */
		r = parse_fields(dash + 1, f, &n);
		if (r < 0)
			return r;
		/* D-, D-H, D-H:M, D-H:M:S */
		total = days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
	} else {
		r = parse_fields(s, f, &n);
		if (r < 0 || n == 0)
			return -EINVAL;
		if (n == 1) /* M */
			total = f[0] * 60;
		else if (n == 2) /* M:S */
			total = f[0] * 60 + f[1];
		else /* H:M:S */
			total = f[0] * 3600 + f[1] * 60 + f[2];
	}
	if (total > TIME_SECS_MAX)
		return -EINVAL;
	*ret_secs = (uint32_t)total;
	return 0;
}

int time_str2mins(const char *s, uint32_t *ret_mins)
{
	uint32_t secs;
	int r;

	r = time_str2secs(s, &secs);
	if (r < 0)
		return r;
	*ret_mins = secs == INFINITE ? INFINITE : (uint32_t)(((uint64_t)secs + 59) / 60);
	return 0;
}

char *duration_str(uint64_t secs, char *buf, size_t n)
{
	uint64_t days = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;

	if (days)
		snprintf(buf, n, "%llu-%02llu:%02llu:%02llu", (unsigned long long)days,
			 (unsigned long long)h, (unsigned long long)m, (unsigned long long)s);
	else
		snprintf(buf, n, "%02llu:%02llu:%02llu", (unsigned long long)h,
			 (unsigned long long)m, (unsigned long long)s);
	return buf;
}

char *mins2time_str(uint32_t mins, char *buf, size_t n)
{
	if (mins == INFINITE) {
		snprintf(buf, n, "UNLIMITED");
		return buf;
	}
	if (mins == NO_VAL) {
		snprintf(buf, n, "NONE");
		return buf;
	}
	return duration_str((uint64_t)mins * 60, buf, n);
}

char *secs2time_str(uint32_t secs, char *buf, size_t n)
{
	if (secs == INFINITE) {
		snprintf(buf, n, "UNLIMITED");
		return buf;
	}
	return duration_str(secs, buf, n);
}

char *secs2elapsed_str(uint32_t secs, char *buf, size_t n)
{
	unsigned days = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;

	if (secs == INFINITE)
		snprintf(buf, n, "UNLIMITED");
	else if (days)
		snprintf(buf, n, "%u-%02u:%02u:%02u", days, h, m, s);
	else if (h)
		snprintf(buf, n, "%u:%02u:%02u", h, m, s);
	else
		snprintf(buf, n, "%u:%02u", m, s);
	return buf;
}

/* SLURM_TIME_FORMAT=relative: the time of day today, a day word and the
 * time within a week ahead or yesterday, the day and month (and time)
 * this year, the day, month and year otherwise. */
static const char *relative_fmt(const struct tm *tm, time_t now)
{
	struct tm nt;

	if (!localtime_r(&now, &nt) || tm->tm_year != nt.tm_year)
		return "%-d %b %Y";
	if (tm->tm_yday == nt.tm_yday)
		return "%H:%M:%S";
	if (tm->tm_yday == nt.tm_yday - 1)
		return "Ystday %H:%M";
	if (tm->tm_yday == nt.tm_yday + 1)
		return "Tomorr %H:%M";
	if (tm->tm_yday > nt.tm_yday && tm->tm_yday < nt.tm_yday + 7)
		return "%a %H:%M";
	return "%-d %b %H:%M";
}

/* The user's strftime() format is the point of SLURM_TIME_FORMAT. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static size_t strftime_user(char *s, size_t max, const char *fmt, const struct tm *tm)
{
	return strftime(s, max, fmt, tm);
}
#pragma GCC diagnostic pop

char *time_str_fmt(time_t t, time_t now, const char *fmt, char *buf, size_t n)
{
	static bool is_warned;
	struct tm tm;
	char tmp[256];

	if (fmt && *fmt && !streq(fmt, "standard") && !streq(fmt, "relative")
	    && !strchr(fmt, '%')) {
		if (!is_warned)
			error("invalid SLURM_TIME_FORMAT = '%s'", fmt);
		is_warned = true;
		fmt = NULL;
	}
	if (!fmt || !*fmt || streq(fmt, "standard"))
		fmt = "%Y-%m-%dT%H:%M:%S";
	if (t == 0 || !localtime_r(&t, &tm))
		snprintf(buf, n, "Unknown");
	else if (strftime_user(tmp, sizeof(tmp),
			       streq(fmt, "relative") ? relative_fmt(&tm, now) : fmt, &tm)
		 == 0)
		snprintf(buf, n, "%s", ""); /* an empty or too long format */
	else
		snprintf(buf, n, "%s", tmp);
	return buf;
}

char *time_to_iso(time_t t, char *buf, size_t n)
{
	return time_str_fmt(t, 0, NULL, buf, n);
}

char *time_display(time_t t, char *buf, size_t n)
{
	return time_str_fmt(t, time(NULL), getenv("SLURM_TIME_FORMAT"), buf, n);
}
