/* assoc_usage.h - decayed usage of associations and QOS: what Fair Tree
 * ranks on.
 *
 * Every second each running job's billing (its CPUs) times the seconds
 * since the last charge, times its QOS UsageFactor, is added to its
 * association and every parent up to root, and to its QOS. All usage
 * decays with PriorityDecayHalfLife (0: no decay), applied once every
 * PriorityCalcPeriod for the time since the last decay (as Slurm's decay
 * pass; the downtime of a restart too), and is reset to 0 at each
 * PriorityUsageResetPeriod boundary (NOW: once at start). The usage and
 * the time of the last decay are saved by association id in
 * StateSaveLocation/assoc_usage (atomic replace) every PriorityCalcPeriod
 * and at shutdown, and loaded at start; loaded values wait until the
 * association table holds their ids (it may be loaded after).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct assoc;
struct assoc_table;
struct ctld;
struct qos;

#define ASSOC_USAGE_FILE "assoc_usage"

struct usage_saved {
	uint32_t id;
	bool is_qos;
	double usage;
};

struct assoc_usage {
	time_t last_charge; /* 0: never (the first call only starts the clock) */
	time_t last_decay;  /* 0: never (the first call only starts the clock) */
	time_t next_reset;  /* 0: not computed yet */
	bool is_reset_now_done;
	struct usage_saved *pending; /* loaded, not yet applied */
	uint32_t pending_count;
};

/* 2^(-elapsed / half-life): what is left of usage after elapsed seconds;
 * 1 with no half-life. */
double assoc_usage_decay(uint32_t half_life_secs, double elapsed);
/* Multiplies every association's and QOS's usage by factor. */
void assoc_usage_scale(struct assoc_table *t, double factor);
/* Adds amount to a and each of its parents, and to q (either may be NULL). */
void assoc_usage_add(struct assoc *a, struct qos *q, double amount);
/* The first reset boundary after t (local time), 0 for NONE and NOW. */
time_t assoc_usage_next_reset(uint16_t period, time_t t);

/* The per-second work above (charges and resets), for the controller's
 * timer. Returns true when usage changed. */
bool assoc_usage_tick(struct ctld *c, struct assoc_usage *u, time_t now);
/* The decay since the last one, for each PriorityCalcPeriod. */
void assoc_usage_decay_all(struct ctld *c, struct assoc_usage *u, time_t now);

/* The file: pack t's usage and last_decay into dir/assoc_usage (tmp,
 * fsync, rename). */
int assoc_usage_save(const struct assoc_table *t, time_t last_decay, const char *dir);
/* Read dir/assoc_usage into u->pending and u->last_decay; 0 when the
 * file is absent, -EINVAL
 * on a damaged file (ignored: usage starts at 0). */
int assoc_usage_load(struct assoc_usage *u, const char *dir);
/* Apply u->pending to t's ids (unknown ids are dropped) and clear it. */
void assoc_usage_apply_pending(struct assoc_usage *u, struct assoc_table *t);
void assoc_usage_done(struct assoc_usage *u);
