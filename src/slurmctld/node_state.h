/* node_state.h - persistence of admin-set node states (DRAIN/FAIL/DOWN and
 * their reasons) in StateSaveLocation/node_state, so they survive a
 * controller restart.
 */
#pragma once
#include <stddef.h>

#define NODE_STATE_FILE "node_state"

struct ctld;

/* Write the file atomically (tmp + fsync + rename + fsync of the dir).
 * Returns 0 or -errno; the old file stays intact on failure, which is
 * logged (once until a save succeeds), marks StateSaveLocation as failing
 * (c->state_save_err) and has the journal's commit event try again in a
 * second. */
int node_state_save(struct ctld *c);
/* Apply a saved file to the node table; a missing file is not an error.
 * A corrupt file is -EBADMSG (main decides with -i whether to go on). */
int node_state_load(struct ctld *c);
/* -i: keep an unreadable file as node_state.bad.<time> (never replacing
 * one), so the controller starts from slurm.conf's states. ret_name (len
 * bytes) gets the name. Returns 0 or -errno. */
int node_state_set_aside(struct ctld *c, char *ret_name, size_t len);
