/* task_map.c - see task_map.h. */
#include "task_map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macros.h"
#include "pack.h"

static bool dist_word_ok(const char *w, int level)
{
	if (streq(w, "*") || streq(w, "block") || streq(w, "cyclic"))
		return true;
	if (level == 0)
		return streq(w, "arbitrary")
		       || (strncmp(w, "plane=", 6) == 0 && w[6]
			   && strspn(w + 6, "0123456789") == strlen(w + 6) && strlen(w + 6) < 6
			   && atoi(w + 6) >= 1 && atoi(w + 6) <= 65535);
	return streq(w, "fcyclic");
}

int task_dist_parse(const char *s, enum task_dist *ret_dist, uint16_t *ret_plane)
{
	_cleanup_free_ char *copy = s ? strdup(s) : NULL;
	char *pack, *save = NULL, *w;
	enum task_dist d = TASK_DIST_BLOCK;
	uint16_t plane = 0;
	int level = 0;

	if (!copy)
		return -EINVAL;
	pack = strchr(copy, ',');
	if (pack)
		*pack++ = '\0';
	for (w = strtok_r(copy, ":", &save); w; w = strtok_r(NULL, ":", &save), level++) {
		if (level > 2 || !dist_word_ok(w, level))
			return -EINVAL;
		if (level > 0)
			continue;
		if (streq(w, "cyclic"))
			d = TASK_DIST_CYCLIC;
		else if (streq(w, "arbitrary"))
			d = TASK_DIST_ARBITRARY;
		else if (strncmp(w, "plane=", 6) == 0) {
			d = TASK_DIST_PLANE;
			plane = (uint16_t)atoi(w + 6);
		}
	}
	if (level == 0 || (pack && strcasecmp(pack, "pack") && strcasecmp(pack, "nopack")))
		return -EINVAL;
	if (ret_dist)
		*ret_dist = d;
	if (ret_plane)
		*ret_plane = plane;
	return 0;
}

static bool block_equal(const struct task_block *a, const struct task_block *b)
{
	return a->start == b->start && a->count == b->count && a->per == b->per;
}

/* The shortest period of all[0..n): p with all[i] == all[i - p] (KMP's
 * failure function); n when none is shorter. */
static uint32_t min_period(const struct task_block *all, uint32_t n)
{
	_cleanup_free_ uint32_t *fail = calloc(n + 1, sizeof(*fail));
	uint32_t k = 0;

	if (!fail || n < 2)
		return n;
	for (uint32_t i = 1; i < n; i++) {
		while (k && !block_equal(&all[i], &all[k]))
			k = fail[k];
		if (block_equal(&all[i], &all[k]))
			k++;
		fail[i + 1] = k;
	}
	return n - fail[n];
}

/* Do the first p blocks of all, repeated, give node_of? */
static bool period_fits(const struct task_block *all, uint32_t p, const uint32_t *node_of,
			uint32_t ntasks)
{
	struct task_map m = {.nblocks = p, .blocks = (struct task_block *)all};
	_cleanup_free_ uint32_t *got = calloc(ntasks, sizeof(*got));

	/* UINT32_MAX nodes: no bound to check, node_of is ours */
	return got && task_map_expand(&m, UINT32_MAX, ntasks, got) == 0
	       && memcmp(got, node_of, ntasks * sizeof(*got)) == 0;
}

int task_map_build(const uint32_t *node_of, uint32_t ntasks, struct task_map *ret)
{
	struct task_block *b;
	uint32_t n = 0;

	if (!ntasks || ntasks > TASK_MAP_TASKS_MAX)
		return -EINVAL;
	b = calloc(ntasks, sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (uint32_t t = 0; t < ntasks;) {
		uint32_t len = 1;

		while (t + len < ntasks && node_of[t + len] == node_of[t])
			len++;
		/* a run on the node after the last block's, as long: extend it */
		if (n && b[n - 1].per == len && b[n - 1].start + b[n - 1].count == node_of[t])
			b[n - 1].count++;
		else
			b[n++] = (struct task_block){.start = node_of[t], .count = 1, .per = len};
		t += len;
	}
	/* The last block may be cut short by the task count (cyclic -n5 on 2
	 * nodes: (0,2,1) twice, then (0,1,1)): the period is the rest's. Any
	 * multiple of the shortest period expands alike, so one try does. */
	if (n > 1) {
		uint32_t p = min_period(b, n - 1);

		if (p < n && period_fits(b, p, node_of, ntasks))
			n = p;
	}
	*ret = (struct task_map){.nblocks = n, .blocks = b};
	return 0;
}

int task_map_expand(const struct task_map *m, uint32_t nnodes, uint32_t ntasks, uint32_t *node_of)
{
	uint32_t t = 0;

	if (!m->nblocks || !m->blocks || !ntasks || ntasks > TASK_MAP_TASKS_MAX)
		return -EINVAL;
	for (uint32_t i = 0; i < m->nblocks; i++) {
		const struct task_block *k = &m->blocks[i];

		if (!k->count || !k->per || k->start >= nnodes || k->count > nnodes - k->start)
			return -EINVAL;
	}
	/* every pass gives at least one task: this ends */
	while (t < ntasks)
		for (uint32_t i = 0; i < m->nblocks && t < ntasks; i++) {
			const struct task_block *k = &m->blocks[i];

			for (uint32_t n = 0; n < k->count && t < ntasks; n++)
				for (uint32_t j = 0; j < k->per && t < ntasks; j++)
					node_of[t++] = k->start + n;
		}
	if (nnodes == UINT32_MAX)
		return 0;
	if (nnodes > ntasks)
		return -EINVAL;
	{
		_cleanup_free_ bool *has = calloc(nnodes, sizeof(*has));

		if (!has)
			return -ENOMEM;
		for (t = 0; t < ntasks; t++)
			has[node_of[t]] = true;
		for (uint32_t n = 0; n < nnodes; n++)
			if (!has[n])
				return -EINVAL;
	}
	return 0;
}

bool task_map_equal(const struct task_map *a, const struct task_map *b)
{
	if (a->nblocks != b->nblocks)
		return false;
	for (uint32_t i = 0; i < a->nblocks; i++)
		if (!block_equal(&a->blocks[i], &b->blocks[i]))
			return false;
	return true;
}

void task_map_done(struct task_map *m)
{
	free(m->blocks);
	*m = (struct task_map){0};
}

void task_map_pack(const struct task_map *m, struct pack_buf *b)
{
	pack_u32(b, m->nblocks);
	for (uint32_t i = 0; i < m->nblocks; i++) {
		pack_u32(b, m->blocks[i].start);
		pack_u32(b, m->blocks[i].count);
		pack_u32(b, m->blocks[i].per);
	}
}

void task_map_unpack(struct pack_buf *b, struct task_map *m)
{
	uint32_t n;

	*m = (struct task_map){0};
	unpack_count(b, &n, TASK_MAP_BLOCKS_MAX, 12);
	if (b->err)
		return;
	if (!n) {
		b->err = -EINVAL;
		return;
	}
	m->blocks = calloc(n, sizeof(*m->blocks));
	if (!m->blocks) {
		b->err = -ENOMEM;
		return;
	}
	m->nblocks = n;
	for (uint32_t i = 0; i < n; i++) {
		unpack_u32(b, &m->blocks[i].start);
		unpack_u32(b, &m->blocks[i].count);
		unpack_u32(b, &m->blocks[i].per);
	}
	if (b->err)
		task_map_done(m);
}

int task_map_string(const struct task_map *m, char *buf, size_t size)
{
	size_t len;
	int w = snprintf(buf, size, "(vector");

	if (w < 0 || (size_t)w >= size)
		return -ENOSPC;
	len = (size_t)w;
	for (uint32_t i = 0; i < m->nblocks; i++) {
		w = snprintf(buf + len, size - len, ",(%u,%u,%u)", m->blocks[i].start,
			     m->blocks[i].count, m->blocks[i].per);
		if (w < 0 || (size_t)w >= size - len)
			return -ENOSPC;
		len += (size_t)w;
	}
	if (len + 2 > size)
		return -ENOSPC;
	strcpy(buf + len, ")");
	return 0;
}
