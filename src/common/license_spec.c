/* license_spec.c - see license_spec.h. Purpose: one parser for the
 * license lists of slurm.conf and of jobs, so both refuse the same junk. */
#include "license_spec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool is_name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
	       || ch == '_' || ch == '.' || ch == '@' || ch == '+' || ch == '-';
}

/* One "name[:count]" of len bytes at p into *it. */
static int parse_item(const char *p, size_t len, int is_zero_ok, struct license_item *it)
{
	size_t nl = 0;
	uint64_t count = 0;

	while (nl < len && is_name_char(p[nl]))
		nl++;
	if (nl == 0 || nl > LICENSE_NAME_MAX)
		return -EINVAL;
	memcpy(it->name, p, nl);
	it->name[nl] = '\0';
	if (nl == len) {
		it->count = 1;
		return 0;
	}
	if ((p[nl] != ':' && p[nl] != '*') || nl + 1 == len)
		return -EINVAL;
	for (size_t i = nl + 1; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -EINVAL;
		count = count * 10 + (uint64_t)(p[i] - '0');
		if (count > LICENSE_COUNT_MAX)
			return -EINVAL;
	}
	if (count == 0 && !is_zero_ok)
		return -EINVAL;
	it->count = (uint32_t)count;
	return 0;
}

int license_spec_parse(const char *s, int is_zero_ok, struct license_item **ret, uint32_t *ret_n)
{
	struct license_item *items;
	uint32_t n = 0, words = 1;

	*ret = NULL;
	*ret_n = 0;
	if (!s || !*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) /* the scheduler asks for each job: no bigger */
		words += *p == ',';
	if (words > LICENSE_LIST_MAX)
		return -EINVAL;
	items = calloc(words, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (const char *p = s;;) {
		size_t len = strcspn(p, ",");
		struct license_item it;
		uint32_t k = 0;

		if (parse_item(p, len, is_zero_ok, &it) < 0)
			goto bad;
		while (k < n && strcmp(items[k].name, it.name))
			k++;
		if (k < n) {
			items[k].count += it.count;
			if (items[k].count > LICENSE_COUNT_MAX)
				goto bad;
		} else {
			items[n++] = it;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	*ret = items;
	*ret_n = n;
	return 0;
bad:
	free(items);
	return -EINVAL;
}
