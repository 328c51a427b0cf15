/* conf_value.c - the leaf of the conf*.c files: typed values and the raw
 * key store.
 *
 * Purpose: parse one value by its row's type into a struct (conf_value_set),
 * find a row in any key table, and keep every Key=Value as written in
 * c->kv[] (conf_kv_set, conf_get_raw). It knows no table: conf_keys.c
 * (slurm.conf), conf_node.c, conf_part.c, conf_gres.c and conf_cgroup.c
 * hold theirs and call down here, so nothing here calls up into them.
 */
#include "conf_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "macros.h"
#include "msg.h"
#include "parse_mem.h"
#include "parse_time.h"

void *conf_grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 8;
	char *p;

	if (need <= *cap)
		return arr;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return NULL;
		ncap *= 2;
	}
	p = realloc(arr, ncap * elem);
	if (!p)
		return NULL;
	memset(p + *cap * elem, 0, (ncap - *cap) * elem);
	*cap = ncap;
	return p;
}

int conf_strset(char **dst, const char *val)
{
	char *s = NULL;

	if (val && *val) {
		s = strdup(val);
		if (!s)
			return -ENOMEM;
	}
	free(*dst);
	*dst = s;
	return 0;
}

const struct conf_key *conf_key_find(const struct conf_key *tab, size_t n, const char *name)
{
	int c0 = tolower((unsigned char)name[0]);

	/* the first letter first: most names differ there (the node keys of
	 * a thousand node lines are looked up here) */
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)tab[i].name[0]) == c0 && strcaseeq(tab[i].name, name))
			return &tab[i];
	return NULL;
}

bool conf_is_unlimited(const char *s)
{
	return strcaseeq(s, "UNLIMITED") || strcaseeq(s, "INFINITE");
}

/* Plain decimal, no sign, no space, no suffix. */
int conf_parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_bool(const char *s)
{
	if (strcaseeq(s, "YES") || strcaseeq(s, "TRUE") || streq(s, "1"))
		return 1;
	if (strcaseeq(s, "NO") || strcaseeq(s, "FALSE") || streq(s, "0"))
		return 0;
	return -EINVAL;
}

static int parse_part_state(const char *s)
{
	static const struct {
		const char *name;
		enum part_state state;
	} names[] = {
	    {"UP", PART_STATE_UP},
	    {"DOWN", PART_STATE_DOWN},
	    {"DRAIN", PART_STATE_DRAIN},
	    {"INACTIVE", PART_STATE_INACTIVE},
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcaseeq(s, names[i].name))
			return names[i].state;
	return -EINVAL;
}

int conf_bad_value(const struct conf_key *k, const char *val, const struct conf_where *at,
		   const char *why, struct sl_error *err)
{
	return errprintf(err, -EINVAL, "%s:%u: %s=%s: %s", at->file, at->line, k->name, val, why);
}

static int set_uint(void *field, const struct conf_key *k, const char *val,
		    const struct conf_where *at, struct sl_error *err)
{
	bool has_inf = k->type == CONF_U16_INF || k->type == CONF_U32_INF;
	bool is_16 = k->type == CONF_U16 || k->type == CONF_U16_INF;
	uint64_t v;

	if (has_inf && conf_is_unlimited(val)) {
		if (is_16)
			*(uint16_t *)field = INFINITE16;
		else
			*(uint32_t *)field = INFINITE;
		return 0;
	}
	if (conf_parse_u64(val, &v) < 0)
		return conf_bad_value(k, val, at, "not a number", err);
	if (v < k->lo || v > k->hi) {
		char why[96];

		snprintf(why, sizeof(why), "out of range %llu-%llu", (unsigned long long)k->lo,
			 (unsigned long long)k->hi);
		return conf_bad_value(k, val, at, why, err);
	}
	if (is_16)
		*(uint16_t *)field = (uint16_t)v;
	else if (k->type == CONF_U32 || k->type == CONF_U32_INF)
		*(uint32_t *)field = (uint32_t)v;
	else
		*(uint64_t *)field = v;
	return 0;
}

int conf_value_set(void *base, const struct conf_key *k, const char *val,
		   const struct conf_where *at, struct sl_error *err)
{
	void *field = (char *)base + k->off;
	uint64_t mb;
	uint32_t mins;
	int r;

	switch (k->type) {
	case CONF_RAW:
		return 0;
	case CONF_FN:
		return k->fn(base, k, val, at, err);
	case CONF_STR:
		if (!*val) /* "Key=" puts the default back */
			val = k->def;
		if (conf_strset(field, val) < 0)
			return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
		return 0;
	case CONF_BOOL:
		r = parse_bool(val);
		if (r < 0)
			return conf_bad_value(k, val, at, "expected YES or NO", err);
		*(bool *)field = r;
		return 0;
	case CONF_U16:
	case CONF_U32:
	case CONF_U64:
	case CONF_U16_INF:
	case CONF_U32_INF:
		return set_uint(field, k, val, at, err);
	case CONF_MEM:
		if (conf_is_unlimited(val))
			mb = 0;
		else if (mem_str2mb(val, &mb) < 0)
			return conf_bad_value(k, val, at, "not a memory size", err);
		if (mb < k->lo || mb > k->hi)
			return conf_bad_value(k, val, at, "out of range", err);
		*(uint64_t *)field = mb;
		return 0;
	case CONF_TIME:
		if (time_str2mins(val, &mins) < 0)
			return conf_bad_value(k, val, at, "not a time", err);
		*(uint32_t *)field = mins;
		return 0;
	case CONF_LOG:
		r = log_level_from_string(val);
		if (r < 0)
			return conf_bad_value(k, val, at, "not a debug level", err);
		*(int *)field = r;
		return 0;
	case CONF_PSTATE:
		r = parse_part_state(val);
		if (r < 0)
			return conf_bad_value(k, val, at, "expected UP, DOWN, DRAIN or INACTIVE",
					      err);
		*(uint16_t *)field = (uint16_t)r;
		return 0;
	}
	return conf_bad_value(k, val, at, "unsupported type", err);
}

int conf_kv_set(struct sl_conf *c, const char *key, const char *value)
{
	struct conf_kv *kv;
	char *v = strdup(value);

	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->kv_count; i++) {
		if (strcaseeq(c->kv[i].key, key)) {
			free(c->kv[i].value);
			c->kv[i].value = v;
			return 0;
		}
	}
	kv = realloc(c->kv, (c->kv_count + 1) * sizeof(*kv));
	if (!kv) {
		free(v);
		return -ENOMEM;
	}
	c->kv = kv;
	kv[c->kv_count].key = strdup(key);
	kv[c->kv_count].value = v;
	if (!kv[c->kv_count].key) {
		free(v);
		return -ENOMEM;
	}
	c->kv_count++;
	return 0;
}

const char *conf_get_raw(const struct sl_conf *c, const char *key)
{
	if (!c || !key)
		return NULL;
	for (uint32_t i = 0; i < c->kv_count; i++)
		if (strcaseeq(c->kv[i].key, key))
			return c->kv[i].value;
	return NULL;
}
