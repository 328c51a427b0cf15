/* states.h - node state numbers and names as Slurm 22.05 prints them (R24).
 *
 * A node state is a base state in the low 4 bits plus flag bits, with the
 * same numbers as Slurm so that logs and saved state read the same.
 *
 * Which function for which output:
 *   sinfo %T / StateLong   node_state_sinfo(s, true, ..)   "idle", "draining*"
 *   sinfo %t / StateCompact node_state_sinfo(s, false, ..) "mix", "drain*"
 *   scontrol show node      node_state_scontrol()          "IDLE+DRAIN"
 * node_state_string(s) + node_state_suffix(s) is exactly Slurm's upper-case
 * node_state_string(), node_state_compact(s) + node_state_suffix(s) its
 * node_state_string_compact(); sinfo lower-cases those.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum node_state_base {
	NODE_STATE_UNKNOWN = 0,
	NODE_STATE_DOWN = 1,
	NODE_STATE_IDLE = 2,
	NODE_STATE_ALLOCATED = 3,
	NODE_STATE_ERROR = 4,
	NODE_STATE_MIXED = 5,
	NODE_STATE_FUTURE = 6,
	_NODE_STATE_BASE_MAX,
};
#define NODE_STATE_BASE		    0x0000000fu
#define NODE_STATE_FLAGS	    0xfffffff0u
#define NODE_STATE_NET		    0x00000010u /* network performance counters */
#define NODE_STATE_RES		    0x00000020u
#define NODE_STATE_UNDRAIN	    0x00000040u /* update requests only */
#define NODE_STATE_CLOUD	    0x00000080u
#define NODE_RESUME		    0x00000100u /* update requests only */
#define NODE_STATE_DRAIN	    0x00000200u
#define NODE_STATE_COMPLETING	    0x00000400u
#define NODE_STATE_NO_RESPOND	    0x00000800u
#define NODE_STATE_POWERED_DOWN	    0x00001000u
#define NODE_STATE_FAIL		    0x00002000u
#define NODE_STATE_POWERING_UP	    0x00004000u
#define NODE_STATE_MAINT	    0x00008000u
#define NODE_STATE_REBOOT_REQUESTED 0x00010000u
#define NODE_STATE_REBOOT_CANCEL    0x00020000u /* update requests only */
#define NODE_STATE_POWERING_DOWN    0x00040000u
#define NODE_STATE_DYNAMIC_FUTURE   0x00080000u
#define NODE_STATE_REBOOT_ISSUED    0x00100000u
#define NODE_STATE_PLANNED	    0x00200000u
#define NODE_STATE_INVALID_REG	    0x00400000u
#define NODE_STATE_POWER_DOWN	    0x00800000u
#define NODE_STATE_POWER_UP	    0x01000000u /* update requests only */
#define NODE_STATE_POWER_DRAIN	    0x02000000u /* update requests only */
#define NODE_STATE_DYNAMIC_NORM	    0x04000000u

/* Upper-case display name without its suffix, chosen by Slurm's
 * precedence (INVAL, MAINT, REBOOT, DRAINING/DRAINED, FAILING/FAIL,
 * whole-value specials like POWER_DOWN, DOWN, ALLOCATED, COMPLETING,
 * IDLE/RESERVED/PLANNED/PERFCTRS, MIXED, FUTURE, RESUME, UNKNOWN; "?" for
 * anything else, e.g. base ERROR). Static string, never NULL. */
const char *node_state_string(uint32_t state);
/* Upper-case compact name without suffix (IDLE ALLOC MIX COMP DRAIN DRNG
 * DOWN FAIL FAILG FUTR MAINT BOOT RESV PLND NPC RESM UNK INVAL "?").
 * Static string, never NULL. */
const char *node_state_compact(uint32_t state);
/* The suffix Slurm appends to both names above, "" if none: at most one of
 * '$' maintenance, '^' reboot issued, '@' reboot requested, '#' powering
 * up, '%' powering down, '~' powered down, '!' power down pending,
 * '*' not responding (first match in that order, and only where Slurm
 * checks it), else '+' allocated and completing, '-' mixed and planned.
 * Static string, never NULL. */
const char *node_state_suffix(uint32_t state);
/* sinfo's column: lower-case long (is_long) or compact name plus suffix,
 * e.g. "mixed", "idle*", "drain", "alloc+". Writes buf (size n, truncated
 * like snprintf) and returns buf. */
char *node_state_sinfo(uint32_t state, bool is_long, char *buf, size_t n);
/* The upper-case base name ("IDLE", "MIXED", ...; "INVALID" unknown). */
const char *node_state_base_name(uint32_t state);
/* The names of state's flags ("DRAIN", "NOT_RESPONDING", ...) in
 * scontrol's order, at most max of them into names; returns the count. */
size_t node_state_flag_list(uint32_t state, const char **names, size_t max);
/* scontrol show node State= value (Slurm's node_state_string_complete):
 * base name (UNKNOWN DOWN IDLE ALLOCATED ERROR MIXED FUTURE, "INVALID" for
 * other bases) then "+FLAG" for each flag set, in Slurm's table order:
 * CLOUD COMPLETING DRAIN DYNAMIC_FUTURE DYNAMIC_NORM INVALID_REG FAIL
 * MAINTENANCE POWER_DOWN POWER_UP PERFCTRS POWERED_DOWN REBOOT_REQUESTED
 * REBOOT_ISSUED RESERVED RESUME NOT_RESPONDING PLANNED POWERING_UP
 * POWERING_DOWN, and "+?" for each other bit. E.g. "IDLE+DRAIN",
 * "DOWN+NOT_RESPONDING", "MIXED+DRAIN". Writes buf (size n, truncated like
 * snprintf) and returns buf. */
char *node_state_scontrol(uint32_t state, char *buf, unsigned n);

/* What "scontrol update NodeName=.. State=X" asks for. */
enum node_update_state {
	NODE_UPDATE_DOWN = 1,
	NODE_UPDATE_DRAIN,
	NODE_UPDATE_FAIL,
	NODE_UPDATE_RESUME,
	NODE_UPDATE_UNDRAIN,
	NODE_UPDATE_IDLE,
	NODE_UPDATE_NORESP,
	NODE_UPDATE_FUTURE,
	NODE_UPDATE_POWER_DOWN,
	NODE_UPDATE_POWER_DOWN_ASAP,
	NODE_UPDATE_POWER_DOWN_FORCE,
	NODE_UPDATE_POWER_UP,
	NODE_UPDATE_CANCEL_REBOOT,
	/* Accepted by scontrol but refused by slurmctld with
	 * ESLURM_INVALID_NODE_STATE, as in Slurm. */
	NODE_UPDATE_UNKNOWN,
	NODE_UPDATE_ALLOCATED,
	NODE_UPDATE_MIXED,
	_NODE_UPDATE_MAX,
};
/* Parse an update State= value as scontrol does: case-insensitive, and any
 * prefix of at least 3 characters of a keyword matches ("dra" = DRAIN);
 * POWER_DOWN, POWER_UP need 7 and POWER_DOWN_ASAP/_FORCE 12. Keywords are
 * tried in scontrol's order: NoResp CANCEL_REBOOT DRAIN FAIL FUTURE RESUME
 * POWER_DOWN_ASAP POWER_DOWN_FORCE POWER_DOWN POWER_UP UNDRAIN, then the
 * base state names UNKNOWN DOWN IDLE ALLOCATED MIXED.
 * Returns 0 and sets *ret, or -EINVAL (NULL or no match; *ret untouched). */
int node_update_state_from_string(const char *s, enum node_update_state *ret);
/* Canonical keyword ("DRAIN", "NoResp", "POWER_DOWN_ASAP", ...); NULL for
 * values outside the enum. */
const char *node_update_state_to_string(enum node_update_state s);
