/* prolog.h - the node's Prolog and Epilog (slurm.conf Prolog=, Epilog=,
 * PrologEpilogTimeout=), run by slurmd as its own user (root) with the
 * job's facts in the environment and nothing of the user's.
 *
 * The Prolog runs before the first launch of a job on this node (its
 * batch script or its first step here), or when the controller asks
 * (REQUEST_LAUNCH_PROLOG, PrologFlags=Alloc); launches that arrive
 * meanwhile wait for it. With PrologFlags=Serial one Prolog or Epilog
 * runs at a time on the node, the others wait their turn. A Prolog that fails (an exit code other than 0, a signal,
 * the timeout, or a program that is missing, not executable or writable
 * by others) fails those launches with ESLURMD_PROLOG_FAILED and has the
 * controller drain the node ("Prolog error").
 *
 * The Epilog runs when the controller ends the job here (a terminate or
 * time limit for every step), once no slurmstepd of the job is left on
 * the node; its result goes to the controller in MESSAGE_EPILOG_COMPLETE
 * (sent until the controller takes it), which drains the node when it
 * failed. A second terminate of a job whose Epilog ran sends the result
 * again and runs nothing.
 *
 * A Prolog or Epilog naming a glob runs every match in order, stopping
 * at the first that fails. Scripts run in a session of their own with
 * /dev/null as input and output; at the timeout the whole session is
 * killed.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct slurmd;
struct rpc_req;
struct signal_job_msg;

/* What a launch tells the Prolog; NULL strings are left out. */
struct pe_facts {
	uint32_t job_id, uid, gid;
	const char *user, *partition, *account, *nodes;
};

/* Carries on with a launch that waited for the Prolog: rc 0 (go on) or
 * -ESLURMD_PROLOG_FAILED (answer req with it). */
typedef void pe_go_fn(struct slurmd *d, struct rpc_req *req, uint32_t job_id, int rc);

int slurmd_pe_init(struct slurmd *d);
/* Kills the scripts still running; launches waiting get an error. */
void slurmd_pe_fini(struct slurmd *d);
/* From SIGCHLD: the scripts that ended. */
void slurmd_pe_reap(struct slurmd *d);

/* Before a launch of f->job_id: 1 when it may go on now (no Prolog, or
 * the job's Prolog ran here), 0 when it waits (go is called later, req
 * kept), -ESLURMD_PROLOG_FAILED when the job's Prolog failed here, or
 * -ENOMEM. */
int slurmd_prolog_before(struct slurmd *d, struct rpc_req *req, const struct pe_facts *f,
			 pe_go_fn *go);
/* REQUEST_LAUNCH_PROLOG (PrologFlags=Alloc): answered at once; the
 * Prolog runs (unless it ran) and its result goes to the controller in
 * REQUEST_COMPLETE_PROLOG, sent until it is taken. */
int slurmd_req_launch_prolog(struct slurmd *d, struct rpc_req *req);
/* A terminate or time limit of every step of m->job_id (after the
 * stepds were told): the Epilog runs once they are gone. Nothing when no
 * Epilog is configured. */
void slurmd_epilog_after(struct slurmd *d, const struct signal_job_msg *m);
