/* states.h - node state numbers and names as Slurm prints them (R24).
 *
 * A node state is a base state in the low 4 bits plus flag bits, with the
 * same numbers as Slurm so that logs and saved state read the same.
 */
#pragma once
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
#define NODE_STATE_BASE 0x0000000fu
#define NODE_STATE_FLAGS 0xfffffff0u
#define NODE_STATE_RES 0x00000020u
#define NODE_STATE_CLOUD 0x00000080u
#define NODE_STATE_DRAIN 0x00000200u
#define NODE_STATE_COMPLETING 0x00000400u
#define NODE_STATE_NO_RESPOND 0x00000800u
#define NODE_STATE_POWERED_DOWN 0x00001000u
#define NODE_STATE_FAIL 0x00002000u
#define NODE_STATE_POWERING_UP 0x00004000u
#define NODE_STATE_MAINT 0x00008000u
#define NODE_STATE_REBOOT_REQUESTED 0x00010000u
#define NODE_STATE_POWERING_DOWN 0x00040000u
#define NODE_STATE_REBOOT_ISSUED 0x00100000u
#define NODE_STATE_PLANNED 0x00200000u
#define NODE_STATE_INVALID_REG 0x00400000u
#define NODE_STATE_POWER_DOWN 0x00800000u

/* Long name as scontrol's State= and sinfo %T print it, e.g. "IDLE",
 * "MIXED", "DRAINING", "DRAINED", "DOWN", "ALLOCATED+"; sinfo appends
 * the suffix ('*' etc.) itself via node_state_suffix(). scontrol's form
 * joins flags with '+' ("IDLE+DRAIN", "DOWN+NOT_RESPONDING"): see
 * node_state_scontrol(). Returns a static string. */
const char *node_state_string(uint32_t state);
/* Compact lower-case name as sinfo %t prints it: idle alloc mix comp drain
 * drng down fail failg futr maint resv plnd boot unk inval. */
const char *node_state_compact(uint32_t state);
/* The one suffix character sinfo appends ('*' not responding, '~', '#',
 * '%', '!', '@', '^', '$'), or "" . */
const char *node_state_suffix(uint32_t state);
/* scontrol show node State= value: base name then "+FLAG" for each flag
 * set, in Slurm's order, e.g. "IDLE+DRAIN", "DOWN+NOT_RESPONDING",
 * "MIXED+DRAIN". Writes into buf (size n) and returns buf. */
char *node_state_scontrol(uint32_t state, char *buf, unsigned n);
/* Parse an update State= value (case-insensitive): DOWN, DRAIN, FAIL,
 * RESUME, UNDRAIN, IDLE, NoResp, POWER_DOWN, ... Returns 0 and sets
 * *ret (one of the NODE_UPDATE_* values below) or -EINVAL. */
enum node_update_state {
	NODE_UPDATE_DOWN = 1,
	NODE_UPDATE_DRAIN,
	NODE_UPDATE_FAIL,
	NODE_UPDATE_RESUME,
	NODE_UPDATE_UNDRAIN,
	NODE_UPDATE_IDLE,
	NODE_UPDATE_NORESP,
	NODE_UPDATE_FUTURE,
	_NODE_UPDATE_MAX,
};
int node_update_state_from_string(const char *s, enum node_update_state *ret);
const char *node_update_state_to_string(enum node_update_state s);
