/* parse_mem.c - --mem style sizes in, TRES style sizes out.
 *
 * Purpose: read "4G"/"512K"/"100" into MB and print MB the way Slurm's
 * TRES strings do ("4000M", "1G", "1.50G").
 * Caveat: the printer follows Slurm's floating-point rule on purpose,
 * including two decimals for values that are not whole in the final unit.
 */
#include "parse_mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "macros.h"

static uint64_t unit_scale(char c)
{
	switch (c) {
	case 'k':
	case 'K':
		return 0; /* divide, handled by the caller */
	case 'm':
	case 'M':
		return 1;
	case 'g':
	case 'G':
		return 1024;
	case 't':
	case 'T':
		return 1024 * 1024;
	default:
		return UINT64_MAX; /* not a unit */
	}
}

int mem_str2mb(const char *s, uint64_t *ret_mb)
{
	uint64_t v = 0, scale = 1;
	const char *p = s;

	if (!s || *p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (uint64_t)INT64_MAX / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p) {
		scale = unit_scale(*p);
		if (scale == UINT64_MAX)
			return -EINVAL;
		p++;
		if (*p == 'B' || *p == 'b')
			p++;
		if (*p)
			return -EINVAL;
	}
	if (scale == 0)
		v = v / 1024 + (v % 1024 != 0); /* K rounds up */
	else if (v > (uint64_t)INT64_MAX / scale)
		return -EINVAL;
	else
		v *= scale;
	if (v > (uint64_t)INT64_MAX)
		return -EINVAL;
	*ret_mb = v;
	return 0;
}

char *mem_mb2str(uint64_t mb, char *buf, size_t n)
{
	static const char units[] = "MGTP?";
	double num = (double)mb;
	size_t u = 0;

	if (mb == 0) {
		snprintf(buf, n, "0");
		return buf;
	}
	/* 0x1p64 is the only double at or above 2^64 we can meet (from
	 * UINT64_MAX); it is a multiple of 512, and the cast would be UB. */
	while (num >= 1024 && (num >= 0x1p64 || (uint64_t)num % 512 == 0)) {
		num /= 1024;
		u++;
	}
	if (u > 4)
		u = 4; /* past P Slurm prints '?' */
	if (num < 0x1p64 && (double)(uint64_t)num == num)
		snprintf(buf, n, "%" PRIu64 "%c", (uint64_t)num, units[u]);
	else
		snprintf(buf, n, "%.2f%c", num, units[u]);
	return buf;
}
