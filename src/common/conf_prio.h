/* conf_prio.h - the Priority* keys of slurm.conf: PriorityFlags words,
 * PriorityUsageResetPeriod names, PriorityWeightTRES pairs (parsed here for
 * the config table, the controller and `scontrol show config`).
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

struct conf_key;
struct conf_where;
struct sl_error;

/* PriorityFlags= (FAIR_TREE, the default algorithm, sets nothing) */
#define PRIO_FLAG_ACCRUE_ALWAYS		 (1u << 0)
#define PRIO_FLAG_SMALL_RELATIVE_TO_TIME (1u << 1)
#define PRIO_FLAG_CALCULATE_RUNNING	 (1u << 2)
#define PRIO_FLAG_DEPTH_OBLIVIOUS	 (1u << 3)
#define PRIO_FLAG_NO_FAIR_TREE		 (1u << 4)
#define PRIO_FLAG_INCR_ONLY		 (1u << 5)
#define PRIO_FLAG_MAX_TRES		 (1u << 6)
#define PRIO_FLAG_NO_NORMAL_ASSOC	 (1u << 7)
#define PRIO_FLAG_NO_NORMAL_PART	 (1u << 8)
#define PRIO_FLAG_NO_NORMAL_QOS		 (1u << 9)
#define PRIO_FLAG_NO_NORMAL_TRES	 (1u << 10)
#define PRIO_FLAG_NO_NORMAL_ALL                                                                    \
	(PRIO_FLAG_NO_NORMAL_ASSOC | PRIO_FLAG_NO_NORMAL_PART | PRIO_FLAG_NO_NORMAL_QOS            \
	 | PRIO_FLAG_NO_NORMAL_TRES)

/* PriorityUsageResetPeriod= */
enum prio_reset {
	PRIO_RESET_NONE,
	PRIO_RESET_NOW,
	PRIO_RESET_DAILY,
	PRIO_RESET_WEEKLY,
	PRIO_RESET_MONTHLY,
	PRIO_RESET_QUARTERLY,
	PRIO_RESET_YEARLY,
};

#define PRIO_TRES_MAX	   8 /* PriorityWeightTRES entries */
#define PRIO_TRES_NAME_MAX 64

struct prio_tres_weight {
	char name[PRIO_TRES_NAME_MAX]; /* lower case: "cpu", "mem", "gres/gpu" */
	double weight;
};

/* "cpu=1000,mem=2000,gres/gpu=3000" -> out (at most max); returns the
 * count, or -EINVAL (unknown TRES type, bad number, too many, repeated). */
int conf_prio_tres_parse(const char *s, struct prio_tres_weight *out, uint32_t max);
/* The flags as Slurm lists them, comma separated ("" for none). */
char *conf_prio_flags_str(uint32_t flags, char *buf, size_t n);
const char *conf_prio_reset_name(uint16_t reset);

/* conf key table rows (conf_keys.c) */
int conf_key_prio_flags(void *base, const struct conf_key *k, const char *val,
			const struct conf_where *at, struct sl_error *err);
int conf_key_prio_reset(void *base, const struct conf_key *k, const char *val,
			const struct conf_where *at, struct sl_error *err);
int conf_key_prio_weight_tres(void *base, const struct conf_key *k, const char *val,
			      const struct conf_where *at, struct sl_error *err);
