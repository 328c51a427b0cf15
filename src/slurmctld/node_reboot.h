/* node_reboot.h - `scontrol reboot` and `cancel_reboot` on the controller,
 * as Slurm 22.05 does them.
 *
 * A request marks each node REBOOT_REQUESTED (sinfo `boot`, `@`); ASAP
 * drains it too ("Reboot ASAP" unless a reason is given), otherwise the
 * reason "reboot requested" is set where the node has none. Once a second
 * each requested node that runs nothing (no job, no Epilog) and answers
 * is sent REQUEST_REBOOT_NODES: its slurmd runs RebootProgram, the node
 * becomes REBOOT_ISSUED (`boot^`, no job placed there, its silence not
 * counted against SlurmdTimeout) and " : reboot issued" joins the reason.
 * The reboot is done when the node registers from a new boot or a new
 * slurmd (node.c): in service again, or DOWN with nextstate=DOWN
 * (" : reboot complete"). A node not back within ResumeTimeout goes DOWN
 * with " : reboot timed out". Requests and issued reboots are in the
 * node_state file, so a controller restart keeps them.
 */
#pragma once
#include <stdbool.h>
#include <time.h>
#include <sys/types.h>

struct ctld;
struct node;
struct reboot_msg;

int node_reboot_start(struct ctld *c);
void node_reboot_stop(struct ctld *c);

/* REQUEST_REBOOT_NODES from an admin (uid): marks the nodes, all or none.
 * 0 or a negative Slurm code (no RebootProgram, a node that is not). */
int node_reboot_request(struct ctld *c, const struct reboot_msg *m, uid_t uid, time_t now);

/* ---- exposed for unit testing only ---------------------------------- */

/* May a requested reboot of n be issued now (nothing runs there, it
 * answers)? */
bool node_reboot_may_issue(const struct node *n);
/* One pass: issue what may be issued, time out what is overdue.
 * Returns true when a node's state changed (and was saved). */
bool node_reboot_pass(struct ctld *c, time_t now);
