/* states.c - node state names for sinfo, scontrol and update requests.
 *
 * Purpose: turn a state word into exactly the text Slurm 22.05 prints.
 * Two different renderings exist and both are needed: the display name
 * (one word chosen by precedence, plus at most one suffix character, used
 * by sinfo) and the complete name (base plus every flag, used by scontrol).
 * Caveat: Slurm's compact renderer never reaches the whole-value special
 * names (POWER_DOWN, CLOUD, ...) because it masks the state first; we keep
 * that, so such a state is "POWER_DOWN" long but "UNK" compact.
 */
#include "states.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "macros.h"

/* ---- display names (sinfo) ---- */

struct display {
	const char *lng;
	const char *cmp;
	const char *sfx;
};

#define DISPLAY(l, c, s) ((struct display){.lng = (l), .cmp = (c), .sfx = (s)})

/* Suffix flags in the order Slurm tests them. */
static const struct {
	uint32_t flag;
	const char *sfx;
} suffix_flags[] = {
    {NODE_STATE_MAINT, "$"},
    {NODE_STATE_REBOOT_ISSUED, "^"},
    {NODE_STATE_REBOOT_REQUESTED, "@"},
    {NODE_STATE_POWERING_UP, "#"},
    {NODE_STATE_POWERING_DOWN, "%"},
    {NODE_STATE_POWERED_DOWN, "~"},
    {NODE_STATE_POWER_DOWN, "!"},
    {NODE_STATE_NO_RESPOND, "*"},
};

/* States that print their own name when they are the whole value. */
static const struct {
	uint32_t state;
	const char *lng;
} whole_value_names[] = {
    /* (Slurm also lists REBOOT_ISSUED, but the REBOOT rule in
     * node_display() always takes that state first.) */
    {NODE_STATE_REBOOT_CANCEL, "CANCEL_REBOOT"}, {NODE_STATE_CLOUD, "CLOUD"},
    {NODE_STATE_POWER_DOWN, "POWER_DOWN"},	 {NODE_STATE_POWER_UP, "POWER_UP"},
    {NODE_STATE_POWERING_DOWN, "POWERING_DOWN"}, {NODE_STATE_POWERED_DOWN, "POWERED_DOWN"},
    {NODE_STATE_POWERING_UP, "POWERING_UP"},
};

static const char *flag_suffix(uint32_t s)
{
	for (size_t i = 0; i < ARRAY_SIZE(suffix_flags); i++)
		if (s & suffix_flags[i].flag)
			return suffix_flags[i].sfx;
	return "";
}

static struct display display_idle(uint32_t s, const char *fs)
{
	if (*fs)
		return DISPLAY("IDLE", "IDLE", fs);
	if (s & NODE_STATE_NET)
		return DISPLAY("PERFCTRS", "NPC", "");
	if (s & NODE_STATE_RES)
		return DISPLAY("RESERVED", "RESV", "");
	if (s & NODE_STATE_PLANNED)
		return DISPLAY("PLANNED", "PLND", "");
	return DISPLAY("IDLE", "IDLE", "");
}

/* Slurm's precedence, written once for the long and the compact name. */
static struct display node_display(uint32_t s)
{
	uint32_t base = s & NODE_STATE_BASE;
	bool busy = base == NODE_STATE_ALLOCATED || base == NODE_STATE_MIXED;
	const char *fs = flag_suffix(s);
	const char *nr = (s & NODE_STATE_NO_RESPOND) ? "*" : "";

	if (s & NODE_STATE_INVALID_REG)
		return DISPLAY("INVAL", "INVAL", "");
	if ((s & NODE_STATE_MAINT) && !(s & NODE_STATE_DRAIN) && !busy && base != NODE_STATE_DOWN)
		return DISPLAY("MAINT", "MAINT", nr);
	if ((s & (NODE_STATE_REBOOT_REQUESTED | NODE_STATE_REBOOT_ISSUED)) && !busy)
		return DISPLAY("REBOOT", "BOOT", (s & NODE_STATE_REBOOT_ISSUED) ? "^" : nr);
	if (s & NODE_STATE_DRAIN) {
		if ((s & NODE_STATE_COMPLETING) || busy)
			return DISPLAY("DRAINING", "DRNG", fs);
		return DISPLAY("DRAINED", "DRAIN", fs);
	}
	if (s & NODE_STATE_FAIL) {
		if ((s & NODE_STATE_COMPLETING) || base == NODE_STATE_ALLOCATED)
			return DISPLAY("FAILING", "FAILG", nr);
		return DISPLAY("FAIL", "FAIL", nr);
	}
	for (size_t i = 0; i < ARRAY_SIZE(whole_value_names); i++)
		if (s == whole_value_names[i].state) /* compact: see file comment */
			return DISPLAY(whole_value_names[i].lng, "UNK", "");
	if (base == NODE_STATE_DOWN)
		return DISPLAY("DOWN", "DOWN", fs);
	if (base == NODE_STATE_ALLOCATED)
		return DISPLAY("ALLOCATED", "ALLOC",
			       *fs			     ? fs
			       : (s & NODE_STATE_COMPLETING) ? "+"
							     : "");
	if (s & NODE_STATE_COMPLETING)
		return DISPLAY("COMPLETING", "COMP", fs);
	if (base == NODE_STATE_IDLE)
		return display_idle(s, fs);
	if (base == NODE_STATE_MIXED)
		return DISPLAY("MIXED", "MIX", *fs ? fs : (s & NODE_STATE_PLANNED) ? "-" : "");
	if (base == NODE_STATE_FUTURE)
		return DISPLAY("FUTURE", "FUTR", fs);
	if (s & NODE_RESUME)
		return DISPLAY("RESUME", "RESM", "");
	if (base == NODE_STATE_UNKNOWN)
		return DISPLAY("UNKNOWN", "UNK", nr);
	return DISPLAY("?", "?", "");
}

const char *node_state_string(uint32_t state)
{
	return node_display(state).lng;
}

const char *node_state_compact(uint32_t state)
{
	return node_display(state).cmp;
}

const char *node_state_suffix(uint32_t state)
{
	return node_display(state).sfx;
}

char *node_state_sinfo(uint32_t state, bool is_long, char *buf, size_t n)
{
	struct display d = node_display(state);
	size_t i;

	if (n == 0)
		return buf;
	snprintf(buf, n, "%s%s", is_long ? d.lng : d.cmp, d.sfx);
	for (i = 0; buf[i]; i++)
		buf[i] = (char)tolower((unsigned char)buf[i]);
	return buf;
}

/* ---- complete names (scontrol) ---- */

static const char *const node_state_base_names[] = {
    [NODE_STATE_UNKNOWN] = "UNKNOWN", [NODE_STATE_DOWN] = "DOWN",
    [NODE_STATE_IDLE] = "IDLE",	      [NODE_STATE_ALLOCATED] = "ALLOCATED",
    [NODE_STATE_ERROR] = "ERROR",     [NODE_STATE_MIXED] = "MIXED",
    [NODE_STATE_FUTURE] = "FUTURE",
};
_Static_assert(ARRAY_SIZE(node_state_base_names) == _NODE_STATE_BASE_MAX,
	       "node_state_base_names[] must name every node_state_base");

/* Flag names in Slurm's table order, which is the order scontrol prints. */
static const struct {
	uint32_t flag;
	const char *name;
} node_state_flag_names[] = {
    {NODE_STATE_CLOUD, "CLOUD"},
    {NODE_STATE_COMPLETING, "COMPLETING"},
    {NODE_STATE_DRAIN, "DRAIN"},
    {NODE_STATE_DYNAMIC_FUTURE, "DYNAMIC_FUTURE"},
    {NODE_STATE_DYNAMIC_NORM, "DYNAMIC_NORM"},
    {NODE_STATE_INVALID_REG, "INVALID_REG"},
    {NODE_STATE_FAIL, "FAIL"},
    {NODE_STATE_MAINT, "MAINTENANCE"},
    {NODE_STATE_POWER_DOWN, "POWER_DOWN"},
    {NODE_STATE_POWER_UP, "POWER_UP"},
    {NODE_STATE_NET, "PERFCTRS"},
    {NODE_STATE_POWERED_DOWN, "POWERED_DOWN"},
    {NODE_STATE_REBOOT_REQUESTED, "REBOOT_REQUESTED"},
    {NODE_STATE_REBOOT_ISSUED, "REBOOT_ISSUED"},
    {NODE_STATE_RES, "RESERVED"},
    {NODE_RESUME, "RESUME"},
    {NODE_STATE_NO_RESPOND, "NOT_RESPONDING"},
    {NODE_STATE_PLANNED, "PLANNED"},
    {NODE_STATE_POWERING_UP, "POWERING_UP"},
    {NODE_STATE_POWERING_DOWN, "POWERING_DOWN"},
};

size_t node_state_flag_list(uint32_t state, const char **names, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < ARRAY_SIZE(node_state_flag_names) && k < max; i++)
		if (state & NODE_STATE_FLAGS & node_state_flag_names[i].flag)
			names[k++] = node_state_flag_names[i].name;
	return k;
}

const char *node_state_base_name(uint32_t state)
{
	uint32_t base = state & NODE_STATE_BASE;

	return base < _NODE_STATE_BASE_MAX ? node_state_base_names[base] : "INVALID";
}

char *node_state_scontrol(uint32_t state, char *buf, unsigned n)
{
	uint32_t base = state & NODE_STATE_BASE, flags = state & NODE_STATE_FLAGS;
	size_t len;

	if (n == 0)
		return buf;
	snprintf(buf, n, "%s",
		 base < _NODE_STATE_BASE_MAX ? node_state_base_names[base] : "INVALID");
	for (size_t i = 0; i < ARRAY_SIZE(node_state_flag_names); i++) {
		if (!(flags & node_state_flag_names[i].flag))
			continue;
		flags &= ~node_state_flag_names[i].flag;
		len = strlen(buf);
		snprintf(buf + len, n - len, "+%s", node_state_flag_names[i].name);
	}
	for (; flags; flags &= flags - 1) { /* bits no table names */
		len = strlen(buf);
		snprintf(buf + len, n - len, "+?");
	}
	return buf;
}

/* ---- update requests ---- */

static const char *const node_update_names[] = {
    [NODE_UPDATE_DOWN] = "DOWN",
    [NODE_UPDATE_DRAIN] = "DRAIN",
    [NODE_UPDATE_FAIL] = "FAIL",
    [NODE_UPDATE_RESUME] = "RESUME",
    [NODE_UPDATE_UNDRAIN] = "UNDRAIN",
    [NODE_UPDATE_IDLE] = "IDLE",
    [NODE_UPDATE_NORESP] = "NoResp",
    [NODE_UPDATE_FUTURE] = "FUTURE",
    [NODE_UPDATE_POWER_DOWN] = "POWER_DOWN",
    [NODE_UPDATE_POWER_DOWN_ASAP] = "POWER_DOWN_ASAP",
    [NODE_UPDATE_POWER_DOWN_FORCE] = "POWER_DOWN_FORCE",
    [NODE_UPDATE_POWER_UP] = "POWER_UP",
    [NODE_UPDATE_CANCEL_REBOOT] = "CANCEL_REBOOT",
    [NODE_UPDATE_UNKNOWN] = "UNKNOWN",
    [NODE_UPDATE_ALLOCATED] = "ALLOCATED",
    [NODE_UPDATE_MIXED] = "MIXED",
};
_Static_assert(ARRAY_SIZE(node_update_names) == _NODE_UPDATE_MAX,
	       "node_update_names[] must name every node_update_state");

/* scontrol's matching order and minimum abbreviation lengths. */
static const struct {
	enum node_update_state state;
	size_t min_len;
} node_update_match[] = {
    {NODE_UPDATE_NORESP, 3},
    {NODE_UPDATE_CANCEL_REBOOT, 3},
    {NODE_UPDATE_DRAIN, 3},
    {NODE_UPDATE_FAIL, 3},
    {NODE_UPDATE_FUTURE, 3},
    {NODE_UPDATE_RESUME, 3},
    {NODE_UPDATE_POWER_DOWN_ASAP, 12},
    {NODE_UPDATE_POWER_DOWN_FORCE, 12},
    {NODE_UPDATE_POWER_DOWN, 7},
    {NODE_UPDATE_POWER_UP, 7},
    {NODE_UPDATE_UNDRAIN, 3},
    {NODE_UPDATE_UNKNOWN, 3},
    {NODE_UPDATE_DOWN, 3},
    {NODE_UPDATE_IDLE, 3},
    {NODE_UPDATE_ALLOCATED, 3},
    {NODE_UPDATE_MIXED, 3},
};
_Static_assert(ARRAY_SIZE(node_update_match) == _NODE_UPDATE_MAX - 1,
	       "node_update_match[] must list every node_update_state");

int node_update_state_from_string(const char *s, enum node_update_state *ret)
{
	size_t len;

	if (!s)
		return -EINVAL;
	len = strlen(s);
	for (size_t i = 0; i < ARRAY_SIZE(node_update_match); i++) {
		const char *kw = node_update_names[node_update_match[i].state];
		size_t cmp =
		    len > node_update_match[i].min_len ? len : node_update_match[i].min_len;

		/* Comparing max(len, min) bytes makes "dra" match DRAIN but
		 * not "dr" (too short) nor "drains" (longer than DRAIN). */
		if (strncasecmp(s, kw, cmp) == 0) {
			*ret = node_update_match[i].state;
			return 0;
		}
	}
	return -EINVAL;
}

const char *node_update_state_to_string(enum node_update_state s)
{
	if ((int)s <= 0 || s >= _NODE_UPDATE_MAX)
		return NULL;
	return node_update_names[s];
}
