/* node_state.h - persistence of admin-set node states (DRAIN/FAIL/DOWN and
 * their reasons) in StateSaveLocation/node_state, so they survive a
 * controller restart.
 */
#pragma once

struct ctld;

/* Write the file atomically (tmp + fsync + rename + fsync of the dir).
 * Returns 0 or -errno; the old file stays intact on failure. */
int node_state_save(struct ctld *c);
/* Apply a saved file to the node table; a missing file is not an error.
 * A corrupt file is -EBADMSG (main decides with -i whether to go on). */
int node_state_load(struct ctld *c);
