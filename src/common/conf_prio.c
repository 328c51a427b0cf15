/* conf_prio.c - see conf_prio.h. */
#include "conf_prio.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "conf_internal.h"
#include "errprintf.h"
#include "macros.h"

static const struct {
	const char *name;
	uint32_t flag;
} flag_names[] = {
    /* Slurm's order in scontrol show config */
    {"ACCRUE_ALWAYS", PRIO_FLAG_ACCRUE_ALWAYS},
    {"SMALL_RELATIVE_TO_TIME", PRIO_FLAG_SMALL_RELATIVE_TO_TIME},
    {"CALCULATE_RUNNING", PRIO_FLAG_CALCULATE_RUNNING},
    {"DEPTH_OBLIVIOUS", PRIO_FLAG_DEPTH_OBLIVIOUS},
    {"NO_FAIR_TREE", PRIO_FLAG_NO_FAIR_TREE},
    {"INCR_ONLY", PRIO_FLAG_INCR_ONLY},
    {"MAX_TRES", PRIO_FLAG_MAX_TRES},
    {"NO_NORMAL_ASSOC", PRIO_FLAG_NO_NORMAL_ASSOC},
    {"NO_NORMAL_PART", PRIO_FLAG_NO_NORMAL_PART},
    {"NO_NORMAL_QOS", PRIO_FLAG_NO_NORMAL_QOS},
    {"NO_NORMAL_TRES", PRIO_FLAG_NO_NORMAL_TRES},
};

static const char *const reset_names[] = {
    [PRIO_RESET_NONE] = "NONE",	      [PRIO_RESET_NOW] = "NOW",
    [PRIO_RESET_DAILY] = "DAILY",     [PRIO_RESET_WEEKLY] = "WEEKLY",
    [PRIO_RESET_MONTHLY] = "MONTHLY", [PRIO_RESET_QUARTERLY] = "QUARTERLY",
    [PRIO_RESET_YEARLY] = "YEARLY",
};

char *conf_prio_flags_str(uint32_t flags, char *buf, size_t n)
{
	size_t len = 0;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(flag_names) && len < n; i++)
		if (flags & flag_names[i].flag) {
			int r = snprintf(buf + len, n - len, "%s%s", len ? "," : "",
					 flag_names[i].name);

			len += r > 0 ? (size_t)r : 0;
		}
	return buf;
}

const char *conf_prio_reset_name(uint16_t reset)
{
	return reset < ARRAY_SIZE(reset_names) ? reset_names[reset] : "NONE";
}

int conf_key_prio_flags(void *base, const struct conf_key *k, const char *val,
			const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;
	_cleanup_free_ char *copy = strdup(val);
	uint32_t flags = 0;
	char *save = NULL;

	if (!copy)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		if (strcaseeq(w, "FAIR_TREE"))
			continue; /* the default */
		if (strcaseeq(w, "NO_NORMAL_ALL")) {
			flags |= PRIO_FLAG_NO_NORMAL_ALL;
			continue;
		}
		while (i < ARRAY_SIZE(flag_names) && !strcaseeq(w, flag_names[i].name))
			i++;
		if (i == ARRAY_SIZE(flag_names))
			return conf_bad_value(k, val, at, "unknown PriorityFlags word", err);
		flags |= flag_names[i].flag;
	}
	c->prio_flags = flags;
	return 0;
}

int conf_key_prio_reset(void *base, const struct conf_key *k, const char *val,
			const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;

	for (size_t i = 0; i < ARRAY_SIZE(reset_names); i++)
		if (strcaseeq(val, reset_names[i])) {
			c->prio_reset_period = (uint16_t)i;
			return 0;
		}
	return conf_bad_value(
	    k, val, at, "expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY", err);
}

static bool is_tres_type(const char *name)
{
	static const char *const plain[] = {"cpu",    "mem",  "node",  "billing",
					    "energy", "vmem", "pages", "fs/disk"};

	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		if (strcaseeq(name, plain[i]))
			return true;
	return (!strncasecmp(name, "gres/", 5) && name[5])
	       || (!strncasecmp(name, "license/", 8) && name[8])
	       || (!strncasecmp(name, "bb/", 3) && name[3]);
}

/* One "name=weight" into out. */
static int tres_pair(char *w, struct prio_tres_weight *out)
{
	char *eq = strchr(w, '='), *end;
	double v;

	if (!eq || eq == w || eq - w >= PRIO_TRES_NAME_MAX)
		return -EINVAL;
	*eq = '\0';
	if (!is_tres_type(w) || !isdigit((unsigned char)eq[1]))
		return -EINVAL;
	errno = 0;
	v = strtod(eq + 1, &end);
	if (errno || *end || !isfinite(v) || v > 4e9)
		return -EINVAL;
	for (size_t i = 0; w[i]; i++)
		out->name[i] = (char)tolower((unsigned char)w[i]);
	out->name[eq - w] = '\0';
	out->weight = v;
	return 0;
}

int conf_prio_tres_parse(const char *s, struct prio_tres_weight *out, uint32_t max)
{
	_cleanup_free_ char *copy = s ? strdup(s) : NULL;
	char *save = NULL;
	uint32_t n = 0;

	if (!s || !*s)
		return 0;
	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (n == max || tres_pair(w, &out[n]) < 0)
			return -EINVAL;
		for (uint32_t i = 0; i < n; i++)
			if (!strcmp(out[i].name, out[n].name))
				return -EINVAL;
		n++;
	}
	return (int)n;
}

int conf_key_prio_weight_tres(void *base, const struct conf_key *k, const char *val,
			      const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;
	struct prio_tres_weight tmp[PRIO_TRES_MAX];
	int r = conf_prio_tres_parse(val, tmp, PRIO_TRES_MAX);

	if (r == -ENOMEM)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	if (r < 0)
		return conf_bad_value(k, val, at,
				      "expected TRES=weight pairs (cpu=, mem=, gres/gpu=...)", err);
	if (conf_strset(&c->prio_weight_tres, val) < 0)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	return 0;
}
