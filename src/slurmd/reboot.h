/* reboot.h - REQUEST_REBOOT_NODES on the node: slurmd runs RebootProgram
 * (slurm.conf), as root, in a session of its own with SLURMD_NODENAME
 * and SLURM_CONF set, and answers at once; the program is expected to
 * reboot the machine (on the local cluster: to restart this slurmd). As
 * for the Prolog, a program that is not a root-owned (or our own)
 * executable nobody else may change is refused. The words of
 * RebootProgram are its arguments (no shell). Its exit is logged.
 */
#pragma once

struct slurmd;
struct rpc_req;

int slurmd_req_reboot(struct slurmd *d, struct rpc_req *req);
/* From SIGCHLD: the program that ended. */
void slurmd_reboot_reap(struct slurmd *d);
