/* job_opt_begin.c - --begin's grammar (job_opt_parse_begin, see job_opt.h),
 * a leaf the option table calls.
 */
#include "cli/job_opt.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/macros.h"

/* ---- --begin: Slurm's parse_time(), "past" = 0 ---- */

struct tparts {
	int hour, min, sec, mon, mday, year; /* struct tm meanings, -1 unset */
};

static bool dig(const char *s, int i)
{
	return s[i] >= '0' && s[i] <= '9';
}

/* HH:MM[:SS] [AM|PM] at *pos; on error *pos is where Slurm reports. */
static int get_time(const char *s, int *pos, struct tparts *t)
{
	int o = *pos, hr, mn, sc = 0;

	hr = s[o++] - '0';
	if (s[o] != ':') {
		if (!dig(s, o))
			goto bad;
		hr = hr * 10 + s[o++] - '0';
	}
	if (hr > 23) {
		o -= 2;
		goto bad;
	}
	if (s[o] != ':')
		goto bad;
	o++;
	if (!dig(s, o) || !dig(s, o + 1))
		goto bad;
	mn = (s[o] - '0') * 10 + s[o + 1] - '0';
	o += 2;
	if (mn > 59) {
		o -= 2;
		goto bad;
	}
	if (s[o] == ':') {
		o++;
		if (!dig(s, o) || !dig(s, o + 1))
			goto bad;
		sc = (s[o] - '0') * 10 + s[o + 1] - '0';
		o += 2;
		if (sc > 59) {
			o -= 2;
			goto bad;
		}
	}
	while (isspace((unsigned char)s[o]))
		o++;
	if (!strncasecmp(s + o, "pm", 2)) {
		hr += 12;
		if (hr > 24)
			goto bad;
		hr = hr == 24 ? 12 : hr;
		o += 2;
	} else if (!strncasecmp(s + o, "am", 2)) {
		if (hr > 12)
			goto bad;
		hr = hr == 12 ? 0 : hr;
		o += 2;
	}
	*pos = o - 1;
	t->hour = hr;
	t->min = mn;
	t->sec = sc;
	return 0;
bad:
	*pos = o;
	return -1;
}

/* Two-digit-at-most number at s[*o]; -1 when no digit. */
static int num2(const char *s, int *o)
{
	int v;

	if (!dig(s, *o))
		return -1;
	v = s[(*o)++] - '0';
	if (dig(s, *o))
		v = v * 10 + s[(*o)++] - '0';
	return v;
}

/* MMDD[YY], MM/DD[/YY], MM.DD[.YY] or YYYY-MM-DD at *pos. */
static int get_date(const char *s, int *pos, struct tparts *t)
{
	int o = *pos, mon, day, yr = 0;
	size_t len = strlen(s);

	if (len >= (size_t)o + 7 && s[o + 4] == '-' && s[o + 7] == '-') {
		for (int i = 0; i < 4; i++, o++) {
			if (!dig(s, o))
				goto bad;
			yr = yr * 10 + s[o] - '0';
		}
		o++;
		if ((mon = num2(s, &o)) < 1 || mon > 12) {
			o -= 2;
			goto bad;
		}
		o++;
		if ((day = num2(s, &o)) < 1 || day > 31) {
			o -= day < 0 ? 0 : 2;
			goto bad;
		}
		t->year = yr - 1900;
	} else {
		if ((mon = num2(s, &o)) < 1 || mon > 12) {
			o -= 2;
			goto bad;
		}
		o += s[o] == '/' || s[o] == '.';
		if ((day = num2(s, &o)) < 1 || day > 31) {
			o -= day < 0 ? 0 : 2;
			goto bad;
		}
		o += s[o] == '/' || s[o] == '.';
		if (dig(s, o)) {
			yr = s[o++] - '0';
			if (!dig(s, o))
				goto bad;
			yr = yr * 10 + s[o++] - '0';
			t->year = yr + 100;
		}
	}
	*pos = o - 1;
	t->mon = mon - 1;
	t->mday = day;
	return 0;
bad:
	*pos = o;
	return -1;
}

static const struct {
	const char *name;
	long mult;
} delta_units[] = {{"seconds", 1},    {"second", 1},   {"minutes", 60}, {"minute", 60},
		   {"hours", 3600},   {"hour", 3600},  {"days", 86400}, {"day", 86400},
		   {"weeks", 604800}, {"week", 604800}};

/* "+N[unit]" after now, sign at s[*pos]. */
static int get_delta(const char *s, int *pos, long *ret)
{
	int o;
	long cnt = 0;
	bool digit = false;

	for (o = *pos + 1; s[o] && s[o] != '\n'; o++) {
		size_t u;

		if (isspace((unsigned char)s[o]))
			continue;
		for (u = 0; u < ARRAY_SIZE(delta_units); u++) {
			size_t ul = strlen(delta_units[u].name);

			if (!strncasecmp(s + o, delta_units[u].name, ul)) {
				o += (int)ul;
				cnt *= delta_units[u].mult;
				break;
			}
		}
		if (u < ARRAY_SIZE(delta_units))
			break;
		if (!dig(s, o) || cnt > 100000000000L) {
			*pos = o - 1;
			return -1;
		}
		cnt = cnt * 10 + s[o] - '0';
		digit = true;
	}
	if (!digit)
		return -1;
	*pos = o - 1;
	*ret = cnt;
	return 0;
}

static void set_from(struct tparts *t, time_t when, bool with_time)
{
	struct tm tm;

	localtime_r(&when, &tm);
	t->mon = tm.tm_mon;
	t->mday = tm.tm_mday;
	t->year = tm.tm_year;
	if (with_time) {
		t->hour = tm.tm_hour;
		t->min = tm.tm_min;
		t->sec = tm.tm_sec;
	}
}

/* Words that set the time of day: name, hour. */
static const struct {
	const char *name;
	int hour;
} day_words[] = {{"midnight", 0}, {"noon", 12}, {"fika", 15}, {"teatime", 16}};

static int begin_word(const char *s, int *pos, struct tparts *t, time_t now)
{
	const char *p = s + *pos;

	if (!strncasecmp(p, "today", 5) || !strncasecmp(p, "tomorrow", 8)) {
		bool tom = (p[2] | 0x20) == 'm';

		set_from(t, now + (tom ? 86400 : 0), false);
		*pos += tom ? 7 : 4;
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(day_words); i++) {
		size_t len = strlen(day_words[i].name);

		if (!strncasecmp(p, day_words[i].name, len)) {
			t->hour = day_words[i].hour;
			t->min = t->sec = 0;
			*pos += (int)len - 1;
			return 1;
		}
	}
	if (!strncasecmp(p, "uts", 3) && dig(s, *pos + 3)) {
		char *end;
		long long v = strtoll(p + 3, &end, 10);

		set_from(t, (time_t)v, true);
		*pos = (int)(end - s) - 1;
		return 1;
	}
	if (!strncasecmp(p, "now", 3)) {
		long delta = 0;
		int i = *pos + 3;

		for (;; i++) {
			if (s[i] == '+' || s[i] == '-') {
				int sign = s[i] == '-' ? -1 : 1;

				*pos = i;
				if (get_delta(s, pos, &delta) < 0)
					return -1;
				delta *= sign;
				break;
			}
			if (isblank((unsigned char)s[i]))
				continue;
			if (!s[i] || s[i] == '\n') {
				*pos = i - 1;
				break;
			}
			*pos = i;
			return -1;
		}
		set_from(t, now + delta, true);
		return 1;
	}
	return 0;
}

time_t job_opt_parse_begin(const char *s, time_t now, int *ret_pos)
{
	struct tparts t = {-1, -1, 0, -1, -1, -1};
	struct tm nt, res = {0};
	int pos, r;

	localtime_r(&now, &nt);
	for (pos = 0; s[pos] && s[pos] != '\n'; pos++) {
		if (isblank((unsigned char)s[pos]) || s[pos] == '-' || s[pos] == 'T')
			continue;
		r = begin_word(s, &pos, &t, now);
		if (r > 0)
			continue;
		if (r < 0 || !dig(s, pos))
			goto bad;
		if (s[pos + 1] == ':' || (s[pos + 1] && s[pos + 2] == ':'))
			r = get_time(s, &pos, &t);
		else
			r = get_date(s, &pos, &t);
		if (r < 0)
			goto bad;
	}
	if (t.hour == -1 && t.mon == -1)
		return 0;
	if (t.hour == -1) {
		t.hour = t.min = 0;
	} else if (t.mon == -1) { /* a time alone is the next one to come */
		bool today = t.hour > nt.tm_hour || (t.hour == nt.tm_hour && t.min > nt.tm_min);

		set_from(&t, now + (today ? 0 : 86400), false);
	}
	if (t.year == -1) {
		bool later = t.mon > nt.tm_mon
			     || (t.mon == nt.tm_mon
				 && (t.mday > nt.tm_mday
				     || (t.mday == nt.tm_mday
					 && (t.hour > nt.tm_hour
					     || (t.hour == nt.tm_hour && t.min > nt.tm_min)))));

		t.year = nt.tm_year + (later ? 0 : 1);
	}
	res.tm_sec = t.sec;
	res.tm_min = t.min;
	res.tm_hour = t.hour;
	res.tm_mday = t.mday;
	res.tm_mon = t.mon;
	res.tm_year = t.year;
	res.tm_isdst = -1;
	return mktime(&res);
bad:
	if (ret_pos)
		*ret_pos = pos;
	return (time_t)-1;
}
