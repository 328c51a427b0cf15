/* scontrol_update.h - "scontrol update NodeName=..." words into a request. */
#pragma once

struct update_node_msg;
struct reboot_msg;

/* Parse the words after "update" ("NodeName=n1", "State=DRAIN",
 * "Reason=text", "Weight=5", "Features=a,b", "Comment=x") into *m, which
 * is reset first (weight NO_VAL, state 0: no change). Strings in *m point
 * into argv; Reason's surrounding quotes are removed in place.
 * Returns 0, or -EINVAL after printing scontrol's message on stderr: a
 * word without '=', an unknown key, a bad State or Weight, DOWN, DRAIN or
 * FAIL without a Reason, or nothing to change. */
int scontrol_update_node_parse(int argc, char **argv, struct update_node_msg *m);

/* Parse the words after "reboot" ([ASAP] [nextstate=RESUME|DOWN]
 * [reason=text] ALL|NodeList) into *m (next_state NO_VAL when not given;
 * strings point into argv). Returns 0, or -EINVAL after printing
 * scontrol's message: "missing reason", "missing state", an invalid
 * state, an unknown word, no node list. */
int scontrol_reboot_parse(int argc, char **argv, struct reboot_msg *m);
