/* gpu_bind.c - see gpu_bind.h. */
#include "gpu_bind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "N" with N >= 1 (at most 65535, Slurm's tasks per GPU bound). */
static int parse_count(const char *s, uint32_t *ret)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (*end || v == 0 || v > 65535)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

/* One map_gpu/mask_gpu entry "v[*rep]": digits (hex for masks, also with
 * 0x), then an optional repetition. Sets *next past it and its comma. */
static int parse_entry(const char *s, bool is_mask, uint64_t *ret_v, uint32_t *ret_rep,
		       const char **next)
{
	const char *p = s;
	char *end;
	unsigned long long v;

	if (!strncmp(p, "0x", 2) || !strncmp(p, "0X", 2))
		p += 2;
	else if (!is_mask && (*p < '0' || *p > '9'))
		return -EINVAL;
	if (!*p || *p == ',' || *p == '*')
		return -EINVAL;
	errno = 0;
	v = strtoull(p, &end, p != s || is_mask ? 16 : 10);
	if (errno || end == p)
		return -EINVAL;
	*ret_rep = 1;
	if (*end == '*') {
		unsigned long rep = strtoul(end + 1, &end, 10);

		if (rep > 65535)
			return -EINVAL;
		*ret_rep = rep ? (uint32_t)rep : 1; /* Slurm: a count of 0 is taken as 1 */
	}
	if (*end && *end != ',')
		return -EINVAL;
	if (!is_mask && v >= GPU_BIND_MAX)
		return -EINVAL;
	*ret_v = is_mask ? (uint64_t)v : UINT64_C(1) << v;
	*next = *end ? end + 1 : end;
	return 0;
}

static int check_list(const char *list, bool is_mask)
{
	uint64_t v;
	uint32_t rep;

	if (!*list)
		return -EINVAL;
	while (*list)
		if (parse_entry(list, is_mask, &v, &rep, &list) < 0)
			return -EINVAL;
	return 0;
}

/* One token of the comma list; the map/mask list takes the rest. */
static int parse_token(const char *t, size_t len, struct gpu_bind *b, bool *is_rest)
{
	char buf[32];

	*is_rest = false;
	if (!strncmp(t, "map_gpu:", 8) || !strncmp(t, "mask_gpu:", 9)) {
		bool is_mask = t[1] == 'a' && t[2] == 's';

		if (b->type != GPU_BIND_UNSET)
			return -EINVAL;
		b->type = is_mask ? GPU_BIND_MASK : GPU_BIND_MAP;
		b->list = t + (is_mask ? 9 : 8);
		*is_rest = true;
		return check_list(b->list, is_mask);
	}
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, t, len);
	buf[len] = '\0';
	if (!strcmp(buf, "verbose")) {
		b->is_verbose = true;
		return 0;
	}
	if (b->type != GPU_BIND_UNSET)
		return -EINVAL; /* one binding at most */
	if (!strcmp(buf, "none"))
		b->type = GPU_BIND_NONE;
	else if (!strcmp(buf, "closest"))
		b->type = GPU_BIND_CLOSEST;
	else if (!strncmp(buf, "single:", 7))
		b->type = GPU_BIND_SINGLE;
	else if (!strncmp(buf, "per_task:", 9))
		b->type = GPU_BIND_PER_TASK;
	else
		return -EINVAL;
	if (b->type == GPU_BIND_SINGLE && parse_count(buf + 7, &b->n) < 0)
		b->n = 1; /* Slurm: not a valid number, "Defaulting to 1" */
	if (b->type == GPU_BIND_PER_TASK)
		return parse_count(buf + 9, &b->n);
	return 0;
}

int gpu_bind_parse(const char *v, struct gpu_bind *ret)
{
	struct gpu_bind b = {.type = GPU_BIND_UNSET};

	*ret = b;
	if (!v || !*v)
		return 0;
	for (const char *t = v; *t;) {
		size_t len = strcspn(t, ",");
		bool is_rest;

		if (!len || parse_token(t, len, &b, &is_rest) < 0)
			return -EINVAL;
		if (is_rest)
			break;
		t += len;
		if (*t == ',' && !*++t)
			return -EINVAL; /* a trailing comma */
	}
	*ret = b;
	return 0;
}

/* The entry of a map/mask list at position pos (repetitions expanded,
 * wrapping); 0 when the list is empty or malformed. */
static uint64_t list_entry(const char *list, bool is_mask, uint32_t pos)
{
	uint64_t total = 0, v;
	uint32_t rep;
	const char *p;

	for (p = list; *p;) {
		if (parse_entry(p, is_mask, &v, &rep, &p) < 0)
			return 0;
		total += rep;
	}
	if (!total)
		return 0;
	pos = (uint32_t)(pos % total);
	for (p = list; *p;) {
		if (parse_entry(p, is_mask, &v, &rep, &p) < 0)
			return 0;
		if (pos < rep)
			return v;
		pos -= rep;
	}
	return 0;
}

/* The bit of the k-th (from 0) set bit of mask; 0 when there are fewer. */
static uint64_t nth_bit(uint64_t mask, uint32_t k)
{
	for (; mask; mask &= mask - 1, k--)
		if (!k)
			return mask & -mask;
	return 0;
}

uint64_t gpu_bind_task(const struct gpu_bind *b, uint64_t step, uint64_t closest, uint32_t ltid)
{
	uint32_t count = (uint32_t)__builtin_popcountll(step);
	uint64_t near = closest & step ? closest & step : step;
	uint64_t out = 0;

	if (!count)
		return 0;
	switch (b->type) {
	case GPU_BIND_CLOSEST:
		out = near;
		break;
	case GPU_BIND_SINGLE: /* the Nth of the nearest, else all of them */
		out = nth_bit(near, ltid / b->n);
		if (!out)
			out = near;
		break;
	case GPU_BIND_PER_TASK:
		for (uint32_t j = 0; j < b->n && j < count; j++)
			out |= nth_bit(step, (uint32_t)(((uint64_t)ltid * b->n + j) % count));
		break;
	case GPU_BIND_MAP:
		out = list_entry(b->list, false, ltid) & step;
		break;
	case GPU_BIND_MASK:
		out = list_entry(b->list, true, ltid) & step;
		break;
	default:
		break;
	}
	return out ? out : step;
}

void gpu_bind_list(uint64_t mask, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < GPU_BIND_MAX && len < size; i++)
		if (mask & (UINT64_C(1) << i))
			len += (size_t)snprintf(buf + len, size - len, "%s%u", len ? "," : "", i);
}
