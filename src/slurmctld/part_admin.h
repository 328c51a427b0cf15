/* part_admin.h - scontrol create/update/delete partition on the running
 * controller.
 *
 * An edit is applied to the partition table (slurm.conf's copies) and
 * kept, merged, in c->part_edits: node_state.c saves that list with the
 * nodes' states, and at start part_admin_replay() applies it again, so a
 * restart keeps the edits. `scontrol reconfigure` goes back to slurm.conf
 * and forgets them, as Slurm does without ReconfigFlags=KeepPartInfo.
 */
#pragma once
#include <stdint.h>

#include "common/msg.h"

struct ctld;

/* One kept edit. */
struct part_edit {
	uint16_t type; /* REQUEST_CREATE_PARTITION, _UPDATE_ or _DELETE_ */
	struct part_edit_msg m;
};
#define PART_EDITS_MAX 4096 /* kept edits, merged; more are refused */

/* Apply one edit and keep it. 0, or -ESLURM_INVALID_PARTITION_NAME (no
 * such partition; a create of one that exists), -ESLURM_PARTITION_IN_USE
 * (a delete while jobs use it), -ESLURM_INVALID_NODE_NAME, -EINVAL with
 * *ret_msg (a bad word: malloc'd text), -ENOSPC (too many kept edits),
 * -ENOMEM. Nothing changes on error. */
int part_admin_edit(struct ctld *c, uint16_t type, const struct part_edit_msg *m, char **ret_msg);
/* At start: the kept edits node_state_load() read into c->part_edits,
 * applied in order (one that no longer applies is logged and dropped). */
void part_admin_replay(struct ctld *c);
/* Reconfigure, and shutdown: the kept edits dropped. */
void part_admin_forget(struct ctld *c);
